/* The session screen's state: the profile model of one session, which
 * process and view are shown, and what each view keeps between draws. */
#ifndef CLRSCOPE_UISESSION_H
#define CLRSCOPE_UISESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "listview.h"
#include "profile.h"
#include "view.h"

/* The call tree: functions merged along paths, root first. */
struct tree_node {
	uint32_t function;
	uint32_t parent;            /* node index; 0 = the root */
	uint32_t first_child, next; /* children as a linked list */
	uint64_t total, self;
	bool expanded;
};

enum functions_sort { SORT_SELF, SORT_TOTAL, SORT_NAME };

enum target_state { TARGET_NONE, TARGET_STARTING, TARGET_RUNNING, TARGET_EXITED, TARGET_DETACHED };

struct ui_session {
	struct prof_session model;
	bool open;
	size_t proc; /* shown process */
	bool all;    /* ... or all of them, merged */
	struct prof_process *merged;
	int view;
	char filter[128];
	char message[300]; /* a transient line on the status bar */
	bool message_error;

	/* top functions */
	struct listview functions_lv;
	enum functions_sort sort;
	uint32_t *function_rows;
	size_t nfunction_rows, function_rows_cap;

	/* call tree */
	struct tree_node *nodes;
	size_t nnodes, nodes_cap;
	uint32_t *tree_rows; /* visible nodes, in order */
	uint16_t *tree_depth;
	size_t ntree_rows, tree_rows_cap, tree_depth_cap;
	struct listview tree_lv;

	/* callers and callees of one function */
	uint32_t focus; /* function index, UINT32_MAX = none */
	struct caller_row {
		uint32_t function;
		uint64_t count;
		bool callee;
	} *caller_rows;
	size_t ncaller_rows, caller_rows_cap;
	struct listview callers_lv;

	struct listview events_lv;
	uint32_t *event_rows;
	size_t nevent_rows, event_rows_cap;
	uint32_t hidden_event_kinds; /* bits of prof_event_kind filtered out */

	struct listview threads_lv;
	struct listview processes_lv;

	/* instrumented functions: rows are function indexes */
	struct listview calls_lv;
	uint32_t *call_rows;
	size_t ncall_rows, call_rows_cap;
	int calls_sort; /* column to sort by */

	/* the latest heap snapshot: rows index its entries */
	struct listview heap_lv;
	uint32_t *heap_rows;
	size_t nheap_rows, heap_rows_cap;
	bool heap_by_count;

	/* allocations: rows are type ids */
	struct listview allocs_lv;
	uint32_t *alloc_rows;
	size_t nalloc_rows, alloc_rows_cap;
	bool allocs_by_count;

	struct listview gc_lv;

	/* locks: contention sites (or waits, after 'w') by wait, sorted */
	struct listview locks_lv;
	struct prof_stack_tally *lock_rows;
	size_t nlock_rows;
	bool locks_waits;

	/* the program, when this screen launched or attached it */
	enum target_state state;
	pid_t target;
	int exit_status;
	uint64_t dial_requested; /* generation asked for (0: none) */
	char output_path[4096 + 32]; /* a launched program's stdout and stderr */
};

struct prof_process *ui_current(struct ui_session *s);
/* Re-reads the session; true when anything new arrived. */
bool ui_session_refresh(struct ui_session *s);
void ui_session_update_views(struct ui_session *s);
/* Frees what s holds (not s itself). */
void ui_session_free(struct ui_session *s);
void ui_session_message(struct ui_session *s, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const struct view_ops *ui_view(int i);
int ui_view_count(void);

/* A click on screen line y selects the row drawn there in the current
 * view's list; false when no row is there. */
bool ui_session_click(struct ui_session *s, int y);

/* The function under the cursor of the current view, or UINT32_MAX. */
uint32_t ui_selected_function(struct ui_session *s);

#endif
