#include "ui/calltree.h"

#include <stdlib.h>

#include "util/xalloc.h"

void calltree_free(struct calltree *t)
{
	free(t->nodes);
	*t = (struct calltree){0};
}

void calltree_recount(struct calltree *t)
{
	if (!t->n) {
		xgrow(&t->nodes, &t->cap, 1, sizeof *t->nodes);
		t->nodes[0] = (struct calltree_node){.function = UINT32_MAX};
		t->n = 1;
	}
	for (size_t i = 0; i < t->n; i++)
		t->nodes[i].total = t->nodes[i].self = 0;
}

uint32_t calltree_child(struct calltree *t, uint32_t node, uint32_t function)
{
	for (uint32_t c = t->nodes[node].first_child; c; c = t->nodes[c].next)
		if (t->nodes[c].function == function)
			return c;
	xgrow(&t->nodes, &t->cap, t->n + 1, sizeof *t->nodes);
	uint32_t n = (uint32_t)t->n++;
	t->nodes[n] = (struct calltree_node){function, node, 0, t->nodes[node].first_child, 0, 0};
	t->nodes[node].first_child = n;
	return n;
}

void calltree_count_stack(void *tree, const uint32_t *functions, size_t depth, uint64_t count)
{
	struct calltree *t = tree;
	uint32_t node = 0;
	t->nodes[0].total += count;
	for (size_t d = 0; d < depth; d++) {
		node = calltree_child(t, node, functions[d]);
		t->nodes[node].total += count;
	}
	t->nodes[node].self += count;
}

/* Sorted without reordering the lists themselves: insertion, as there are few. */
size_t calltree_kids(const struct calltree *t, uint32_t node, uint32_t *kids)
{
	size_t n = 0;
	for (uint32_t c = t->nodes[node].first_child; c && n < CALLTREE_KIDS_MAX; c = t->nodes[c].next)
		if (t->nodes[c].total)
			kids[n++] = c;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && t->nodes[kids[j]].total > t->nodes[kids[j - 1]].total; j--) {
			uint32_t k = kids[j];
			kids[j] = kids[j - 1];
			kids[j - 1] = k;
		}
	return n;
}

bool calltree_inside(const struct calltree *t, uint32_t node, uint32_t ancestor)
{
	for (;; node = t->nodes[node].parent) {
		if (node == ancestor)
			return true;
		if (!node)
			return false;
	}
}
