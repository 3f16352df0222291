/* The terminal UI's event loop (see loop.h). */
#include "ui/loop.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/session.h"
#include "common/sessionlimits.h"
#include "live/apps.h"
#include "live/procs.h"
#include "ui/app.h"
#include "ui/attaching.h"
#include "ui/commands.h"
#include "ui/discover.h"
#include "ui/help.h"
#include "ui/prompt.h"
#include "ui/screen.h"
#include "ui/watch.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/prune.h"
#include "util/xalloc.h"

#define REFRESH_MS 1000
#define TARGETS_REFRESH_S 2.0

/* Whether curses has the terminal: term_restore runs from atexit, the
 * out-of-memory hook and the crash handler, which have no app to ask. */
static bool curses_on;

/* ---- the terminal ---- */

static void term_restore(void)
{
	if (curses_on) {
		curses_on = false;
		endwin();
	}
}

static void crash(int sig)
{
	term_restore(); /* best effort: the terminal matters more than purity here */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void term_open(struct app *a)
{
	initscr();
	curses_on = true;
	atexit(term_restore);
	xalloc_on_fatal(term_restore); /* out of memory gives the screen back before it says so */
	static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
		signal(fatal[i], crash);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	a->canvas.color = !a->no_color && has_colors();
	if (a->canvas.color) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_CYAN, -1);                   /* header */
		init_pair(2, COLOR_BLACK, COLOR_CYAN);          /* selected */
		init_pair(3, COLOR_BLACK, COLOR_WHITE);         /* status */
		init_pair(4, COLOR_BLUE, -1);                   /* dim */
		init_pair(5, COLOR_YELLOW, -1);                 /* hot */
		init_pair(6, COLOR_RED, -1);                    /* warn */
		init_pair(7, COLOR_GREEN, -1);                  /* good */
		init_pair(8, COLOR_BLACK, COLOR_YELLOW);        /* flame graph blocks by namespace */
		init_pair(9, COLOR_BLACK, COLOR_GREEN);
		init_pair(10, COLOR_BLACK, COLOR_MAGENTA);
		init_pair(11, COLOR_WHITE, COLOR_BLUE);
		/* the differential flame graph: grey, three reds and three blues,
		 * shades where the terminal has 256 colours */
		bool shades = COLORS >= 256;
		init_pair(12, COLOR_BLACK, shades ? 252 : COLOR_WHITE);
		init_pair(13, shades ? COLOR_BLACK : COLOR_RED, shades ? 224 : -1);
		init_pair(14, COLOR_BLACK, shades ? 210 : COLOR_RED);
		init_pair(15, COLOR_WHITE, shades ? 160 : COLOR_RED);
		init_pair(16, shades ? COLOR_BLACK : COLOR_BLUE, shades ? 153 : -1);
		init_pair(17, shades ? COLOR_BLACK : COLOR_WHITE, shades ? 75 : COLOR_BLUE);
		init_pair(18, COLOR_WHITE, shades ? 20 : COLOR_BLUE);
	}
	a->canvas.window = stdscr; /* (colour chosen above) */
	a->canvas.ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
	getmaxyx(stdscr, a->canvas.rows, a->canvas.cols);
}

static void term_resize(struct app *a)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resize_term(ws.ws_row, ws.ws_col);
	getmaxyx(stdscr, a->canvas.rows, a->canvas.cols);
	clearok(stdscr, TRUE);
}

/* ---- the targets screen ---- */

static void target_cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct app *a = ctx;
	struct targets *t = &a->targets;
	size_t i = t->rows[row];
	if (i < t->nprocs) {
		const struct dotnet_proc *p = &t->procs[i];
		switch (col) {
		case 0: snprintf(buf, n, "%d", (int)p->pid); break;
		case 1: snprintf(buf, n, "%s", p->runtime ? p->runtime : "?"); break;
		case 2: snprintf(buf, n, "%s", p->attachable ? "yes" : p->reason ? p->reason : "no"); break;
		case 3: snprintf(buf, n, "%s", p->profiled ? "yes" : "no"); break;
		default: snprintf(buf, n, "%s", p->command ? p->command : ""); break;
		}
		return;
	}
	const struct app_entry *e = &t->apps->v[i - t->nprocs];
	switch (col) {
	case 0: snprintf(buf, n, "app"); break;
	case 1: snprintf(buf, n, "%s", app_source_name(e->source)); break;
	case 2: snprintf(buf, n, "Enter launches"); break;
	case 3: buf[0] = 0; break;
	default: snprintf(buf, n, "%s", e->command); break;
	}
}

