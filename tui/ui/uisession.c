#include "uisession.h"

#include "merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* The keys 1-9 and 0 pick the first ten in this order; Tab and ':view'
 * reach the rest. */
static const struct view_ops *const views[] = {&view_functions, &view_tree, &view_callers, &view_events,
					      &view_threads,   &view_processes, &view_calls, &view_heap,
					      &view_allocations, &view_gc,	     &view_locks};

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
	if (!s->all && (s->proc >= s->model.nprocs || (!ui_current(s)->have_hello && s->view != 5)))
		for (size_t i = 0; i < s->model.nprocs; i++)
			if (s->model.procs[i]->have_hello) {
				s->proc = i;
				break;
			}
	return after != records || nprocs != s->model.nprocs;
}

void ui_session_free(struct ui_session *s)
{
	prof_merge_free(s->merged);
	prof_session_free(&s->model);
	free(s->function_rows);
	free(s->nodes);
	free(s->tree_rows);
	free(s->tree_depth);
	free(s->caller_rows);
	free(s->event_rows);
	free(s->call_rows);
	free(s->heap_rows);
	free(s->alloc_rows);
	free(s->lock_rows);
}

void ui_session_update_views(struct ui_session *s)
{
	for (size_t i = 0; i < sizeof views / sizeof *views; i++)
		views[i]->update(s);
}

void ui_session_message(struct ui_session *s, bool error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->message, sizeof s->message, fmt, ap);
	va_end(ap);
	s->message_error = error;
}

uint32_t ui_selected_function(struct ui_session *s)
{
	switch (s->view) {
	case 0:
		return s->functions_lv.cursor < s->nfunction_rows ? s->function_rows[s->functions_lv.cursor] : UINT32_MAX;
	case 1:
		return s->tree_lv.cursor < s->ntree_rows ? s->nodes[s->tree_rows[s->tree_lv.cursor]].function : UINT32_MAX;
	case 2:
		return s->focus;
	default:
		return UINT32_MAX;
	}
}

bool ui_session_click(struct ui_session *s, int y)
{
	const struct view_ops *v = ui_view(s->view);
	return v && v->list && listview_click_screen(v->list(s), y);
}

const struct view_ops *ui_view(int i)
{
	return i >= 0 && (size_t)i < sizeof views / sizeof *views ? views[i] : NULL;
}

int ui_view_count(void)
{
	return (int)(sizeof views / sizeof *views);
}
