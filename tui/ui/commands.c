/* The prompt commands and the keys bound to them, in two tables: keys run
 * through their commands, and the help screen, 'clrscope help keys', Tab
 * completion and the man page test all read the tables, so none of them
 * can disagree with what a key does. */
#include "ui/commands.h"

#include <ctype.h>
#include <inttypes.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dials.h"
#include "common/session.h"
#include "profile/export.h"
#include "profile/pprof.h"
#include "ui/view_diff.h"
#include "ui/view_flame.h"

/* A prompt command that is one dial: "rate 500" sends rate=500. */
static void send_dial(struct app *a, int argc, char **argv, const char *key, const char *usage)
{
	if (argc != 2) {
		app_message(a, true, "usage: %s", usage);
		return;
	}
	char dial[64];
	snprintf(dial, sizeof dial, "%s=%s", key, argv[1]);
	char *d[] = {dial};
	app_send_dials(a, d, 1);
}

/* The dials the agent last answered with (a rejected answer changed
 * nothing and is passed over), or NULL before any answer. */
static const struct cs_dials *acknowledged(const struct prof_process *p)
{
	for (size_t i = p ? p->ndials : 0; i-- > 0;)
		if (p->dials[i].status != CS_DIALS_REJECTED)
			return &p->dials[i].dials;
	return NULL;
}

static void toggle_event(struct app *a, const char *kind)
{
	struct prof_process *p = a->session ? ui_current(a->session) : NULL;
	const struct cs_dials *d = acknowledged(p);
	uint32_t now = d ? d->events : p ? p->hello_events : CS_EV_DEFAULT;
	uint32_t bit = 0;
	for (uint32_t b = 1; b & CS_EV_ALL; b <<= 1)
		if (cs_event_name(b) && !strcmp(cs_event_name(b), kind))
			bit = b;
	char dial[64];
	snprintf(dial, sizeof dial, "events=%c%s", now & bit ? '-' : '+', kind);
	char *dials[] = {dial};
	app_send_dials(a, dials, 1);
}

static void change_rate(struct app *a, bool up)
{
	struct prof_process *p = a->session ? ui_current(a->session) : NULL;
	const struct cs_dials *d = acknowledged(p);
	unsigned rate = d && d->rate_hz ? d->rate_hz : p ? p->rate_hz : CS_RATE_DEFAULT;
	rate = up ? rate * 2 : rate / 2;
	if (rate < CS_RATE_MIN)
		rate = CS_RATE_MIN;
	if (rate > CS_RATE_MAX)
		rate = CS_RATE_MAX;
	char dial[32];
	snprintf(dial, sizeof dial, "rate=%u", rate);
	char *dials[] = {dial};
	app_send_dials(a, dials, 1);
}

/* The sampling dial's state as the agent last answered, flipped. */
static void toggle_sampling(struct app *a)
{
	struct prof_process *p = a->session ? ui_current(a->session) : NULL;
	const struct cs_dials *d = acknowledged(p);
	bool on = d ? d->sampling : true;
	char *dials[] = {on ? "sampling=off" : "sampling=on"};
	app_send_dials(a, dials, 1);
}

/* rate HZ, or + (double) and - (halve) */
static void run_rate(struct app *a, int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "+") || !strcmp(argv[1], "-")))
		change_rate(a, argv[1][0] == '+');
	else
		send_dial(a, argc, argv, "rate", "rate HZ|+|- (1 to 10000)");
}

static void run_sampling(struct app *a, int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "toggle"))
		toggle_sampling(a);
	else
		send_dial(a, argc, argv, "sampling", "sampling on|off|toggle");
}

static void run_sampler(struct app *a, int argc, char **argv)
{
	send_dial(a, argc, argv, "sampler", "sampler mixed|kernel|suspend|signal");
}

static void run_validate(struct app *a, int argc, char **argv)
{
	send_dial(a, argc, argv, "validate", "validate N (0: never)");
}

