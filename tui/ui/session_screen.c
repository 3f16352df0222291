#include "ui/session_screen.h"

#include "profile/merge.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Indexed by enum view_id: the tab order, and the keys 1-9 and 0 for the
 * first ten. */
static const struct view_ops *const views[VIEW_COUNT] = {
	[VIEW_FUNCTIONS] = &view_functions, [VIEW_TREE] = &view_tree,	[VIEW_CALLERS] = &view_callers,
	[VIEW_EVENTS] = &view_events,	    [VIEW_THREADS] = &view_threads, [VIEW_PROCESSES] = &view_processes,
	[VIEW_CALLS] = &view_calls,	    [VIEW_HEAP] = &view_heap,	[VIEW_ALLOCS] = &view_allocations,
	[VIEW_GC] = &view_gc,		    [VIEW_LOCKS] = &view_locks,	[VIEW_FLAME] = &view_flame,
	[VIEW_DIFF] = &view_diff,
	[VIEW_SOURCE] = &view_source,
	[VIEW_PATHS] = &view_paths,
	[VIEW_DOMINATORS] = &view_dominators,
	[VIEW_AWAITS] = &view_awaits,
};

static const char *filter_of(const struct session_screen *s)
{
	return s->filter;
}

static const struct view_host host = {ui_current, ui_samples, filter_of, session_screen_message};

void session_screen_init(struct session_screen *s)
{
	s->time_cursor = -1;
	s->focus = UINT32_MAX;
	s->shown = VIEW_FUNCTIONS;
	for (int i = 0; i < VIEW_COUNT; i++)
		view_init(&s->views[i], views[i], &host);
}

struct prof_process *ui_current(struct session_screen *s)
{
	if (s->all && s->merged)
		return s->merged;
	return s->proc < s->model.nprocs ? s->model.procs[s->proc] : NULL;
}

static uint64_t latest_awaits_seq(struct session_screen *s)
{
	const struct prof_process *p = ui_current(s);
	const struct prof_awaits *a = p ? prof_latest_awaits(p) : NULL;
	return a ? a->seq : 0;
}

void session_screen_awaits_asked(struct session_screen *s)
{
	s->awaits_asked = true;
	s->awaits_before = latest_awaits_seq(s);
	session_screen_message(s, false, "asked for an awaits snapshot (generation %" PRIu64 "): it shows here when it arrives",
			       s->dial_requested);
}

static void awaits_arrived(struct session_screen *s)
{
	if (!s->awaits_asked || latest_awaits_seq(s) <= s->awaits_before)
		return;
	s->awaits_asked = false;
	char text[400];
	prof_awaits_text(prof_latest_awaits(ui_current(s)), text, sizeof text);
	session_screen_message(s, false, "%s", text);
}

bool session_screen_refresh(struct session_screen *s)
{
	size_t nprocs = s->model.nprocs;
	uint64_t records = 0, after = 0;
	for (size_t i = 0; i < s->model.nprocs; i++)
		records += s->model.procs[i]->reader.records;
	prof_recording_update(&s->model, false);
	for (size_t i = 0; i < s->model.nprocs; i++)
		after += s->model.procs[i]->reader.records;
	if (s->all && (after != records || !s->merged))
		s->merged = prof_merge(&s->model, s->merged);
	if (s->narrowed) {
		prof_recording_update(&s->narrow, false);
		if (after != records && s->narrow_merged) /* made again when next asked for */
			prof_merge_free(s->narrow_merged), s->narrow_merged = NULL;
	}
	awaits_arrived(s);
	/* show the first process that said hello, until the user picks one */
	if (!s->all && (s->proc >= s->model.nprocs || (!ui_current(s)->have_hello && s->shown != VIEW_PROCESSES)))
		for (size_t i = 0; i < s->model.nprocs; i++)
			if (s->model.procs[i]->have_hello) {
				s->proc = i;
				break;
			}
	return after != records || nprocs != s->model.nprocs;
}

static void drop_narrow(struct session_screen *s)
{
	if (!s->narrowed)
		return;
	prof_merge_free(s->narrow_merged);
	prof_recording_free(&s->narrow);
	s->narrow_merged = NULL;
	s->narrowed = false;
}

struct prof_process *ui_samples(struct session_screen *s)
{
	struct prof_process *shown = ui_current(s);
	if (!s->narrowed || !shown)
		return shown;
	if (s->all && s->merged) {
		if (!s->narrow_merged)
			s->narrow_merged = prof_merge(&s->narrow, NULL);
		return s->narrow_merged;
	}
	/* the same process directory read with the filter: both models
	 * discover processes on their own, so match them by directory */
	for (size_t i = 0; i < s->narrow.nprocs; i++)
		if (!strcmp(s->narrow.procs[i]->dir, shown->dir))
			return s->narrow.procs[i];
	return shown; /* not discovered there yet: the next refresh finds it */
}

