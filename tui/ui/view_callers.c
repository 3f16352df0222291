/* Callers and callees of the function in focus, weighted by samples. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/labels.h"
#include "ui/session_screen.h"
#include "util/xalloc.h"

struct caller_row {
	uint32_t function;
	uint64_t count;
	bool callee;
};

struct callers {
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

static void init(void *priv)
{
	((struct callers *)priv)->focus = UINT32_MAX;
}

static void done(void *priv)
{
	free(((struct callers *)priv)->rows);
}

static void update(struct view_ctx *c)
{
	struct callers *v = c->priv;
	if (v->focus != c->s->focus)
		c->v->lv.cursor = c->v->lv.top = 0; /* another function: start at its first caller */
	v->focus = c->s->focus;
	v->nrows = 0;
	if (c->p && v->focus < c->p->nfunctions) {
		prof_each_stack(c->p, count_neighbours, v);
		if (v->nrows)
			qsort(v->rows, v->nrows, sizeof *v->rows, compare);
	}
	view_set_rows(c->v, v->nrows);
}

static void cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct callers *v = c->priv;
	const struct prof_process *p = c->p;
	const struct caller_row *r = &v->rows[item];
	uint64_t focus_total = v->focus < p->nfunctions ? p->functions[v->focus].total : 0;
	switch (col) {
	case 0: snprintf(buf, n, "%s", r->callee ? "callee" : "caller"); break;
	case 1: snprintf(buf, n, "%" PRIu64, r->count); break;
	case 2: snprintf(buf, n, "%.1f", focus_total ? 100.0 * (double)r->count / (double)focus_total : 0.0); break;
	default: snprintf(buf, n, "%s", r->function < p->nfunctions ? p->functions[r->function].name : cs_label(CS_LABEL_UNKNOWN)); break;
	}
}

static enum ui_style style(struct view_ctx *c, uint32_t item)
{
	const struct callers *v = c->priv;
	return view_function_style(c->p, v->rows[item].function);
}

/* The function in focus above its callers and callees. */
static int header(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	(void)height;
	const struct prof_process *p = c->p;
	uint32_t focus = ((struct callers *)c->priv)->focus;
	if (!p || focus >= p->nfunctions) {
		canvas_text(cv, y, 0, cv->cols, UI_DIM, true, "no function chosen: press Enter on one in Functions");
		return -1;
	}
	char line[512];
	snprintf(line, sizeof line, "%s: %" PRIu64 " samples, %" PRIu64 " in itself", p->functions[focus].name,
		 p->functions[focus].total, p->functions[focus].self);
	canvas_text(cv, y, 0, cv->cols, UI_HOT, true, line);
	return 1;
}

/* Enter walks the graph to the function under the cursor; S shows its source. */
static bool key(struct view_ctx *c, int k)
{
	struct callers *v = c->priv;
	uint32_t item;
	bool row = view_selected(c->v, &item);
	if (k == 'S') {
		session_screen_show_source(c->s, row ? v->rows[item].function : v->focus);
		return true;
	}
	if ((k == '\n' || k == KEY_ENTER) && row) {
		c->s->focus = v->rows[item].function;
		view_update(c->v, c->s);
		return true;
	}
	return false;
}

const struct view_ops view_callers = {
	.name = "Callers",
	.title = "who calls the chosen function and what it calls: Enter moves there",
	.private_size = sizeof(struct callers), .samples = true, .init = init, .done = done, .update = update,
	VIEW_COLUMNS(columns),
	.cell = cell, .style = style, .header = header,
	.key = key,
};
