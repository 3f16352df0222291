#include "profile/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/merge.h"
#include "util/strmap.h"
#include "util/xalloc.h"

struct prof_process *diff_subject(struct prof_recording *s, struct prof_process **merged)
{
	*merged = NULL;
	if (s->nprocs == 1)
		return s->procs[0];
	*merged = prof_merge(s, NULL);
	return *merged;
}

static void count_samples(void *ctx, const uint32_t *functions, size_t depth, uint64_t count)
{
	(void)functions, (void)depth;
	*(uint64_t *)ctx += count;
}

/* Adds p's functions to the rows (side 0: base, 1: new). */
static void add_side(struct strmap *index, struct diff_row **rows, size_t *nrows, size_t *cap,
		     struct prof_process *p, int side, uint64_t samples)
{
	for (size_t i = 0; i < p->nfunctions; i++) {
		const struct prof_function *f = &p->functions[i];
		if (!f->total || !f->name)
			continue;
		uint32_t at;
		size_t len = strlen(f->name);
		if (!strmap_get(index, f->name, len, &at)) {
			at = (uint32_t)*nrows;
			xgrow(rows, cap, *nrows + 1, sizeof **rows);
			(*rows)[(*nrows)++] = (struct diff_row){.name = f->name};
			if (!strmap_add(index, f->name, len, at))
				abort();
		}
		struct diff_share *sh = side ? &(*rows)[at].new_ : &(*rows)[at].base;
		/* one name can be several functions (generic instances, overloads) */
		sh->self_pct += 100.0 * (double)f->self / (double)samples;
		sh->total_pct += 100.0 * (double)f->total / (double)samples;
	}
}

static int by_change(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double dx = fabs(x->delta_total_pct), dy = fabs(y->delta_total_pct);
	if (dx != dy)
		return dx < dy ? 1 : -1;
	dx = fabs(x->delta_self_pct), dy = fabs(y->delta_self_pct);
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

void prof_diff_build(struct prof_diff *d, struct prof_process *base, struct prof_process *new_)
{
	memset(d, 0, sizeof *d);
	prof_compute(base);
	prof_compute(new_);
	prof_each_stack(base, count_samples, &d->base_samples);
	prof_each_stack(new_, count_samples, &d->new_samples);
	struct strmap index;
	strmap_init(&index);
	size_t cap = 0;
	if (d->base_samples)
		add_side(&index, &d->rows, &d->nrows, &cap, base, 0, d->base_samples);
	if (d->new_samples)
		add_side(&index, &d->rows, &d->nrows, &cap, new_, 1, d->new_samples);
	strmap_free(&index);

	/* the names outlive the sessions */
	size_t bytes = 0;
	for (size_t i = 0; i < d->nrows; i++)
		bytes += strlen(d->rows[i].name) + 1;
	d->names = xmalloc(bytes ? bytes : 1);
	char *at = d->names;
	for (size_t i = 0; i < d->nrows; i++) {
		struct diff_row *r = &d->rows[i];
		size_t n = strlen(r->name) + 1;
		memcpy(at, r->name, n);
		r->name = at;
		at += n;
		r->delta_self_pct = r->new_.self_pct - r->base.self_pct;
		r->delta_total_pct = r->new_.total_pct - r->base.total_pct;
	}
	if (d->nrows)
		qsort(d->rows, d->nrows, sizeof *d->rows, by_change);
}

void prof_diff_free(struct prof_diff *d)
{
	free(d->rows);
	free(d->names);
	memset(d, 0, sizeof *d);
}
