/* Calls (instrumented functions), Heap (the latest snapshot against the
 * one before) and Allocations: tables sorted by any column with 's'. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uisession.h"
#include "xalloc.h"

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

static const struct column call_columns[] = {
	{"calls", 11, true}, {"incl ms", 11, true}, {"excl ms", 11, true}, {"us/call", 9, true}, {"function", 0, false},
};
#define CALL_SORTS 5

static int compare_calls(const void *a, const void *b, void *ctx)
{
	struct ui_session *s = ctx;
	const struct prof_function *fns = ui_current(s)->functions;
	const struct prof_function *x = &fns[*(const uint32_t *)a], *y = &fns[*(const uint32_t *)b];
	uint64_t kx = 0, ky = 0;
	switch (s->calls_sort) {
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

static void calls_update(struct ui_session *s)
{
	struct prof_process *p = ui_current(s);
	s->ncall_rows = 0;
	s->calls_lv.cols = call_columns;
	s->calls_lv.ncols = sizeof call_columns / sizeof *call_columns;
	if (p && (p->features & CS_FEATURE_INSTRUMENT)) {
		prof_compute(p);
		xgrow(&s->call_rows, &s->call_rows_cap, p->nfunctions + 1, sizeof *s->call_rows);
		for (size_t i = 0; i < p->nfunctions; i++)
			if (p->functions[i].hooked && (!s->filter[0] || strstr(p->functions[i].name, s->filter)))
				s->call_rows[s->ncall_rows++] = (uint32_t)i;
		qsort_r(s->call_rows, s->ncall_rows, sizeof *s->call_rows, compare_calls, s);
	}
	listview_set_rows(&s->calls_lv, s->ncall_rows);
}

static void calls_cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct ui_session *s = ctx;
	const struct prof_function *f = &ui_current(s)->functions[s->call_rows[row]];
	switch (col) {
	case 0: snprintf(buf, n, "%" PRIu64, f->calls); break;
	case 1: snprintf(buf, n, "%.3f", (double)f->inclusive_ns / 1e6); break;
	case 2: snprintf(buf, n, "%.3f", (double)f->exclusive_ns / 1e6); break;
	case 3: snprintf(buf, n, "%.3f", f->calls ? (double)f->inclusive_ns / 1e3 / (double)f->calls : 0.0); break;
	default: snprintf(buf, n, "%s", f->name); break;
	}
}

static void calls_draw(struct ui_session *s, struct canvas *c, int y, int height)
{
	struct prof_process *p = ui_current(s);
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
	listview_draw(&s->calls_lv, c, y + 1, height - 1, calls_cell, NULL, s);
}

static int calls_key(struct ui_session *s, int k)
{
	if (listview_key(&s->calls_lv, k))
		return KEY_HANDLED | KEY_REDRAW;
	if (k == 's') {
		static const char *const names[CALL_SORTS] = {"calls", "inclusive time", "exclusive time",
							      "time per call", "name"};
		s->calls_sort = (s->calls_sort + 1) % CALL_SORTS;
		calls_update(s);
		ui_session_message(s, false, "sorted by %s", names[s->calls_sort]);
		return KEY_HANDLED | KEY_REDRAW;
	}
	return KEY_IGNORED;
}

static struct listview *calls_list(struct ui_session *s)
{
	return &s->calls_lv;
}

const struct view_ops view_calls = {"Calls", "exact calls and times of instrumented functions", calls_update,
				    calls_draw, calls_key, calls_list};

/* ---- Heap and Allocations share a type table ---- */

static int compare_types(const struct prof_type_count *x, const struct prof_type_count *y, bool by_count)
{
	uint64_t kx = by_count ? x->count : x->bytes, ky = by_count ? y->count : y->bytes;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(x->type, y->type);
}

static int compare_heap(const void *a, const void *b, void *ctx)
{
	struct ui_session *s = ctx;
	const struct prof_heap *h = prof_latest_heap(ui_current(s), NULL);
	return compare_types(&h->entries[*(const uint32_t *)a], &h->entries[*(const uint32_t *)b], s->heap_by_count);
}

static const struct column heap_columns[] = {
	{"count", 10, true}, {"+count", 9, true}, {"bytes", 12, true}, {"+bytes", 11, true}, {"type", 0, false},
};

