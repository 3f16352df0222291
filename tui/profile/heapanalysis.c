#include "profile/heapanalysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/u64map.h"
#include "util/xalloc.h"

#define PATH_MAX_LINKS 256

/* Retained sizes: each reached node's own, added to its dominator's, the
 * deepest first (reverse preorder visits children before parents). */
static void retain(struct heap_analysis *a)
{
	const struct heap_graph *g = &a->g;
	a->retained = xmalloc((size_t)g->n * sizeof *a->retained);
	for (uint32_t v = 0; v < g->n; v++)
		a->retained[v] = g->size[v];
	for (uint32_t i = a->dom.reached; i-- > 1;) {
		uint32_t v = a->dom.order[i];
		a->retained[a->dom.idom[v]] += a->retained[v];
	}
}

static int by_retained(const void *x, const void *y, void *ctx)
{
	const uint64_t *retained = ctx;
	uint32_t u = *(const uint32_t *)x, v = *(const uint32_t *)y;
	if (retained[u] != retained[v])
		return retained[u] > retained[v] ? -1 : 1;
	return u < v ? -1 : u > v;
}

/* The dominator tree in compressed rows, children most retained first. */
static void tree(struct heap_analysis *a)
{
	const struct heap_graph *g = &a->g;
	a->child_start = xcalloc((size_t)g->n + 1, sizeof *a->child_start);
	for (uint32_t v = 0; v < g->n; v++)
		if (a->dom.idom[v] != DOM_NONE)
			a->child_start[a->dom.idom[v] + 1]++;
	for (uint32_t v = 0; v < g->n; v++)
		a->child_start[v + 1] += a->child_start[v];
	a->children = xmalloc(((size_t)a->child_start[g->n] + 1) * sizeof *a->children);
	uint32_t *fill = xmalloc(((size_t)g->n + 1) * sizeof *fill);
	memcpy(fill, a->child_start, ((size_t)g->n + 1) * sizeof *fill);
	for (uint32_t i = 1; i < a->dom.reached; i++) { /* preorder: children in a stable order */
		uint32_t v = a->dom.order[i];
		a->children[fill[a->dom.idom[v]]++] = v;
	}
	free(fill);
	for (uint32_t v = 0; v < g->n; v++) {
		uint32_t from = a->child_start[v], count = a->child_start[v + 1] - from;
		if (count > 1)
			qsort_r(a->children + from, count, sizeof *a->children, by_retained, a->retained);
	}
}

/* By type: objects, bytes, and retained bytes of the outermost instances
 * (a walk down the dominator tree counting the instances of each type on
 * the way from the root). */
static void by_type(struct heap_analysis *a)
{
	const struct heap_graph *g = &a->g;
	a->types = xcalloc(g->ntypes ? g->ntypes : 1, sizeof *a->types);
	a->outermost = xcalloc(g->n, 1);
	for (uint32_t v = 1; v < g->n; v++) {
		struct ha_type *t = &a->types[g->type[v]];
		t->count++;
		t->bytes += g->size[v];
		a->objects++;
		a->bytes += g->size[v];
	}
	uint32_t *on_path = xcalloc(g->ntypes ? g->ntypes : 1, sizeof *on_path);
	uint32_t *stack = xmalloc((size_t)g->n * sizeof *stack), *cursor = xmalloc((size_t)g->n * sizeof *cursor);
	uint32_t sp = 1;
	stack[0] = 0;
	cursor[0] = a->child_start[0];
	while (sp) {
		uint32_t v = stack[sp - 1];
		if (cursor[sp - 1] == a->child_start[v + 1]) {
			if (v)
				on_path[g->type[v]]--;
			sp--;
			continue;
		}
		uint32_t w = a->children[cursor[sp - 1]++];
		uint32_t t = g->type[w];
		if (!on_path[t]) {
			a->outermost[w] = 1;
			a->types[t].retained += a->retained[w];
		}
		on_path[t]++;
		stack[sp] = w;
		cursor[sp++] = a->child_start[w];
	}
	free(on_path);
	free(stack);
	free(cursor);
}

/* The link of (parent, what, repeated), made when new. */
static uint32_t link_of(struct heap_analysis *a, struct u64map *index, size_t *cap, uint32_t parent, uint32_t what,
			bool repeated)
{
	uint64_t *id = u64map_counters(index, (uint64_t)parent << 32 | (uint64_t)what << 1 | repeated);
	if (!*id) {
		xgrow(&a->links, cap, (size_t)a->nlinks + 1, sizeof *a->links);
		a->links[a->nlinks] = (struct ha_link){parent, what, repeated};
		*id = a->nlinks++;
	}
	return (uint32_t)*id;
}

/* Each object's shortest path from a root, breadth first from the roots in
 * their order of preference, as a chain of links. */
