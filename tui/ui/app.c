/* The terminal UI's state and the actions that keys and prompt commands
 * take on it (see app.h). */
#include "ui/app.h"

#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dials.h"
#include "common/session.h"
#include "live/apps.h"
#include "live/attacher.h"
#include "live/dialer.h"
#include "live/launch.h"
#include "live/procs.h"
#include "ui/attaching.h"
#include "ui/discover.h"
#include "ui/watch.h"
#include "util/xalloc.h"

void app_init(struct app *a, unsigned rate, const char *default_events)
{
	memset(a, 0, sizeof *a);
	a->watch_fd = -1;
	a->rate = rate;
	a->default_events = default_events;
}

void app_message(struct app *a, bool error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *dst = a->session ? a->session->message : a->message;
	vsnprintf(dst, sizeof a->message, fmt, ap);
	va_end(ap);
	if (a->session)
		a->session->message_error = error;
	else
		a->message_error = error;
}

/* ---- sessions ---- */

void app_close_session(struct app *a)
{
	struct session_screen *s = a->session;
	if (!s)
		return;
	if (a->watch_fd >= 0)
		watch_stop();
	a->watch_fd = -1;
	session_screen_free(s);
	free(s);
	a->session = NULL;
}

int app_open_session(struct app *a, const char *dir, char *err, size_t errlen)
{
	struct session_screen *s = xcalloc(1, sizeof *s);
	if (prof_recording_open(&s->model, dir, err, errlen) < 0) {
		free(s);
		return -1;
	}
	session_screen_init(s);
	app_close_session(a);
	a->session = s;
	char why[512];
	a->watch_fd = watch_start(s->model.dir, why, sizeof why);
	if (a->watch_fd < 0)
		session_screen_message(s, true, "%s: updates come every second instead", why);
	session_screen_refresh(s);
	session_screen_update_views(s);
	return 0;
}

int app_launch(struct app *a, char **argv, const char *dir, const char *events, const struct startup_features *features)
{
	events = events ? events : a->default_events;
	char agent[PATH_MAX], session[PATH_MAX], err[PATH_MAX + 256];
	if (launch_prepare(argv, dir, 0, agent, sizeof agent, session, sizeof session, err, sizeof err) < 0) {
		app_message(a, true, "%s", err);
		return -1;
	}
	char output[PATH_MAX + 16];
	snprintf(output, sizeof output, "%s/output.log", session);
	sigset_t none;
	sigemptyset(&none);
	struct launch_request req = {.argv = argv, .agent_path = agent, .session_dir = session, .rate_hz = a->rate,
				     .events = events, .output_path = output,
				     .instrument = features ? features->patterns : NULL,
				     .allocations = features && features->allocations,
				     .heap_snapshots = features && features->heap_snapshots};
	pid_t pid = launch_spawn(&req, &none, err, sizeof err);
	if (pid < 0) {
		app_message(a, true, "%s", err);
		return -1;
	}
	if (app_open_session(a, session, err, sizeof err) < 0) {
		app_message(a, true, "%s", err);
		return -1;
	}
	a->session->state = TARGET_STARTING;
	a->session->target = pid;
	snprintf(a->session->output_path, sizeof a->session->output_path, "%s", output);
	app_message(a, false, "launched %s (pid %d); its output goes to %s", argv[0], (int)pid, output);
	return 0;
}

int app_attach(struct app *a, pid_t pid, const char *dir, const char *events)
{
	if (a->attaching) {
		app_message(a, true, "still attaching to pid %d", (int)attaching_pid(a->attaching));
		return -1;
	}
	char err[256];
	a->attaching = attaching_start(pid, dir, a->rate, events ? events : a->default_events, err, sizeof err);
	if (!a->attaching) {
		app_message(a, true, "%s", err);
		return -1;
	}
	app_message(a, false, "attaching to pid %d ...", (int)pid);
	return 0;
}

/* The attach thread is done: open its session, and wait for the agent's
 * hello there without waiting here. */
void app_take_attach(struct app *a)
{
	struct attach_result r;
	if (!a->attaching || !attaching_take(a->attaching, &r))
		return;
	a->attaching = NULL;
	char err[PATH_MAX + 512];
	if (r.rc < 0 || ((!a->session || strcmp(a->session->model.dir, r.session) != 0) &&
			 app_open_session(a, r.session, err, sizeof err) < 0)) {
		app_message(a, true, "%s", r.rc < 0 ? r.err : err);
		if (a->attach_first && !a->session) {
			a->exit_status = 1; /* 'clrscope attach PID' has nothing to show */
			a->quit = true;
		}
		return;
	}
	a->attach_first = false;
	a->session->state = TARGET_STARTING;
	a->session->target = r.pid;
	a->hello_pid = r.pid;
	a->hello_after_ns = r.asked_unix_ns;
	app_message(a, false, "attached to pid %d; waiting for its agent", (int)r.pid);
}