static void run_events(struct app *a, int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "toggle")) {
		toggle_event(a, argv[2]);
		return;
	}
	if (argc < 2) {
		app_message(a, true, "usage: events +KIND|-KIND ...|toggle KIND (gc, exceptions, jit, modules, threads, contention, waits, threadpool, allocsamples)");
		return;
	}
	char dial[256] = "events=";
	for (int i = 1; i < argc; i++) {
		strncat(dial, argv[i], sizeof dial - strlen(dial) - 2);
		if (i + 1 < argc)
			strcat(dial, ",");
	}
	char *d[] = {dial};
	app_send_dials(a, d, 1);
}

static void run_detach(struct app *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	struct prof_process *p = a->session ? ui_current(a->session) : NULL;
	if (p && (p->features & (CS_FEATURE_INSTRUMENT | CS_FEATURE_ALLOCATIONS))) {
		/* the runtime would refuse: say why before asking it */
		bool hooks = p->features & CS_FEATURE_INSTRUMENT;
		app_message(a, true, "cannot detach: the program runs with %s, which the runtime cannot undo; "
				     ":%s off pauses recording",
			    hooks ? "enter/leave hooks (--instrument)" : "allocation counting (--allocations)",
			    hooks ? "instrument" : "allocations");
		return;
	}
	char *d[] = {"detach"};
	app_send_dials(a, d, 1);
}

static void run_attach(struct app *a, int argc, char **argv)
{
	pid_t pid = 0;
	if (argc == 2)
		pid = (pid_t)strtol(argv[1], NULL, 10);
	else if (a->session && ui_current(a->session))
		pid = (pid_t)ui_current(a->session)->pid;
	if (pid <= 0) {
		app_message(a, true, "usage: attach [PID]");
		return;
	}
	app_attach(a, pid, a->session ? a->session->model.dir : NULL, NULL);
}

/* snapshot [heap|awaits]: the dial that asks for one, then its view. */
static void run_snapshot(struct app *a, int argc, char **argv)
{
	bool awaits = argc == 2 && !strcmp(argv[1], "awaits");
	if (argc > 2 || (argc == 2 && !awaits && strcmp(argv[1], "heap") != 0)) {
		app_message(a, true, "usage: snapshot [heap|awaits]");
		return;
	}
	char *d[] = {awaits ? "snapshot=awaits" : "snapshot=heap"};
	bool sent = app_send_dials(a, d, 1) == 0;
	if (!a->session)
		return;
	if (sent && awaits)
		session_screen_awaits_asked(a->session);
	session_screen_show(a->session, awaits ? VIEW_AWAITS : VIEW_HEAP);
}

static void run_instrument(struct app *a, int argc, char **argv)
{
	send_dial(a, argc, argv, "instrument", "instrument on|off (programs launched with --instrument)");
}

static void run_allocations(struct app *a, int argc, char **argv)
{
	send_dial(a, argc, argv, "allocations", "allocations on|off (programs launched with --allocations)");
}

static void run_filter(struct app *a, int argc, char **argv)
{
	char *filter = a->session ? a->session->filter : a->filter;
	size_t cap = sizeof a->filter;
	filter[0] = 0;
	for (int i = 1; i < argc; i++) {
		if (i > 1)
			strncat(filter, " ", cap - strlen(filter) - 1);
		strncat(filter, argv[i], cap - strlen(filter) - 1);
	}
	if (a->session)
		session_screen_update_views(a->session);
	else
		app_refresh_targets(a);
	app_message(a, false, filter[0] ? "filter: %s" : "no filter%s", filter);
}

/* pprof needs per-thread counts, which the live model does not keep: a
 * model of its own, read afresh with the same selection. */
