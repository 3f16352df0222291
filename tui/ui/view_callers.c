/* Callers and callees of the function in focus, weighted by samples. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/session_screen.h"
#include "util/xalloc.h"

struct caller_row {
	uint32_t function;
	uint64_t count;
	bool callee;
};

struct callers {
	struct listview lv;
	uint32_t focus; /* the function counted for (the session's focus at the last update) */
	struct caller_row *rows;
	size_t nrows, rows_cap;
};

static const struct column columns[] = {
	{"", 8, false}, {"samples", 8, true}, {"share%", 7, true}, {"function", 0, false},
};

static void add(struct callers *v, uint32_t function, uint64_t count, bool callee)
{
	for (size_t i = 0; i < v->nrows; i++) {
		if (v->rows[i].function == function && v->rows[i].callee == callee) {
			v->rows[i].count += count;
			return;
		}
	}
	xgrow(&v->rows, &v->rows_cap, v->nrows + 1, sizeof *v->rows);
	v->rows[v->nrows++] = (struct caller_row){function, count, callee};
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
	struct callers *v = ctx;
	for (size_t d = 0; d < depth; d++) {
		if (functions[d] != v->focus)
			continue;
		if (d > 0 && functions[d - 1] != UINT32_MAX)
			add(v, functions[d - 1], c, false);
		if (d + 1 < depth && functions[d + 1] != UINT32_MAX)
			add(v, functions[d + 1], c, true);
		break; /* a recursive stack counts once */
	}
}

static void *create(void)
{
	struct callers *v = xcalloc(1, sizeof *v);
	v->lv.cols = columns;
	v->lv.ncols = sizeof columns / sizeof *columns;
	v->focus = UINT32_MAX;
	return v;
}

static void destroy(void *priv)
{
	struct callers *v = priv;
	if (v)
		free(v->rows);
	free(v);
}

static void update(struct view *view, struct session_screen *s)
{
	struct callers *v = view->priv;
	struct prof_process *p = ui_samples(s);
	if (v->focus != s->focus)
		v->lv.cursor = v->lv.top = 0; /* another function: start at its first caller */
	v->focus = s->focus;
	v->nrows = 0;
	if (p && v->focus < p->nfunctions) {
		prof_each_stack(p, count_neighbours, v);
		if (v->nrows)
			qsort(v->rows, v->nrows, sizeof *v->rows, compare);
	}
	listview_set_rows(&v->lv, v->nrows);
}

struct cell_context {
	struct callers *v;
	struct prof_process *p;
};

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	const struct cell_context *cc = ctx;
	struct prof_process *p = cc->p;
	const struct caller_row *r = &cc->v->rows[row];
	uint32_t focus = cc->v->focus;
	uint64_t focus_total = focus < p->nfunctions ? p->functions[focus].total : 0;
	switch (col) {
	case 0: snprintf(buf, n, "%s", r->callee ? "callee" : "caller"); break;
	case 1: snprintf(buf, n, "%" PRIu64, r->count); break;
	case 2: snprintf(buf, n, "%.1f", focus_total ? 100.0 * (double)r->count / (double)focus_total : 0.0); break;
	default: snprintf(buf, n, "%s", r->function < p->nfunctions ? p->functions[r->function].name : "[unknown]"); break;
	}
}

static void draw(struct view *view, struct session_screen *s, struct canvas *c, int y, int height)
{
	struct cell_context cc = {view->priv, ui_samples(s)};
	struct prof_process *p = cc.p;
	uint32_t focus = cc.v->focus;
	char line[512];
	if (!p || focus >= p->nfunctions) {
		canvas_text(c, y, 0, c->cols, UI_DIM, true, "no function chosen: press Enter on one in Functions");
		return;
	}
	snprintf(line, sizeof line, "%s: %" PRIu64 " samples, %" PRIu64 " in itself", p->functions[focus].name,
		 p->functions[focus].total, p->functions[focus].self);
	canvas_text(c, y, 0, c->cols, UI_HOT, true, line);
	listview_draw(&cc.v->lv, c, y + 1, height - 1, cell, NULL, &cc);
}

static bool key(struct view *view, struct session_screen *s, int k)
{
	struct callers *v = view->priv;
	if (listview_key(&v->lv, k))
		return true;
	if (k == 'S') {
		session_screen_show_source(s, v->lv.cursor < v->nrows ? v->rows[v->lv.cursor].function : v->focus);
		return true;
	}
	if ((k == '\n' || k == KEY_ENTER) && v->lv.cursor < v->nrows) {
		s->focus = v->rows[v->lv.cursor].function; /* walk the graph */
		update(view, s);
		return true;
	}
	return false;
}

static struct listview *list(struct view *v)
{
	return &((struct callers *)v->priv)->lv;
}

const struct view_ops view_callers = {
	.name = "Callers",
	.title = "who calls the chosen function and what it calls: Enter moves there",
	.create = create,
	.destroy = destroy,
	.update = update,
	.draw = draw,
	.key = key,
	.list = list,
};
