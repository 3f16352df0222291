/* A view is one way of looking at a profiled process (tig's view_ops):
 * it draws itself on a canvas and handles the keys meant for it.  The
 * session screen owns a fixed list of them and switches with Tab. */
#ifndef CLRSCOPE_VIEW_H
#define CLRSCOPE_VIEW_H

#include <stdbool.h>

#include "canvas.h"
#include "listview.h"
#include "profile.h"

struct ui_session;

/* What a key handler did, as bits (htop's style). */
enum {
	KEY_IGNORED = 0,
	KEY_HANDLED = 1 << 0,
	KEY_REDRAW = 1 << 1,
};

struct view_ops {
	const char *name;  /* shown in the tab line */
	const char *title; /* one line on what it shows */
	/* Rebuilds what depends on the model (after new records arrived). */
	void (*update)(struct ui_session *s);
	void (*draw)(struct ui_session *s, struct canvas *c, int y, int height);
	int (*key)(struct ui_session *s, int key);
	/* The list a mouse click selects in (it remembers where it was drawn). */
	struct listview *(*list)(struct ui_session *s);
};

extern const struct view_ops view_functions, view_tree, view_callers, view_events, view_threads, view_processes,
	view_calls, view_heap, view_allocations, view_gc, view_locks;

#endif
