/* Calls (instrumented functions), Heap (the latest snapshot against the
 * one before, with retained bytes from its object graph) and Allocations:
 * tables sorted by any column with 's'. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/heapsummary.h"
#include "ui/session_screen.h"
#include "util/strmap.h"
#include "util/xalloc.h"

static bool attached(const struct prof_process *p)
{
	return p && p->have_hello && p->load_mode == CS_LOAD_ATTACH;
}

/* ---- Calls ---- */

static const struct column call_columns[] = {
	{"calls", 11, true}, {"incl ms", 11, true}, {"excl ms", 11, true}, {"us/call", 9, true}, {"function", 0, false},
};
static const char *const call_sorts[] = {"calls", "inclusive time", "exclusive time", "time per call", "name", NULL};

static bool instrumented(const struct prof_process *p)
{
	return p && (p->features & CS_FEATURE_INSTRUMENT);
}

static void calls_update(struct view_ctx *c)
{
	if (instrumented(c->p))
		prof_compute(c->p);
}

static size_t calls_count(struct view_ctx *c)
{
	return instrumented(c->p) ? c->p->nfunctions : 0;
}

static bool hooked(struct view_ctx *c, uint32_t item)
{
	return c->p->functions[item].hooked;
}

static bool function_matches(struct view_ctx *c, uint32_t item, const char *filter)
{
	return strstr(c->p->functions[item].name, filter) != NULL;
}

