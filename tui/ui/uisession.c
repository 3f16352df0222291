#include "uisession.h"

#include "merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
	/* show the first process that said hello, until the user picks one */
	if (!s->all && (s->proc >= s->model.nprocs || (!ui_current(s)->have_hello && s->shown != VIEW_PROCESSES)))
		for (size_t i = 0; i < s->model.nprocs; i++)
			if (s->model.procs[i]->have_hello) {
				s->proc = i;
				break;
			}
	return after != records || nprocs != s->model.nprocs;
}

void ui_session_free(struct ui_session *s)
{
	for (int i = 0; i < VIEW_COUNT; i++)
		if (s->views[i].ops)
			s->views[i].ops->destroy(s->views[i].priv);
	prof_merge_free(s->merged);
	prof_session_free(&s->model);
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
