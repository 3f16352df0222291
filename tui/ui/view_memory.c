/* Calls (instrumented functions), Heap (the latest snapshot against the
 * one before) and Allocations: tables sorted by any column with 's'. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/session_screen.h"
#include "util/xalloc.h"

/* Explains an empty view in a few lines; returns the lines used. */
static int explain(struct canvas *c, int y, int height, const char *const *lines)
{
	int used = 0;
	for (; lines[used] && used < height; used++)
		canvas_text(c, y + used, 1, c->cols - 1, used ? UI_NORMAL : UI_HEADER, false, lines[used]);
	return used;
}

static bool attached(const struct prof_process *p)
{
	return p && p->have_hello && p->load_mode == CS_LOAD_ATTACH;
}

/* ---- Calls ---- */

struct calls {
	struct listview lv;
	uint32_t *rows; /* function indexes */
	size_t nrows, rows_cap;
	int sort; /* the column sorted by */
};

static const struct column call_columns[] = {
	{"calls", 11, true}, {"incl ms", 11, true}, {"excl ms", 11, true}, {"us/call", 9, true}, {"function", 0, false},
};
#define CALL_SORTS 5

struct sort_context {
	const struct prof_function *fns;
	int sort;
};

static int compare_calls(const void *a, const void *b, void *ctx)
{
	const struct sort_context *sc = ctx;
	const struct prof_function *x = &sc->fns[*(const uint32_t *)a], *y = &sc->fns[*(const uint32_t *)b];
	uint64_t kx = 0, ky = 0;
	switch (sc->sort) {
	case 0: kx = x->calls, ky = y->calls; break;
	case 1: kx = x->inclusive_ns, ky = y->inclusive_ns; break;
	case 2: kx = x->exclusive_ns, ky = y->exclusive_ns; break;
	case 3:
		kx = x->calls ? x->inclusive_ns / x->calls : 0;
		ky = y->calls ? y->inclusive_ns / y->calls : 0;
		break;
	default: return strcmp(x->name, y->name);
	}
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void *calls_create(void)
{
	struct calls *v = xcalloc(1, sizeof *v);
	v->lv.cols = call_columns;
	v->lv.ncols = sizeof call_columns / sizeof *call_columns;
	return v;
}

static void calls_destroy(void *priv)
{
	struct calls *v = priv;
	if (v)
		free(v->rows);
	free(v);
}

static void calls_update(struct view *view, struct session_screen *s)
{
	struct calls *v = view->priv;
	struct prof_process *p = ui_current(s);
	v->nrows = 0;
	if (p && (p->features & CS_FEATURE_INSTRUMENT)) {
		prof_compute(p);
		xgrow(&v->rows, &v->rows_cap, p->nfunctions + 1, sizeof *v->rows);
		for (size_t i = 0; i < p->nfunctions; i++)
			if (p->functions[i].hooked && (!s->filter[0] || strstr(p->functions[i].name, s->filter)))
				v->rows[v->nrows++] = (uint32_t)i;
		struct sort_context sc = {p->functions, v->sort};
		qsort_r(v->rows, v->nrows, sizeof *v->rows, compare_calls, &sc);
	}
	listview_set_rows(&v->lv, v->nrows);
}

/* What a cell callback needs: the view's rows and the process. */
struct cell_context {
	void *v;
	struct prof_process *p;
};

static void calls_cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	const struct cell_context *cc = ctx;
	const struct calls *v = cc->v;
	const struct prof_function *f = &cc->p->functions[v->rows[row]];
	switch (col) {
	case 0: snprintf(buf, n, "%" PRIu64, f->calls); break;
	case 1: snprintf(buf, n, "%.3f", (double)f->inclusive_ns / 1e6); break;
	case 2: snprintf(buf, n, "%.3f", (double)f->exclusive_ns / 1e6); break;
	case 3: snprintf(buf, n, "%.3f", f->calls ? (double)f->inclusive_ns / 1e3 / (double)f->calls : 0.0); break;
	default: snprintf(buf, n, "%s", f->name); break;
	}
}

static void calls_draw(struct view *view, struct session_screen *s, struct canvas *c, int y, int height)
{
	struct prof_process *p = ui_current(s);
	struct cell_context cc = {view->priv, p};
	if (!p || !(p->features & CS_FEATURE_INSTRUMENT)) {
		static const char *const attach_text[] = {
			"Instrumentation is not available in an attached process.",
			"The runtime lets a profiler hook functions only when the program starts under it:",
			"launch it with  :launch --instrument 'Namespace.Type.*' COMMAND  (or clrscope launch -i PATTERN).",
			NULL};
		static const char *const launch_text[] = {
			"This program was started without instrumentation.",
			"Exact call counts and times need  :launch --instrument PATTERN COMMAND",
			"(patterns: 'Namespace.Type.*', '*.Method' or a full name; repeat for more).",
			NULL};
		explain(c, y, height, attached(p) ? attach_text : launch_text);
		return;
	}
	char head[300];
	snprintf(head, sizeof head, "%" PRIu64 " functions hooked of %" PRIu64 " compiled; recording %s; %s  (s: sort)",
		 p->instr.hooked, p->instr.examined, p->instr.records && !p->instr.recording ? "paused" : "on",
		 "instrumented programs cannot detach");
	canvas_text(c, y, 1, c->cols - 1, UI_DIM, false, head);
	listview_draw(&((struct calls *)view->priv)->lv, c, y + 1, height - 1, calls_cell, NULL, &cc);
}

