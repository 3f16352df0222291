/* Locks: where threads waited for locks (contention) or, after 'b', on
 * wait handles: the sites (the waiting thread's stacks) by total wait over
 * the stack of the selected one, root first. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile/export_events.h"
#include "ui/session_screen.h"

#define STACK_MAX 4096

struct locks {
	struct prof_stack_tally *sites; /* by total wait */
	bool waits; /* blocking waits instead of lock contention */
};

static const struct column columns[] = {
	{"wait ms", 10, true}, {"count", 7, true}, {"avg ms", 8, true}, {"waiting in (innermost frames)", 0, false},
};

static const struct prof_stack_tallies *shown(const struct locks *l, struct prof_process *p)
{
	return l->waits ? &p->waits : &p->contention;
}

static void done(void *priv)
{
	free(((struct locks *)priv)->sites);
}

static void update(struct view_ctx *c)
{
	struct locks *l = c->priv;
	free(l->sites);
	l->sites = c->p ? export_sites_sorted(shown(l, c->p)) : NULL;
}

static size_t count(struct view_ctx *c)
{
	return shown(c->priv, c->p)->nsites;
}

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

static void cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct prof_stack_tally *t = &((struct locks *)c->priv)->sites[item];
	switch (col) {
	case 0: snprintf(buf, n, "%.2f", (double)t->total / 1e6); break;
	case 1: snprintf(buf, n, "%" PRIu64, t->count); break;
	case 2: snprintf(buf, n, "%.2f", t->count ? (double)t->total / 1e6 / (double)t->count : 0.0); break;
	default: where(c->p, t->stack, buf, n); break;
	}
}

/* The sites over the stack of the selected one. */
static void draw(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	struct locks *l = c->priv;
	struct prof_process *p = c->p;
	const char *what = l->waits ? "blocking wait" : "lock contention";
	if (!p || !c->v->lv.nrows) {
		char text[160];
		snprintf(text, sizeof text, "No %s recorded yet.", what);
		canvas_text(cv, y, 1, cv->cols - 1, UI_HEADER, false, text);
		canvas_text(cv, y + 1, 1, cv->cols - 1, UI_NORMAL, false,
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
	canvas_text(cv, y, 0, cv->cols, UI_HEADER, true, head);
	int list = height > 8 ? (height - 1) / 2 : height - 1;
	view_draw_list(c, cv, y + 1, list);
	int sy = y + 1 + list;
	if (sy >= y + height)
		return;
	canvas_text(cv, sy++, 0, cv->cols, UI_DIM, true, "stack of the selected site, root first:");
	static uint32_t path[STACK_MAX];
	uint32_t site = 0;
	view_selected(c->v, &site);
	uint32_t stack = l->sites[site].stack;
	size_t depth = stack ? prof_stack_path(p, stack, path, STACK_MAX) : 0;
	/* the innermost frames matter most: skip the outer ones that do not fit */
	size_t room = (size_t)(y + height - sy), from = depth > room ? depth - room : 0;
	for (size_t k = from; k < depth && sy < y + height; k++)
		canvas_text(cv, sy++, 1, cv->cols - 1, k + 1 == depth ? UI_HOT : UI_NORMAL, false,
			    prof_frame_name(p, path[k]));
}

/* 'b' switches between lock contention and blocking waits. */
static bool key(struct view_ctx *c, int k)
{
	struct locks *l = c->priv;
	if (k != 'b')
		return false;
	l->waits = !l->waits;
	c->v->lv.cursor = c->v->lv.top = 0;
	view_update(c->v, c->s);
	return true;
}

const struct view_ops view_locks = {
	.name = "Locks",
	.title = "where threads waited: lock contention ('b': blocking waits) by stack",
	.private_size = sizeof(struct locks), .done = done, .update = update,
	VIEW_COLUMNS(columns), .count = count,
	.cell = cell, .draw = draw,
	.key = key,
};
