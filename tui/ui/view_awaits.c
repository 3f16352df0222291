/* Awaits: the shown process's latest awaits snapshot as a tree of its
 * pending async chains, the outermost methods at the top, open down to the
 * innermost ones and what they await (treerows.h); each node with the
 * chains through it.  A or ':snapshot awaits' takes a snapshot. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "ui/session_screen.h"
#include "ui/treerows.h"
#include "util/xalloc.h"

#define CHAIN_MAX 4096

struct awaits {
	struct tree_rows rows;
	uint32_t *functions; /* one chain's, CHAIN_MAX */
};

static const struct column columns[] = {
	{"chains", 8, true},
	{"%", 6, true},
	{"pending async chains, outermost method first", 0, false},
};

static void init(void *priv)
{
	struct awaits *a = priv;
	a->rows.open_new = true; /* a few chains, each worth reading whole */
	a->functions = xmalloc(CHAIN_MAX * sizeof *a->functions);
}

static void done(void *priv)
{
	struct awaits *a = priv;
	tree_rows_free(&a->rows);
	free(a->functions);
}

static void process_changed(void *priv)
{
	tree_rows_forget(&((struct awaits *)priv)->rows);
}

static const struct prof_awaits *snapshot(const struct view_ctx *c)
{
	return c->p ? prof_latest_awaits(c->p) : NULL;
}

/* The latest snapshot's chains counted in the tree, keeping its nodes. */
static void update(struct view_ctx *c)
{
	struct awaits *a = c->priv;
	const struct prof_awaits *snap = snapshot(c);
	if (!snap) {
		view_set_rows(c->v, 0);
		return;
	}
	tree_rows_recount(&a->rows);
	/* last first: a node's newest child comes first among equals, so
	 * groups of one count keep the snapshot's order */
	for (size_t i = snap->ngroups; i-- > 0;) {
		const struct prof_await_group *g = &snap->groups[i];
		size_t depth = prof_stack_functions(c->p, g->stack, a->functions, CHAIN_MAX);
		calltree_count_stack(&a->rows.calls, a->functions, depth, g->count);
	}
	tree_rows_show(&a->rows, c->v);
}

static void cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct tree_rows *t = &((struct awaits *)c->priv)->rows;
	const struct calltree_node *node = tree_rows_node(t, item);
	double all = t->calls.nodes[0].total ? (double)t->calls.nodes[0].total : 1.0;
	switch (col) {
	case 0: snprintf(buf, n, "%" PRIu64, node->total); break;
	case 1: snprintf(buf, n, "%.1f", 100.0 * (double)node->total / all); break;
	default: tree_rows_name(t, c->p, item, buf, n); break;
	}
}

static enum ui_style style(struct view_ctx *c, uint32_t item)
{
	return tree_rows_style(&((struct awaits *)c->priv)->rows, c->p, item);
}

static bool key(struct view_ctx *c, int k)
{
	return tree_rows_key(&((struct awaits *)c->priv)->rows, c, k);
}

/* The snapshot's line above the tree, or why there is no tree. */
static int header(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	static const char *const merged[] = {
		"Awaits snapshots are per process.",
		"Enter on a process in Processes shows its own.",
		NULL};
	static const char *const none[] = {
		"No awaits snapshot yet.",
		"Press A (or :snapshot awaits) to take one: the async methods waiting at an await now, each chain",
		"of them once, grouped by their methods from the outermost one (nothing awaits it) to the innermost",
		"and what that awaits ([awaiting TYPE]: a TaskCompletionSource's task, a Task.Delay, a socket).",
		"The program stands still while the agent walks its heap for them.",
		NULL};
	static const char *const empty[] = {"No async method was waiting at an await.", NULL};
	if (c->s->all)
		return view_explain(cv, y, height, merged);
	const struct prof_awaits *snap = snapshot(c);
	if (!snap)
		return view_explain(cv, y, height, none);
	char text[400];
	prof_awaits_text(snap, text, sizeof text);
	canvas_text(cv, y, 0, cv->cols, UI_HEADER, true, text);
	if (!snap->ngroups)
		return height > 1 ? view_explain(cv, y + 1, height - 1, empty) : -1;
	return 1;
}

const struct view_ops view_awaits = {
	.name = "Awaits",
	.title = "the async chains waiting at an await, outermost method first: A takes a snapshot",
	.private_size = sizeof(struct awaits), .init = init, .done = done, .update = update,
	.process_changed = process_changed,
	VIEW_COLUMNS(columns),
	.cell = cell,
	.style = style,
	.key = key,
	.header = header,
};