static void export_pprof(struct app *a, const char *path, uint32_t pid)
{
	const struct prof_recording *live = &a->session->model;
	struct prof_recording s;
	char err[1024];
	if (prof_recording_open(&s, live->dir, err, sizeof err) < 0) {
		app_message(a, true, "%s", err);
		return;
	}
	s.filter = live->filter;
	s.by_thread = true;
	prof_recording_update(&s, false);
	if (pprof_write_file(path, &s, pid, err, sizeof err) < 0)
		app_message(a, true, "%s", err);
	else
		app_message(a, false, "wrote %s", path);
	prof_recording_free(&s);
}

static void run_export(struct app *a, int argc, char **argv)
{
	enum export_format format;
	bool pprof = argc == 3 && strcmp(argv[1], "pprof") == 0;
	if (argc != 3 || (!pprof && export_format_parse(argv[1], &format) < 0)) {
		app_message(a, true, "usage: export text|collapsed|json|speedscope|pprof FILE");
		return;
	}
	if (!a->session) {
		app_message(a, true, "export needs a session: open one first");
		return;
	}
	if (pprof) {
		struct prof_process *p = ui_current(a->session);
		export_pprof(a, argv[2], p ? p->pid : 0);
		return;
	}
	FILE *f = fopen(argv[2], "w");
	if (!f) {
		app_message(a, true, "cannot write %s: %m", argv[2]);
		return;
	}
	struct prof_process *p = ui_current(a->session);
	struct export_options o = {format, 0, p ? p->pid : 0};
	export_session(f, &a->session->model, &o);
	if (fclose(f) != 0)
		app_message(a, true, "cannot write %s: %m", argv[2]);
	else
		app_message(a, false, "wrote %s", argv[2]);
}

static void run_open(struct app *a, int argc, char **argv)
{
	if (argc != 2) {
		app_message(a, true, "usage: open DIR");
		return;
	}
	char err[512];
	if (app_open_session(a, argv[1], err, sizeof err) < 0)
		app_message(a, true, "%s", err);
}

/* launch [--instrument PATTERN]... [--allocations] [--heap-snapshots] [--] COMMAND [ARG...] */
static void run_launch(struct app *a, int argc, char **argv)
{
	static const char usage[] = "usage: launch [--instrument PATTERN]... [--allocations] [--heap-snapshots] COMMAND [ARG...]";
	struct startup_features features = {.patterns = ""};
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--allocations") || !strcmp(argv[i], "-A"))
			features.allocations = true;
		else if (!strcmp(argv[i], "--heap-snapshots") || !strcmp(argv[i], "-H"))
			features.heap_snapshots = true;
		else if ((!strcmp(argv[i], "--instrument") || !strcmp(argv[i], "-i")) && i + 1 < argc) {
			char err[512];
			if (startup_features_add_pattern(&features, argv[++i], err, sizeof err) < 0) {
				app_message(a, true, "%s", err);
				return;
			}
		} else {
			app_message(a, true, "%s", usage);
			return;
		}
	}
	if (i >= argc) {
		app_message(a, true, "%s", usage);
		return;
	}
	app_launch(a, argv + i, NULL, NULL, &features);
}

/* view NAME, or next / previous in tab order. */
static void run_view(struct app *a, int argc, char **argv)
{
	struct session_screen *s = a->session;
	if (!s || argc != 2) {
		app_message(a, true, "usage: view NAME|next|previous (in a session)");
		return;
	}
	enum view_id id = ui_view_find(argv[1]);
	if (!strcmp(argv[1], "next"))
		id = (s->shown + 1) % VIEW_COUNT;
	else if (!strcmp(argv[1], "previous"))
		id = (s->shown + VIEW_COUNT - 1) % VIEW_COUNT;
	if (id == VIEW_COUNT) {
		app_message(a, true, "no view '%s'", argv[1]);
		return;
	}
	session_screen_show(s, id);
}

/* flame [diff|plain]: the flame graph; after ':diff', coloured by change
 * or by namespace. */