static int compare_calls(struct view_ctx *c, uint32_t a, uint32_t b)
{
	const struct prof_function *x = &c->p->functions[a], *y = &c->p->functions[b];
	uint64_t kx = 0, ky = 0;
	switch (c->v->sort) {
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

static void calls_cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct prof_function *f = &c->p->functions[item];
	switch (col) {
	case 0: snprintf(buf, n, "%" PRIu64, f->calls); break;
	case 1: snprintf(buf, n, "%.3f", (double)f->inclusive_ns / 1e6); break;
	case 2: snprintf(buf, n, "%.3f", (double)f->exclusive_ns / 1e6); break;
	case 3: snprintf(buf, n, "%.3f", f->calls ? (double)f->inclusive_ns / 1e3 / (double)f->calls : 0.0); break;
	default: snprintf(buf, n, "%s", f->name); break;
	}
}

static int calls_header(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	const struct prof_process *p = c->p;
	if (!instrumented(p)) {
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
		return view_explain(cv, y, height, attached(p) ? attach_text : launch_text);
	}
	char head[300];
	snprintf(head, sizeof head, "%" PRIu64 " functions hooked of %" PRIu64 " compiled; recording %s; %s  (s: sort)",
		 p->instr.hooked, p->instr.examined, p->instr.records && !p->instr.recording ? "paused" : "on",
		 "instrumented programs cannot detach");
	canvas_text(cv, y, 1, cv->cols - 1, UI_DIM, false, head);
	return 1;
}

const struct view_ops view_calls = {
	.name = "Calls",
	.title = "exact calls and times of instrumented functions",
	.update = calls_update,
	VIEW_COLUMNS(call_columns), .count = calls_count, .keep = hooked, .match = function_matches,
	.compare = compare_calls, .sorts = call_sorts,
	.cell = calls_cell, .header = calls_header,
};

/* ---- Heap and Allocations: types by bytes or count ---- */

static const char *const type_sorts[] = {"bytes", "count", NULL};

static int compare_types(struct view_ctx *c, const struct prof_type_count *x, const struct prof_type_count *y)
{
	bool by_count = c->v->sort == 1;
	uint64_t kx = by_count ? x->count : x->bytes, ky = by_count ? y->count : y->bytes;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(x->type, y->type);
}

/* The rows are the entries of the latest snapshot, found once an update,
 * with the retained bytes of each, now and in the snapshot before, when
 * the snapshots have their object graphs. */
struct heap {
	const struct prof_heap *latest, *prev;
	bool graph, prev_graph;
	uint64_t *retained, *prev_retained; /* by entry */
	size_t cap;
};

static void heap_done(void *priv)
{
	struct heap *h = priv;
	free(h->retained);
	free(h->prev_retained);
}

/* Each entry's retained bytes in summary s (0 for a type it lacks). */
static void retained_by_entry(const struct prof_heap *h, const struct heap_summary *s, uint64_t *out)
{
	struct strmap index;
	strmap_init(&index);
	for (size_t i = 0; i < s->ntypes; i++)
		strmap_add(&index, s->types[i].name, strlen(s->types[i].name), (uint32_t)i);
	for (size_t i = 0; i < h->nentries; i++) {
		uint32_t at;
		const char *name = h->entries[i].type;
		out[i] = strmap_get(&index, name, strlen(name), &at) ? s->types[at].retained : 0;
	}
	strmap_free(&index);
}

static void heap_update(struct view_ctx *c)
{
	struct heap *h = c->priv;
	h->latest = c->p ? prof_latest_heap(c->p, &h->prev) : NULL;
	h->graph = h->prev_graph = false;
	if (!h->latest)
		return;
	xgrow(&h->retained, &h->cap, h->latest->nentries + 1, sizeof *h->retained);
	h->prev_retained = xrealloc(h->prev_retained, h->cap * sizeof *h->prev_retained);
	char err[200];
	/* the one before first: the analysis kept is the latest's */
	const struct heap_summary *prev =
		prof_heap_has_graph(c->p, h->prev) ? prof_heap_summary(c->p, h->prev, err, sizeof err) : NULL;
	const struct heap_summary *now =
		prof_heap_has_graph(c->p, h->latest) ? prof_heap_summary(c->p, h->latest, err, sizeof err) : NULL;
	if ((h->graph = now != NULL))
		retained_by_entry(h->latest, now, h->retained);
	if ((h->prev_graph = now && prev)) {
		/* the entries of the latest, their retained bytes before */
		retained_by_entry(h->latest, prev, h->prev_retained);
	}
}

static size_t heap_count(struct view_ctx *c)
{
	const struct prof_heap *h = ((struct heap *)c->priv)->latest;
	return h ? h->nentries : 0;
}

static bool heap_matches(struct view_ctx *c, uint32_t item, const char *filter)
{
	return strstr(((struct heap *)c->priv)->latest->entries[item].type, filter) != NULL;
}

static const char *const heap_sorts[] = {"bytes", "count", "retained", "growth", NULL};

static int compare_heap(struct view_ctx *c, uint32_t a, uint32_t b)
{
	const struct heap *h = c->priv;
	const struct prof_type_count *x = &h->latest->entries[a], *y = &h->latest->entries[b];
	uint64_t kx = 0, ky = 0;
	if (c->v->sort == 2 && h->graph)
		kx = h->retained[a], ky = h->retained[b];
	else if (c->v->sort == 3) {
		const struct prof_type_count *wx = prof_heap_find(h->prev, x->type), *wy = prof_heap_find(h->prev, y->type);
		kx = x->bytes > (wx ? wx->bytes : 0) ? x->bytes - (wx ? wx->bytes : 0) : 0;
		ky = y->bytes > (wy ? wy->bytes : 0) ? y->bytes - (wy ? wy->bytes : 0) : 0;
	}
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return compare_types(c, x, y);
}

static const struct column heap_columns[] = {
	{"count", 10, true}, {"+count", 9, true}, {"bytes", 12, true}, {"+bytes", 11, true},
	{"retained", 12, true}, {"+retained", 11, true}, {"type", 0, false},
};

static void signed_delta(char *buf, size_t n, uint64_t now, uint64_t before)
{
	if (now >= before)
		snprintf(buf, n, "+%" PRIu64, now - before);
	else
		snprintf(buf, n, "-%" PRIu64, before - now);
}

static void heap_cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct heap *h = c->priv;
	const struct prof_type_count *t = &h->latest->entries[item];
	const struct prof_type_count *was = prof_heap_find(h->prev, t->type);
	switch (col) {
	case 0: snprintf(buf, n, "%" PRIu64, t->count); break;
	case 1: h->prev ? signed_delta(buf, n, t->count, was ? was->count : 0) : snprintf(buf, n, "-"); break;
	case 2: snprintf(buf, n, "%" PRIu64, t->bytes); break;
	case 3: h->prev ? signed_delta(buf, n, t->bytes, was ? was->bytes : 0) : snprintf(buf, n, "-"); break;
	case 4: h->graph ? snprintf(buf, n, "%" PRIu64, h->retained[item]) : snprintf(buf, n, "-"); break;
	case 5:
		h->prev_graph ? signed_delta(buf, n, h->retained[item], h->prev_retained[item]) : snprintf(buf, n, "-");
		break;
	default: snprintf(buf, n, "%s", t->type); break;
	}
}

