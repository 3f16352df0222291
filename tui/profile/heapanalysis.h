/* What holds a heap snapshot's memory, from its graph (heapgraph.h):
 *
 * - the dominator tree (dominators.h): an object's immediate dominator is
 *   the last object every path from the roots to it passes through;
 * - retained sizes: an object's own size plus its dominator subtree's,
 *   the bytes a collection would free without it;
 * - by type: objects, bytes and retained bytes, each object counted once
 *   (an instance inside the dominator subtree of another instance of its
 *   type is not added again: MAT's "minimum retained size");
 * - paths from the roots: each object's shortest path from a root (named
 *   statics preferred, then handles, stacks, the finalization queue), as a
 *   chain of the root's label and the types along it, a run of one type
 *   shown once as "Type+"; objects with the same chain are one group;
 * - suspects: the largest retained subtrees, each followed down while one
 *   child keeps most of it (the object that accumulates).
 *
 * Everything is computed in the reader, in arrays of the graph's size and
 * with explicit stacks (no recursion on the graph's depth). */
#ifndef CLRSCOPE_HEAPANALYSIS_H
#define CLRSCOPE_HEAPANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/dominators.h"
#include "profile/heapgraph.h"

#define HA_NO_PATH 0u

/* A link of a path chain: the root's label (parent HA_NO_PATH) or a type
 * under its parent link. */
struct ha_link {
	uint32_t parent;
	uint32_t what;  /* a label (first link) or a type */
	bool repeated;  /* "Type+": one or more objects of the type in a row */
};

struct ha_type {
	uint64_t count, bytes, retained;
};

struct heap_analysis {
	struct heap_graph g;
	struct dominators dom;
	uint64_t *retained;   /* by node */
	uint32_t *child_start; /* n + 1: the dominator tree's children of v, most retained first */
	uint32_t *children;
	uint8_t *outermost;    /* by node: 1 when no dominator above it is of its type */
	struct ha_type *types; /* by type */
	uint64_t objects, bytes;
	uint32_t *path;        /* by node: its chain's last link (HA_NO_PATH: the super-root) */
	struct ha_link *links; /* by link number; 0 unused */
	uint32_t nlinks;
};

/* Builds the graph of the records and analyses it; -1 (with why) when the
 * records do not make a graph. */
int ha_analyse(const struct hg_records *r, struct heap_analysis *a, char *err, size_t errlen);
void ha_free(struct heap_analysis *a);

/* The type named name, HG_NO_TYPE when the snapshot has none. */
uint32_t ha_type_named(const struct heap_analysis *a, const char *name);

/* The groups of a type's objects by their path from the roots. */
struct ha_path {
	uint32_t link;  /* the chain's last link */
	uint64_t count; /* objects */
	uint64_t bytes; /* their own bytes */
	uint64_t retained; /* retained by the outermost of them */
};
/* The groups of type (of all objects: HG_NO_TYPE), most bytes retained
 * first; returns how many (*out: to free). */
size_t ha_paths(const struct heap_analysis *a, uint32_t type, struct ha_path **out);
/* A chain's links from the root: fills names (labels and type names, into
 * the analysis) and repeated, returns how many (at most cap). */
size_t ha_path_names(const struct heap_analysis *a, uint32_t link, const char **names, bool *repeated, size_t cap);
/* A chain as one line: "root > Type > Type+ > Type" (for keys and text). */
void ha_path_text(const struct heap_analysis *a, uint32_t link, char *out, size_t n);

/* The largest retained subtrees: the super-root's children in the
 * dominator tree, most retained first, each followed down while a single
 * child retains at least HA_ACCUMULATE_PCT of it. */
#define HA_ACCUMULATE_PCT 80
struct ha_suspect {
	uint32_t top;  /* the subtree: a child of the super-root */
	uint32_t node; /* where it accumulates */
};
size_t ha_suspects(const struct heap_analysis *a, struct ha_suspect *out, size_t cap);

#endif
