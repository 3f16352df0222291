/* Garbage collections: strip charts of pause times and heap size per
 * collection over the table of collections (generation, reason, type, pause,
 * heap per generation after it). */
#include <inttypes.h>
#include <stdio.h>

#include "ui/session_screen.h"

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

/* Its rows are the process's collections. */
static size_t count(struct view_ctx *c)
{
	return c->p->ngcs;
}

static void cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct prof_gc *g = &c->p->gcs[item];
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

static enum ui_style style(struct view_ctx *c, uint32_t item)
{
	return c->p->gcs[item].generation >= 2 ? UI_HOT : UI_NORMAL;
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

/* The strip charts, where there is room for them. */
static int header(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	const struct prof_process *p = c->p;
	if (!p || !p->ngcs) {
		canvas_text(cv, y, 1, cv->cols - 1, UI_HEADER, false, "No garbage collection recorded yet.");
		canvas_text(cv, y + 1, 1, cv->cols - 1, UI_NORMAL, false,
			    "GC events are recorded while the gc event kind is on (G toggles it).");
		return -1;
	}
	if (height < 8)
		return 0;
	strip(cv, y, "pause max", p, pause_of, " ms", 1000.0);
	strip(cv, y + 1, "heap max", p, heap_after, " MiB", 1048576.0);
	return 2;
}

const struct view_ops view_gc = {
	.name = "GC",
	.title = "garbage collections: pauses, generations, heap sizes",
	VIEW_COLUMNS(columns), .follow = true, .count = count,
	.cell = cell, .style = style, .header = header,
};
