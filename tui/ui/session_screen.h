/* The session screen's state: the profile model of one session, which
 * process and view are shown, and what each view keeps between draws. */
#ifndef CLRSCOPE_SESSION_SCREEN_H
#define CLRSCOPE_SESSION_SCREEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/profile.h"
#include "ui/listview.h"
#include "ui/view.h"

enum target_state { TARGET_NONE, TARGET_STARTING, TARGET_RUNNING, TARGET_EXITED, TARGET_DETACHED };

struct session_screen {
	struct prof_recording model;
	bool open;
	size_t proc; /* shown process */
	bool all;    /* ... or all of them, merged */
	struct prof_process *merged;
	char filter[128];
	char message[300]; /* a transient line on the status bar */
	bool message_error;
	/* the function in focus, shared by the views (Enter in Functions
	 * focuses Callers on it, S the Source view); UINT32_MAX = none */
	uint32_t focus;
	/* the type whose paths from the roots the Paths view shows (Enter in
	 * Heap); "" = none */
	char heap_type[1024];

	struct view views[VIEW_COUNT];
	enum view_id shown;

	/* Which samples the sample views count (':thread', ':range', the
	 * timeline's marks): the report's --thread/--from/--to filter.  While
	 * one is on, `narrow` is the same session read again with it (kept up
	 * to date with the model); the Threads view, the timeline and the
	 * views of events keep reading the whole model. */
	struct prof_filter samples;
	bool narrowed;
	struct prof_recording narrow;
	struct prof_process *narrow_merged;
	/* the timeline: its cursor (a second since the agent started, -1: none)
	 * and where it was drawn last, for clicks */
	int64_t time_cursor;
	int timeline_y, timeline_x0, timeline_cols;
	size_t timeline_first; /* the second at timeline_x0 */

	/* the program, when this screen launched or attached it */
	enum target_state state;
	pid_t target;
	int exit_status;
	uint64_t dial_requested; /* generation asked for (0: none) */
	/* an awaits snapshot asked for and not arrived: the number of the
	 * shown process's latest one when it was asked for */
	bool awaits_asked;
	uint64_t awaits_before;
	char output_path[4096 + 32]; /* a launched program's stdout and stderr */
};

/* Sets up the views (s zeroed, model not yet open). */
void session_screen_init(struct session_screen *s);
struct prof_process *ui_current(struct session_screen *s);
/* The shown process as the sample views count it: ui_current's samples in
 * the thread and time range chosen (ui_current itself without a filter). */
struct prof_process *ui_samples(struct session_screen *s);
/* Counts only the samples that pass f (zeros: all of them): the session
 * is read again with f, once.  Says what it did, or why it could not
 * (false), in the session's message. */
bool session_screen_set_samples(struct session_screen *s, const struct prof_filter *f);
/* The filter in words for the status bar ("thread 1234 worker, 2.0-5.0 s";
 * "" without one). */
void ui_samples_text(const struct session_screen *s, char *out, size_t n);
/* Re-reads the session; true when anything new arrived.  An awaits
 * snapshot asked for that arrived says so on the status bar. */
bool session_screen_refresh(struct session_screen *s);
/* An awaits snapshot of the shown process was asked for: says so now, and
 * again when it arrives. */
void session_screen_awaits_asked(struct session_screen *s);
/* The model changed: every view is dirty, the shown one is rebuilt now and
 * the others when they are shown. */
void session_screen_update_views(struct session_screen *s);
/* Another process (or all of them) is shown: views forget the last one's. */
void session_screen_process_changed(struct session_screen *s);
/* Frees what s holds (not s itself). */
void session_screen_free(struct session_screen *s);
void session_screen_message(struct session_screen *s, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The views, in tab order. */
const struct view_ops *ui_view(enum view_id id);
/* The view named name (any case), or VIEW_COUNT. */
enum view_id ui_view_find(const char *name);
/* The view a key shows ('1'-'9', '0'), or VIEW_COUNT. */
enum view_id ui_view_for_key(int key);
/* The key that shows a view, or 0 when only Tab and ':view' reach it. */
int ui_view_key(enum view_id id);

/* Shows a view, rebuilding it first if it is dirty. */
void session_screen_show(struct session_screen *s, enum view_id id);
/* Which samples every view counts (cpu or wall); the views are rebuilt. */
void session_screen_set_time(struct session_screen *s, enum prof_time t);
/* Focuses the views on function and shows its source, line by line. */
void session_screen_show_source(struct session_screen *s, uint32_t function);
/* Shows the paths from the roots to the objects of type (the Paths view). */
void session_screen_show_paths(struct session_screen *s, const char *type);
struct view *ui_shown_view(struct session_screen *s);
/* Input for the shown view: a key (true when it took it), a click at
 * (y, x) on screen (true when a row or frame is there and is now selected). */
bool session_screen_key(struct session_screen *s, int key);
bool session_screen_click(struct session_screen *s, int y, int x);

#endif
