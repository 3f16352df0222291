/* Top functions: self and total time per function, sortable, filterable. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uisession.h"
#include "xalloc.h"

static const struct column columns[] = {
	{"self%", 6, true}, {"total%", 6, true}, {"self", 8, true}, {"total", 8, true}, {"function", 0, false},
};

static int compare(const void *a, const void *b, void *ctx)
{
	struct ui_session *s = ctx;
	const struct prof_function *fns = ui_current(s)->functions;
	const struct prof_function *x = &fns[*(const uint32_t *)a], *y = &fns[*(const uint32_t *)b];
	switch (s->sort) {
	case SORT_TOTAL:
		if (x->total != y->total)
			return x->total > y->total ? -1 : 1;
		break;
	case SORT_NAME:
		return strcmp(x->name, y->name);
	case SORT_SELF:
		if (x->self != y->self)
			return x->self > y->self ? -1 : 1;
		if (x->total != y->total)
			return x->total > y->total ? -1 : 1;
		break;
	}
	return strcmp(x->name, y->name);
}

static void update(struct ui_session *s)
{
	struct prof_process *p = ui_current(s);
	s->nfunction_rows = 0;
	if (!p) {
		listview_set_rows(&s->functions_lv, 0);
		return;
	}
	prof_compute(p);
	xgrow(&s->function_rows, &s->function_rows_cap, p->nfunctions + 1, sizeof *s->function_rows);
	for (size_t i = 0; i < p->nfunctions; i++)
		if (p->functions[i].total && (!s->filter[0] || strstr(p->functions[i].name, s->filter)))
			s->function_rows[s->nfunction_rows++] = (uint32_t)i;
	qsort_r(s->function_rows, s->nfunction_rows, sizeof *s->function_rows, compare, s);
	s->functions_lv.cols = columns;
	s->functions_lv.ncols = sizeof columns / sizeof *columns;
	listview_set_rows(&s->functions_lv, s->nfunction_rows);
}

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct ui_session *s = ctx;
	struct prof_process *p = ui_current(s);
	const struct prof_function *f = &p->functions[s->function_rows[row]];
	double all = p->samples ? (double)p->samples : 1.0;
	switch (col) {
	case 0: snprintf(buf, n, "%.1f", 100.0 * (double)f->self / all); break;
	case 1: snprintf(buf, n, "%.1f", 100.0 * (double)f->total / all); break;
	case 2: snprintf(buf, n, "%" PRIu64, f->self); break;
	case 3: snprintf(buf, n, "%" PRIu64, f->total); break;
	default: snprintf(buf, n, "%s%s%s%s", f->name, f->module[0] ? "  [" : "", f->module, f->module[0] ? "]" : ""); break;
	}
}

static void draw(struct ui_session *s, struct canvas *c, int y, int height)
{
	listview_draw(&s->functions_lv, c, y, height, cell, NULL, s);
}

static int key(struct ui_session *s, int k)
{
	if (listview_key(&s->functions_lv, k))
		return KEY_HANDLED | KEY_REDRAW;
	switch (k) {
	case 's':
		s->sort = (s->sort + 1) % 3;
		update(s);
		ui_session_message(s, false, "sorted by %s", s->sort == SORT_SELF ? "self" : s->sort == SORT_TOTAL ? "total" : "name");
		return KEY_HANDLED | KEY_REDRAW;
	case '\n':
	case KEY_ENTER:
		if (s->functions_lv.cursor < s->nfunction_rows) {
			s->focus = s->function_rows[s->functions_lv.cursor];
			s->view = 2; /* callers and callees */
			ui_session_update_views(s);
		}
		return KEY_HANDLED | KEY_REDRAW;
	}
	return KEY_IGNORED;
}

static struct listview *list(struct ui_session *s)
{
	return &s->functions_lv;
}

const struct view_ops view_functions = {"Functions", "where time goes: self and total per function", update, draw, key, list};