static enum ui_style target_style(void *ctx, size_t row)
{
	struct app *a = ctx;
	return a->targets.rows[row] < a->targets.nprocs ? UI_NORMAL : UI_DIM;
}

static void draw_targets(struct app *a, struct canvas *c)
{
	canvas_fill(c, 0, 0, c->cols, UI_STATUS);
	char title[160];
	snprintf(title, sizeof title, " clrscope  %zu running .NET process%s, %zu app%s", a->targets.nprocs,
		 a->targets.nprocs == 1 ? "" : "es", a->targets.apps ? a->targets.apps->n : 0,
		 a->targets.apps && a->targets.apps->n == 1 ? "" : "s");
	canvas_text(c, 0, 0, c->cols, UI_STATUS, true, title);
	int height = c->rows - 3 > 1 ? c->rows - 3 : 1;
	for (int y = 1; y < 1 + height; y++)
		canvas_fill(c, y, 0, c->cols, UI_NORMAL);
	listview_draw(&a->targets.lv, c, 1, height, target_cell, target_style, a);
	if (!a->targets.nrows)
		canvas_text(c, 3, 2, c->cols - 2, UI_DIM, false,
			    a->filter[0] ? "nothing matches the filter" : "no .NET processes of yours are running; :launch COMMAND starts one");
	char status[300];
	snprintf(status, sizeof status, " Enter attach/launch | a attach | / filter | : prompt | ? help | q quit%s%s",
		 a->filter[0] ? " | filter: " : "", a->filter);
	canvas_text(c, c->rows - 2, 0, c->cols, UI_STATUS, true, status);
	canvas_text(c, c->rows - 1, 0, c->cols, a->message_error ? UI_WARN : UI_NORMAL, true, a->message);
}

static void launch_prompt_done(char *line, void *ctx);

static bool targets_key(struct app *a, int key)
{
	struct targets *t = &a->targets;
	if (listview_key(&t->lv, key))
		return true;
	if (t->lv.cursor >= t->nrows)
		return false;
	size_t i = t->rows[t->lv.cursor];
	if (key == '\n' || key == '\r' || key == KEY_ENTER || key == 'a') {
		if (i < t->nprocs) {
			if (!t->procs[i].attachable) {
				app_message(a, true, "cannot attach to %d: %s", (int)t->procs[i].pid,
					    t->procs[i].reason ? t->procs[i].reason : "not attachable");
				return true;
			}
			app_attach(a, t->procs[i].pid, NULL, NULL);
		} else if (key != 'a') {
			/* the command line is editable before it runs */
			char initial[4200];
			snprintf(initial, sizeof initial, "launch %s", t->apps->v[i - t->nprocs].command);
			prompt_open(initial, launch_prompt_done, a);
		}
		return true;
	}
	if (key == 'r') {
		app_refresh_targets(a);
		return true;
	}
	return false;
}

/* ---- a launched program's output ---- */

