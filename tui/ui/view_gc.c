/* Garbage collections: strip charts of pause times and heap size per
 * collection over the table of collections (generation, reason, type, pause,
 * heap per generation after it). */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>

#include <stdlib.h>

#include "ui/session_screen.h"
#include "util/xalloc.h"

static const struct column columns[] = {
	{"time s", 9, true},   {"gen", 3, true},     {"reason", 18, false},  {"type", 10, false}, {"pause ms", 9, true},
	{"took ms", 8, true},  {"gen0 MiB", 9, true}, {"gen1 MiB", 9, true}, {"gen2 MiB", 9, true},
	{"LOH MiB", 8, true},  {"POH MiB", 8, true},
};

static uint64_t heap_after(const struct prof_gc *g)
{
	uint64_t sum = 0;
	for (int i = 0; i < CS_GC_GENERATIONS; i++)
		sum += g->gen_bytes[i];
	return sum;
}

static void *create(void)
{
	struct listview *lv = xcalloc(1, sizeof *lv); /* its rows are the process's collections */
	lv->cols = columns;
	lv->ncols = sizeof columns / sizeof *columns;
	lv->follow = true;
	return lv;
}

static void destroy(void *priv)
{
	free(priv);
}

static struct listview *list(struct view *v)
{
	return v->priv;
}

static void update(struct view *v, struct session_screen *s)
{
	struct prof_process *p = ui_current(s);
	listview_set_rows(list(v), p ? p->ngcs : 0);
}

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	const struct prof_process *p = ctx;
	const struct prof_gc *g = &p->gcs[row];
	switch (col) {
	case 0: snprintf(buf, n, "%.3f", (double)g->start_us / 1e6); break;
	case 1: snprintf(buf, n, "%u", g->generation); break;
	case 2: snprintf(buf, n, "%s", prof_gc_reason(g)); break;
	case 3: snprintf(buf, n, "%s", cs_gc_type_name(g->type)); break;
	case 4: snprintf(buf, n, "%.2f", (double)g->pause_us / 1000.0); break;
	case 5: snprintf(buf, n, "%.2f", (double)g->duration_us / 1000.0); break;
	default: snprintf(buf, n, "%.2f", (double)g->gen_bytes[col - 6] / 1048576.0); break;
	}
}

static enum ui_style style(void *ctx, size_t row)
{
	const struct prof_process *p = ctx;
	return p->gcs[row].generation >= 2 ? UI_HOT : UI_NORMAL;
}

/* One cell per collection, the newest at the right edge. */
static void strip(struct canvas *c, int y, const char *label, const struct prof_process *p,
		  uint64_t (*value)(const struct prof_gc *), const char *unit, double scale)
{
	char text[64];
	int lw = 18;
	canvas_fill(c, y, 0, c->cols, UI_NORMAL);
	int width = c->cols - lw;
	if (width < 1)
		return;
	size_t first = p->ngcs > (size_t)width ? p->ngcs - (size_t)width : 0;
	uint64_t max = 1;
	for (size_t i = first; i < p->ngcs; i++)
		if (value(&p->gcs[i]) > max)
			max = value(&p->gcs[i]);
	snprintf(text, sizeof text, "%s %.1f%s", label, (double)max / scale, unit);
	canvas_text(c, y, 0, lw, UI_DIM, true, text);
	for (size_t i = first; i < p->ngcs; i++) {
		int level = (int)((value(&p->gcs[i]) * 8 + max - 1) / max);
		canvas_level(c, y, lw + (int)(i - first), level ? level : 1,
			     p->gcs[i].generation >= 2 ? UI_WARN : UI_HOT);
	}
}

static uint64_t pause_of(const struct prof_gc *g)
{
	return g->pause_us;
}

static void draw(struct view *v, struct session_screen *s, struct canvas *c, int y, int height)
{
	struct prof_process *p = ui_current(s);
	if (!p || !p->ngcs) {
		canvas_text(c, y, 1, c->cols - 1, UI_HEADER, false, "No garbage collection recorded yet.");
		canvas_text(c, y + 1, 1, c->cols - 1, UI_NORMAL, false,
			    "GC events are recorded while the gc event kind is on (G toggles it).");
		return;
	}
	int charts = height >= 8 ? 2 : 0;
	if (charts) {
		strip(c, y, "pause max", p, pause_of, " ms", 1000.0);
		strip(c, y + 1, "heap max", p, heap_after, " MiB", 1048576.0);
	}
	listview_draw(list(v), c, y + charts, height - charts, cell, style, p);
}

static bool key(struct view *v, struct session_screen *s, int k)
{
	(void)s;
	return listview_key(list(v), k);
}

const struct view_ops view_gc = {
	.name = "GC",
	.title = "garbage collections: pauses, generations, heap sizes",
	.create = create,
	.destroy = destroy,
	.update = update,
	.draw = draw,
	.key = key,
	.list = list,
};