static void heap_update(struct ui_session *s)
{
	struct prof_process *p = ui_current(s);
	s->nheap_rows = 0;
	s->heap_lv.cols = heap_columns;
	s->heap_lv.ncols = sizeof heap_columns / sizeof *heap_columns;
	const struct prof_heap *h = p ? prof_latest_heap(p, NULL) : NULL;
	if (h) {
		xgrow(&s->heap_rows, &s->heap_rows_cap, h->nentries + 1, sizeof *s->heap_rows);
		for (size_t i = 0; i < h->nentries; i++)
			if (!s->filter[0] || strstr(h->entries[i].type, s->filter))
				s->heap_rows[s->nheap_rows++] = (uint32_t)i;
		qsort_r(s->heap_rows, s->nheap_rows, sizeof *s->heap_rows, compare_heap, s);
	}
	listview_set_rows(&s->heap_lv, s->nheap_rows);
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
	struct ui_session *s = ctx;
	const struct prof_heap *prev;
	const struct prof_heap *h = prof_latest_heap(ui_current(s), &prev);
	const struct prof_type_count *t = &h->entries[s->heap_rows[row]];
	const struct prof_type_count *was = prof_heap_find(prev, t->type);
	switch (col) {
	case 0: snprintf(buf, n, "%" PRIu64, t->count); break;
	case 1: prev ? signed_delta(buf, n, t->count, was ? was->count : 0) : snprintf(buf, n, "-"); break;
	case 2: snprintf(buf, n, "%" PRIu64, t->bytes); break;
	case 3: prev ? signed_delta(buf, n, t->bytes, was ? was->bytes : 0) : snprintf(buf, n, "-"); break;
	default: snprintf(buf, n, "%s", t->type); break;
	}
}

static void heap_draw(struct ui_session *s, struct canvas *c, int y, int height)
{
	struct prof_process *p = ui_current(s);
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
	listview_draw(&s->heap_lv, c, y + 1, height - 1, heap_cell, NULL, s);
}

static int heap_key(struct ui_session *s, int k)
{
	if (listview_key(&s->heap_lv, k))
		return KEY_HANDLED | KEY_REDRAW;
	if (k == 's') {
		s->heap_by_count = !s->heap_by_count;
		heap_update(s);
		ui_session_message(s, false, "sorted by %s", s->heap_by_count ? "count" : "bytes");
		return KEY_HANDLED | KEY_REDRAW;
	}
	return KEY_IGNORED;
}

static struct listview *heap_list(struct ui_session *s)
{
	return &s->heap_lv;
}

const struct view_ops view_heap = {"Heap", "live objects by type in the latest heap snapshot", heap_update, heap_draw,
				   heap_key, heap_list};

static const struct column alloc_columns[] = {
	{"count", 11, true}, {"bytes", 13, true}, {"avg", 7, true}, {"share%", 7, true}, {"type", 0, false},
};

static int compare_allocs(const void *a, const void *b, void *ctx)
{
	struct ui_session *s = ctx;
	const struct prof_type_count *t = ui_current(s)->allocs.types;
	return compare_types(&t[*(const uint32_t *)a], &t[*(const uint32_t *)b], s->allocs_by_count);
}

static void allocs_update(struct ui_session *s)
{
	struct prof_process *p = ui_current(s);
	s->nalloc_rows = 0;
	s->allocs_lv.cols = alloc_columns;
	s->allocs_lv.ncols = sizeof alloc_columns / sizeof *alloc_columns;
	if (p) {
		xgrow(&s->alloc_rows, &s->alloc_rows_cap, p->allocs.ntypes + 1, sizeof *s->alloc_rows);
		for (size_t i = 0; i < p->allocs.ntypes; i++)
			if (p->allocs.types[i].type && (!s->filter[0] || strstr(p->allocs.types[i].type, s->filter)))
				s->alloc_rows[s->nalloc_rows++] = (uint32_t)i;
		qsort_r(s->alloc_rows, s->nalloc_rows, sizeof *s->alloc_rows, compare_allocs, s);
	}
	listview_set_rows(&s->allocs_lv, s->nalloc_rows);
}

static void allocs_cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct ui_session *s = ctx;
	const struct prof_allocations *a = &ui_current(s)->allocs;
	const struct prof_type_count *t = &a->types[s->alloc_rows[row]];
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

static void allocs_draw(struct ui_session *s, struct canvas *c, int y, int height)
{
	struct prof_process *p = ui_current(s);
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
	listview_draw(&s->allocs_lv, c, y + 1, height - 1, allocs_cell, NULL, s);
}

static int allocs_key(struct ui_session *s, int k)
{
	if (listview_key(&s->allocs_lv, k))
		return KEY_HANDLED | KEY_REDRAW;
	if (k == 's') {
		s->allocs_by_count = !s->allocs_by_count;
		allocs_update(s);
		ui_session_message(s, false, "sorted by %s", s->allocs_by_count ? "count" : "bytes");
		return KEY_HANDLED | KEY_REDRAW;
	}
	return KEY_IGNORED;
}

static struct listview *allocs_list(struct ui_session *s)
{
	return &s->allocs_lv;
}

const struct view_ops view_allocations = {"Allocs", "allocations by type (programs started with --allocations)",
					  allocs_update, allocs_draw, allocs_key, allocs_list};