static bool calls_key(struct view *view, struct session_screen *s, int k)
{
	struct calls *v = view->priv;
	if (listview_key(&v->lv, k))
		return true;
	if (k == 's') {
		static const char *const names[CALL_SORTS] = {"calls", "inclusive time", "exclusive time",
							      "time per call", "name"};
		v->sort = (v->sort + 1) % CALL_SORTS;
		calls_update(view, s);
		session_screen_message(s, false, "sorted by %s", names[v->sort]);
		return true;
	}
	return false;
}

static struct listview *calls_list(struct view *v)
{
	return &((struct calls *)v->priv)->lv;
}

const struct view_ops view_calls = {
	.name = "Calls",
	.title = "exact calls and times of instrumented functions",
	.create = calls_create,
	.destroy = calls_destroy,
	.update = calls_update,
	.draw = calls_draw,
	.key = calls_key,
	.list = calls_list,
};

/* ---- Heap and Allocations share a type table ---- */

struct types {
	struct listview lv;
	uint32_t *rows; /* heap entries or allocation type ids */
	size_t nrows, rows_cap;
	bool by_count; /* sorted by count, else by bytes */
};

static void *types_create(const struct column *cols, int ncols)
{
	struct types *v = xcalloc(1, sizeof *v);
	v->lv.cols = cols;
	v->lv.ncols = ncols;
	return v;
}

static void types_destroy(void *priv)
{
	struct types *v = priv;
	if (v)
		free(v->rows);
	free(v);
}

static struct listview *types_list(struct view *v)
{
	return &((struct types *)v->priv)->lv;
}

/* 's' switches between bytes and count. */
static bool types_key(struct view *view, struct session_screen *s, int k)
{
	struct types *v = view->priv;
	if (listview_key(&v->lv, k))
		return true;
	if (k == 's') {
		v->by_count = !v->by_count;
		view->ops->update(view, s);
		session_screen_message(s, false, "sorted by %s", v->by_count ? "count" : "bytes");
		return true;
	}
	return false;
}

struct type_sort {
	const struct prof_type_count *types;
	bool by_count;
};

static int compare_types(const struct prof_type_count *x, const struct prof_type_count *y, bool by_count)
{
	uint64_t kx = by_count ? x->count : x->bytes, ky = by_count ? y->count : y->bytes;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(x->type, y->type);
}

static int compare_rows(const void *a, const void *b, void *ctx)
{
	const struct type_sort *ts = ctx;
	return compare_types(&ts->types[*(const uint32_t *)a], &ts->types[*(const uint32_t *)b], ts->by_count);
}

static const struct column heap_columns[] = {
	{"count", 10, true}, {"+count", 9, true}, {"bytes", 12, true}, {"+bytes", 11, true}, {"type", 0, false},
};

static void *heap_create(void)
{
	return types_create(heap_columns, sizeof heap_columns / sizeof *heap_columns);
}

static void heap_update(struct view *view, struct session_screen *s)
{
	struct types *v = view->priv;
	struct prof_process *p = ui_current(s);
	v->nrows = 0;
	const struct prof_heap *h = p ? prof_latest_heap(p, NULL) : NULL;
	if (h) {
		xgrow(&v->rows, &v->rows_cap, h->nentries + 1, sizeof *v->rows);
		for (size_t i = 0; i < h->nentries; i++)
			if (!s->filter[0] || strstr(h->entries[i].type, s->filter))
				v->rows[v->nrows++] = (uint32_t)i;
		struct type_sort ts = {h->entries, v->by_count};
		qsort_r(v->rows, v->nrows, sizeof *v->rows, compare_rows, &ts);
	}
	listview_set_rows(&v->lv, v->nrows);
}

static void signed_delta(char *buf, size_t n, uint64_t now, uint64_t before)
{
	if (now >= before)
		snprintf(buf, n, "+%" PRIu64, now - before);
	else
		snprintf(buf, n, "-%" PRIu64, before - now);
}

static void heap_cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	const struct cell_context *cc = ctx;
	const struct types *v = cc->v;
	const struct prof_heap *prev;
	const struct prof_heap *h = prof_latest_heap(cc->p, &prev);
	const struct prof_type_count *t = &h->entries[v->rows[row]];
	const struct prof_type_count *was = prof_heap_find(prev, t->type);
	switch (col) {
	case 0: snprintf(buf, n, "%" PRIu64, t->count); break;
	case 1: prev ? signed_delta(buf, n, t->count, was ? was->count : 0) : snprintf(buf, n, "-"); break;
	case 2: snprintf(buf, n, "%" PRIu64, t->bytes); break;
	case 3: prev ? signed_delta(buf, n, t->bytes, was ? was->bytes : 0) : snprintf(buf, n, "-"); break;
	default: snprintf(buf, n, "%s", t->type); break;
	}
}