static void draw_output(struct app *a, struct canvas *c)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/output.log", a->session->model.dir);
	canvas_fill(c, 0, 0, c->cols, UI_STATUS);
	char title[4300];
	snprintf(title, sizeof title, " output of the program: %s (any key goes back)", path);
	canvas_text(c, 0, 0, c->cols, UI_STATUS, true, title);
	for (int y = 1; y < c->rows; y++)
		canvas_fill(c, y, 0, c->cols, UI_NORMAL);
	char why[160];
	int fd = cs_open_file_at(AT_FDCWD, path, O_RDONLY, 0, why, sizeof why); /* a FIFO would hang the screen */
	if (fd < 0) {
		char line[200];
		snprintf(line, sizeof line, "output.log %s", why);
		canvas_text(c, 2, 1, c->cols - 1, UI_DIM, false,
			    errno == ENOENT ? "no output.log: only programs launched from here have one" : line);
		return;
	}
	/* the last lines that fit: read the file's tail */
	static char buf[64 << 10];
	off_t size = lseek(fd, 0, SEEK_END);
	off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
	ssize_t n = pread(fd, buf, sizeof buf - 1, from);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	int lines = c->rows - 1;
	char *starts[512];
	int count = 0;
	for (char *p = buf; p && *p && count < 512; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		starts[count++] = p;
	int first = count > lines ? count - lines : 0;
	for (int i = first; i < count; i++) {
		char *end = strchr(starts[i], '\n');
		if (end)
			*end = 0;
		canvas_text(c, 1 + i - first, 0, c->cols, UI_NORMAL, true, starts[i]);
	}
}

/* ---- the loop ---- */

static void draw(struct app *a)
{
	struct canvas *c = &a->canvas;
	if (a->help)
		a->help_top = help_draw(c, a->help_top);
	else if (a->output && a->session)
		draw_output(a, c);
	else if (a->session)
		screen_draw_session(a->session, c);
	else
		draw_targets(a, c);
	int cursor = -1;
	if (prompt_active())
		cursor = prompt_draw(c, c->rows - 1);
	else if (prompt_matches()[0])
		canvas_text(c, c->rows - 1, 0, c->cols, UI_DIM, true, prompt_matches());
	if (cursor >= 0) {
		curs_set(1);
		move(c->rows - 1, cursor);
	} else {
		curs_set(0);
	}
	wnoutrefresh(stdscr);
	doupdate();
}

/* Everything the user does comes through dispatch: keys, mouse clicks and
 * prompt lines.  A key bound to a prompt line runs that line, so a key and
 * its command cannot drift apart. */
enum input_kind { INPUT_KEY, INPUT_FUNCTION_KEY, INPUT_CLICK, INPUT_LINE };
struct input {
	enum input_kind kind;
	int key;    /* INPUT_KEY, INPUT_FUNCTION_KEY */
	int y, x;   /* INPUT_CLICK: where on screen */
	char *line; /* INPUT_LINE, modified in place */
};

static void dispatch(struct app *a, struct input in);

static void prompt_line_done(char *line, void *ctx)
{
	if (line)
		dispatch(ctx, (struct input){.kind = INPUT_LINE, .line = line});
}

static void launch_prompt_done(char *line, void *ctx)
{
	prompt_line_done(line, ctx);
}

static void filter_prompt(struct app *a)
{
	const char *filter = a->session ? a->session->filter : a->filter;
	char initial[200];
	snprintf(initial, sizeof initial, "filter %s", filter);
	prompt_open(initial, prompt_line_done, a);
}

/* A key the prompt, a binding, the view keys or the screen itself takes. */
static void dispatch_key(struct app *a, int key, bool function_key)
{
	if (!function_key && key == ':') {
		prompt_open("", prompt_line_done, a);
		return;
	}
	if (!function_key && key == '/') {
		if (a->session && ui_shown_view(a->session)->ops->search)
			prompt_open("search ", prompt_line_done, a);
		else
			filter_prompt(a);
		return;
	}
	if (!function_key && key == '\r')
		key = '\n';
	const struct ui_binding *b = commands_binding(key, function_key, a->session != NULL);
	if (b) {
		char line[128];
		snprintf(line, sizeof line, "%s", b->line);
		commands_run_line(a, line);
	} else if (a->session && !function_key && ui_view_for_key(key) != VIEW_COUNT) {
		session_screen_show(a->session, ui_view_for_key(key));
	} else if (a->session) {
		session_screen_key(a->session, key);
	} else {
		targets_key(a, key);
	}
}

