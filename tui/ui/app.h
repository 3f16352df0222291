/* The terminal UI: one event loop over the terminal, the session watcher,
 * signals and child processes; a targets screen and a session screen. */
#ifndef CLRSCOPE_APP_H
#define CLRSCOPE_APP_H

#include <stdbool.h>
#include <sys/types.h>

#include "live/launch.h"
#include "ui/canvas.h"
#include "ui/listview.h"
#include "ui/session_screen.h"

struct dotnet_proc;
struct app_list;
struct discovery;

/* The targets screen: running .NET processes, then installed apps. */
struct targets {
	struct dotnet_proc *procs;
	size_t nprocs;
	struct app_list *apps;
	size_t *rows; /* filtered: index < nprocs is a process, else an app */
	size_t nrows, rows_cap;
	struct listview lv;
};

struct app {
	struct session_screen *session; /* NULL: the targets screen */
	struct targets targets;
	struct discovery *discovery; /* lists the processes off this thread */
	struct attaching *attaching; /* an attach under way, off this thread */
	pid_t hello_pid;             /* attached: the agent whose hello is awaited (0: none) ... */
	uint64_t hello_after_ns;     /* ... started at or after this */
	bool attach_first;           /* started by 'attach': a failed attach quits */
	int exit_status;
	bool discovery_failed;
	bool quit;
	bool help;
	int help_top; /* the help's first line shown */
	bool output; /* the launched program's output instead of the view */
	bool session_first; /* started on a session: leaving it quits */
	bool no_color;
	int watch_fd;
	unsigned rate;
	char filter[128]; /* the targets screen's */
	char message[300];
	bool message_error;
	struct canvas canvas;
};

/* Entry points behind 'clrscope', 'open', 'launch' and 'attach'. */
enum app_start { APP_TARGETS, APP_OPEN, APP_LAUNCH, APP_ATTACH };
struct app_options {
	enum app_start start;
	const char *dir;     /* open: the session; launch/attach: -o */
	char **command;      /* launch */
	pid_t pid;           /* attach */
	unsigned rate;
	const char *events;
	struct startup_features features; /* launch */
};
int app_main(const struct app_options *o);

/* Actions shared by keys and prompt commands (commands.c). */
void app_message(struct app *a, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int app_open_session(struct app *a, const char *dir, char *err, size_t errlen);
void app_close_session(struct app *a);
/* features: --instrument and --allocations (NULL: none). */
int app_launch(struct app *a, char **argv, const char *dir, const char *events, const struct startup_features *features);
int app_attach(struct app *a, pid_t pid, const char *dir, const char *events);
void app_send_dials(struct app *a, char *const *assignments, int n);
void app_refresh_targets(struct app *a);

#endif
