/* Threads of the shown process, and the processes of the session. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "merge.h"
#include "uisession.h"

static const struct column thread_columns[] = {
	{"thread", 7, true}, {"os tid", 8, true}, {"samples", 9, true}, {"share%", 7, true}, {"name", 0, false},
};

static size_t thread_count(struct prof_process *p)
{
	return p ? p->nthreads : 0;
}

static void threads_update(struct ui_session *s)
{
	s->threads_lv.cols = thread_columns;
	s->threads_lv.ncols = sizeof thread_columns / sizeof *thread_columns;
	size_t n = thread_count(ui_current(s));
	listview_set_rows(&s->threads_lv, n > 1 ? n - 1 : 0); /* references start at 1 */
}

static void thread_cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct ui_session *s = ctx;
	struct prof_process *p = ui_current(s);
	const struct prof_thread *t = &p->threads[row + 1];
	switch (col) {
	case 0: snprintf(buf, n, "%zu", row + 1); break;
	case 1: snprintf(buf, n, "%u", t->os_tid); break;
	case 2: snprintf(buf, n, "%" PRIu64, t->samples); break;
	case 3: snprintf(buf, n, "%.1f", p->samples ? 100.0 * (double)t->samples / (double)p->samples : 0.0); break;
	default: snprintf(buf, n, "%s", t->name ? t->name : ""); break;
	}
}

static void threads_draw(struct ui_session *s, struct canvas *c, int y, int height)
{
	listview_draw(&s->threads_lv, c, y, height, thread_cell, NULL, s);
}

static int threads_key(struct ui_session *s, int k)
{
	return listview_key(&s->threads_lv, k) ? KEY_HANDLED | KEY_REDRAW : KEY_IGNORED;
}

static struct listview *threads_list(struct ui_session *s)
{
	return &s->threads_lv;
}

const struct view_ops view_threads = {"Threads", "managed threads of the process, by samples", threads_update,
				      threads_draw, threads_key, threads_list};

static const struct column process_columns[] = {
	{"pid", 8, true}, {"samples", 9, true}, {"state", 10, false}, {"command", 0, false},
};

/* With several processes, row 0 is "all of them". */
static size_t all_rows(struct ui_session *s)
{
	return s->model.nprocs > 1 ? 1 : 0;
}

static void processes_update(struct ui_session *s)
{
	s->processes_lv.cols = process_columns;
	s->processes_lv.ncols = sizeof process_columns / sizeof *process_columns;
	listview_set_rows(&s->processes_lv, s->model.nprocs + all_rows(s));
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

static void processes_draw(struct ui_session *s, struct canvas *c, int y, int height)
{
	listview_draw(&s->processes_lv, c, y, height, process_cell, NULL, s);
}

static int processes_key(struct ui_session *s, int k)
{
	if (listview_key(&s->processes_lv, k))
		return KEY_HANDLED | KEY_REDRAW;
	if ((k == '\n' || k == KEY_ENTER) && s->processes_lv.cursor < s->model.nprocs + all_rows(s)) {
		s->all = all_rows(s) && s->processes_lv.cursor == 0;
		if (s->all)
			s->merged = prof_merge(&s->model, s->merged);
		else
			s->proc = s->processes_lv.cursor - all_rows(s);
		s->nnodes = 0; /* another process: another tree */
		s->focus = UINT32_MAX;
		ui_session_update_views(s);
		s->view = 0;
		if (s->all)
			ui_session_message(s, false, "showing all %zu processes", s->model.nprocs);
		else
			ui_session_message(s, false, "showing pid %" PRIu32, ui_current(s)->pid);
		return KEY_HANDLED | KEY_REDRAW;
	}
	return KEY_IGNORED;
}

static struct listview *processes_list(struct ui_session *s)
{
	return &s->processes_lv;
}

const struct view_ops view_processes = {"Processes", "the processes of this session: Enter shows one", processes_update,
					processes_draw, processes_key, processes_list};