static void run_flame(struct app *a, int argc, char **argv)
{
	if (!a->session) {
		app_message(a, true, "flame needs a session");
		return;
	}
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "diff") && strcmp(argv[1], "plain"))) {
		app_message(a, true, "usage: flame [diff|plain]");
		return;
	}
	if (argc == 2)
		view_flame_by_change(&a->session->views[VIEW_FLAME], !strcmp(argv[1], "diff"));
	session_screen_show(a->session, VIEW_FLAME);
}

/* time cpu|wall|toggle: which samples every view counts. */
static void run_time(struct app *a, int argc, char **argv)
{
	if (!a->session) {
		app_message(a, true, "time needs a session");
		return;
	}
	struct session_screen *s = a->session;
	enum prof_time t = s->model.time == PROF_TIME_CPU ? PROF_TIME_WALL : PROF_TIME_CPU;
	if (argc > 1 && strcmp(argv[1], "toggle") != 0 && prof_time_parse(argv[1], &t) < 0) {
		app_message(a, true, "time is cpu, wall or toggle, not '%s'", argv[1]);
		return;
	}
	session_screen_set_time(s, t);
	app_message(a, false, "%s", t == PROF_TIME_CPU ? "cpu time: samples of threads running on a CPU"
						    : "wall time: every thread's samples, waiting ones too");
}

/* stacks logical|physical|toggle: a sample in an async method resumed
 * after an await counts in its logical stack (the methods awaiting it,
 * below an [await] frame) or in its thread's own. */
static void run_stacks(struct app *a, int argc, char **argv)
{
	if (!a->session) {
		app_message(a, true, "stacks needs a session");
		return;
	}
	struct prof_filter f = a->session->samples;
	bool physical = !f.physical;
	if (argc > 1 && strcmp(argv[1], "toggle") != 0 && prof_stacks_parse(argv[1], &physical) < 0) {
		app_message(a, true, "stacks is logical, physical or toggle, not '%s'", argv[1]);
		return;
	}
	f.physical = physical;
	if (session_screen_set_samples(a->session, &f))
		app_message(a, false, "%s", physical ? "physical stacks: each thread's own frames (the dispatch loop)"
						     : "logical stacks: async methods go on into the methods awaiting them");
}

/* The thread named (exactly, else the first whose name holds it) or with
 * that os tid, in any process of the session; 0 when none. */
static uint32_t find_thread(struct session_screen *s, const char *which)
{
	char *end;
	unsigned long tid = strtoul(which, &end, 10);
	for (int exact = 1; exact >= 0; exact--)
		for (size_t i = 0; i < s->model.nprocs; i++) {
			const struct prof_process *p = s->model.procs[i];
			for (size_t t = 1; t < p->nthreads; t++) {
				const struct prof_thread *th = &p->threads[t];
				if (!*end && *which ? th->os_tid == tid
					: th->name && (exact ? !strcmp(th->name, which) : strstr(th->name, which) != NULL))
					return th->os_tid;
			}
		}
	return 0;
}

/* thread NAME|TID|all: the sample views count that thread's samples only. */
static void run_thread(struct app *a, int argc, char **argv)
{
	if (!a->session || argc != 2) {
		app_message(a, true, "usage: thread NAME|TID|all (in a session)");
		return;
	}
	struct prof_filter f = a->session->samples;
	f.os_tid = strcmp(argv[1], "all") ? find_thread(a->session, argv[1]) : 0;
	if (!f.os_tid && strcmp(argv[1], "all")) {
		app_message(a, true, "no thread '%s' here (the Threads view lists them)", argv[1]);
		return;
	}
	session_screen_set_samples(a->session, &f);
}

/* Seconds (0 or more, as report --from and --to take them) in microseconds. */
static bool seconds_us(const char *text, uint64_t *us)
{
	char *end;
	double secs = strtod(text, &end);
	if (end == text || *end || !(secs >= 0) || secs > 1e7)
		return false;
	*us = (uint64_t)(secs * 1e6);
	return true;
}

/* range FROM TO (seconds since the agent started) | all | start | end
 * (start and end: the time cursor's second): the time range counted. */
