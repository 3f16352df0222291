/* The heap graph's analysis on hand-made graphs whose answers are known:
 * dominators (against a brute-force definition on random graphs too, and
 * on a chain long enough to break any recursion), the graph built from
 * records, retained sizes, retention paths and growth. */
#include <stdlib.h>

#include "check.h"
#include "common/logfmt.h"
#include "profile/dominators.h"
#include "profile/heapanalysis.h"
#include "profile/heapsummary.h"

/* A graph from an edge list, in compressed rows. */
struct graph {
	uint32_t n;
	uint32_t *start, *adj;
};

static struct graph make_graph(uint32_t n, const uint32_t (*edges)[2], size_t m)
{
	struct graph g = {n, calloc(n + 1, sizeof(uint32_t)), malloc((m + 1) * sizeof(uint32_t))};
	for (size_t i = 0; i < m; i++)
		g.start[edges[i][0] + 1]++;
	for (uint32_t v = 0; v < n; v++)
		g.start[v + 1] += g.start[v];
	uint32_t *fill = malloc((n + 1) * sizeof(uint32_t));
	memcpy(fill, g.start, (n + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < m; i++)
		g.adj[fill[edges[i][0]]++] = edges[i][1];
	free(fill);
	return g;
}

static void free_graph(struct graph *g)
{
	free(g->start);
	free(g->adj);
}

/* Whether every path from root to v passes through d: v unreachable with d removed. */
static int reaches_without(const struct graph *g, uint32_t root, uint32_t v, uint32_t d)
{
	if (root == d)
		return 0;
	char *seen = calloc(g->n, 1);
	uint32_t *queue = malloc(g->n * sizeof(uint32_t));
	size_t head = 0, tail = 0;
	queue[tail++] = root;
	seen[root] = 1;
	int found = 0;
	while (head < tail && !found) {
		uint32_t u = queue[head++];
		if (u == v)
			found = 1;
		for (uint32_t e = g->start[u]; e < g->start[u + 1]; e++) {
			uint32_t w = g->adj[e];
			if (!seen[w] && w != d) {
				seen[w] = 1;
				queue[tail++] = w;
			}
		}
	}
	free(seen);
	free(queue);
	return found;
}

static void test_dominators_known(void)
{
	/* 0 -> 1 -> 2 -> 3, 0 -> 4 -> 3, 3 -> 5, 5 -> 3 (a cycle), 2 -> 1 (back edge), 6 unreached */
	static const uint32_t edges[][2] = {{0, 1}, {1, 2}, {2, 3}, {0, 4}, {4, 3}, {3, 5}, {5, 3}, {2, 1}};
	struct graph g = make_graph(7, edges, sizeof edges / sizeof *edges);
	struct dominators d;
	dom_compute(g.n, g.start, g.adj, 0, &d);
	CHECK_EQ_U(d.reached, 6);
	CHECK_EQ_U(d.order[0], 0);
	CHECK_EQ_U(d.idom[0], DOM_NONE);
	CHECK_EQ_U(d.idom[1], 0);
	CHECK_EQ_U(d.idom[2], 1);
	CHECK_EQ_U(d.idom[3], 0); /* through 2 or through 4 */
	CHECK_EQ_U(d.idom[4], 0);
	CHECK_EQ_U(d.idom[5], 3);
	CHECK_EQ_U(d.idom[6], DOM_NONE);
	dom_free(&d);
	free_graph(&g);
}

/* Random graphs: each reached node's idom strictly dominates it, and no
 * node between them on the dominator chain is missed: idom(v) dominates
 * v, and every other dominator of v dominates idom(v). */
static void test_dominators_random(void)
{
	srand(42);
	for (int round = 0; round < 200; round++) {
		uint32_t n = 2 + (uint32_t)(rand() % 14);
		size_t m = (size_t)(rand() % (int)(3 * n));
		uint32_t (*edges)[2] = malloc((m + 1) * sizeof *edges);
		for (size_t i = 0; i < m; i++) {
			edges[i][0] = (uint32_t)rand() % n;
			edges[i][1] = (uint32_t)rand() % n;
		}
		struct graph g = make_graph(n, edges, m);
		struct dominators d;
		dom_compute(g.n, g.start, g.adj, 0, &d);
		for (uint32_t v = 1; v < n; v++) {
			int reachable = reaches_without(&g, 0, v, UINT32_MAX);
			if (!reachable) {
				CHECK_EQ_U(d.idom[v], DOM_NONE);
				continue;
			}
			uint32_t id = d.idom[v];
			CHECK(id < n);
			if (id >= n)
				continue;
			CHECK(!reaches_without(&g, 0, v, id)); /* id dominates v */
			for (uint32_t x = 0; x < n; x++) {
				if (x == v || x == id || reaches_without(&g, 0, v, x))
					continue;
				/* x dominates v: then x dominates id too */
				CHECK(!reaches_without(&g, 0, id, x));
			}
		}
		dom_free(&d);
		free_graph(&g);
		free(edges);
	}
}

/* A chain of two million nodes: no recursion anywhere. */
static void test_dominators_long_chain(void)
{
	uint32_t n = 2000000;
	struct graph g = {n, malloc((n + 1) * sizeof(uint32_t)), malloc(n * sizeof(uint32_t))};
	for (uint32_t v = 0; v <= n; v++)
		g.start[v] = v < n ? v : n - 1;
	for (uint32_t v = 0; v + 1 < n; v++)
		g.adj[v] = v + 1;
	g.start[n] = n - 1;
	struct dominators d;
	dom_compute(g.n, g.start, g.adj, 0, &d);
	CHECK_EQ_U(d.reached, n);
	CHECK_EQ_U(d.idom[n - 1], n - 2);
	CHECK_EQ_U(d.idom[n / 2], n / 2 - 1);
	dom_free(&d);
	free_graph(&g);
}

/* ---- snapshots made of records ---- */

#define MAX_REFS 8
struct obj {
	uint64_t address;
	uint32_t type, size;
	uint64_t refs[MAX_REFS]; /* addresses, 0 ends */
};
struct root {
	uint8_t kind, flags;
	uint64_t address, id, value;
};
struct stat {
	uint64_t address;
	const char *type, *field;
};

static void feed(struct hg_store *s, uint16_t type, const struct cs_out *o)
{
	struct cs_record rec = {type, (uint32_t)o->len, o->buf};
	CHECK(hg_store_add(s, &rec));
}

static uint64_t nrefs(const struct obj *o)
{
	uint64_t n = 0;
	while (n < MAX_REFS && o->refs[n])
		n++;
	return n;
}

/* The records of a snapshot, each list split into records of `per`
 * entries (to cross record boundaries). */
static void make_snapshot(struct hg_store *s, uint64_t seq, const struct obj *objs, size_t nobjs,
			  const struct root *roots, size_t nroots, const struct stat *stats, size_t nstats,
			  const char *const *types, size_t ntypes, size_t per)
{
	static uint8_t buf[1 << 16];
	struct cs_out o;
	uint64_t prev = 0, edges = 0;
	for (size_t i = 0; i < nobjs; i++) {
		if (i % per == 0) {
			cs_out_init(&o, buf, sizeof buf);
			cs_graph_part_encode(&o, &(struct cs_graph_part){seq, i});
			prev = 0;
		}
		cs_graph_node_encode(&o, &prev,
				     &(struct cs_graph_node){objs[i].address, objs[i].type, objs[i].size, nrefs(&objs[i])});
		if (i % per == per - 1 || i == nobjs - 1)
			feed(s, CS_REC_HEAP_NODES, &o);
	}
	for (size_t i = 0; i < nobjs; i++)
		for (uint64_t k = 0; k < nrefs(&objs[i]); k++, edges++) {
			if (edges % per == 0) {
				if (edges)
					feed(s, CS_REC_HEAP_EDGES, &o);
				cs_out_init(&o, buf, sizeof buf);
				cs_graph_part_encode(&o, &(struct cs_graph_part){seq, edges});
				prev = 0;
			}
			cs_graph_edge_encode(&o, &prev, objs[i].refs[k]);
		}
	if (edges)
		feed(s, CS_REC_HEAP_EDGES, &o);
	cs_out_init(&o, buf, sizeof buf);
	cs_graph_part_encode(&o, &(struct cs_graph_part){seq, 0});
	prev = 0;
	for (size_t i = 0; i < nroots; i++)
		cs_graph_root_encode(&o, &prev,
				     &(struct cs_graph_root){roots[i].kind, roots[i].flags, roots[i].address, roots[i].id,
							     roots[i].value});
	if (nroots)
		feed(s, CS_REC_HEAP_ROOTS, &o);
	cs_out_init(&o, buf, sizeof buf);
	cs_graph_part_encode(&o, &(struct cs_graph_part){seq, 0});
	for (size_t i = 0; i < nstats; i++)
		cs_graph_static_encode(&o, &(struct cs_graph_static){0x1000 + 8 * i, stats[i].address, 0,
								      {stats[i].type, strlen(stats[i].type)},
								      {stats[i].field, strlen(stats[i].field)}});
	feed(s, CS_REC_HEAP_STATICS, &o);
	cs_out_init(&o, buf, sizeof buf);
	cs_graph_part_encode(&o, &(struct cs_graph_part){seq, 0});
	cs_graph_method_encode(&o, &(struct cs_graph_method){0x77, {"App.Main", 8}});
	feed(s, CS_REC_HEAP_METHODS, &o);
	cs_out_init(&o, buf, sizeof buf);
	cs_graph_part_encode(&o, &(struct cs_graph_part){seq, 0});
	for (size_t i = 0; i < ntypes; i++)
		cs_graph_type_encode(&o, &(struct cs_graph_type){i, {types[i], strlen(types[i])}});
	feed(s, CS_REC_HEAP_TYPES, &o);
	cs_out_init(&o, buf, sizeof buf);
	cs_graph_head_encode(&o, &(struct cs_graph_head){1000, seq, 50, nobjs, edges, nroots, nstats, 1, ntypes, 0});
	feed(s, CS_REC_HEAP_GRAPH, &o);
}

#define A(i) (0x7f0000000000ull + 0x100000ull * (i)) /* an object's address by number */

/* The node of the object at address. */
static uint32_t node(const struct heap_analysis *a, uint64_t address)
{
	uint32_t v = hg_node_at(&a->g, address);
	CHECK(v != 0);
	return v;
}

static void path_of(const struct heap_analysis *a, const struct ha_path *p, char *out, size_t n)
{
	ha_path_text(a, p->link, out, n);
}

/* A static list of N items, each holding a payload; a ring of which only
 * its K slots' items live; a cycle held by one static; an object held by
 * two statics; a linked list of one type; a dependent handle; a stack
 * root; an object no root holds; one held by a weak handle alone. */
enum { T_LIST, T_ARRAY, T_ITEM, T_PAYLOAD, T_NODE, T_SHARED, T_KEY, T_VALUE, T_FRAME, T_LOST, T_TYPES };
static const char *const type_names[T_TYPES] = {
	"List`1<App.Item>", "App.Item[]", "App.Item", "System.Byte[]", "App.Node", "App.Shared", "App.Key", "App.Value",
	"App.Local", "App.Lost"};

#define N_ITEMS 5

static size_t build_objects(struct obj *o)
{
	size_t n = 0;
	/* list (1) -> array (2) -> items 10.. -> payloads 20.. */
	o[n++] = (struct obj){A(1), T_LIST, 32, {A(2)}};
	struct obj arr = {A(2), T_ARRAY, 24 + 8 * N_ITEMS, {0}};
	for (int i = 0; i < N_ITEMS; i++)
		arr.refs[i] = A(10 + i);
	o[n++] = arr;
	for (int i = 0; i < N_ITEMS; i++) {
		o[n++] = (struct obj){A(10 + i), T_ITEM, 32, {A(20 + i)}};
		o[n++] = (struct obj){A(20 + i), T_PAYLOAD, 1024, {0}};
	}
	/* the cycle 30 -> 31 -> 32 -> 30, held at 30 */
	o[n++] = (struct obj){A(30), T_NODE, 24, {A(31)}};
	o[n++] = (struct obj){A(31), T_NODE, 24, {A(32)}};
	o[n++] = (struct obj){A(32), T_NODE, 24, {A(30)}};
	/* 40 held by two statics */
	o[n++] = (struct obj){A(40), T_SHARED, 40, {0}};
	/* a chain of nodes 50 -> 51 -> 52 (one type, no cycle) held by a stack root */
	o[n++] = (struct obj){A(50), T_NODE, 24, {A(51)}};
	o[n++] = (struct obj){A(51), T_NODE, 24, {A(52)}};
	o[n++] = (struct obj){A(52), T_NODE, 24, {0}};
	/* a key (held by a handle) whose value lives by the dependent handle */
	o[n++] = (struct obj){A(60), T_KEY, 24, {0}};
	o[n++] = (struct obj){A(61), T_VALUE, 48, {0}};
	/* a frame's local, pointing into the list too */
	o[n++] = (struct obj){A(70), T_FRAME, 24, {A(1)}};
	/* no root at all; a weak handle's only */
	o[n++] = (struct obj){A(80), T_LOST, 16, {0}};
	o[n++] = (struct obj){A(81), T_LOST, 16, {0}};
	return n;
}

static const struct stat statics[] = {
	{A(1), "App.Registry", "s_items"},
	{A(30), "App.Registry", "s_cycle"},
	{A(40), "App.A", "s_shared"},
	{A(40), "App.B", "s_shared"},
};

static const struct root roots[] = {
	{CS_ROOT_STACK, 0, A(50), 0x77, 0},
	{CS_ROOT_STACK, 0, A(70), 0x77, 0},
	{CS_ROOT_HANDLE, 0, A(60) + 8, 0x5000, 0}, /* interior: inside the key */
	{CS_ROOT_HANDLE, CS_GRAPH_ROOT_WEAK, A(81), 0x5008, 0},
	{CS_GRAPH_ROOT_DEPENDENT, 0, A(60), 0x5010, A(61)},
};

static void test_graph_analysis(void)
{
	struct obj objs[64];
	size_t n = build_objects(objs);
	struct hg_store store = {0};
	make_snapshot(&store, 1, objs, n, roots, sizeof roots / sizeof *roots, statics, 4, type_names, T_TYPES, 3);
	const struct hg_records *r = hg_store_find(&store, 1);
	CHECK(hg_records_whole(r));
	struct heap_analysis a;
	char err[200];
	CHECK(ha_analyse(r, &a, err, sizeof err) == 0);
	if (a.g.n == 0) {
		fprintf(stderr, "%s\n", err);
		hg_store_free(&store);
		return;
	}
	CHECK_EQ_U(a.g.n, n + 1);
	CHECK_EQ_U(a.objects, n);
	CHECK_EQ_U(a.g.weak_roots, 1);
	CHECK_EQ_U(a.g.unreported, 2); /* 80 and 81 */

	/* the list: each item retains itself and its payload */
	uint32_t list = node(&a, A(1)), array = node(&a, A(2));
	CHECK_EQ_U(a.dom.idom[list], 0); /* a static and a frame's local hold it: the root keeps it */
	CHECK_EQ_U(a.dom.idom[array], list);
	for (int i = 0; i < N_ITEMS; i++) {
		uint32_t item = node(&a, A(10 + i)), payload = node(&a, A(20 + i));
		CHECK_EQ_U(a.dom.idom[item], array);
		CHECK_EQ_U(a.dom.idom[payload], item);
		CHECK_EQ_U(a.retained[item], 32 + 1024);
	}
	CHECK_EQ_U(a.retained[list], 32 + 64 + N_ITEMS * (32 + 1024));
	uint32_t item_type = ha_type_named(&a, "App.Item");
	CHECK_EQ_U(a.types[item_type].count, N_ITEMS);
	CHECK_EQ_U(a.types[item_type].retained, N_ITEMS * (32 + 1024));

	/* the paths to the items: one group, from the static (preferred to the frame) */
	struct ha_path *groups;
	size_t ng = ha_paths(&a, item_type, &groups);
	CHECK_EQ_U(ng, 1);
	char text[512];
	path_of(&a, &groups[0], text, sizeof text);
	CHECK_STR(text, "static App.Registry.s_items > List`1<App.Item> > App.Item[] > App.Item");
	CHECK_EQ_U(groups[0].count, N_ITEMS);
	CHECK_EQ_U(groups[0].bytes, N_ITEMS * 32);
	CHECK_EQ_U(groups[0].retained, N_ITEMS * (32 + 1024));
	free(groups);

	/* the cycle, held at 30 */
	uint32_t c0 = node(&a, A(30)), c1 = node(&a, A(31)), c2 = node(&a, A(32));
	CHECK_EQ_U(a.dom.idom[c0], 0);
	CHECK_EQ_U(a.dom.idom[c1], c0);
	CHECK_EQ_U(a.dom.idom[c2], c1);
	CHECK_EQ_U(a.retained[c0], 3 * 24);

	/* held by two statics: dominated by neither */
	uint32_t shared = node(&a, A(40));
	CHECK_EQ_U(a.dom.idom[shared], 0);

	/* one type in a chain: counted once in the type's retained bytes;
	 * the objects after the chain's first are "App.Node+" (one or more) */
	uint32_t node_type = ha_type_named(&a, "App.Node");
	CHECK_EQ_U(a.types[node_type].count, 6);
	CHECK_EQ_U(a.types[node_type].retained, 3 * 24 + 3 * 24);
	ng = ha_paths(&a, node_type, &groups);
	bool chain = false, head = false;
	for (size_t i = 0; i < ng; i++) {
		path_of(&a, &groups[i], text, sizeof text);
		if (!strcmp(text, "[stack] App.Main > App.Node+")) {
			chain = true;
			CHECK_EQ_U(groups[i].count, 2);
			CHECK_EQ_U(groups[i].retained, 0); /* inside another App.Node's */
		}
		head |= !strcmp(text, "[stack] App.Main > App.Node");
	}
	CHECK(chain && head);
	free(groups);

	/* a dependent handle keeps its value through its key */
	uint32_t key = node(&a, A(60)), value = node(&a, A(61));
	CHECK_EQ_U(a.dom.idom[key], 0);
	CHECK_EQ_U(a.dom.idom[value], key);
	CHECK_EQ_U(a.retained[key], 24 + 48);

	/* no root: a root of its own */
	uint32_t lost = node(&a, A(80));
	CHECK_EQ_U(a.dom.idom[lost], 0);
	ng = ha_paths(&a, ha_type_named(&a, "App.Lost"), &groups);
	CHECK_EQ_U(ng, 1);
	path_of(&a, &groups[0], text, sizeof text);
	CHECK_STR(text, "[no reported root] > App.Lost");
	CHECK_EQ_U(groups[0].count, 2);
	free(groups);

	/* the largest subtree: the list, accumulating in its array */
	struct ha_suspect sus[4];
	size_t ns = ha_suspects(&a, sus, 4);
	CHECK(ns >= 1);
	CHECK_EQ_U(sus[0].top, list);
	CHECK_EQ_U(sus[0].node, array);
	ha_free(&a);
	hg_store_free(&store);
}

/* Records that do not add up make no graph, and say so. */
static void test_graph_damage(void)
{
	struct obj objs[64];
	size_t n = build_objects(objs);
	struct hg_store store = {0};
	make_snapshot(&store, 1, objs, n, roots, 1, statics, 1, type_names, T_TYPES, 4);
	struct hg_records *r = &store.snaps[0];
	struct heap_analysis a;
	char err[200] = "";
	r->head.nodes++; /* one object more than there are */
	CHECK(ha_analyse(r, &a, err, sizeof err) < 0);
	CHECK(strstr(err, "objects do not add up") != NULL);
	r->head.nodes--;
	r->head.edges--;
	CHECK(ha_analyse(r, &a, err, sizeof err) < 0);
	r->head.edges++;
	r->head.lost = 1;
	CHECK(!hg_records_whole(r));
	r->head.lost = 0;
	/* a record repeated */
	size_t len = r->edges.len;
	uint8_t *copy = malloc(len);
	memcpy(copy, r->edges.data, len);
	r->edges.data = realloc(r->edges.data, 2 * len);
	memcpy(r->edges.data + len, copy, len);
	r->edges.len = 2 * len;
	CHECK(ha_analyse(r, &a, err, sizeof err) < 0);
	r->edges.len = len;
	free(copy);
	CHECK(ha_analyse(r, &a, err, sizeof err) == 0);
	ha_free(&a);
	r->nodes.len -= 2; /* a record cut short */
	CHECK(ha_analyse(r, &a, err, sizeof err) < 0);
	hg_store_free(&store);
}

/* Growth between two snapshots: the list grows by N items, nothing else
 * changes; by type and by path. */
static void test_growth(void)
{
	struct obj objs[64];
	size_t n = build_objects(objs);
	struct hg_store store = {0};
	make_snapshot(&store, 1, objs, n, roots, 2, statics, 2, type_names, T_TYPES, 5);
	/* the second: three items more (and their payloads) */
	struct obj more[64];
	memcpy(more, objs, n * sizeof *objs);
	size_t m = n;
	for (int i = 0; i < 3; i++) {
		more[m++] = (struct obj){A(90 + i), T_ITEM, 32, {A(95 + i)}};
		more[m++] = (struct obj){A(95 + i), T_PAYLOAD, 1024, {0}};
		more[1].refs[N_ITEMS + i] = A(90 + i); /* into the array (a bigger one) */
	}
	more[1].size += 24;
	make_snapshot(&store, 2, more, m, roots, 2, statics, 2, type_names, T_TYPES, 5);
	struct heap_summary *sums[2];
	for (int k = 0; k < 2; k++) {
		struct heap_analysis a;
		char err[200];
		CHECK(ha_analyse(&store.snaps[k], &a, err, sizeof err) == 0);
		/* the summary as prof_heap_summary makes it, through a process */
		struct prof_process p = {0};
		struct prof_heap h = {.seq = (uint64_t)k + 1, .parts = 1, .parts_seen = 1};
		p.graphs = store;
		const struct heap_summary *s = prof_heap_summary(&p, &h, err, sizeof err);
		CHECK(s != NULL);
		sums[k] = (struct heap_summary *)s;
		if (p.analysis) {
			ha_free(p.analysis);
			free(p.analysis);
		}
		ha_free(&a);
	}
	struct heap_change *c;
	size_t nc = heap_changes(sums[0]->types, sums[0]->ntypes, sums[1]->types, sums[1]->ntypes, &c);
	bool items = false;
	for (size_t i = 0; i < nc; i++) {
		if (!strcmp(c[i].name, "App.Item")) {
			items = true;
			CHECK_EQ_U(c[i].after.count - c[i].before.count, 3);
			CHECK_EQ_U(c[i].after.retained - c[i].before.retained, 3 * (32 + 1024));
		} else if (strcmp(c[i].name, "System.Byte[]") && strcmp(c[i].name, "App.Item[]") &&
			   strcmp(c[i].name, "List`1<App.Item>")) {
			/* nothing else changed */
			CHECK_EQ_U(c[i].after.count, c[i].before.count);
			CHECK_EQ_U(c[i].after.bytes, c[i].before.bytes);
		}
	}
	CHECK(items);
	free(c);
	nc = heap_changes(sums[0]->paths, sums[0]->npaths, sums[1]->paths, sums[1]->npaths, &c);
	CHECK(nc >= 1);
	CHECK_STR(c[0].name, "static App.Registry.s_items > List`1<App.Item> > App.Item[] > App.Item > System.Byte[]");
	CHECK_EQ_U(c[0].after.count - c[0].before.count, 3);
	free(c);
	const char **grown;
	size_t ngrown = heap_growing_types((const struct heap_summary *const *)sums, 2, &grown);
	CHECK_EQ_U(ngrown, 2);
	CHECK(ngrown == 2 && !strcmp(grown[0], "App.Item") + !strcmp(grown[1], "App.Item") == 1);
	free(grown);
	heap_summary_free(sums[0]);
	heap_summary_free(sums[1]);
	hg_store_free(&store);
}

int main(void)
{
	RUN(test_dominators_known);
	RUN(test_dominators_random);
	RUN(test_dominators_long_chain);
	RUN(test_graph_analysis);
	RUN(test_graph_damage);
	RUN(test_growth);
	return CHECK_DONE();
}
