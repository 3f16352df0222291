/* Diff: the shown process against a recorded session (':diff DIR'), per
 * function its share of the samples in each and the change in points,
 * largest first; functions that gained time in warning colour, those that
 * lost it in good colour. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/diff.h"
#include "profile/merge.h"
#include "ui/session_screen.h"
#include "ui/view_diff.h"
#include "util/xalloc.h"

struct diff_view {
	bool have_base;
	struct prof_recording base;
	struct prof_process *base_merged; /* the base's processes merged, when several */
	char *dir;
	struct prof_diff d;
};

static const struct column columns[] = {
	{"base%", 7, true}, {"now%", 7, true}, {"total +-", 9, true}, {"self +-", 8, true}, {"function", 0, false},
};

static void drop_base(struct diff_view *d)
{
	prof_diff_free(&d->d);
	if (d->have_base) {
		prof_merge_free(d->base_merged);
		prof_recording_free(&d->base);
	}
	d->have_base = false;
	d->base_merged = NULL;
	free(d->dir);
	d->dir = NULL;
}

static void done(void *priv)
{
	drop_base(priv);
}

static void update(struct view_ctx *c)
{
	struct diff_view *d = c->priv;
	prof_diff_free(&d->d);
	if (d->have_base && c->p) {
		struct prof_process *base = d->base_merged ? d->base_merged : d->base.procs[0];
		prof_diff_build(&d->d, base, c->p);
	}
}

/* Its rows are the diff's, largest change first. */
static size_t count(struct view_ctx *c)
{
	return ((struct diff_view *)c->priv)->d.nrows;
}

struct prof_process *view_diff_base(struct view *v, const char **dir)
{
	struct diff_view *d = v->priv;
	if (!d->have_base)
		return NULL;
	if (dir)
		*dir = d->dir;
	return d->base_merged ? d->base_merged : d->base.procs[0];
}

int view_diff_compare(struct view *v, struct session_screen *s, const char *dir, char *err, size_t errlen)
{
	struct diff_view *d = v->priv;
	struct prof_recording base;
	if (prof_recording_open(&base, dir, err, errlen) < 0)
		return -1;
	prof_recording_update(&base, true);
	if (!base.nprocs) {
		snprintf(err, errlen, "%s has no profiled process", dir);
		prof_recording_free(&base);
		return -1;
	}
	drop_base(d);
	d->base = base;
	d->have_base = true;
	d->dir = xstrdup(dir);
	d->base_merged = d->base.nprocs > 1 ? prof_merge(&d->base, NULL) : NULL;
	v->lv.cursor = v->lv.top = 0;
	view_update(v, s);
	return 0;
}

static void cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct diff_row *r = &((struct diff_view *)c->priv)->d.rows[item];
	switch (col) {
	case 0: snprintf(buf, n, "%.2f", r->base.total_pct); break;
	case 1: snprintf(buf, n, "%.2f", r->new_.total_pct); break;
	case 2: snprintf(buf, n, "%+.2f", r->delta_total_pct); break;
	case 3: snprintf(buf, n, "%+.2f", r->delta_self_pct); break;
	default: snprintf(buf, n, "%s", r->name); break;
	}
}

/* A change under half a point is noise at these sample counts. */
static enum ui_style row_style(struct view_ctx *c, uint32_t item)
{
	const struct diff_row *r = &((struct diff_view *)c->priv)->d.rows[item];
	return r->delta_total_pct >= 0.5 ? UI_WARN : r->delta_total_pct <= -0.5 ? UI_GOOD : UI_NORMAL;
}

/* What is compared with what. */
static int header(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	(void)height;
	struct diff_view *d = c->priv;
	if (!d->have_base) {
		canvas_text(cv, y, 1, cv->cols - 1, UI_HEADER, false, "Nothing to compare with yet.");
		canvas_text(cv, y + 1, 1, cv->cols - 1, UI_NORMAL, false,
			    "':diff DIR' compares the shown process with the session recorded in DIR.");
		return -1;
	}
	char head[600];
	snprintf(head, sizeof head, "base %s: %" PRIu64 " samples; now: %" PRIu64 " samples (+: more time now)", d->dir,
		 d->d.base_samples, d->d.new_samples);
	canvas_text(cv, y, 0, cv->cols, UI_HEADER, true, head);
	return 1;
}

const struct view_ops view_diff = {
	.name = "Diff",
	.title = "the shown process against a recorded session (':diff DIR'): share of time, change in points",
	.private_size = sizeof(struct diff_view), .samples = true, .done = done, .update = update,
	VIEW_COLUMNS(columns), .count = count,
	.cell = cell, .style = row_style, .header = header,
};