static void run_range(struct app *a, int argc, char **argv)
{
	static const char usage[] = "usage: range FROM TO (seconds) | start | end (at the time cursor) | all";
	struct session_screen *s = a->session;
	if (!s || argc < 2 || argc > 3) {
		app_message(a, true, "%s", usage);
		return;
	}
	struct prof_filter f = s->samples;
	bool at_cursor = argc == 2 && (!strcmp(argv[1], "start") || !strcmp(argv[1], "end"));
	if (argc == 2 && !strcmp(argv[1], "all")) {
		f.from_us = f.to_us = 0;
	} else if (at_cursor && s->time_cursor < 0) {
		app_message(a, true, "no time cursor: < and > move it, or click the timeline");
		return;
	} else if (at_cursor && argv[1][0] == 's') {
		f.from_us = (uint64_t)s->time_cursor * 1000000u;
		if (f.to_us && f.to_us <= f.from_us)
			f.to_us = 0;
	} else if (at_cursor) {
		f.to_us = ((uint64_t)s->time_cursor + 1) * 1000000u; /* the cursor's second included */
		if (f.from_us >= f.to_us)
			f.from_us = 0;
	} else if (argc != 3 || !seconds_us(argv[1], &f.from_us) || !seconds_us(argv[2], &f.to_us) ||
		   f.to_us <= f.from_us) {
		app_message(a, true, "%s; FROM below TO", usage);
		return;
	}
	session_screen_set_samples(a->session, &f);
}

/* cursor SECOND|+N|-N: the timeline's time cursor, for [ and ]. */
static void run_cursor(struct app *a, int argc, char **argv)
{
	struct session_screen *s = a->session;
	struct prof_process *p = s ? ui_current(s) : NULL;
	if (!p || argc != 2) {
		app_message(a, true, "usage: cursor SECOND|+N|-N (in a session with samples)");
		return;
	}
	if (!p->nseconds) {
		app_message(a, true, "no samples on the timeline yet");
		return;
	}
	char *end;
	long v = strtol(argv[1], &end, 10);
	if (*end || end == argv[1]) {
		app_message(a, true, "usage: cursor SECOND|+N|-N");
		return;
	}
	int64_t last = (int64_t)p->nseconds - 1, at;
	if (argv[1][0] == '+' || argv[1][0] == '-')
		at = s->time_cursor < 0 ? last : s->time_cursor + v; /* the first move puts it on the newest second */
	else
		at = v;
	s->time_cursor = at < 0 ? 0 : at > last ? last : at;
	app_message(a, false, "time cursor at %" PRId64 " s: [ starts the range there, ] ends it", s->time_cursor);
}

/* clear: every thread and the whole time count again. */
static void run_clear(struct app *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	if (!a->session) {
		app_message(a, true, "clear needs a session");
		return;
	}
	session_screen_set_samples(a->session, &(struct prof_filter){0});
}

/* diff DIR: the shown process against the session recorded in DIR. */
static void run_diff(struct app *a, int argc, char **argv)
{
	if (!a->session) {
		app_message(a, true, "diff needs a session");
		return;
	}
	if (argc != 2) {
		app_message(a, true, "diff DIR: the session to compare with");
		return;
	}
	char err[1024];
	if (view_diff_compare(&a->session->views[VIEW_DIFF], a->session, argv[1], err, sizeof err) < 0) {
		app_message(a, true, "%s", err);
		return;
	}
	a->session->views[VIEW_FLAME].dirty = true; /* it colours by the change now */
	session_screen_show(a->session, VIEW_DIFF);
}

/* search TEXT: in a view that searches (Flame), marks and selects matches. */
static void run_search(struct app *a, int argc, char **argv)
{
	struct view *v = a->session ? ui_shown_view(a->session) : NULL;
	if (!v || !v->ops->search) {
		app_message(a, true, "search works in the Flame view; elsewhere / filters");
		return;
	}
	char text[128] = "";
	for (int i = 1; i < argc; i++) {
		if (i > 1)
			strncat(text, " ", sizeof text - strlen(text) - 1);
		strncat(text, argv[i], sizeof text - strlen(text) - 1);
	}
	view_search(v, a->session, text);
}

