/* Threads of the shown process, and the processes of the session. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>

#include "profile/merge.h"
#include "ui/session_screen.h"

/* ---- Threads ---- */

/* Like top -H: CPU % over the last clock readings (about a second), CPU
 * time so far, what the thread was doing at its latest sample, and its
 * samples of the time shown; busiest first. */
static const struct column thread_columns[] = {
	{"cpu%", 6, true}, {"cpu s", 8, true}, {"state", 8, false}, {"samples", 9, true},
	{"share%", 7, true}, {"os tid", 8, true}, {"name", 0, false},
};

static size_t threads_count(struct view_ctx *c)
{
	return c->p->nthreads;
}

static bool thread_kept(struct view_ctx *c, uint32_t item)
{
	(void)c;
	return item != 0; /* references start at 1 */
}

static int by_cpu(struct view_ctx *c, uint32_t a, uint32_t b)
{
	const struct prof_thread *x = &c->p->threads[a], *y = &c->p->threads[b];
	double cx = prof_thread_cpu_percent(x), cy = prof_thread_cpu_percent(y);
	if (cx != cy)
		return cx > cy ? -1 : 1;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return a < b ? -1 : 1;
}

/* The thread whose samples the sample views count (0: all). */
static bool chosen(struct view_ctx *c, const struct prof_thread *t)
{
	return t->os_tid && t->os_tid == c->s->samples.os_tid;
}

static void thread_cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct prof_process *p = c->p;
	const struct prof_thread *t = &p->threads[item];
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
	default: snprintf(buf, n, "%s%s", chosen(c, t) ? "* " : "", t->name ? t->name : ""); break;
	}
}

static enum ui_style thread_style(struct view_ctx *c, uint32_t item)
{
	const struct prof_thread *t = &c->p->threads[item];
	if (chosen(c, t))
		return UI_GOOD;
	return prof_thread_cpu_percent(t) >= 50.0 ? UI_HOT : UI_NORMAL;
}

/* Nothing at all without a process. */
static int threads_header(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	(void)cv, (void)y, (void)height;
	return c->p ? 0 : -1;
}

/* Enter counts only the samples of the thread under the cursor in every
 * sample view; Enter on it again counts every thread's. */
static bool threads_key(struct view_ctx *c, int k)
{
	uint32_t item;
	if ((k != '\n' && k != KEY_ENTER) || !c->p || !view_selected(c->v, &item))
		return false;
	const struct prof_thread *th = &c->p->threads[item];
	struct prof_filter f = c->s->samples;
	f.os_tid = th->os_tid == c->s->samples.os_tid ? 0 : th->os_tid;
	session_screen_set_samples(c->s, &f);
	return true;
}

const struct view_ops view_threads = {
	.name = "Threads",
	.title = "managed threads like top -H: CPU % now, CPU time, state at the latest sample, samples",
	VIEW_COLUMNS(thread_columns), .count = threads_count, .keep = thread_kept, .compare = by_cpu,
	.cell = thread_cell, .style = thread_style, .header = threads_header,
	.key = threads_key,
};

/* ---- Processes ---- */

static const struct column process_columns[] = {
	{"pid", 8, true}, {"samples", 9, true}, {"state", 10, false}, {"command", 0, false},
};

/* With several processes, row 0 is "all of them". */
static size_t all_rows(const struct session_screen *s)
{
	return s->model.nprocs > 1 ? 1 : 0;
}

static size_t processes_count(struct view_ctx *c)
{
	return c->s->model.nprocs + all_rows(c->s);
}

static void process_cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	struct session_screen *s = c->s;
	if (all_rows(s) && item == 0) {
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
	size_t row = item - all_rows(s);
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

/* Enter shows the process under the cursor, or all of them. */
static bool processes_key(struct view_ctx *c, int k)
{
	struct session_screen *s = c->s;
	uint32_t item;
	if ((k != '\n' && k != KEY_ENTER) || !view_selected(c->v, &item))
		return false;
	s->all = all_rows(s) && item == 0;
	if (s->all)
		s->merged = prof_merge(&s->model, s->merged);
	else
		s->proc = item - all_rows(s);
	session_screen_process_changed(s);
	session_screen_show(s, VIEW_FUNCTIONS);
	if (s->all)
		session_screen_message(s, false, "showing all %zu processes", s->model.nprocs);
	else
		session_screen_message(s, false, "showing pid %" PRIu32, ui_current(s)->pid);
	return true;
}

const struct view_ops view_processes = {
	.name = "Processes",
	.title = "the processes of this session: Enter shows one",
	VIEW_COLUMNS(process_columns), .count = processes_count,
	.cell = process_cell,
	.key = processes_key,
};