static void paths(struct heap_analysis *a)
{
	const struct heap_graph *g = &a->g;
	struct u64map index;
	u64map_init(&index, 1);
	size_t cap = 0;
	xgrow(&a->links, &cap, 1, sizeof *a->links);
	a->nlinks = 1; /* 0 is HA_NO_PATH */
	a->path = xcalloc(g->n, sizeof *a->path);
	uint8_t *seen = xcalloc(g->n, 1);
	uint32_t *queue = xmalloc((size_t)g->n * sizeof *queue);
	size_t head = 0, tail = 0;
	seen[0] = 1;
	for (uint32_t i = 0; i < g->nroots; i++) {
		uint32_t v = g->roots[i].node;
		if (seen[v])
			continue;
		seen[v] = 1;
		uint32_t root = link_of(a, &index, &cap, HA_NO_PATH, g->roots[i].label, false);
		a->path[v] = link_of(a, &index, &cap, root, g->type[v], false);
		queue[tail++] = v;
	}
	while (head < tail) {
		uint32_t v = queue[head++];
		struct ha_link from = a->links[a->path[v]]; /* a type's link: objects have one */
		for (uint32_t e = g->start[v]; e < g->start[v + 1]; e++) {
			uint32_t w = g->refs[e];
			if (seen[w])
				continue;
			seen[w] = 1;
			queue[tail++] = w;
			if (from.what != g->type[w])
				a->path[w] = link_of(a, &index, &cap, a->path[v], g->type[w], false);
			else if (from.repeated)
				a->path[w] = a->path[v];
			else
				a->path[w] = link_of(a, &index, &cap, from.parent, g->type[w], true);
		}
	}
	free(queue);
	free(seen);
	u64map_free(&index);
}

int ha_analyse(const struct hg_records *r, struct heap_analysis *a, char *err, size_t errlen)
{
	*a = (struct heap_analysis){0};
	if (hg_build(r, &a->g, err, errlen) < 0)
		return -1;
	dom_compute(a->g.n, a->g.start, a->g.refs, 0, &a->dom);
	retain(a);
	tree(a);
	by_type(a);
	paths(a);
	return 0;
}

void ha_free(struct heap_analysis *a)
{
	hg_free(&a->g);
	dom_free(&a->dom);
	free(a->retained);
	free(a->child_start);
	free(a->children);
	free(a->outermost);
	free(a->types);
	free(a->path);
	free(a->links);
	*a = (struct heap_analysis){0};
}

uint32_t ha_type_named(const struct heap_analysis *a, const char *name)
{
	for (uint32_t t = 0; t < a->g.ntypes; t++)
		if (!strcmp(a->g.type_names[t], name))
			return t;
	return HG_NO_TYPE;
}

static int by_group_retained(const void *x, const void *y)
{
	const struct ha_path *p = x, *q = y;
	if (p->retained != q->retained)
		return p->retained > q->retained ? -1 : 1;
	if (p->count != q->count)
		return p->count > q->count ? -1 : 1;
	return p->link < q->link ? -1 : p->link > q->link;
}

size_t ha_paths(const struct heap_analysis *a, uint32_t type, struct ha_path **out)
{
	const struct heap_graph *g = &a->g;
	struct u64map groups;
	u64map_init(&groups, 3);
	for (uint32_t v = 1; v < g->n; v++) {
		if (type != HG_NO_TYPE && g->type[v] != type)
			continue;
		uint64_t *c = u64map_counters(&groups, a->path[v]);
		c[0]++;
		c[1] += g->size[v];
		if (a->outermost[v] || type == HG_NO_TYPE)
			c[2] += a->retained[v];
	}
	struct ha_path *v = xmalloc((groups.count ? groups.count : 1) * sizeof *v);
	for (size_t i = 0; i < groups.count; i++)
		v[i] = (struct ha_path){(uint32_t)groups.keys[i], groups.vals[3 * i], groups.vals[3 * i + 1],
					groups.vals[3 * i + 2]};
	size_t n = groups.count;
	u64map_free(&groups);
	qsort(v, n, sizeof *v, by_group_retained);
	*out = v;
	return n;
}

size_t ha_path_names(const struct heap_analysis *a, uint32_t link, const char **names, bool *repeated, size_t cap)
{
	uint32_t chain[PATH_MAX_LINKS];
	size_t depth = 0;
	for (uint32_t l = link; l != HA_NO_PATH && depth < PATH_MAX_LINKS; l = a->links[l].parent)
		chain[depth++] = l;
	size_t n = 0;
	for (size_t i = depth; i-- > 0 && n < cap;) {
		const struct ha_link *l = &a->links[chain[i]];
		names[n] = l->parent == HA_NO_PATH ? a->g.labels[l->what] : a->g.type_names[l->what];
		repeated[n++] = l->repeated;
	}
	return n;
}

void ha_path_text(const struct heap_analysis *a, uint32_t link, char *out, size_t n)
{
	const char *names[PATH_MAX_LINKS];
	bool repeated[PATH_MAX_LINKS];
	size_t k = ha_path_names(a, link, names, repeated, PATH_MAX_LINKS);
	size_t len = 0;
	out[0] = 0;
	for (size_t i = 0; i < k && len + 1 < n; i++) {
		int w = snprintf(out + len, n - len, "%s%s%s", i ? " > " : "", names[i], repeated[i] ? "+" : "");
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

size_t ha_suspects(const struct heap_analysis *a, struct ha_suspect *out, size_t cap)
{
	size_t n = 0;
	for (uint32_t i = a->child_start[0]; i < a->child_start[1] && n < cap; i++) {
		uint32_t top = a->children[i], v = top;
		/* the first child is the most retained */
		while (a->child_start[v] < a->child_start[v + 1]) {
			uint32_t c = a->children[a->child_start[v]];
			if (a->retained[c] * 100 < a->retained[v] * HA_ACCUMULATE_PCT)
				break;
			v = c;
		}
		out[n++] = (struct ha_suspect){top, v};
	}
	return n;
}
