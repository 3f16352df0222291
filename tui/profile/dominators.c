#include "profile/dominators.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Depth-first preorder from root: num[node] (from 1; 0 unreached),
 * vertex[number] and the DFS parent's number; returns how many. */
static uint32_t number(uint32_t n, const uint32_t *start, const uint32_t *adj, uint32_t root, uint32_t *num,
		       uint32_t *vertex, uint32_t *parent)
{
	uint32_t *stack = xmalloc((size_t)n * sizeof *stack), *cursor = xmalloc((size_t)n * sizeof *cursor);
	uint32_t count = 1, sp = 1;
	num[root] = 1;
	vertex[1] = root;
	parent[1] = 0;
	stack[0] = root;
	cursor[0] = start[root];
	while (sp) {
		uint32_t v = stack[sp - 1];
		if (cursor[sp - 1] == start[v + 1]) {
			sp--;
			continue;
		}
		uint32_t w = adj[cursor[sp - 1]++];
		if (num[w])
			continue;
		num[w] = ++count;
		vertex[count] = w;
		parent[count] = num[v];
		stack[sp] = w;
		cursor[sp++] = start[w];
	}
	free(stack);
	free(cursor);
	return count;
}

/* The predecessors of each reached node, by number, in compressed rows. */
static void predecessors(uint32_t reached, const uint32_t *start, const uint32_t *adj, const uint32_t *num,
			 const uint32_t *vertex, uint32_t **pstart_out, uint32_t **pred_out)
{
	uint32_t *pstart = xcalloc((size_t)reached + 2, sizeof *pstart);
	for (uint32_t i = 1; i <= reached; i++) {
		uint32_t v = vertex[i];
		for (uint32_t e = start[v]; e < start[v + 1]; e++)
			if (num[adj[e]])
				pstart[num[adj[e]] + 1]++;
	}
	for (uint32_t i = 1; i <= reached + 1; i++)
		pstart[i] += pstart[i - 1];
	uint32_t *pred = xmalloc(((size_t)pstart[reached + 1] + 1) * sizeof *pred);
	uint32_t *fill = xmalloc(((size_t)reached + 1) * sizeof *fill);
	memcpy(fill, pstart, ((size_t)reached + 1) * sizeof *fill);
	for (uint32_t i = 1; i <= reached; i++) {
		uint32_t v = vertex[i];
		for (uint32_t e = start[v]; e < start[v + 1]; e++)
			if (num[adj[e]])
				pred[fill[num[adj[e]]]++] = i;
	}
	free(fill);
	*pstart_out = pstart;
	*pred_out = pred;
}

/* Path compression from v up its linked ancestors, without recursion:
 * the chain is stacked, then each link takes its ancestor's least label. */
static void compress(uint32_t v, uint32_t *anc, uint32_t *label, const uint32_t *semi, uint32_t *stack)
{
	uint32_t sp = 0;
	while (anc[anc[v]]) {
		stack[sp++] = v;
		v = anc[v];
	}
	while (sp) {
		uint32_t x = stack[--sp], a = anc[x];
		if (semi[label[a]] < semi[label[x]])
			label[x] = label[a];
		anc[x] = anc[a];
	}
}

void dom_compute(uint32_t n, const uint32_t *start, const uint32_t *adj, uint32_t root, struct dominators *d)
{
	uint32_t *num = xcalloc(n ? n : 1, sizeof *num);
	uint32_t *vertex = xmalloc(((size_t)n + 1) * sizeof *vertex);
	uint32_t *parent = xmalloc(((size_t)n + 1) * sizeof *parent);
	uint32_t reached = number(n, start, adj, root, num, vertex, parent);
	uint32_t *pstart, *pred;
	predecessors(reached, start, adj, num, vertex, &pstart, &pred);

	/* semidominators in reverse preorder (all in numbers) */
	uint32_t *semi = xmalloc(((size_t)reached + 1) * sizeof *semi);
	uint32_t *label = xmalloc(((size_t)reached + 1) * sizeof *label);
	uint32_t *anc = xcalloc((size_t)reached + 1, sizeof *anc);
	uint32_t *stack = xmalloc(((size_t)reached + 1) * sizeof *stack);
	for (uint32_t i = 0; i <= reached; i++)
		semi[i] = label[i] = i;
	for (uint32_t w = reached; w >= 2; w--) {
		for (uint32_t e = pstart[w]; e < pstart[w + 1]; e++) {
			uint32_t v = pred[e], u = v;
			if (anc[v]) {
				compress(v, anc, label, semi, stack);
				u = label[v];
			}
			if (semi[u] < semi[w])
				semi[w] = semi[u];
		}
		anc[w] = parent[w];
	}
	free(stack);
	free(anc);
	free(pred);
	free(pstart);

	/* each immediate dominator: the DFS parent's nearest ancestor at or
	 * above the semidominator */
	uint32_t *idom = label; /* reused, by number */
	idom[1] = 0;
	for (uint32_t w = 2; w <= reached; w++) {
		uint32_t x = parent[w];
		while (x > semi[w])
			x = idom[x];
		idom[w] = x;
	}
	free(semi);
	free(parent);

	d->idom = num; /* reused, by node */
	for (uint32_t v = 0; v < n; v++)
		d->idom[v] = DOM_NONE;
	for (uint32_t w = 2; w <= reached; w++)
		d->idom[vertex[w]] = vertex[idom[w]];
	free(idom);
	memmove(vertex, vertex + 1, (size_t)reached * sizeof *vertex);
	d->order = vertex;
	d->reached = reached;
}

void dom_free(struct dominators *d)
{
	free(d->idom);
	free(d->order);
	*d = (struct dominators){0};
}
