/* Threads of the shown process, and the processes of the session. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "uisession.h"
#include "xalloc.h"

/* Both views are a bare list: its rows index the model directly. */
static void *create_list(const struct column *cols, int ncols)
{
	struct listview *lv = xcalloc(1, sizeof *lv);
	lv->cols = cols;
	lv->ncols = ncols;
	return lv;
}

static void destroy_list(void *priv)
{
	free(priv);
}

static struct listview *list(struct view *v)
{
	return v->priv;
}

/* ---- Threads ---- */

static const struct column thread_columns[] = {
	{"thread", 7, true}, {"os tid", 8, true}, {"samples", 9, true}, {"share%", 7, true}, {"name", 0, false},
};

static void *threads_create(void)
{
	return create_list(thread_columns, sizeof thread_columns / sizeof *thread_columns);
}

static void threads_update(struct view *v, struct ui_session *s)
{
	struct prof_process *p = ui_current(s);
	size_t n = p ? p->nthreads : 0;
	listview_set_rows(list(v), n > 1 ? n - 1 : 0); /* references start at 1 */
}

static void thread_cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct prof_process *p = ctx;
	const struct prof_thread *t = &p->threads[row + 1];
	switch (col) {
	case 0: snprintf(buf, n, "%zu", row + 1); break;
	case 1: snprintf(buf, n, "%u", t->os_tid); break;
	case 2: snprintf(buf, n, "%" PRIu64, t->samples); break;
	case 3: snprintf(buf, n, "%.1f", p->samples ? 100.0 * (double)t->samples / (double)p->samples : 0.0); break;
	default: snprintf(buf, n, "%s", t->name ? t->name : ""); break;
	}
}

static void threads_draw(struct view *v, struct ui_session *s, struct canvas *c, int y, int height)
{
	listview_draw(list(v), c, y, height, thread_cell, NULL, ui_current(s));
}

static bool threads_key(struct view *v, struct ui_session *s, int k)
{
	(void)s;
	return listview_key(list(v), k);
}

const struct view_ops view_threads = {
	.name = "Threads",
	.title = "managed threads of the process, by samples",
	.create = threads_create,
	.destroy = destroy_list,
	.update = threads_update,
	.draw = threads_draw,
	.key = threads_key,
	.list = list,
};

/* ---- Processes ---- */

static const struct column process_columns[] = {
	{"pid", 8, true}, {"samples", 9, true}, {"state", 10, false}, {"command", 0, false},
};

static void *processes_create(void)
{
	return create_list(process_columns, sizeof process_columns / sizeof *process_columns);
}

/* With several processes, row 0 is "all of them". */
static size_t all_rows(struct ui_session *s)
{
	return s->model.nprocs > 1 ? 1 : 0;
}

static void processes_update(struct view *v, struct ui_session *s)
{
	listview_set_rows(list(v), s->model.nprocs + all_rows(s));
}

static void process_cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct ui_session *s = ctx;
	if (all_rows(s) && row == 0) {
		uint64_t samples = 0;
		for (size_t i = 0; i < s->model.nprocs; i++)
			samples += s->model.procs[i]->samples;
		switch (col) {
		case 0: snprintf(buf, n, "all%s", s->all ? "*" : ""); break;
		case 1: snprintf(buf, n, "%" PRIu64, samples); break;
		case 2: buf[0] = 0; break;
		default: snprintf(buf, n, "every process of this session, merged by function"); break;
		}
		return;
	}
	row -= all_rows(s);
	struct prof_process *p = s->model.procs[row];
	switch (col) {
	case 0: snprintf(buf, n, "%" PRIu32 "%s", p->pid, row == s->proc && !s->all ? "*" : ""); break;
	case 1: snprintf(buf, n, "%" PRIu64, p->samples); break;
	case 2:
		snprintf(buf, n, "%s", !p->have_hello ? "starting" : !p->ended ? "recording" :
				       p->end_reason == CS_END_DETACH ? "detached" :
				       p->end_reason == CS_END_SIZE_CAP ? "full" : "ended");
		break;
	default: snprintf(buf, n, "%s", p->command_line ? p->command_line : p->dir); break;
	}
}

static void processes_draw(struct view *v, struct ui_session *s, struct canvas *c, int y, int height)
{
	listview_draw(list(v), c, y, height, process_cell, NULL, s);
}

static bool processes_key(struct view *v, struct ui_session *s, int k)
{
	struct listview *lv = list(v);
	if (listview_key(lv, k))
		return true;
	if ((k == '\n' || k == KEY_ENTER) && lv->cursor < s->model.nprocs + all_rows(s)) {
		s->all = all_rows(s) && lv->cursor == 0;
		if (s->all)
			s->merged = prof_merge(&s->model, s->merged);
		else
			s->proc = lv->cursor - all_rows(s);
		ui_session_process_changed(s);
		ui_session_show(s, VIEW_FUNCTIONS);
		if (s->all)
			ui_session_message(s, false, "showing all %zu processes", s->model.nprocs);
		else
			ui_session_message(s, false, "showing pid %" PRIu32, ui_current(s)->pid);
		return true;
	}
	return false;
}

const struct view_ops view_processes = {
	.name = "Processes",
	.title = "the processes of this session: Enter shows one",
	.create = processes_create,
	.destroy = destroy_list,
	.update = processes_update,
	.draw = processes_draw,
	.key = processes_key,
	.list = list,
};
