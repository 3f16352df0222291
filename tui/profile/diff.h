/* Two profiles compared function by function: each function's share of
 * the samples (self and total) in a base and a new session, and how many
 * percentage points it moved.  Sessions of several processes are compared
 * as their merge; functions are matched by name. */
#ifndef CLRSCOPE_DIFF_H
#define CLRSCOPE_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

struct diff_share {
	double self_pct, total_pct;
};

struct diff_row {
	const char *name; /* owned by the diff */
	struct diff_share base, new_;
	double delta_self_pct, delta_total_pct;
};

struct prof_diff {
	uint64_t base_samples, new_samples;
	struct diff_row *rows; /* largest change of total first, then of self */
	size_t nrows;
	char *names; /* the rows' names, packed */
};

/* The process a session is compared as: its only one, or the merge of all
 * (*merged, to be freed with prof_merge_free; NULL when not needed). */
struct prof_process *diff_subject(struct prof_recording *s, struct prof_process **merged);
/* Compares base with new (both computed here). */
void prof_diff_build(struct prof_diff *d, struct prof_process *base, struct prof_process *new_);
void prof_diff_free(struct prof_diff *d);

#endif
