/* The call tree: functions merged along stacks, root first, with
 * expand/collapse and hot path expansion (treerows.h). */
#include <inttypes.h>
#include <stdio.h>

#include "ui/treerows.h"

static const struct column columns[] = {
	{"total%", 6, true}, {"self%", 6, true}, {"samples", 8, true}, {"call tree", 0, false},
};

static void done(void *priv)
{
	tree_rows_free(priv);
}

static void process_changed(void *priv)
{
	tree_rows_forget(priv);
}

/* Recounts the tree from the stacks, keeping nodes (and what is open). */
static void update(struct view_ctx *c)
{
	if (!c->p) {
		view_set_rows(c->v, 0);
		return;
	}
	struct tree_rows *t = c->priv;
	tree_rows_recount(t);
	prof_each_stack(c->p, calltree_count_stack, &t->calls);
	tree_rows_show(t, c->v);
}

static void cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct tree_rows *t = c->priv;
	const struct calltree_node *node = tree_rows_node(t, item);
	double all = t->calls.nodes[0].total ? (double)t->calls.nodes[0].total : 1.0;
	switch (col) {
	case 0: snprintf(buf, n, "%.1f", 100.0 * (double)node->total / all); break;
	case 1: snprintf(buf, n, "%.1f", 100.0 * (double)node->self / all); break;
	case 2: snprintf(buf, n, "%" PRIu64, node->total); break;
	default: tree_rows_name(t, c->p, item, buf, n); break;
	}
}

static enum ui_style style(struct view_ctx *c, uint32_t item)
{
	return tree_rows_style(c->priv, c->p, item);
}

static bool key(struct view_ctx *c, int k)
{
	return tree_rows_key(c->priv, c, k);
}

const struct view_ops view_tree = {
	.name = "Tree",
	.title = "the call tree, root first: Enter opens and closes, H opens the hot path",
	.private_size = sizeof(struct tree_rows), .samples = true, .done = done, .update = update,
	.process_changed = process_changed,
	VIEW_COLUMNS(columns),
	.cell = cell,
	.style = style,
	.key = key,
};
