/* Callers and callees of one function, weighted by samples. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uisession.h"
#include "xalloc.h"

static const struct column columns[] = {
	{"", 8, false}, {"samples", 8, true}, {"share%", 7, true}, {"function", 0, false},
};

static void add(struct ui_session *s, uint32_t function, uint64_t count, bool callee)
{
	for (size_t i = 0; i < s->ncaller_rows; i++) {
		if (s->caller_rows[i].function == function && s->caller_rows[i].callee == callee) {
			s->caller_rows[i].count += count;
			return;
		}
	}
	xgrow(&s->caller_rows, &s->caller_rows_cap, s->ncaller_rows + 1, sizeof *s->caller_rows);
	s->caller_rows[s->ncaller_rows++] = (struct caller_row){function, count, callee};
}

static int compare(const void *a, const void *b)
{
	const struct caller_row *x = a, *y = b;
	if (x->callee != y->callee)
		return x->callee ? 1 : -1; /* callers first */
	return x->count > y->count ? -1 : x->count < y->count;
}

static void count_neighbours(void *ctx, const uint32_t *functions, size_t depth, uint64_t c)
{
	struct ui_session *s = ctx;
	for (size_t d = 0; d < depth; d++) {
		if (functions[d] != s->focus)
			continue;
		if (d > 0 && functions[d - 1] != UINT32_MAX)
			add(s, functions[d - 1], c, false);
		if (d + 1 < depth && functions[d + 1] != UINT32_MAX)
			add(s, functions[d + 1], c, true);
		break; /* a recursive stack counts once */
	}
}

static void update(struct ui_session *s)
{
	struct prof_process *p = ui_current(s);
	s->ncaller_rows = 0;
	if (p && s->focus < p->nfunctions) {
		prof_each_stack(p, count_neighbours, s);
		if (s->ncaller_rows)
			qsort(s->caller_rows, s->ncaller_rows, sizeof *s->caller_rows, compare);
	}
	s->callers_lv.cols = columns;
	s->callers_lv.ncols = sizeof columns / sizeof *columns;
	listview_set_rows(&s->callers_lv, s->ncaller_rows);
}

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct ui_session *s = ctx;
	struct prof_process *p = ui_current(s);
	const struct caller_row *r = &s->caller_rows[row];
	uint64_t focus_total = s->focus < p->nfunctions ? p->functions[s->focus].total : 0;
	switch (col) {
	case 0: snprintf(buf, n, "%s", r->callee ? "callee" : "caller"); break;
	case 1: snprintf(buf, n, "%" PRIu64, r->count); break;
	case 2: snprintf(buf, n, "%.1f", focus_total ? 100.0 * (double)r->count / (double)focus_total : 0.0); break;
	default: snprintf(buf, n, "%s", r->function < p->nfunctions ? p->functions[r->function].name : "[unknown]"); break;
	}
}

static void draw(struct ui_session *s, struct canvas *c, int y, int height)
{
	struct prof_process *p = ui_current(s);
	char line[512];
	if (!p || s->focus >= p->nfunctions) {
		canvas_text(c, y, 0, c->cols, UI_DIM, true, "no function chosen: press Enter on one in Functions");
		return;
	}
	snprintf(line, sizeof line, "%s: %" PRIu64 " samples, %" PRIu64 " in itself", p->functions[s->focus].name,
		 p->functions[s->focus].total, p->functions[s->focus].self);
	canvas_text(c, y, 0, c->cols, UI_HOT, true, line);
	listview_draw(&s->callers_lv, c, y + 1, height - 1, cell, NULL, s);
}

static int key(struct ui_session *s, int k)
{
	if (listview_key(&s->callers_lv, k))
		return KEY_HANDLED | KEY_REDRAW;
	if ((k == '\n' || k == KEY_ENTER) && s->callers_lv.cursor < s->ncaller_rows) {
		s->focus = s->caller_rows[s->callers_lv.cursor].function; /* walk the graph */
		update(s);
		s->callers_lv.cursor = 0;
		return KEY_HANDLED | KEY_REDRAW;
	}
	return KEY_IGNORED;
}

static struct listview *list(struct ui_session *s)
{
	return &s->callers_lv;
}

const struct view_ops view_callers = {"Callers", "who calls the chosen function and what it calls: Enter moves there",
				      update, draw, key, list};
