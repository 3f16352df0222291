/* Locks: where threads waited for locks (contention) or, after 'b', on
 * wait handles: the sites (the waiting thread's stacks) by total wait over
 * the stack of the selected one, root first. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile/export_events.h"
#include "ui/session_screen.h"

#include "util/xalloc.h"

#define STACK_MAX 4096

struct locks {
	struct listview lv;
	struct prof_stack_tally *rows; /* sites by total wait */
	size_t nrows;
	bool waits; /* blocking waits instead of lock contention */
};

static const struct column columns[] = {
	{"wait ms", 10, true}, {"count", 7, true}, {"avg ms", 8, true}, {"waiting in (innermost frames)", 0, false},
};

static const struct prof_stack_tallies *shown(struct locks *l, struct prof_process *p)
{
	return l->waits ? &p->waits : &p->contention;
}

static void *create(void)
{
	struct locks *l = xcalloc(1, sizeof *l);
	l->lv.cols = columns;
	l->lv.ncols = sizeof columns / sizeof *columns;
	return l;
}

static void destroy(void *priv)
{
	struct locks *l = priv;
	if (l)
		free(l->rows);
	free(l);
}

static void update(struct view *v, struct session_screen *s)
{
	struct locks *l = v->priv;
	struct prof_process *p = ui_current(s);
	free(l->rows);
	l->rows = NULL;
	l->nrows = 0;
	if (p) {
		l->rows = export_sites_sorted(shown(l, p));
		l->nrows = shown(l, p)->nsites;
	}
	listview_set_rows(&l->lv, l->nrows);
}

struct cell_context {
	struct locks *l;
	struct prof_process *p;
};

/* The innermost frames of a stack, "leaf <- caller <- ...". */
static void where(struct prof_process *p, uint32_t stack, char *buf, size_t n)
{
	static uint32_t path[STACK_MAX];
	size_t depth = stack ? prof_stack_path(p, stack, path, STACK_MAX) : 0;
	size_t at = 0;
	buf[0] = 0;
	for (size_t k = 0; k < depth && k < 4 && at < n; k++)
		at += (size_t)snprintf(buf + at, n - at, "%s%s", k ? " <- " : "", prof_frame_name(p, path[depth - 1 - k]));
	if (!depth)
		snprintf(buf, n, "(stack not walked)");
}

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	const struct cell_context *cc = ctx;
	const struct prof_stack_tally *t = &cc->l->rows[row];
	switch (col) {
	case 0: snprintf(buf, n, "%.2f", (double)t->total / 1e6); break;
	case 1: snprintf(buf, n, "%" PRIu64, t->count); break;
	case 2: snprintf(buf, n, "%.2f", t->count ? (double)t->total / 1e6 / (double)t->count : 0.0); break;
	default: where(cc->p, t->stack, buf, n); break;
	}
}

static void draw(struct view *v, struct session_screen *s, struct canvas *c, int y, int height)
{
	struct locks *l = v->priv;
	struct prof_process *p = ui_current(s);
	struct cell_context cc = {l, p};
	const char *what = l->waits ? "blocking wait" : "lock contention";
	if (!p || !l->nrows) {
		char text[160];
		snprintf(text, sizeof text, "No %s recorded yet.", what);
		canvas_text(c, y, 1, c->cols - 1, UI_HEADER, false, text);
		canvas_text(c, y + 1, 1, c->cols - 1, UI_NORMAL, false,
			    l->waits ? "Waits are recorded while the waits event kind is on (.NET 9 and later); "
					     "'b' shows lock contention."
					   : "Contention is recorded while the contention event kind is on; 'b' shows "
					     "blocking waits.");
		return;
	}
	const struct prof_stack_tallies *t = shown(l, p);
	char head[200];
	snprintf(head, sizeof head, "%s: %" PRIu64 " waits, %.2f ms in all ('b': %s)", what, t->count,
		 (double)t->total / 1e6, l->waits ? "lock contention" : "blocking waits");
	canvas_text(c, y, 0, c->cols, UI_HEADER, true, head);
	int list = height > 8 ? (height - 1) / 2 : height - 1;
	listview_draw(&l->lv, c, y + 1, list, cell, NULL, &cc);
	int sy = y + 1 + list;
	if (sy >= y + height)
		return;
	canvas_text(c, sy++, 0, c->cols, UI_DIM, true, "stack of the selected site, root first:");
	static uint32_t path[STACK_MAX];
	uint32_t stack = l->rows[l->lv.cursor].stack;
	size_t depth = stack ? prof_stack_path(p, stack, path, STACK_MAX) : 0;
	/* the innermost frames matter most: skip the outer ones that do not fit */
	size_t room = (size_t)(y + height - sy), from = depth > room ? depth - room : 0;
	for (size_t k = from; k < depth && sy < y + height; k++)
		canvas_text(c, sy++, 1, c->cols - 1, k + 1 == depth ? UI_HOT : UI_NORMAL, false,
			    prof_frame_name(p, path[k]));
}

static bool key(struct view *v, struct session_screen *s, int k)
{
	struct locks *l = v->priv;
	if (k == 'b') {
		l->waits = !l->waits;
		l->lv.cursor = l->lv.top = 0;
		update(v, s);
		return true;
	}
	return listview_key(&l->lv, k);
}

static struct listview *list(struct view *v)
{
	return &((struct locks *)v->priv)->lv;
}

const struct view_ops view_locks = {
	.name = "Locks",
	.title = "where threads waited: lock contention ('b': blocking waits) by stack",
	.create = create,
	.destroy = destroy,
	.update = update,
	.draw = draw,
	.key = key,
	.list = list,
};