static void heap_draw(struct view *view, struct session_screen *s, struct canvas *c, int y, int height)
{
	struct prof_process *p = ui_current(s);
	struct cell_context cc = {view->priv, p};
	const struct prof_heap *prev;
	const struct prof_heap *h = p ? prof_latest_heap(p, &prev) : NULL;
	if (!h) {
		static const char *const none[] = {
			"No heap snapshot yet.",
			"Press h (or :snapshot) to take one: the agent forces a full garbage collection",
			"and counts the live objects by type; the program pauses for that collection.",
			NULL};
		explain(c, y, height, none);
		return;
	}
	char head[300];
	snprintf(head, sizeof head,
		 "snapshot %" PRIu64 " at %.1f s: %" PRIu64 " objects, %.1f MiB, %" PRIu64 " types, GC %.1f ms%s%s  (s: sort, h: new)",
		 h->seq, (double)h->time_us / 1e6, h->objects, (double)h->bytes / 1048576.0, h->types,
		 (double)h->pause_us / 1000.0, prev ? "; + against snapshot " : "", prev ? "before" : "");
	canvas_text(c, y, 1, c->cols - 1, UI_DIM, false, head);
	listview_draw(types_list(view), c, y + 1, height - 1, heap_cell, NULL, &cc);
}

const struct view_ops view_heap = {
	.name = "Heap",
	.title = "live objects by type in the latest heap snapshot",
	.create = heap_create,
	.destroy = types_destroy,
	.update = heap_update,
	.draw = heap_draw,
	.key = types_key,
	.list = types_list,
};

static const struct column alloc_columns[] = {
	{"count", 11, true}, {"bytes", 13, true}, {"avg", 7, true}, {"share%", 7, true}, {"type", 0, false},
};

static void *allocs_create(void)
{
	return types_create(alloc_columns, sizeof alloc_columns / sizeof *alloc_columns);
}

static void allocs_update(struct view *view, struct session_screen *s)
{
	struct types *v = view->priv;
	struct prof_process *p = ui_current(s);
	v->nrows = 0;
	if (p) {
		xgrow(&v->rows, &v->rows_cap, p->allocs.ntypes + 1, sizeof *v->rows);
		for (size_t i = 0; i < p->allocs.ntypes; i++)
			if (p->allocs.types[i].type && (!s->filter[0] || strstr(p->allocs.types[i].type, s->filter)))
				v->rows[v->nrows++] = (uint32_t)i;
		struct type_sort ts = {p->allocs.types, v->by_count};
		qsort_r(v->rows, v->nrows, sizeof *v->rows, compare_rows, &ts);
	}
	listview_set_rows(&v->lv, v->nrows);
}

static void allocs_cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	const struct cell_context *cc = ctx;
	const struct types *v = cc->v;
	const struct prof_allocations *a = &cc->p->allocs;
	const struct prof_type_count *t = &a->types[v->rows[row]];
	uint64_t all = 0;
	if (col == 3)
		for (size_t i = 0; i < a->ntypes; i++)
			all += a->types[i].bytes;
	switch (col) {
	case 0: snprintf(buf, n, "%" PRIu64, t->count); break;
	case 1: snprintf(buf, n, "%" PRIu64, t->bytes); break;
	case 2: snprintf(buf, n, "%" PRIu64, t->count ? t->bytes / t->count : 0); break;
	case 3: snprintf(buf, n, "%.1f", all ? 100.0 * (double)t->bytes / (double)all : 0.0); break;
	default: snprintf(buf, n, "%s", t->type); break;
	}
}

static void allocs_draw(struct view *view, struct session_screen *s, struct canvas *c, int y, int height)
{
	struct prof_process *p = ui_current(s);
	struct cell_context cc = {view->priv, p};
	if (!p || !(p->features & CS_FEATURE_ALLOCATIONS)) {
		static const char *const attach_text[] = {
			"Allocation counting is not available in an attached process:",
			"the runtime allows it only from the program's start.",
			"Launch it with  :launch --allocations COMMAND  (or clrscope launch -A).", NULL};
		static const char *const launch_text[] = {
			"This program was started without allocation counting.",
			"Launch it with  :launch --allocations COMMAND  (or clrscope launch -A).", NULL};
		explain(c, y, height, attached(p) ? attach_text : launch_text);
		return;
	}
	char head[200];
	snprintf(head, sizeof head, "allocations since the start, %" PRIu64 " GCs; recording %s  (s: sort)", p->allocs.gcs,
		 p->allocs.records && !p->allocs.recording ? "paused" : "on");
	canvas_text(c, y, 1, c->cols - 1, UI_DIM, false, head);
	listview_draw(types_list(view), c, y + 1, height - 1, allocs_cell, NULL, &cc);
}

const struct view_ops view_allocations = {
	.name = "Allocs",
	.title = "allocations by type (programs started with --allocations)",
	.create = allocs_create,
	.destroy = types_destroy,
	.update = allocs_update,
	.draw = allocs_draw,
	.key = types_key,
	.list = types_list,
};
