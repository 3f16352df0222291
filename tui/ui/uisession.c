#include "uisession.h"

#include "merge.h"

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
};

void ui_session_init(struct ui_session *s)
{
	s->time_cursor = -1;
	s->focus = UINT32_MAX;
	s->shown = VIEW_FUNCTIONS;
	for (int i = 0; i < VIEW_COUNT; i++)
		s->views[i] = (struct view){views[i], true, views[i]->create()};
}

struct prof_process *ui_current(struct ui_session *s)
{
	if (s->all && s->merged)
		return s->merged;
	return s->proc < s->model.nprocs ? s->model.procs[s->proc] : NULL;
}

bool ui_session_refresh(struct ui_session *s)
{
	size_t nprocs = s->model.nprocs;
	uint64_t records = 0, after = 0;
	for (size_t i = 0; i < s->model.nprocs; i++)
		records += s->model.procs[i]->reader.records;
	prof_session_update(&s->model, false);
	for (size_t i = 0; i < s->model.nprocs; i++)
		after += s->model.procs[i]->reader.records;
	if (s->all && (after != records || !s->merged))
		s->merged = prof_merge(&s->model, s->merged);
	if (s->narrowed) {
		prof_session_update(&s->narrow, false);
		if (after != records && s->narrow_merged) /* made again when next asked for */
			prof_merge_free(s->narrow_merged), s->narrow_merged = NULL;
	}
	/* show the first process that said hello, until the user picks one */
	if (!s->all && (s->proc >= s->model.nprocs || (!ui_current(s)->have_hello && s->shown != VIEW_PROCESSES)))
		for (size_t i = 0; i < s->model.nprocs; i++)
			if (s->model.procs[i]->have_hello) {
				s->proc = i;
				break;
			}
	return after != records || nprocs != s->model.nprocs;
}

static void drop_narrow(struct ui_session *s)
{
	if (!s->narrowed)
		return;
	prof_merge_free(s->narrow_merged);
	prof_session_free(&s->narrow);
	s->narrow_merged = NULL;
	s->narrowed = false;
}

struct prof_process *ui_samples(struct ui_session *s)
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

bool ui_session_set_samples(struct ui_session *s, const struct prof_filter *f)
{
	if (!f->os_tid && !f->from_us && !f->to_us) {
		drop_narrow(s);
		s->samples = *f;
		ui_session_update_views(s);
		ui_session_message(s, false, "every sample counts again");
		return true;
	}
	struct prof_session narrow;
	char err[600];
	if (prof_session_open(&narrow, s->model.dir, err, sizeof err) < 0) {
		ui_session_message(s, true, "%s", err);
		return false;
	}
	narrow.filter = *f;
	narrow.time = s->model.time;
	prof_session_update(&narrow, false);
	drop_narrow(s);
	s->narrow = narrow;
	s->narrowed = true;
	s->samples = *f;
	ui_session_update_views(s);
	char what[160];
	ui_samples_text(s, what, sizeof what);
	ui_session_message(s, false, "samples of %s", what);
	return true;
}

void ui_samples_text(const struct ui_session *s, char *out, size_t n)
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
		snprintf(out + len, n - len, "%s%.1f s-%s", len ? ", " : "", (double)f->from_us / 1e6, to);
	}
}

void ui_session_free(struct ui_session *s)
{
	for (int i = 0; i < VIEW_COUNT; i++)
		if (s->views[i].ops)
			s->views[i].ops->destroy(s->views[i].priv);
	prof_merge_free(s->merged);
	prof_session_free(&s->model);
	drop_narrow(s);
}

static void update_view(struct ui_session *s, struct view *v)
{
	v->dirty = false;
	v->ops->update(v, s);
}

void ui_session_update_views(struct ui_session *s)
{
	for (int i = 0; i < VIEW_COUNT; i++)
		s->views[i].dirty = true;
	update_view(s, ui_shown_view(s));
}

void ui_session_process_changed(struct ui_session *s)
{
	s->focus = UINT32_MAX;
	for (int i = 0; i < VIEW_COUNT; i++)
		if (s->views[i].ops->process_changed)
			s->views[i].ops->process_changed(&s->views[i]);
	ui_session_update_views(s);
}

void ui_session_message(struct ui_session *s, bool error, const char *fmt, ...)
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

void ui_session_show(struct ui_session *s, enum view_id id)
{
	if ((unsigned)id >= VIEW_COUNT)
		return;
	s->shown = id;
	if (s->views[id].dirty)
		update_view(s, &s->views[id]);
}

void ui_session_set_time(struct ui_session *s, enum prof_time t)
{
	prof_session_set_time(&s->model, t);
	if (s->narrowed) {
		prof_session_set_time(&s->narrow, t);
		prof_merge_free(s->narrow_merged);
		s->narrow_merged = NULL;
	}
	if (s->all) /* the merge sums the shown time's counts: made again */
		s->merged = prof_merge(&s->model, s->merged);
	ui_session_update_views(s);
}

void ui_session_show_source(struct ui_session *s, uint32_t function)
{
	s->focus = function;
	s->views[VIEW_SOURCE].dirty = true;
	ui_session_show(s, VIEW_SOURCE);
}

struct view *ui_shown_view(struct ui_session *s)
{
	return &s->views[s->shown];
}

bool ui_session_key(struct ui_session *s, int key)
{
	struct view *v = ui_shown_view(s);
	return v->ops->key(v, s, key);
}

bool ui_session_click(struct ui_session *s, int y, int x)
{
	struct view *v = ui_shown_view(s);
	if (v->ops->click)
		return v->ops->click(v, s, y, x);
	return v->ops->list && listview_click_screen(v->ops->list(v), y);
}
