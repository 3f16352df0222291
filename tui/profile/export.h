/* A profile written out: the readable table, folded stacks for
 * flamegraph.pl, and the versioned JSON summary (clrscope-session(5)). */
#ifndef CLRSCOPE_EXPORT_H
#define CLRSCOPE_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"

enum export_format { EXPORT_TEXT, EXPORT_COLLAPSED, EXPORT_JSON, EXPORT_SPEEDSCOPE };

struct export_options {
	enum export_format format;
	size_t top;   /* functions listed per process; 0 = the format's default */
	uint32_t pid; /* 0 = every process */
	bool lines;   /* source lines: text and json list them, collapsed and speedscope name frames by line */
	/* heap snapshots: text reports the heap alone (the latest snapshot,
	 * retained sizes, growth), or the paths from the roots to the objects
	 * of one type, which json adds as "retention" */
	bool heap;
	const char *retention;
	/* text: the latest awaits snapshot's chains alone (report --awaits) */
	bool awaits;
};

/* Parses "text", "collapsed", "json" or "speedscope"; -1 when unknown. */
int export_format_parse(const char *name, enum export_format *out);

/* Writes the report; returns the number of processes written. */
size_t export_session(FILE *f, struct prof_recording *s, const struct export_options *o);

/* One process's folded stacks as the collapsed format writes them: lines
 * sorted, each once (free each line, then the array). */
struct export_folded {
	char *line;
	uint64_t count;
};
size_t export_folded_lines(struct prof_process *p, struct export_folded **out);

#endif