static void run_help(struct app *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	a->help = !a->help;
	a->help_top = 0;
}

static void run_output(struct app *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	if (!a->session) {
		app_message(a, true, "output needs a session");
		return;
	}
	a->output = true;
}

static void run_quit(struct app *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	if (a->session && !a->session_first) {
		app_close_session(a);
		app_refresh_targets(a);
	} else {
		a->quit = true;
	}
}

static const char *const on_off[] = {"on", "off", NULL};
static const char *const sampler_args[] = {"mixed", "kernel", "suspend", "signal", NULL};
static const char *const event_args[] = {"+gc", "-gc", "+exceptions", "-exceptions", "+jit", "-jit",
					 "+modules", "-modules", "+threads", "-threads", "all", "none", NULL};
static const char *const export_args[] = {"collapsed", "json", "pprof", "speedscope", "text", NULL};
static const char *const snapshot_args[] = {"heap", "awaits", NULL};
static const char *const rate_args[] = {"50", "100", "200", "500", "1000", NULL};
static const char *const validate_args[] = {"0", "20", "200", "1000", NULL};
static const char *const time_args[] = {"cpu", "wall", "toggle", NULL};
static const char *const thread_args[] = {"all", NULL};
static const char *const stacks_args[] = {"logical", "physical", "toggle", NULL};
static const char *const flame_args[] = {"diff", "plain", NULL};
static const char *const range_args[] = {"all", "start", "end", NULL};

/* other_keys: keys that do the same but are not bindings (help only). */
const struct ui_command ui_commands[] = {
	{"rate", "HZ|+|-", "", "samples per second (+ doubles, - halves)", run_rate, rate_args},
	{"sampling", "on|off|toggle", "", "take stack samples or pause them", run_sampling, on_off},
	{"sampler", "mixed|kernel|suspend|signal", "", "how ticks are taken (see clrscope-dial(1))", run_sampler, sampler_args},
	{"validate", "N", "", "repeat every Nth fast walk of a thread exactly and count the differences", run_validate,
	 validate_args},
	{"events", "+KIND|-KIND...|toggle KIND", "", "record or stop gc, exceptions, jit, modules, threads, contention, waits, threadpool, allocsamples", run_events, event_args},
	{"detach", "", "", "the agent leaves the process; it keeps running", run_detach, NULL},
	{"snapshot", "[heap|awaits]", "", "take a heap snapshot (a full GC; see the Heap view) or an awaits snapshot (the async chains waiting now; see Awaits)", run_snapshot, snapshot_args},
	{"instrument", "on|off", "", "record or pause calls of instrumented functions", run_instrument, on_off},
	{"allocations", "on|off", "", "count or pause allocations (launched with --allocations)", run_allocations,
	 on_off},
	{"attach", "[PID]", "", "attach (again) to the process", run_attach, NULL},
	{"filter", "TEXT", "/", "show only rows containing TEXT (empty: all)", run_filter, NULL},
	{"export", "collapsed|json|pprof|speedscope|text FILE", "", "write the shown process's profile", run_export, export_args},
	{"open", "DIR", "", "open a recorded or live session", run_open, NULL},
	{"launch", "[--instrument PATTERN]... [--allocations] [--heap-snapshots] COMMAND [ARG...]", "Enter",
	 "start a program under the profiler (instrumented, counting allocations)", run_launch, NULL},
	{"view", "NAME|next|previous", "", "switch views", run_view, NULL},
	{"flame", "[diff|plain]", "", "the flame graph: arrows move, Enter zooms in, Backspace or u zooms out; after :diff red grew, blue shrank (diff) or namespaces (plain)", run_flame, flame_args},
	{"time", "cpu|wall|toggle", "", "count samples of running threads only (cpu) or of waiting ones too (wall)",
	 run_time, time_args},
	{"stacks", "logical|physical|toggle", "", "count samples of resumed async methods in their logical stacks ([await] and the methods awaiting them) or in their threads' own",
	 run_stacks, stacks_args},
	{"diff", "DIR", "", "compare the shown process with a recorded session (red: more time now, green: less)",
	 run_diff, NULL},
	{"thread", "NAME|TID|all", "Enter in Threads", "count only that thread's samples in every view", run_thread, thread_args},
	{"range", "FROM TO|start|end|all", "", "count only the samples of that time (seconds; start, end: at the time cursor)",
	 run_range, range_args},
	{"cursor", "SECOND|+N|-N", "click the timeline", "move the timeline's time cursor", run_cursor, NULL},
	{"clear", "", "", "count every thread's samples at any time again", run_clear, NULL},
	{"search", "TEXT", "/", "in Flame: mark the frames whose name holds TEXT, select the first", run_search, NULL},
	{"output", "", "", "show what a launched program printed (its output.log)", run_output, NULL},
	{"help", "", "", "show or hide this help", run_help, NULL},
	{"quit", "", "", "leave this screen (the first screen: quit)", run_quit, NULL},
	{NULL, NULL, NULL, NULL, NULL, NULL},
};