static void dispatch(struct app *a, struct input in)
{
	if (in.kind == INPUT_LINE) {
		commands_run_line(a, in.line);
		return;
	}
	if (prompt_active()) {
		if (in.kind != INPUT_CLICK)
			prompt_key(in.key, in.kind == INPUT_FUNCTION_KEY);
		return;
	}
	int top = a->help && in.kind != INPUT_CLICK ? help_scroll(&a->canvas, a->help_top, in.key, in.kind == INPUT_FUNCTION_KEY) : -1;
	if (top >= 0) {
		a->help_top = top;
		return;
	}
	if (a->help || a->output) { /* any other key or a click goes back */
		a->help = a->output = false;
		return;
	}
	if (in.kind == INPUT_CLICK) {
		if (a->session && !screen_click_timeline(a->session, in.y, in.x))
			session_screen_click(a->session, in.y, in.x);
		else
			listview_click_screen(&a->targets.lv, in.y);
		return;
	}
	dispatch_key(a, in.key, in.kind == INPUT_FUNCTION_KEY);
}

/* What curses read: a mouse event becomes a click. */
static void handle_key(struct app *a, int key, bool function_key)
{
	if (function_key && key == KEY_MOUSE) {
		MEVENT ev;
		if (getmouse(&ev) == OK)
			dispatch(a, (struct input){.kind = INPUT_CLICK, .y = ev.y, .x = ev.x});
		return;
	}
	dispatch(a, (struct input){.kind = function_key ? INPUT_FUNCTION_KEY : INPUT_KEY, .key = key});
}

/* A launched program ended: note how. */
static void reap(struct app *a)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		struct session_screen *s = a->session;
		if (s && pid == s->target) {
			s->state = TARGET_EXITED;
			s->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			/* as record does: descendants that start later stay unprofiled */
			char err[256];
			int fd = cs_dir_open_private(s->model.dir, err, sizeof err);
			if (fd >= 0) {
				cs_session_close(fd);
				close(fd);
			}
			app_message(a, s->exit_status != 0, "the program exited with status %d", s->exit_status);
		}
	}
}

/* With CLRSCOPE_UI_LATENCY_LOG set, each redraw after new records logs how
 * long ago the agent wrote them (now - the segment's mtime), in ms: the
 * flush-to-screen latency that bench/tui.sh summarises. */
static void log_latency(struct app *a, FILE *latency_log)
{
	struct prof_process *p = a->session ? ui_current(a->session) : NULL;
	struct timespec written, now;
	if (!latency_log || !p || !prof_process_log_mtime(p, &written))
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	double ms = (double)(now.tv_sec - written.tv_sec) * 1e3 + (double)(now.tv_nsec - written.tv_nsec) / 1e6;
	fprintf(latency_log, "%.3f\n", ms);
	fflush(latency_log);
}

