/* A view is one way of looking at a profiled process (tig's view_ops):
 * its ops say what it shows, and the screen keeps one struct view of each,
 * indexed by enum view_id; the tab line, the view keys, ':view' and its
 * completion all come from the ops table.
 *
 * Most views are a list (perf's ui_browser): columns over rows that are
 * items of the model (functions, events, threads, ...) by index.  The
 * layer here (view.c) keeps what every list shares: the view's own state
 * (private_size bytes, zeroed), the rows and the cursor, choosing items
 * into rows through the filter, sorting them ('s' steps through the
 * orders), drawing them under an optional header, and the keys and clicks
 * that move the cursor.  A view file keeps only what is its own: what its
 * items are and how a cell reads. */
#ifndef CLRSCOPE_VIEW_H
#define CLRSCOPE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
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
	VIEW_PATHS,
	VIEW_DOMINATORS,
	VIEW_AWAITS,
	VIEW_COUNT
};

/* What view.c needs of the screen that shows the views: that screen
 * (session_screen.c) holds them, so view.c, below it, reaches it through
 * these, given to view_init. */
struct view_host {
	/* The shown process: all of it, or its samples that ':thread' and
	 * ':range' choose; NULL when none is shown. */
	struct prof_process *(*current)(struct session_screen *s);
	struct prof_process *(*samples)(struct session_screen *s);
	/* The text the rows are filtered by ('/'); "" for none. */
	const char *(*filter)(const struct session_screen *s);
	/* A line on the status bar. */
	void (*message)(struct session_screen *s, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
};

struct view {
	const struct view_ops *ops;
	const struct view_host *host;
	bool dirty; /* the model changed since its last update */
	void *priv; /* ops->private_size bytes, private to the view's file; NULL for 0 */
	/* a list's rows: the item each row shows, in the order shown */
	struct listview lv;
	uint32_t *rows;
	size_t rows_cap;
	int sort; /* the order of ops->sorts the rows are in */
};

/* What a view's callbacks work on. */
struct view_ctx {
	struct view *v;
	void *priv; /* v->priv */
	struct session_screen *s;
	struct prof_process *p; /* the process the view reads (see samples); NULL: none shown */
};

struct view_ops {
	const char *name;  /* shown in the tab line, typed after ':view' */
	const char *title; /* one line on what it shows */
	size_t private_size;
	/* Reads the samples ':thread' and ':range' choose (ui_samples), else
	 * all of the shown process (ui_current). */
	bool samples;

	/* Optional: state beyond zeros; freeing what the state holds. */
	void (*init)(void *priv);
	void (*done)(void *priv);
	/* Optional: rebuilds what depends on the model (new records arrived),
	 * before a list's rows are chosen again. */
	void (*update)(struct view_ctx *c);
	/* Optional: another process is shown, forget what belonged to the last. */
	void (*process_changed)(void *priv);

	/* ---- a list: set columns ---- */
	const struct column *columns;
	int ncolumns;
	bool follow; /* the cursor stays on the last row as rows arrive */
	/* The items rows are chosen from, 0..count-1, after each update; NULL:
	 * the view's update sets its rows itself (view_set_rows). */
	size_t (*count)(struct view_ctx *c);
	/* Optional: whether an item is a row at all. */
	bool (*keep)(struct view_ctx *c, uint32_t item);
	/* Optional: whether an item holds the filter text ('/'); without it
	 * the view is not filtered. */
	bool (*match)(struct view_ctx *c, uint32_t item, const char *filter);
	/* Optional: the rows' order, by v->sort; with sorts, 's' steps through
	 * the orders named there (NULL-terminated). */
	int (*compare)(struct view_ctx *c, uint32_t a, uint32_t b);
	const char *const *sorts;
	void (*cell)(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n);
	enum ui_style (*style)(struct view_ctx *c, uint32_t item); /* optional: UI_NORMAL */
	/* Optional: lines drawn above the list; returns how many, or -1 when
	 * there is nothing to list (and it said why). */
	int (*header)(struct view_ctx *c, struct canvas *cv, int y, int height);

	/* ---- optional for a list (which has these), required otherwise ---- */
	void (*draw)(struct view_ctx *c, struct canvas *cv, int y, int height);
	/* True when the key was the view's (a list's own keys come first). */
	bool (*key)(struct view_ctx *c, int key);
	/* A click at (y, x) on screen; true when it selected something. */
	bool (*click)(struct view_ctx *c, int y, int x);
	/* Optional: '/' searches the view instead of filtering the rows. */
	void (*search)(struct view_ctx *c, const char *text);
};

/* A list's columns in its ops: VIEW_COLUMNS(columns). */
#define VIEW_COLUMNS(cols) .columns = (cols), .ncolumns = (int)(sizeof(cols) / sizeof *(cols))

extern const struct view_ops view_functions, view_tree, view_callers, view_events, view_threads, view_processes,
	view_calls, view_heap, view_allocations, view_gc, view_locks, view_flame, view_diff, view_source, view_paths,
	view_dominators, view_awaits;

/* Makes v a view of ops on host's screen (dirty, so built when first
 * shown); frees it. */
void view_init(struct view *v, const struct view_ops *ops, const struct view_host *host);
void view_free(struct view *v);
/* Rebuilds v from the model: its update, then a list's rows. */
void view_update(struct view *v, struct session_screen *s);
void view_process_changed(struct view *v);
void view_draw(struct view *v, struct session_screen *s, struct canvas *cv, int y, int height);
bool view_key(struct view *v, struct session_screen *s, int key);
bool view_click(struct view *v, struct session_screen *s, int y, int x);
void view_search(struct view *v, struct session_screen *s, const char *text);

/* How a function's rows are drawn: the markers of logical (async) stacks
 * and awaits chains ([await], [await ?], [WhenAll], [awaiting TYPE],
 * [blocking wait]) dim, the rest plain. */
enum ui_style view_function_style(const struct prof_process *p, uint32_t function);

/* Explains an empty view in a few lines (the first a heading) from y on;
 * returns -1, a header's "nothing to list". */
int view_explain(struct canvas *cv, int y, int height, const char *const *lines);

/* The list of a list view, NULL for another. */
struct listview *view_list(struct view *v);
/* The item under the cursor; false when there is no row. */
bool view_selected(const struct view *v, uint32_t *item);
/* Rows 0..n-1 are items 0..n-1 (for a view without count). */
void view_set_rows(struct view *v, size_t n);
/* What a tree's open/close key does to the node under the cursor: Enter
 * turns it, Right and l open it, Left closes it, or goes up to its parent
 * when it is closed already and has one. */
enum view_tree_move { TREE_NO_KEY = -1, TREE_CLOSE = 0, TREE_OPEN = 1, TREE_UP = 2 };
enum view_tree_move view_tree_key(int k, bool open, bool has_parent);
/* Draws the list alone (for a view that draws more around it). */
void view_draw_list(struct view_ctx *c, struct canvas *cv, int y, int height);

#endif
