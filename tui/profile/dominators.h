/* Immediate dominators of a directed graph from one root, by semi-NCA
 * (Georgiadis, "Linear-time algorithms for dominators and related
 * problems", 2005): a depth-first numbering, semidominators by
 * path-compressed evaluation in reverse preorder, then each node's
 * immediate dominator as the nearest common ancestor of its DFS parent and
 * its semidominator.  Everything iterative, with explicit stacks: a chain
 * of millions of nodes (a linked list) takes no recursion.
 *
 * The graph is in compressed rows: node v's successors are
 * adj[start[v] .. start[v + 1]).  Memory, transient: about 36 bytes a node
 * and 4 an edge (the predecessors). */
#ifndef CLRSCOPE_DOMINATORS_H
#define CLRSCOPE_DOMINATORS_H

#include <stddef.h>
#include <stdint.h>

#define DOM_NONE UINT32_MAX /* the root's dominator, and an unreached node's */

struct dominators {
	uint32_t *idom;  /* by node: its immediate dominator */
	uint32_t *order; /* the reached nodes in depth-first preorder (order[0] is the root) */
	uint32_t reached;
};

/* Computes d for nodes 0..n-1 from root. */
void dom_compute(uint32_t n, const uint32_t *start, const uint32_t *adj, uint32_t root, struct dominators *d);
void dom_free(struct dominators *d);

#endif
