/* Stacks merged into a tree of calls, root first, as the Tree and Flame
 * views show them: node 0 is the root, a node's children are a linked
 * list.  Nodes keep their indexes between recounts, so what a view marks
 * on them by index (a node opened, a frame selected) stays put. */
#ifndef CLRSCOPE_CALLTREE_H
#define CLRSCOPE_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CALLTREE_KIDS_MAX 256 /* children listed per node; the lightest beyond are left out */

struct calltree_node {
	uint32_t function;          /* UINT32_MAX: the root */
	uint32_t parent;            /* node index; the root's is 0 */
	uint32_t first_child, next; /* 0: none */
	uint64_t total, self;       /* samples through it, and in it */
};

struct calltree {
	struct calltree_node *nodes;
	size_t n, cap;
};

void calltree_free(struct calltree *t);
/* Zeroes the counts, keeping the nodes; an empty tree gets its root. */
void calltree_recount(struct calltree *t);
/* The child of node for function, made when there is none. */
uint32_t calltree_child(struct calltree *t, uint32_t node, uint32_t function);
/* Counts a stack (functions root first) count times: in the total of each
 * node along it and the self of the last (prof_each_stack's callback, with
 * the tree as its context). */
void calltree_count_stack(void *tree, const uint32_t *functions, size_t depth, uint64_t count);
/* A node's children with samples, heaviest first, into kids (room for
 * CALLTREE_KIDS_MAX); returns how many. */
size_t calltree_kids(const struct calltree *t, uint32_t node, uint32_t *kids);
/* Whether node is ancestor or lies below it. */
bool calltree_inside(const struct calltree *t, uint32_t node, uint32_t ancestor);

#endif