/* Once the attached agent's hello has come, its process is the one shown. */
void app_check_hello(struct app *a)
{
	struct session_screen *s = a->session;
	struct prof_process *p = s ? attacher_find_hello(&s->model, a->hello_pid, a->hello_after_ns) : NULL;
	if (!p)
		return;
	for (size_t i = 0; i < s->model.nprocs; i++)
		if (s->model.procs[i] == p)
			s->proc = i;
	s->state = TARGET_RUNNING;
	session_screen_process_changed(s);
	app_message(a, false, "attached to pid %d", (int)a->hello_pid);
	a->hello_pid = 0;
}

int app_send_dials(struct app *a, char *const *assignments, int n)
{
	struct session_screen *s = a->session;
	struct prof_process *p = s ? ui_current(s) : NULL;
	if (!p || !p->have_hello) {
		app_message(a, true, "no live agent here to send dials to");
		return -1;
	}
	struct cs_dials check;
	cs_dials_default(&check, CS_RATE_DEFAULT);
	char err[600];
	for (int i = 0; i < n; i++) {
		if (cs_dials_assign(&check, assignments[i], err, sizeof err) < 0) {
			app_message(a, true, "%s", err);
			return -1;
		}
	}
	uint64_t generation;
	if (dialer_post(p, assignments, n, &generation, err, sizeof err) < 0) {
		app_message(a, true, "%s", err);
		return -1;
	}
	s->dial_requested = generation;
	app_message(a, false, "sent %s (generation %" PRIu64 ")", assignments[0], generation);
	return 0;
}

/* ---- the targets screen ---- */

static const struct column target_columns[] = {
	{"pid", 8, true}, {"runtime", 10, false}, {"attach", 24, false}, {"profiled", 8, false}, {"command", 0, false},
};

/* The rows shown: the processes and apps that pass the filter. */
static void targets_rows(struct app *a)
{
	struct targets *t = &a->targets;
	if (!t->apps) {
		t->apps = xcalloc(1, sizeof *t->apps);
		FILE *sink = fopen("/dev/null", "w"); /* warnings: 'clrscope apps' shows them */
		apps_collect(t->apps, sink);
		if (sink)
			fclose(sink);
	}
	t->nrows = 0;
	size_t total = t->nprocs + t->apps->n;
	xgrow(&t->rows, &t->rows_cap, total + 1, sizeof *t->rows);
	for (size_t i = 0; i < total; i++) {
		const char *text = i < t->nprocs ? t->procs[i].command : t->apps->v[i - t->nprocs].command;
		if (!a->filter[0] || (text && strstr(text, a->filter)))
			t->rows[t->nrows++] = i;
	}
	t->lv.cols = target_columns;
	t->lv.ncols = sizeof target_columns / sizeof *target_columns;
	listview_set_rows(&t->lv, t->nrows);
}

static void targets_set(struct app *a, struct dotnet_proc *procs, size_t n)
{
	struct targets *t = &a->targets;
	procs_free(t->procs, t->nprocs);
	t->procs = procs;
	t->nprocs = n;
}

/* The discovery thread lists the processes: the screen shows what it has
 * and takes the new list when it comes (app_take_targets). */
void app_refresh_targets(struct app *a)
{
	if (!a->discovery && !a->discovery_failed) {
		char err[256];
		a->discovery = discover_start(err, sizeof err);
		if (!a->discovery) {
			a->discovery_failed = true;
			app_message(a, true, "%s: listing here instead", err);
		}
	}
	if (a->discovery) {
		discover_request(a->discovery);
	} else {
		struct dotnet_proc *procs;
		size_t n = procs_list(&procs);
		targets_set(a, procs, n);
	}
	targets_rows(a);
}

void app_take_targets(struct app *a)
{
	struct dotnet_proc *procs;
	long n = discover_take(a->discovery, &procs);
	if (n < 0)
		return;
	targets_set(a, procs, (size_t)n);
	targets_rows(a);
}

void app_free(struct app *a)
{
	app_close_session(a);
	discover_stop(a->discovery);
	a->discovery = NULL;
	attaching_stop(a->attaching);
	a->attaching = NULL;
	procs_free(a->targets.procs, a->targets.nprocs);
	if (a->targets.apps) {
		apps_free(a->targets.apps);
		free(a->targets.apps);
	}
	free(a->targets.rows);
	memset(&a->targets, 0, sizeof a->targets);
}
