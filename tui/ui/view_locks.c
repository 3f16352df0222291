/* Locks: where threads waited for locks (contention) or, after 'w', on
 * wait handles: the sites (the waiting thread's stacks) by total wait over
 * the stack of the selected one, root first. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "export_events.h"
#include "uisession.h"

#define STACK_MAX 4096

static const struct column columns[] = {
	{"wait ms", 10, true}, {"count", 7, true}, {"avg ms", 8, true}, {"waiting in (innermost frames)", 0, false},
};

static const struct prof_stack_tallies *shown(struct ui_session *s, struct prof_process *p)
{
	return s->locks_waits ? &p->waits : &p->contention;
}

static void update(struct ui_session *s)
{
	struct prof_process *p = ui_current(s);
	free(s->lock_rows);
	s->lock_rows = NULL;
	s->nlock_rows = 0;
	if (p) {
		s->lock_rows = export_sites_sorted(shown(s, p));
		s->nlock_rows = shown(s, p)->nsites;
	}
	s->locks_lv.cols = columns;
	s->locks_lv.ncols = sizeof columns / sizeof *columns;
	listview_set_rows(&s->locks_lv, s->nlock_rows);
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

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct ui_session *s = ctx;
	const struct prof_stack_tally *t = &s->lock_rows[row];
	switch (col) {
	case 0: snprintf(buf, n, "%.2f", (double)t->total / 1e6); break;
	case 1: snprintf(buf, n, "%" PRIu64, t->count); break;
	case 2: snprintf(buf, n, "%.2f", t->count ? (double)t->total / 1e6 / (double)t->count : 0.0); break;
	default: where(ui_current(s), t->stack, buf, n); break;
	}
}

static void draw(struct ui_session *s, struct canvas *c, int y, int height)
{
	struct prof_process *p = ui_current(s);
	const char *what = s->locks_waits ? "blocking wait" : "lock contention";
	if (!p || !s->nlock_rows) {
		char text[160];
		snprintf(text, sizeof text, "No %s recorded yet.", what);
		canvas_text(c, y, 1, c->cols - 1, UI_HEADER, false, text);
		canvas_text(c, y + 1, 1, c->cols - 1, UI_NORMAL, false,
			    s->locks_waits ? "Waits are recorded while the waits event kind is on (.NET 9 and later); "
					     "'w' shows lock contention."
					   : "Contention is recorded while the contention event kind is on; 'w' shows "
					     "blocking waits.");
		return;
	}
	const struct prof_stack_tallies *t = shown(s, p);
	char head[200];
	snprintf(head, sizeof head, "%s: %" PRIu64 " waits, %.2f ms in all ('w': %s)", what, t->count,
		 (double)t->total / 1e6, s->locks_waits ? "lock contention" : "blocking waits");
	canvas_text(c, y, 0, c->cols, UI_HEADER, true, head);
	int list = height > 8 ? (height - 1) / 2 : height - 1;
	listview_draw(&s->locks_lv, c, y + 1, list, cell, NULL, s);
	int sy = y + 1 + list;
	if (sy >= y + height)
		return;
	canvas_text(c, sy++, 0, c->cols, UI_DIM, true, "stack of the selected site, root first:");
	static uint32_t path[STACK_MAX];
	uint32_t stack = s->lock_rows[s->locks_lv.cursor].stack;
	size_t depth = stack ? prof_stack_path(p, stack, path, STACK_MAX) : 0;
	/* the innermost frames matter most: skip the outer ones that do not fit */
	size_t room = (size_t)(y + height - sy), from = depth > room ? depth - room : 0;
	for (size_t k = from; k < depth && sy < y + height; k++)
		canvas_text(c, sy++, 1, c->cols - 1, k + 1 == depth ? UI_HOT : UI_NORMAL, false,
			    prof_frame_name(p, path[k]));
}

static int key(struct ui_session *s, int k)
{
	if (k == 'w') {
		s->locks_waits = !s->locks_waits;
		s->locks_lv.cursor = s->locks_lv.top = 0;
		update(s);
		return KEY_HANDLED | KEY_REDRAW;
	}
	return listview_key(&s->locks_lv, k) ? KEY_HANDLED | KEY_REDRAW : KEY_IGNORED;
}

static struct listview *list(struct ui_session *s)
{
	return &s->locks_lv;
}

const struct view_ops view_locks = {"Locks", "where threads waited: lock contention ('w': blocking waits) by stack",
				    update, draw, key, list};
