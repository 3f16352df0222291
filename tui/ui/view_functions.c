/* Top functions: self and total time per function, sortable, filterable. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/session_screen.h"
#include "util/xalloc.h"

enum functions_sort { SORT_SELF, SORT_TOTAL, SORT_NAME };

struct functions {
	struct listview lv;
	enum functions_sort sort;
	uint32_t *rows; /* function indexes, sorted */
	size_t nrows, rows_cap;
};

static const struct column columns[] = {
	{"self%", 6, true}, {"total%", 6, true}, {"self", 8, true}, {"total", 8, true}, {"function", 0, false},
};

struct sort_context {
	const struct prof_function *fns;
	enum functions_sort sort;
};

static int compare(const void *a, const void *b, void *ctx)
{
	const struct sort_context *sc = ctx;
	const struct prof_function *x = &sc->fns[*(const uint32_t *)a], *y = &sc->fns[*(const uint32_t *)b];
	switch (sc->sort) {
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

static void *create(void)
{
	struct functions *f = xcalloc(1, sizeof *f);
	f->lv.cols = columns;
	f->lv.ncols = sizeof columns / sizeof *columns;
	return f;
}

static void destroy(void *priv)
{
	struct functions *f = priv;
	if (f)
		free(f->rows);
	free(f);
}

static void update(struct view *v, struct session_screen *s)
{
	struct functions *f = v->priv;
	struct prof_process *p = ui_samples(s);
	f->nrows = 0;
	if (p) {
		prof_compute(p);
		xgrow(&f->rows, &f->rows_cap, p->nfunctions + 1, sizeof *f->rows);
		for (size_t i = 0; i < p->nfunctions; i++)
			if (p->functions[i].total && (!s->filter[0] || strstr(p->functions[i].name, s->filter)))
				f->rows[f->nrows++] = (uint32_t)i;
		struct sort_context sc = {p->functions, f->sort};
		qsort_r(f->rows, f->nrows, sizeof *f->rows, compare, &sc);
	}
	listview_set_rows(&f->lv, f->nrows);
}

struct cell_context {
	struct functions *f;
	struct prof_process *p;
};

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	const struct cell_context *cc = ctx;
	const struct prof_function *f = &cc->p->functions[cc->f->rows[row]];
	double all = cc->p->samples ? (double)cc->p->samples : 1.0;
	switch (col) {
	case 0: snprintf(buf, n, "%.1f", 100.0 * (double)f->self / all); break;
	case 1: snprintf(buf, n, "%.1f", 100.0 * (double)f->total / all); break;
	case 2: snprintf(buf, n, "%" PRIu64, f->self); break;
	case 3: snprintf(buf, n, "%" PRIu64, f->total); break;
	default: snprintf(buf, n, "%s%s%s%s", f->name, f->module[0] ? "  [" : "", f->module, f->module[0] ? "]" : ""); break;
	}
}

static void draw(struct view *v, struct session_screen *s, struct canvas *c, int y, int height)
{
	struct cell_context cc = {v->priv, ui_samples(s)};
	listview_draw(&cc.f->lv, c, y, height, cell, NULL, &cc);
}

static bool key(struct view *v, struct session_screen *s, int k)
{
	struct functions *f = v->priv;
	if (listview_key(&f->lv, k))
		return true;
	switch (k) {
	case 's':
		f->sort = (f->sort + 1) % 3;
		update(v, s);
		session_screen_message(s, false, "sorted by %s", f->sort == SORT_SELF ? "self" : f->sort == SORT_TOTAL ? "total" : "name");
		return true;
	case 'S':
		if (f->lv.cursor < f->nrows)
			session_screen_show_source(s, f->rows[f->lv.cursor]);
		return true;
	case '\n':
	case KEY_ENTER:
		if (f->lv.cursor < f->nrows) {
			s->focus = f->rows[f->lv.cursor];
			s->views[VIEW_CALLERS].dirty = true;
			session_screen_show(s, VIEW_CALLERS);
		}
		return true;
	}
	return false;
}

static struct listview *list(struct view *v)
{
	return &((struct functions *)v->priv)->lv;
}

const struct view_ops view_functions = {
	.name = "Functions",
	.title = "where time goes: self and total per function",
	.create = create,
	.destroy = destroy,
	.update = update,
	.draw = draw,
	.key = key,
	.list = list,
};
