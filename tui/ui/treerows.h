/* A call tree (calltree.h) as a list view's rows: each open node's
 * children below it, indented, heaviest first, '+' on a closed node with
 * children and '-' on an open one; Enter, Right, 'l' and Left open and
 * close nodes, H opens the hot path, S shows a node's source.  The Tree
 * view counts the samples' stacks in it, the Awaits view the pending
 * chains'. */
#ifndef CLRSCOPE_TREEROWS_H
#define CLRSCOPE_TREEROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/calltree.h"
#include "ui/view.h"

struct tree_rows {
	struct calltree calls; /* kept between counts: what is open stays open */
	bool open_new;         /* nodes start open (else closed) */
	bool *open;            /* by node */
	size_t open_cap, placed; /* nodes whose open state is set */
	uint32_t *visible;       /* the nodes shown, in order: the view's items */
	uint16_t *depth;
	size_t nvisible, visible_cap, depth_cap;
};

void tree_rows_free(struct tree_rows *t);
/* Another process: another tree, its nodes new. */
void tree_rows_forget(struct tree_rows *t);
/* Counting again: every node's counts zeroed, the nodes kept; then
 * calltree_count_stack(&t->calls, ...) for each stack, then tree_rows_show. */
void tree_rows_recount(struct tree_rows *t);
/* v's rows: the nodes with counts under the open ones. */
void tree_rows_show(struct tree_rows *t, struct view *v);
/* The node a row shows. */
const struct calltree_node *tree_rows_node(const struct tree_rows *t, uint32_t item);
/* The tree column: the row's function indented by its depth, after its mark. */
void tree_rows_name(const struct tree_rows *t, const struct prof_process *p, uint32_t item, char *buf, size_t n);
/* The row's style: pseudo-frames dim (view_function_style). */
enum ui_style tree_rows_style(const struct tree_rows *t, const struct prof_process *p, uint32_t item);
/* The keys above on the row under c's cursor; true when the key was one. */
bool tree_rows_key(struct tree_rows *t, struct view_ctx *c, int key);

#endif
