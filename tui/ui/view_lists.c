/* Threads of the shown process, and the processes of the session. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/merge.h"
#include "ui/session_screen.h"
#include "util/xalloc.h"

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

/* Like top -H: CPU % over the last clock readings (about a second), CPU
 * time so far, what the thread was doing at its latest sample, and its
 * samples of the time shown; busiest first. */
struct threads {
	struct listview lv;
	uint32_t *rows; /* thread references, sorted */
	size_t nrows, rows_cap;
};

static const struct column thread_columns[] = {
	{"cpu%", 6, true}, {"cpu s", 8, true}, {"state", 8, false}, {"samples", 9, true},
	{"share%", 7, true}, {"os tid", 8, true}, {"name", 0, false},
};

static void *threads_create(void)
{
	struct threads *t = xcalloc(1, sizeof *t);
	t->lv.cols = thread_columns;
	t->lv.ncols = sizeof thread_columns / sizeof *thread_columns;
	return t;
}

static void threads_destroy(void *priv)
{
	struct threads *t = priv;
	if (t)
		free(t->rows);
	free(t);
}

static struct listview *threads_list(struct view *v)
{
	return &((struct threads *)v->priv)->lv;
}

static int by_cpu(const void *a, const void *b, void *ctx)
{
	const struct prof_process *p = ctx;
	const struct prof_thread *x = &p->threads[*(const uint32_t *)a], *y = &p->threads[*(const uint32_t *)b];
	double cx = prof_thread_cpu_percent(x), cy = prof_thread_cpu_percent(y);
	if (cx != cy)
		return cx > cy ? -1 : 1;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void threads_update(struct view *v, struct session_screen *s)
{
	struct threads *t = v->priv;
	struct prof_process *p = ui_current(s);
	t->nrows = 0;
	for (size_t i = 1; p && i < p->nthreads; i++) { /* references start at 1 */
		xgrow(&t->rows, &t->rows_cap, t->nrows + 1, sizeof *t->rows);
		t->rows[t->nrows++] = (uint32_t)i;
	}
	if (t->nrows)
		qsort_r(t->rows, t->nrows, sizeof *t->rows, by_cpu, p);
	listview_set_rows(&t->lv, t->nrows);
}

struct thread_cells {
	struct threads *t;
	struct prof_process *p;
	uint32_t chosen; /* the os tid the sample views count (0: all) */
};

static void thread_cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	const struct thread_cells *tc = ctx;
	struct prof_process *p = tc->p;
	const struct prof_thread *t = &p->threads[tc->t->rows[row]];
	uint64_t all = 0;
	for (int k = 0; k < PROF_STATES; k++)
		all += t->states[k];
	switch (col) {
	case 0: snprintf(buf, n, "%.1f", prof_thread_cpu_percent(t)); break;
	case 1:
		if (t->cpu_us_at)
			snprintf(buf, n, "%.2f", (double)t->cpu_ns / 1e9);
		else
			snprintf(buf, n, "-");
		break;
	case 2: snprintf(buf, n, "%s", all ? prof_state_name((enum prof_state)t->last_state) : "-"); break;
	case 3: snprintf(buf, n, "%" PRIu64, t->samples); break;
	case 4: snprintf(buf, n, "%.1f", p->samples ? 100.0 * (double)t->samples / (double)p->samples : 0.0); break;
	case 5: snprintf(buf, n, "%u", t->os_tid); break;
	default: /* '*': the thread whose samples the views count */
		snprintf(buf, n, "%s%s", t->os_tid && t->os_tid == tc->chosen ? "* " : "", t->name ? t->name : "");
		break;
	}
}

static enum ui_style thread_style(void *ctx, size_t row)
{
	const struct thread_cells *tc = ctx;
	const struct prof_thread *t = &tc->p->threads[tc->t->rows[row]];
	if (t->os_tid && t->os_tid == tc->chosen)
		return UI_GOOD;
	return prof_thread_cpu_percent(t) >= 50.0 ? UI_HOT : UI_NORMAL;
}

static void threads_draw(struct view *v, struct session_screen *s, struct canvas *c, int y, int height)
{
	struct thread_cells tc = {v->priv, ui_current(s), s->samples.os_tid};
	if (!tc.p)
		return;
	listview_draw(&tc.t->lv, c, y, height, thread_cell, thread_style, &tc);
}

/* Enter counts only the samples of the thread under the cursor in every
 * sample view; Enter on it again counts every thread's. */
static bool threads_key(struct view *v, struct session_screen *s, int k)
{
	struct threads *t = v->priv;
	struct prof_process *p = ui_current(s);
	if ((k == '\n' || k == KEY_ENTER) && p && t->lv.cursor < t->nrows) {
		const struct prof_thread *th = &p->threads[t->rows[t->lv.cursor]];
		struct prof_filter f = s->samples;
		f.os_tid = th->os_tid == s->samples.os_tid ? 0 : th->os_tid;
		session_screen_set_samples(s, &f);
		return true;
	}
	return listview_key(threads_list(v), k);
}

const struct view_ops view_threads = {
	.name = "Threads",
	.title = "managed threads like top -H: CPU % now, CPU time, state at the latest sample, samples",
	.create = threads_create,
	.destroy = threads_destroy,
	.update = threads_update,
	.draw = threads_draw,
	.key = threads_key,
	.list = threads_list,
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
static size_t all_rows(struct session_screen *s)
{
	return s->model.nprocs > 1 ? 1 : 0;
}

static void processes_update(struct view *v, struct session_screen *s)
{
	listview_set_rows(list(v), s->model.nprocs + all_rows(s));
}

static void process_cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct session_screen *s = ctx;
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

static void processes_draw(struct view *v, struct session_screen *s, struct canvas *c, int y, int height)
{
	listview_draw(list(v), c, y, height, process_cell, NULL, s);
}

static bool processes_key(struct view *v, struct session_screen *s, int k)
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
		session_screen_process_changed(s);
		session_screen_show(s, VIEW_FUNCTIONS);
		if (s->all)
			session_screen_message(s, false, "showing all %zu processes", s->model.nprocs);
		else
			session_screen_message(s, false, "showing pid %" PRIu32, ui_current(s)->pid);
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
