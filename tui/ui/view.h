/* A view is one way of looking at a profiled process (tig's view_ops):
 * it keeps its own state, rebuilds it from the model when asked, draws
 * itself on a canvas and handles the keys meant for it.  The session
 * screen holds one of each, indexed by enum view_id; the tab line, the
 * view keys, ':view' and its completion all come from the ops table. */
#ifndef CLRSCOPE_VIEW_H
#define CLRSCOPE_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"
#include "ui/canvas.h"
#include "ui/listview.h"

struct session_screen;

/* In tab order; the first ten have the keys 1-9 and 0. */
enum view_id {
	VIEW_FUNCTIONS,
	VIEW_TREE,
	VIEW_CALLERS,
	VIEW_EVENTS,
	VIEW_THREADS,
	VIEW_PROCESSES,
	VIEW_CALLS,
	VIEW_HEAP,
	VIEW_ALLOCS,
	VIEW_GC,
	VIEW_LOCKS,
	VIEW_FLAME,
	VIEW_DIFF,
	VIEW_SOURCE,
	VIEW_COUNT
};

struct view {
	const struct view_ops *ops;
	bool dirty; /* the model changed since its last update */
	void *priv; /* the view's own state, private to its file */
};

struct view_ops {
	const char *name;  /* shown in the tab line, typed after ':view' */
	const char *title; /* one line on what it shows */
	void *(*create)(void);
	void (*destroy)(void *priv);
	/* Rebuilds what depends on the model (after new records arrived). */
	void (*update)(struct view *v, struct session_screen *s);
	void (*draw)(struct view *v, struct session_screen *s, struct canvas *c, int y, int height);
	/* True when the key was the view's. */
	bool (*key)(struct view *v, struct session_screen *s, int key);
	/* The list a mouse click selects in (it remembers where it was drawn). */
	struct listview *(*list)(struct view *v);
	/* Optional: another process is shown, forget what belonged to the last. */
	void (*process_changed)(struct view *v);
	/* Optional, for a view without a list: a click at (y, x) on screen. */
	bool (*click)(struct view *v, struct session_screen *s, int y, int x);
	/* Optional: '/' searches the view instead of filtering the rows. */
	void (*search)(struct view *v, struct session_screen *s, const char *text);
};

extern const struct view_ops view_functions, view_tree, view_callers, view_events, view_threads, view_processes,
	view_calls, view_heap, view_allocations, view_gc, view_locks, view_flame, view_diff, view_source;

#endif
