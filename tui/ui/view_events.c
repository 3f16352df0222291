/* Runtime events as they arrive: GC, exceptions, JIT, modules, threads,
 * dials; filterable; follows the tail unless scrolled up. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uisession.h"
#include "xalloc.h"

struct events {
	struct listview lv;
	uint32_t *rows; /* indexes into the process's event log */
	size_t nrows, rows_cap;
	uint32_t hidden_kinds; /* bits of prof_event_kind filtered out */
};

static const struct column columns[] = {
	{"time s", 9, true}, {"kind", 9, false}, {"event", 0, false},
};

static void *create(void)
{
	struct events *e = xcalloc(1, sizeof *e);
	e->lv.cols = columns;
	e->lv.ncols = sizeof columns / sizeof *columns;
	e->lv.follow = true;
	return e;
}

static void destroy(void *priv)
{
	struct events *e = priv;
	if (e)
		free(e->rows);
	free(e);
}

static void update(struct view *v, struct ui_session *s)
{
	struct events *e = v->priv;
	struct prof_process *p = ui_current(s);
	e->nrows = 0;
	if (p) {
		xgrow(&e->rows, &e->rows_cap, p->nlog + 1, sizeof *e->rows);
		for (size_t i = 0; i < p->nlog; i++) {
			if (e->hidden_kinds & (1u << p->log[i].kind))
				continue;
			if (s->filter[0] && !strstr(p->log[i].text, s->filter))
				continue;
			e->rows[e->nrows++] = (uint32_t)i;
		}
	}
	listview_set_rows(&e->lv, e->nrows);
}

struct cell_context {
	struct events *e;
	struct prof_process *p;
};

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	const struct cell_context *cc = ctx;
	const struct prof_event_line *e = &cc->p->log[cc->e->rows[row]];
	switch (col) {
	case 0: snprintf(buf, n, "%.3f", (double)e->time_us / 1e6); break;
	case 1: snprintf(buf, n, "%s", prof_event_kind_name(e->kind)); break;
	default: snprintf(buf, n, "%s", e->text); break;
	}
}

static enum ui_style style(void *ctx, size_t row)
{
	const struct cell_context *cc = ctx;
	uint8_t kind = cc->p->log[cc->e->rows[row]].kind;
	return kind == PEV_EXCEPTION || kind == PEV_MESSAGE ? UI_WARN : kind == PEV_GC ? UI_HOT : UI_NORMAL;
}

static void draw(struct view *v, struct ui_session *s, struct canvas *c, int y, int height)
{
	struct cell_context cc = {v->priv, ui_current(s)};
	listview_draw(&cc.e->lv, c, y, height, cell, style, &cc);
}

static bool key(struct view *v, struct ui_session *s, int k)
{
	(void)s;
	return listview_key(&((struct events *)v->priv)->lv, k);
}

static struct listview *list(struct view *v)
{
	return &((struct events *)v->priv)->lv;
}

const struct view_ops view_events = {
	.name = "Events",
	.title = "GC, exceptions, JIT, modules, threads and dials as they happen",
	.create = create,
	.destroy = destroy,
	.update = update,
	.draw = draw,
	.key = key,
	.list = list,
};