static int heap_header(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	const struct heap *h = c->priv;
	if (!h->latest) {
		static const char *const none[] = {
			"No heap snapshot yet.",
			"Press h (or :snapshot) to take one: the agent forces a full garbage collection",
			"and records the live objects, their references and their roots; the program",
			"pauses for that collection.",
			NULL};
		return view_explain(cv, y, height, none);
	}
	char head[400];
	snprintf(head, sizeof head,
		 "snapshot %" PRIu64 " at %.1f s: %" PRIu64 " objects, %.1f MiB, %" PRIu64 " types, paused %.1f ms%s%s"
		 "  (s: sort, h: new%s)",
		 h->latest->seq, (double)h->latest->time_us / 1e6, h->latest->objects,
		 (double)h->latest->bytes / 1048576.0, h->latest->types, (double)h->latest->pause_us / 1000.0,
		 h->prev ? "; + against snapshot before" : "",
		 h->graph ? "" : "; no object graph: no retained sizes", h->graph ? ", Enter: paths from the roots" : "");
	canvas_text(cv, y, 1, cv->cols - 1, UI_DIM, false, head);
	return 1;
}

/* Enter: the paths from the roots to the objects of the type. */
static bool heap_key(struct view_ctx *c, int k)
{
	const struct heap *h = c->priv;
	uint32_t item;
	if ((k != '\n' && k != KEY_ENTER) || !h->latest || !view_selected(c->v, &item))
		return false;
	if (!h->graph) {
		session_screen_message(c->s, true, "this snapshot has no object graph: no paths from the roots");
		return true;
	}
	session_screen_show_paths(c->s, h->latest->entries[item].type);
	return true;
}

const struct view_ops view_heap = {
	.name = "Heap",
	.title = "live objects by type in the latest heap snapshot, retained bytes, growth; Enter: paths from the roots",
	.private_size = sizeof(struct heap), .done = heap_done, .update = heap_update,
	VIEW_COLUMNS(heap_columns), .count = heap_count, .match = heap_matches, .compare = compare_heap,
	.sorts = heap_sorts,
	.cell = heap_cell, .header = heap_header, .key = heap_key,
};

static const struct column alloc_columns[] = {
	{"count", 11, true}, {"bytes", 13, true}, {"avg", 7, true}, {"share%", 7, true}, {"type", 0, false},
};

static size_t allocs_count(struct view_ctx *c)
{
	return c->p->allocs.ntypes;
}

static bool allocated(struct view_ctx *c, uint32_t item)
{
	return c->p->allocs.types[item].type != NULL;
}

static bool alloc_matches(struct view_ctx *c, uint32_t item, const char *filter)
{
	return strstr(c->p->allocs.types[item].type, filter) != NULL;
}

static int compare_allocs(struct view_ctx *c, uint32_t a, uint32_t b)
{
	return compare_types(c, &c->p->allocs.types[a], &c->p->allocs.types[b]);
}

static void allocs_cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct prof_allocations *a = &c->p->allocs;
	const struct prof_type_count *t = &a->types[item];
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

static int allocs_header(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	const struct prof_process *p = c->p;
	if (!p || !(p->features & CS_FEATURE_ALLOCATIONS)) {
		static const char *const attach_text[] = {
			"Allocation counting is not available in an attached process:",
			"the runtime allows it only from the program's start.",
			"Launch it with  :launch --allocations COMMAND  (or clrscope launch -A).", NULL};
		static const char *const launch_text[] = {
			"This program was started without allocation counting.",
			"Launch it with  :launch --allocations COMMAND  (or clrscope launch -A).", NULL};
		return view_explain(cv, y, height, attached(p) ? attach_text : launch_text);
	}
	char head[200];
	snprintf(head, sizeof head, "allocations since the start, %" PRIu64 " GCs; recording %s  (s: sort)", p->allocs.gcs,
		 p->allocs.records && !p->allocs.recording ? "paused" : "on");
	canvas_text(cv, y, 1, cv->cols - 1, UI_DIM, false, head);
	return 1;
}

const struct view_ops view_allocations = {
	.name = "Allocs",
	.title = "allocations by type (programs started with --allocations)",
	VIEW_COLUMNS(alloc_columns), .count = allocs_count, .keep = allocated, .match = alloc_matches,
	.compare = compare_allocs, .sorts = type_sorts,
	.cell = allocs_cell, .header = allocs_header,
};