/* Keys that run a prompt line: the only place a key meets a command.  The
 * view keys (1-9, 0) come from the view table. */
const struct ui_binding ui_bindings[] = {
	{'+', false, true, "+", "rate +"},
	{'=', false, true, "=", "rate +"},
	{'-', false, true, "-", "rate -"},
	{'p', false, true, "p", "sampling toggle"},
	{'G', false, true, "G", "events toggle gc"},
	{'X', false, true, "X", "events toggle exceptions"},
	{'J', false, true, "J", "events toggle jit"},
	{'M', false, true, "M", "events toggle modules"},
	{'T', false, true, "T", "events toggle threads"},
	{'d', false, true, "d", "detach"},
	{'h', false, true, "h", "snapshot heap"},
	{'A', false, true, "A", "snapshot awaits"},
	{'a', false, true, "a", "attach"},
	{'o', false, true, "o", "output"},
	{'f', false, true, "f", "flame"},
	{'w', false, true, "w", "time toggle"},
	{'L', false, true, "L", "stacks toggle"},
	{'<', false, true, "<", "cursor -1"},
	{'>', false, true, ">", "cursor +1"},
	{'[', false, true, "[", "range start"},
	{']', false, true, "]", "range end"},
	{'x', false, true, "x", "clear"},
	{'\t', false, true, "Tab", "view next"},
	{KEY_BTAB, true, true, "S-Tab", "view previous"},
	{'?', false, false, "?", "help"},
	{'q', false, false, "q", "quit"},
	{0, false, false, NULL, NULL},
};

/* Keys that are not commands. */
const struct ui_key_help ui_keys[] = {
	{"Up Down j k", "move"},
	{"PgUp PgDn Home End", "scroll"},
	{"Enter", "open: callers of a function, a tree node, a process, launch an app; in Heap, paths from the roots"},
	{"s", "sort Functions, Calls, Heap or Allocs by another column"},
	{"b", "Locks: lock contention or blocking waits"},
	{"H", "open the hot path in Tree and Awaits"},
	{"S", "the source of the function under the cursor, line by line (Functions, Callers, Tree, Awaits)"},
	{"Left Right", "close and open in Tree, Awaits and Dominators; in Flame, the frame beside"},
	{"p", "Dominators: the paths from the roots to the object's type"},
	{"Backspace u", "zoom out in Flame (Enter zooms in)"},
	{":", "the command prompt (Tab completes, history kept)"},
	{"Esc", "leave the prompt"},
	{"mouse", "click a row (in Flame, a frame) to select it"},
	{NULL, NULL},
};