static void run(struct app *a, int sfd)
{
	double last_targets = 0, last_refresh = 0;
	bool measure = false;
	const char *latency_path = getenv("CLRSCOPE_UI_LATENCY_LOG");
	FILE *latency_log = latency_path && *latency_path ? fopen(latency_path, "a") : NULL;
	while (!a->quit) {
		double now = clock_now_s();
		if (a->session && now - last_refresh >= REFRESH_MS / 1000.0) {
			last_refresh = now;
			if (session_screen_refresh(a->session))
				session_screen_update_views(a->session);
			if (a->session->state == TARGET_STARTING && a->hello_pid)
				app_check_hello(a);
			else if (a->session->state == TARGET_STARTING && ui_current(a->session) &&
				 ui_current(a->session)->have_hello)
				a->session->state = TARGET_RUNNING;
		}
		if (!a->session && now - last_targets >= TARGETS_REFRESH_S) {
			last_targets = now;
			app_refresh_targets(a);
		}
		draw(a);
		if (measure)
			log_latency(a, latency_log);
		measure = false;
		struct pollfd fds[5] = {{STDIN_FILENO, POLLIN, 0},
					{sfd, POLLIN, 0},
					{a->watch_fd, POLLIN, 0},
					{a->discovery ? discover_fd(a->discovery) : -1, POLLIN, 0},
					{a->attaching ? attaching_fd(a->attaching) : -1, POLLIN, 0}};
		int n = poll(fds, 5, 250);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (fds[1].revents & POLLIN) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
				if (si.ssi_signo == SIGWINCH)
					term_resize(a);
				else if (si.ssi_signo == SIGCHLD)
					reap(a);
				else
					a->quit = true; /* SIGINT, SIGTERM, SIGHUP: leave cleanly */
			}
		}
		if (a->discovery && (fds[3].revents & POLLIN))
			app_take_targets(a);
		if (a->attaching && (fds[4].revents & POLLIN))
			app_take_attach(a);
		if (a->watch_fd >= 0 && (fds[2].revents & POLLIN)) {
			watch_drain(a->watch_fd);
			if (a->session && session_screen_refresh(a->session)) {
				session_screen_update_views(a->session);
				measure = true;
			}
		}
		if (fds[0].revents & (POLLIN | POLLHUP)) {
			wint_t ch;
			int r;
			while ((r = get_wch(&ch)) != ERR) {
				if (r == KEY_CODE_YES && ch == KEY_RESIZE)
					term_resize(a);
				else
					handle_key(a, (int)ch, r == KEY_CODE_YES);
				if (a->quit)
					break;
			}
			if (fds[0].revents & POLLHUP)
				a->quit = true;
		}
	}
	if (latency_log)
		fclose(latency_log);
}

int loop_main(const struct loop_options *o)
{
	setlocale(LC_ALL, "");
	struct app a;
	app_init(&a, o->rate, o->events);
	struct config cfg; /* colour and history (the caller has reported its problems) */
	config_load(&cfg, NULL);
	config_free(&cfg);
	a.no_color = (getenv("NO_COLOR") && getenv("NO_COLOR")[0]) || !cfg.color;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "clrscope: the terminal UI needs a terminal (use 'clrscope record' and 'report' in scripts)\n");
		return 1;
	}
	char err[PATH_MAX + 512];
	/* what fails before the screen opens is said on the plain terminal */
	if (o->start == LOOP_OPEN) {
		struct prof_recording probe;
		if (prof_recording_open(&probe, o->dir, err, sizeof err) < 0) {
			fprintf(stderr, "clrscope: %s\n", err);
			return 1;
		}
		prof_recording_free(&probe);
	}
	sigset_t mask, old;
	sigemptyset(&mask);
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGWINCH};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaddset(&mask, sigs[i]);
	sigprocmask(SIG_BLOCK, &mask, &old);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

	prune_automatically(); /* the default root is a small tmpfs */
	term_open(&a);
	prompt_init(commands_candidate, cfg.history_size);
	int rc = 0;
	switch (o->start) {
	case LOOP_TARGETS:
		app_refresh_targets(&a);
		break;
	case LOOP_OPEN:
		if (app_open_session(&a, o->dir, err, sizeof err) < 0)
			rc = 1;
		break;
	case LOOP_LAUNCH:
		if (app_launch(&a, o->command, o->dir, o->events, &o->features) < 0)
			rc = 1;
		break;
	case LOOP_ATTACH:
		a.attach_first = true;
		app_refresh_targets(&a);
		if (app_attach(&a, o->pid, o->dir, o->events) < 0)
			rc = 1;
		break;
	}
	if (rc) {
		char message[sizeof a.message];
		snprintf(message, sizeof message, "%s", a.message);
		prompt_fini();
		term_restore();
		app_free(&a);
		fprintf(stderr, "clrscope: %s\n", message);
		return 1;
	}
	a.session_first = o->start != LOOP_TARGETS;
	run(&a, sfd);
	prompt_fini();
	term_restore();
	if (a.exit_status)
		fprintf(stderr, "clrscope: %s\n", a.message);
	/* a program we launched keeps running: say where its session is */
	if (a.session && a.session->state == TARGET_RUNNING)
		fprintf(stderr, "clrscope: pid %d keeps running; its session is %s\n", (int)a.session->target,
			a.session->model.dir);
	app_free(&a);
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return a.exit_status;
}
