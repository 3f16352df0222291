/* A heap snapshot's analysis in brief, kept with the snapshot once made
 * (the analysis itself is large and kept for one snapshot at a time):
 * its types with their retained bytes, its objects grouped by path from
 * the roots, its largest retained subtrees; and what changed between two
 * snapshots, by type and by path. */
#ifndef CLRSCOPE_HEAPSUMMARY_H
#define CLRSCOPE_HEAPSUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/* A type, or a path from the roots ("root > Type > Type+ > Type"). */
struct heap_row {
	char *name;
	uint64_t count, bytes, retained;
};

#define HEAP_SUSPECTS 10

struct heap_suspect {
	char *type;        /* of the object where the subtree accumulates */
	char *path;        /* that object's path from the roots */
	uint64_t retained; /* the subtree's (the top object's) */
	uint64_t held;     /* the accumulating object's */
};

struct heap_summary {
	uint64_t seq;
	uint64_t objects, bytes, references, roots;
	uint64_t unreported, external_refs, unplaced_roots;
	struct heap_row *types; /* most retained first */
	size_t ntypes;
	struct heap_row *paths; /* every object's group; retained: of the group's outermost of each type */
	size_t npaths;
	struct heap_suspect suspects[HEAP_SUSPECTS];
	size_t nsuspects;
};

/* The summary of snapshot h (made once, kept in h); NULL, with why, when
 * h has no object graph. */
const struct heap_summary *prof_heap_summary(struct prof_process *p, const struct prof_heap *h, char *err,
					     size_t errlen);
/* The row of a type (or a path) by name, NULL when absent. */
const struct heap_row *heap_summary_find(const struct heap_row *rows, size_t n, const char *name);
void heap_summary_free(struct heap_summary *s);

/* What changed from before to after: every name of either, with its
 * counts in each; most changed bytes first. */
struct heap_change {
	const char *name; /* the summaries' */
	struct heap_row before, after; /* (their names unused) */
};
size_t heap_changes(const struct heap_row *before, size_t nbefore, const struct heap_row *after, size_t nafter,
		    struct heap_change **out);

/* The types whose count grew from each snapshot to the next (at least two
 * summaries, oldest first); their names, into the last summary, most
 * grown first.  Returns how many (*out: to free). */
size_t heap_growing_types(const struct heap_summary *const *s, size_t n, const char ***out);

#endif