/* Splits a prompt line into words like a shell would for quotes and
 * backslashes ('a b', "a b", a\ b), in place; no expansion of any kind. */
static int split_words(char *line, char **argv, int max)
{
	int argc = 0;
	char *in = line, *out = line;
	while (*in && argc < max) {
		while (*in == ' ' || *in == '\t')
			in++;
		if (!*in)
			break;
		argv[argc++] = out;
		char quote = 0;
		for (; *in && (quote || (*in != ' ' && *in != '\t')); in++) {
			if (quote && *in == quote)
				quote = 0;
			else if (!quote && (*in == '\'' || *in == '"'))
				quote = *in;
			else if (*in == '\\' && in[1] && quote != '\'')
				*out++ = *++in;
			else
				*out++ = *in;
		}
		if (*in)
			in++;
		*out++ = 0;
	}
	return argc;
}

void commands_run_line(struct app *a, char *line)
{
	char *argv[64];
	int argc = split_words(line, argv, 63);
	argv[argc] = NULL;
	if (!argc)
		return;
	for (const struct ui_command *c = ui_commands; c->name; c++)
		if (!strcmp(argv[0], c->name))
			{
			c->run(a, argc, argv);
			return;
		}
	app_message(a, true, "no command '%s' (try help, or Tab)", argv[0]);
}

const char *commands_candidate(int word, const char *line, int index)
{
	if (word == 0) {
		int n = 0;
		for (const struct ui_command *c = ui_commands; c->name; c++)
			if (n++ == index)
				return c->name;
		return NULL;
	}
	char first[32] = "";
	sscanf(line, " %31s", first);
	if (word != 1)
		return NULL; /* arguments after the first are free text (file names, commands) */
	if (!strcmp(first, "view")) { /* the view table's names, lower case */
		static char names[VIEW_COUNT + 2][32];
		if (index < VIEW_COUNT) {
			snprintf(names[index], sizeof names[index], "%s", ui_view((enum view_id)index)->name);
			for (char *p = names[index]; *p; p++)
				*p = (char)tolower((unsigned char)*p);
			return names[index];
		}
		return index == VIEW_COUNT ? "next" : index == VIEW_COUNT + 1 ? "previous" : NULL;
	}
	for (const struct ui_command *c = ui_commands; c->name; c++) {
		if (strcmp(c->name, first) || !c->candidates)
			continue;
		for (int i = 0; c->candidates[i]; i++)
			if (i == index)
				return c->candidates[i];
	}
	return NULL;
}

void commands_keys(const struct ui_command *c, char *out, size_t n)
{
	size_t len = 0;
	out[0] = 0;
	size_t name_len = strlen(c->name);
	for (const struct ui_binding *b = ui_bindings; b->line && len < n; b++)
		if (!strncmp(b->line, c->name, name_len) && (b->line[name_len] == ' ' || !b->line[name_len]))
			len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", b->label);
	if (!strcmp(c->name, "view")) /* and the keys of the view table, runs shortened: 1-9 0 */
		for (int i = 0; i < VIEW_COUNT && len < n; i++) {
			int first = ui_view_key((enum view_id)i), last = first;
			while (first && i + 1 < VIEW_COUNT && ui_view_key((enum view_id)(i + 1)) == last + 1)
				last = ui_view_key((enum view_id)++i);
			if (first && last > first)
				len += (size_t)snprintf(out + len, n - len, "%s%c-%c", len ? " " : "", first, last);
			else if (first)
				len += (size_t)snprintf(out + len, n - len, "%s%c", len ? " " : "", first);
		}
	if (c->other_keys[0] && len < n)
		snprintf(out + len, n - len, "%s%s", len ? " " : "", c->other_keys);
}

const struct ui_binding *commands_binding(int key, bool function_key, bool session)
{
	for (const struct ui_binding *b = ui_bindings; b->line; b++)
		if (b->key == key && b->function_key == function_key && (session || !b->session_only))
			return b;
	return NULL;
}
