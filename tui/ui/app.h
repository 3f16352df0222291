/* The terminal UI's state: the targets screen or a session screen, the
 * threads that discover processes and attach, and the actions that keys
 * and prompt commands take on it (commands.c).  The event loop that reads
 * the terminal and draws it is loop.h's. */
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
	const char *default_events; /* for launches and attaches that name none: the config's or -e */
	char filter[128]; /* the targets screen's */
	char message[300];
	bool message_error;
	struct canvas canvas;
};

/* An app on the targets screen, with nothing under way. */
void app_init(struct app *a, unsigned rate, const char *default_events);
/* Closes the session and stops the threads. */
void app_free(struct app *a);

/* Actions shared by keys and prompt commands (commands.c). */
void app_message(struct app *a, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int app_open_session(struct app *a, const char *dir, char *err, size_t errlen);
void app_close_session(struct app *a);
/* features: --instrument and --allocations (NULL: none). */
int app_launch(struct app *a, char **argv, const char *dir, const char *events, const struct startup_features *features);
int app_attach(struct app *a, pid_t pid, const char *dir, const char *events);
/* Sends dials to the shown process's agent; -1 when it could not (said). */
int app_send_dials(struct app *a, char *const *assignments, int n);
void app_refresh_targets(struct app *a);

/* What the loop does when a thread has news: the discovery thread's list
 * of processes; the attach thread's result (its session opens, and the
 * agent's hello is awaited there); and, while awaited, the hello itself. */
void app_take_targets(struct app *a);
void app_take_attach(struct app *a);
void app_check_hello(struct app *a);

#endif