bool session_screen_set_samples(struct session_screen *s, const struct prof_filter *f)
{
	if (!f->os_tid && !f->from_us && !f->to_us && !f->physical) {
		drop_narrow(s);
		s->samples = *f;
		session_screen_update_views(s);
		session_screen_message(s, false, "every sample counts again");
		return true;
	}
	struct prof_recording narrow;
	char err[600];
	if (prof_recording_open(&narrow, s->model.dir, err, sizeof err) < 0) {
		session_screen_message(s, true, "%s", err);
		return false;
	}
	narrow.filter = *f;
	narrow.time = s->model.time;
	prof_recording_update(&narrow, false);
	drop_narrow(s);
	s->narrow = narrow;
	s->narrowed = true;
	s->samples = *f;
	session_screen_update_views(s);
	char what[160];
	ui_samples_text(s, what, sizeof what);
	session_screen_message(s, false, "samples of %s", what);
	return true;
}

void ui_samples_text(const struct session_screen *s, char *out, size_t n)
{
	size_t len = 0;
	out[0] = 0;
	const struct prof_filter *f = &s->samples;
	if (f->os_tid) {
		const char *name = NULL;
		for (size_t i = 0; i < s->model.nprocs && !name; i++) {
			const struct prof_process *p = s->model.procs[i];
			for (size_t t = 0; t < p->nthreads && !name; t++)
				if (p->threads[t].os_tid == f->os_tid && p->threads[t].name && p->threads[t].name[0])
					name = p->threads[t].name;
		}
		len += (size_t)snprintf(out, n, "thread %" PRIu32 "%s%s", f->os_tid, name ? " " : "", name ? name : "");
	}
	if ((f->from_us || f->to_us) && len < n) {
		char to[32] = "end";
		if (f->to_us)
			snprintf(to, sizeof to, "%.1f s", (double)f->to_us / 1e6);
		len += (size_t)snprintf(out + len, n - len, "%s%.1f s-%s", len ? ", " : "", (double)f->from_us / 1e6, to);
	}
	if (f->physical && len < n)
		snprintf(out + len, n - len, "%sphysical stacks", len ? ", " : "");
}

void session_screen_free(struct session_screen *s)
{
	for (int i = 0; i < VIEW_COUNT; i++)
		view_free(&s->views[i]);
	prof_merge_free(s->merged);
	prof_recording_free(&s->model);
	drop_narrow(s);
}

void session_screen_update_views(struct session_screen *s)
{
	for (int i = 0; i < VIEW_COUNT; i++)
		s->views[i].dirty = true;
	view_update(ui_shown_view(s), s);
}

void session_screen_process_changed(struct session_screen *s)
{
	s->focus = UINT32_MAX;
	for (int i = 0; i < VIEW_COUNT; i++)
		view_process_changed(&s->views[i]);
	session_screen_update_views(s);
}

void session_screen_message(struct session_screen *s, bool error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->message, sizeof s->message, fmt, ap);
	va_end(ap);
	s->message_error = error;
}

const struct view_ops *ui_view(enum view_id id)
{
	return (unsigned)id < VIEW_COUNT ? views[id] : NULL;
}

enum view_id ui_view_find(const char *name)
{
	for (int i = 0; i < VIEW_COUNT; i++)
		if (!strcasecmp(name, views[i]->name))
			return (enum view_id)i;
	return VIEW_COUNT;
}

int ui_view_key(enum view_id id)
{
	return id < 9 ? '1' + (int)id : id == 9 ? '0' : 0;
}

enum view_id ui_view_for_key(int key)
{
	for (int i = 0; i < VIEW_COUNT; i++)
		if (key && ui_view_key((enum view_id)i) == key)
			return (enum view_id)i;
	return VIEW_COUNT;
}

void session_screen_show(struct session_screen *s, enum view_id id)
{
	if ((unsigned)id >= VIEW_COUNT)
		return;
	s->shown = id;
	if (s->views[id].dirty)
		view_update(&s->views[id], s);
}

void session_screen_set_time(struct session_screen *s, enum prof_time t)
{
	prof_recording_set_time(&s->model, t);
	if (s->narrowed) {
		prof_recording_set_time(&s->narrow, t);
		prof_merge_free(s->narrow_merged);
		s->narrow_merged = NULL;
	}
	if (s->all) /* the merge sums the shown time's counts: made again */
		s->merged = prof_merge(&s->model, s->merged);
	session_screen_update_views(s);
}

void session_screen_show_source(struct session_screen *s, uint32_t function)
{
	s->focus = function;
	s->views[VIEW_SOURCE].dirty = true;
	session_screen_show(s, VIEW_SOURCE);
}

void session_screen_show_paths(struct session_screen *s, const char *type)
{
	snprintf(s->heap_type, sizeof s->heap_type, "%s", type);
	s->views[VIEW_PATHS].dirty = true;
	session_screen_show(s, VIEW_PATHS);
}

struct view *ui_shown_view(struct session_screen *s)
{
	return &s->views[s->shown];
}

bool session_screen_key(struct session_screen *s, int key)
{
	return view_key(ui_shown_view(s), s, key);
}

bool session_screen_click(struct session_screen *s, int y, int x)
{
	return view_click(ui_shown_view(s), s, y, x);
}
