#include "profile/heapgraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"
#include "util/text.h"
#include "util/u64map.h"
#include "util/xalloc.h"

/* Type numbers beyond this are damage (the agent's table holds 2^17). */
#define TYPE_LIMIT (1u << 20)
/* Objects and references of one snapshot: node numbers are 32-bit. */
#define GRAPH_LIMIT (UINT32_MAX - 1u)

/* ---- the records ---- */

static struct hg_records *snapshot(struct hg_store *s, uint64_t seq)
{
	for (size_t i = s->n; i-- > 0;)
		if (s->snaps[i].seq == seq)
			return &s->snaps[i];
	xgrow(&s->snaps, &s->cap, s->n + 1, sizeof *s->snaps);
	struct hg_records *r = &s->snaps[s->n++];
	*r = (struct hg_records){.seq = seq};
	return r;
}

const struct hg_records *hg_store_find(const struct hg_store *s, uint64_t seq)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->snaps[i].seq == seq)
			return &s->snaps[i];
	return NULL;
}

static void bytes_add(struct hg_bytes *b, uint64_t first, const struct cs_in *in)
{
	size_t n = cs_in_left(in);
	uint8_t head[20];
	struct cs_out o;
	cs_out_init(&o, head, sizeof head);
	cs_put_varint(&o, first);
	cs_put_varint(&o, n);
	xgrow(&b->data, &b->cap, b->len + o.len + n, 1);
	memcpy(b->data + b->len, head, o.len);
	memcpy(b->data + b->len + o.len, in->p, n);
	b->len += o.len + n;
}

static char *dup_clean(struct cs_str s)
{
	return text_sanitize(xstrndup(s.p, s.len));
}

static bool add_statics(struct hg_records *r, struct cs_in *in)
{
	struct cs_graph_static e;
	while (cs_next_graph_static(in, &e)) {
		xgrow(&r->statics, &r->statics_cap, r->nstatics + 1, sizeof *r->statics);
		r->statics[r->nstatics++] =
			(struct hg_static){e.slot, e.address, e.flags, dup_clean(e.type), dup_clean(e.field)};
	}
	return !in->bad;
}

static bool add_methods(struct hg_records *r, struct cs_in *in)
{
	struct cs_graph_method e;
	while (cs_next_graph_method(in, &e)) {
		xgrow(&r->methods, &r->methods_cap, r->nmethods + 1, sizeof *r->methods);
		r->methods[r->nmethods++] = (struct hg_method){e.id, dup_clean(e.name)};
	}
	return !in->bad;
}

static bool add_types(struct hg_records *r, struct cs_in *in)
{
	struct cs_graph_type e;
	while (cs_next_graph_type(in, &e)) {
		if (e.type >= TYPE_LIMIT)
			return false;
		if (e.type >= r->ntypes) {
			size_t cap = r->ntypes;
			xgrow(&r->types, &cap, e.type + 1, sizeof *r->types);
			memset(r->types + r->ntypes, 0, (cap - r->ntypes) * sizeof *r->types);
			r->ntypes = cap;
		}
		free(r->types[e.type]);
		r->types[e.type] = dup_clean(e.name);
	}
	return !in->bad;
}

bool hg_store_add(struct hg_store *s, const struct cs_record *rec)
{
	if (rec->type == CS_REC_HEAP_GRAPH) {
		struct cs_graph_head h;
		if (!cs_graph_head_decode(rec->payload, rec->len, &h))
			return false;
		struct hg_records *r = snapshot(s, h.seq);
		r->head = h;
		r->have_head = true;
		return true;
	}
	struct cs_in in;
	cs_in_init(&in, rec->payload, rec->len);
	struct cs_graph_part part;
	if (!cs_graph_part_decode(&in, &part))
		return false;
	struct hg_records *r = snapshot(s, part.seq);
	switch (rec->type) {
	case CS_REC_HEAP_NODES: bytes_add(&r->nodes, part.first, &in); return true;
	case CS_REC_HEAP_EDGES: bytes_add(&r->edges, part.first, &in); return true;
	case CS_REC_HEAP_ROOTS: bytes_add(&r->roots, part.first, &in); return true;
	case CS_REC_HEAP_STATICS: return add_statics(r, &in);
	case CS_REC_HEAP_METHODS: return add_methods(r, &in);
	case CS_REC_HEAP_TYPES: return add_types(r, &in);
	default: return true;
	}
}

bool hg_records_whole(const struct hg_records *r)
{
	return r && r->have_head && r->head.lost == 0 && r->nstatics == r->head.statics;
}

void hg_store_free(struct hg_store *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct hg_records *r = &s->snaps[i];
		free(r->nodes.data);
		free(r->edges.data);
		free(r->roots.data);
		for (size_t k = 0; k < r->nstatics; k++) {
			free(r->statics[k].type);
			free(r->statics[k].field);
		}
		free(r->statics);
		for (size_t k = 0; k < r->nmethods; k++)
			free(r->methods[k].name);
		free(r->methods);
		for (size_t k = 0; k < r->ntypes; k++)
			free(r->types[k]);
		free(r->types);
	}
	free(s->snaps);
	*s = (struct hg_store){0};
}

/* ---- reading the kept lists back ---- */

/* One kept record of a list at a time: its entries behind a cursor. */
struct list_reader {
	const struct hg_bytes *b;
	size_t at;
	uint64_t expect; /* the index its next record must start at */
	struct cs_graph_cursor c;
	bool bad;
};

static void list_reader_init(struct list_reader *lr, const struct hg_bytes *b)
{
	static const uint8_t none[1];
	*lr = (struct list_reader){.b = b};
	cs_in_init(&lr->c.in, none, 0);
}

/* Moves to the next record when the current one is read; false at the end
 * or on damage (lr->bad). */
static bool list_reader_more(struct list_reader *lr, uint64_t entries_read)
{
	while (!lr->c.in.bad && !cs_in_left(&lr->c.in)) {
		if (lr->at >= lr->b->len)
			return false;
		struct cs_in in;
		cs_in_init(&in, lr->b->data + lr->at, lr->b->len - lr->at);
		uint64_t first = cs_get_varint(&in), len = cs_get_varint(&in);
		if (in.bad || len > cs_in_left(&in) || first != entries_read) {
			lr->bad = true; /* a record missing, repeated or damaged */
			return false;
		}
		struct cs_in body;
		cs_in_init(&body, in.p, (size_t)len);
		cs_graph_cursor_init(&lr->c, &body);
		lr->at = (size_t)(in.p - lr->b->data) + (size_t)len;
	}
	if (lr->c.in.bad)
		lr->bad = true;
	return !lr->bad;
}

/* ---- sorting addresses ---- */

struct run {
	size_t at, to; /* the run's next key and its end */
};

/* A min-heap of runs by their next key: sifts entry i down. */
static void sift(struct run *h, size_t n, size_t i, const uint64_t *keys)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && keys[h[l].at] < keys[h[m].at])
			m = l;
		if (r < n && keys[h[r].at] < keys[h[m].at])
			m = r;
		if (m == i)
			return;
		struct run t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* The GC walks its regions a generation after the other, in runs of
 * ascending addresses: few runs are merged (into k2, i2) rather than
 * sorted; false when the runs are many. */
#define MERGE_RUNS_MAX 4096
static bool merge_runs(const uint64_t *keys, const uint32_t *idx, size_t n, uint64_t *k2, uint32_t *i2)
{
	struct run *runs = NULL;
	size_t nruns = 0, cap = 0;
	for (size_t i = 0; i < n; i++)
		if (!i || keys[i] < keys[i - 1]) {
			if (nruns == MERGE_RUNS_MAX) {
				free(runs);
				return false;
			}
			xgrow(&runs, &cap, nruns + 1, sizeof *runs);
			if (nruns)
				runs[nruns - 1].to = i;
			runs[nruns++] = (struct run){i, n};
		}
	/* a heap of them, then the least head each time */
	for (size_t i = nruns / 2; i-- > 0;)
		sift(runs, nruns, i, keys);
	for (size_t out = 0; out < n; out++) {
		k2[out] = keys[runs[0].at];
		i2[out] = idx[runs[0].at];
		if (++runs[0].at == runs[0].to)
			runs[0] = runs[--nruns];
		sift(runs, nruns, 0, keys);
	}
	free(runs);
	return true;
}

/* Sorts keys (with idx alongside) ascending: as runs (merge_runs), else
 * least significant digit first, 11 bits at a time, skipping digits every
 * key shares. */
static void sort_by_key(uint64_t *keys, uint32_t *idx, size_t n)
{
	uint64_t *k2 = xmalloc((n ? n : 1) * sizeof *k2);
	uint32_t *i2 = xmalloc((n ? n : 1) * sizeof *i2);
	if (merge_runs(keys, idx, n, k2, i2)) {
		memcpy(keys, k2, n * sizeof *keys);
		memcpy(idx, i2, n * sizeof *idx);
		free(k2);
		free(i2);
		return;
	}
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	for (size_t i = 0; i < n; i++) {
		all_or |= keys[i];
		all_and &= keys[i];
	}
	uint64_t varies = all_or ^ all_and;
	size_t count[2048];
	for (int shift = 0; shift < 64; shift += 11) {
		if (!((varies >> shift) & 2047))
			continue;
		memset(count, 0, sizeof count);
		for (size_t i = 0; i < n; i++)
			count[(keys[i] >> shift) & 2047]++;
		size_t sum = 0;
		for (int d = 0; d < 2048; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = count[(keys[i] >> shift) & 2047]++;
			k2[at] = keys[i];
			i2[at] = idx[i];
		}
		memcpy(keys, k2, n * sizeof *keys);
		memcpy(idx, i2, n * sizeof *idx);
	}
	free(k2);
	free(i2);
}

/* ---- finding objects by address ---- */

/* The objects are sorted by address.  Their addresses lie in a few
 * chunks of 4 MiB (the GC's regions), far apart: each chunk that holds
 * objects gets a directory of buckets, each bucket the first object at or
 * past it, so that a search ends among the few objects of one bucket. */
#define CHUNK_SHIFT 22
struct addr_index {
	uint64_t *chunks; /* the chunks that hold objects (address >> CHUNK_SHIFT), ascending */
	uint32_t nchunks;
	unsigned bucket_shift; /* a bucket's bytes: 1 << bucket_shift */
	uint32_t per_chunk;
	uint32_t *dir; /* nchunks * per_chunk + 1 */
};

static void index_build(struct addr_index *x, const struct heap_graph *g)
{
	*x = (struct addr_index){0};
	size_t cap = 0;
	for (uint32_t v = 1; v < g->n; v++) {
		uint64_t c = g->address[v] >> CHUNK_SHIFT;
		if (!x->nchunks || x->chunks[x->nchunks - 1] != c) {
			xgrow(&x->chunks, &cap, (size_t)x->nchunks + 1, sizeof *x->chunks);
			x->chunks[x->nchunks++] = c;
		}
	}
	/* 256-byte buckets, coarser when the chunks are many and sparse */
	uint64_t limit = 2 * (uint64_t)g->n > (1u << 20) ? 2 * (uint64_t)g->n : (1u << 20);
	x->bucket_shift = 8;
	while (x->bucket_shift < CHUNK_SHIFT && ((uint64_t)x->nchunks << (CHUNK_SHIFT - x->bucket_shift)) > limit)
		x->bucket_shift++;
	x->per_chunk = 1u << (CHUNK_SHIFT - x->bucket_shift);
	size_t buckets = (size_t)x->nchunks * x->per_chunk;
	x->dir = xmalloc((buckets + 1) * sizeof *x->dir);
	uint32_t v = 1;
	for (size_t b = 0; b < buckets; b++) {
		uint64_t from = (x->chunks[b / x->per_chunk] << CHUNK_SHIFT) + ((uint64_t)(b % x->per_chunk) << x->bucket_shift);
		while (v < g->n && g->address[v] < from)
			v++;
		x->dir[b] = v;
	}
	x->dir[buckets] = g->n;
}

/* The last node whose address is at most a (0: none). */
static uint32_t index_floor(const struct addr_index *x, const struct heap_graph *g, uint64_t a)
{
	uint64_t c = a >> CHUNK_SHIFT;
	if (!x->nchunks || c < x->chunks[0])
		return 0;
	uint32_t lo = 0, hi = x->nchunks; /* the last chunk at or before c */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (x->chunks[mid] <= c)
			lo = mid;
		else
			hi = mid;
	}
	size_t first = (size_t)lo * x->per_chunk;
	if (x->chunks[lo] < c) /* past the chunk: its last object */
		return x->dir[first + x->per_chunk] - 1;
	size_t b = first + ((a >> x->bucket_shift) & (x->per_chunk - 1));
	lo = x->dir[b];
	hi = x->dir[b + 1];
	/* the answer is in [lo - 1, hi): the last address <= a */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->address[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

static uint32_t index_exact(const struct addr_index *x, const struct heap_graph *g, uint64_t a)
{
	uint32_t v = index_floor(x, g, a);
	return v && g->address[v] == a ? v : 0;
}

static uint32_t index_containing(const struct addr_index *x, const struct heap_graph *g, uint64_t a)
{
	uint32_t v = index_floor(x, g, a);
	return v && a - g->address[v] < (g->size[v] ? g->size[v] : 1) ? v : 0;
}

uint32_t hg_node_at(const struct heap_graph *g, uint64_t address)
{
	uint32_t lo = 1, hi = g->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->address[mid] <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t v = lo - 1;
	return v >= 1 && address - g->address[v] < (g->size[v] ? g->size[v] : 1) ? v : 0;
}

/* ---- building ---- */

struct build {
	const struct hg_records *r;
	struct heap_graph *g;
	struct addr_index index;
	struct strmap label_index, type_index;
	uint32_t labels_cap;
	/* by walk order (the agent's), until renumbered */
	uint32_t *edges_of; /* references each object listed */
	uint32_t *rank;     /* walk order -> node */
	uint64_t nodes;     /* objects */
	/* roots as found: node and label, before their order is fixed */
	struct hg_root *roots;
	size_t nroots, roots_cap;
	/* dependent handles: key -> value */
	uint32_t (*deps)[2];
	size_t ndeps, deps_cap;
	uint8_t *rooted;
	char *err;
	size_t errlen;
};

static uint32_t intern(struct strmap *m, char ***names, uint32_t *count, uint32_t *cap, const char *s)
{
	uint32_t id;
	size_t len = strlen(s);
	if (strmap_get(m, s, len, &id))
		return id;
	size_t c = *cap;
	xgrow(names, &c, (size_t)*count + 1, sizeof **names);
	*cap = (uint32_t)c;
	(*names)[*count] = xstrdup(s);
	id = (*count)++;
	strmap_add(m, s, len, id);
	return id;
}

static uint32_t label_of(struct build *b, const char *s)
{
	return intern(&b->label_index, &b->g->labels, &b->g->nlabels, &b->labels_cap, s);
}

/* The type names, merged by name (one name may be several classes). */
static uint32_t *name_types(struct build *b)
{
	const struct hg_records *r = b->r;
	uint32_t cap = 0;
	uint32_t *by_number = xmalloc((r->ntypes + 1) * sizeof *by_number);
	for (size_t i = 0; i < r->ntypes; i++)
		by_number[i] = intern(&b->type_index, &b->g->type_names, &b->g->ntypes, &cap,
				      r->types[i] ? r->types[i] : "[unknown type]");
	by_number[r->ntypes] = intern(&b->type_index, &b->g->type_names, &b->g->ntypes, &cap, "[unknown type]");
	return by_number;
}

static int fail(struct build *b, const char *why)
{
	snprintf(b->err, b->errlen, "heap snapshot %llu: %s", (unsigned long long)b->r->seq, why);
	return -1;
}

/* The objects, numbered by address: address, type and size by node, and
 * by walk order how many references each lists. */
static int read_nodes(struct build *b)
{
	const struct hg_records *r = b->r;
	struct heap_graph *g = b->g;
	uint64_t n = r->head.nodes;
	if (n > GRAPH_LIMIT - 1)
		return fail(b, "more objects than this reader numbers");
	uint32_t *by_number = name_types(b);
	uint64_t *keys = xmalloc((n ? n : 1) * sizeof *keys);
	uint32_t *order = xmalloc((n ? n : 1) * sizeof *order);
	uint32_t *wtype = xmalloc((n ? n : 1) * sizeof *wtype);
	uint64_t *wsize = xmalloc((n ? n : 1) * sizeof *wsize);
	b->edges_of = xmalloc((n ? n : 1) * sizeof *b->edges_of);
	struct list_reader lr;
	list_reader_init(&lr, &r->nodes);
	uint64_t read = 0, edges = 0;
	struct cs_graph_node node;
	while (read < n + 1 && list_reader_more(&lr, read) && cs_next_graph_node(&lr.c, &node)) {
		if (read == n || node.edges > UINT32_MAX)
			break;
		keys[read] = node.address;
		order[read] = (uint32_t)read;
		wtype[read] = by_number[node.type < r->ntypes ? node.type : r->ntypes];
		wsize[read] = (node.size + CS_GRAPH_ALIGN - 1) & ~(uint64_t)(CS_GRAPH_ALIGN - 1);
		b->edges_of[read] = (uint32_t)node.edges;
		edges += node.edges;
		read++;
	}
	free(by_number);
	int rc = 0;
	if (lr.bad || read != n || lr.at != r->nodes.len || cs_in_left(&lr.c.in))
		rc = fail(b, "its objects do not add up to the count the agent wrote");
	else if (edges != r->head.edges)
		rc = fail(b, "its objects list more references than the agent wrote");
	if (rc == 0) {
		sort_by_key(keys, order, (size_t)n);
		g->n = (uint32_t)n + 1;
		g->address = xmalloc((size_t)g->n * sizeof *g->address);
		g->type = xmalloc((size_t)g->n * sizeof *g->type);
		g->size = xmalloc((size_t)g->n * sizeof *g->size);
		b->rank = xmalloc((n ? n : 1) * sizeof *b->rank);
		g->address[0] = 0;
		g->type[0] = HG_NO_TYPE;
		g->size[0] = 0;
		for (uint64_t i = 0; i < n && rc == 0; i++) {
			if (i && keys[i] == keys[i - 1])
				rc = fail(b, "two of its objects have one address");
			g->address[i + 1] = keys[i];
			g->type[i + 1] = wtype[order[i]];
			g->size[i + 1] = wsize[order[i]];
			b->rank[order[i]] = (uint32_t)i + 1;
		}
	}
	free(keys);
	free(order);
	free(wtype);
	free(wsize);
	b->nodes = n;
	return rc;
}

static const char *method_name(const struct hg_records *r, uint64_t id)
{
	for (size_t i = 0; i < r->nmethods; i++)
		if (r->methods[i].id == id)
			return r->methods[i].name;
	return NULL;
}

static void add_root(struct build *b, uint32_t node, uint8_t kind, const char *label)
{
	xgrow(&b->roots, &b->roots_cap, b->nroots + 1, sizeof *b->roots);
	b->roots[b->nroots++] = (struct hg_root){node, label_of(b, label), kind};
	b->rooted[node] = 1;
}

/* The roots the runtime reported and the static fields, each placed on
 * the object it holds; dependent handles kept as references. */
static int read_roots(struct build *b)
{
	const struct hg_records *r = b->r;
	struct heap_graph *g = b->g;
	b->rooted = xcalloc(g->n, 1);
	struct list_reader lr;
	list_reader_init(&lr, &r->roots);
	uint64_t read = 0;
	struct cs_graph_root root;
	while (list_reader_more(&lr, read) && cs_next_graph_root(&lr.c, &root)) {
		read++;
		uint32_t node = index_containing(&b->index, g, root.address);
		if (root.kind == CS_GRAPH_ROOT_DEPENDENT) {
			uint32_t value = index_containing(&b->index, g, root.value);
			if (node && value) {
				xgrow(&b->deps, &b->deps_cap, b->ndeps + 1, sizeof *b->deps);
				b->deps[b->ndeps][0] = node;
				b->deps[b->ndeps++][1] = value;
			}
			continue;
		}
		if (root.flags & CS_GRAPH_ROOT_WEAK) {
			g->weak_roots++;
			continue;
		}
		if (!node) {
			g->unplaced_roots++;
			continue;
		}
		char label[600];
		switch (root.kind) {
		case CS_ROOT_STACK: {
			const char *m = method_name(r, root.root_id);
			snprintf(label, sizeof label, m ? "[stack] %s" : "[stack]", m);
			break;
		}
		case CS_ROOT_FINALIZER: snprintf(label, sizeof label, "[finalization queue]"); break;
		case CS_ROOT_HANDLE:
			snprintf(label, sizeof label, "%s",
				 root.flags & CS_GRAPH_ROOT_PINNING      ? "[pinned handle]"
				 : root.flags & CS_GRAPH_ROOT_REFCOUNTED ? "[ref-counted handle]"
									 : "[strong handle]");
			break;
		default: snprintf(label, sizeof label, "[other root]"); break;
		}
		add_root(b, node, root.kind < CS_GRAPH_ROOT_KINDS ? root.kind : CS_ROOT_OTHER, label);
	}
	if (lr.bad || read != r->head.roots || lr.at != r->roots.len)
		return fail(b, "its roots do not add up to the count the agent wrote");
	for (size_t i = 0; i < r->nstatics; i++) {
		const struct hg_static *s = &r->statics[i];
		uint32_t node = index_containing(&b->index, g, s->address);
		if (!node) {
			g->unplaced_roots++;
			continue;
		}
		char label[1200];
		snprintf(label, sizeof label, "%s %s.%s", s->flags & CS_GRAPH_STATIC_THREAD ? "thread static" : "static",
			 s->type[0] ? s->type : "?", s->field);
		add_root(b, node, HG_ROOT_STATIC, label);
	}
	return 0;
}

/* Where paths start first: named statics, then handles, stacks, the
 * finalization queue, what is left. */
static int root_rank(uint8_t kind)
{
	switch (kind) {
	case HG_ROOT_STATIC: return 0;
	case CS_ROOT_HANDLE: return 1;
	case CS_ROOT_STACK: return 2;
	case CS_ROOT_FINALIZER: return 3;
	case HG_ROOT_UNREPORTED: return 5;
	default: return 4;
	}
}

static int compare_roots(const void *a, const void *b, void *ctx)
{
	const struct hg_root *x = a, *y = b;
	char **labels = ctx;
	int rx = root_rank(x->kind), ry = root_rank(y->kind);
	if (rx != ry)
		return rx - ry;
	int c = x->label == y->label ? 0 : strcmp(labels[x->label], labels[y->label]);
	if (c)
		return c;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* Sorted, each (node, label) once. */
static void order_roots(struct build *b)
{
	if (b->nroots > 1)
		qsort_r(b->roots, b->nroots, sizeof *b->roots, compare_roots, b->g->labels);
	size_t kept = 0;
	for (size_t i = 0; i < b->nroots; i++)
		if (!kept || b->roots[i].node != b->roots[kept - 1].node || b->roots[i].label != b->roots[kept - 1].label)
			b->roots[kept++] = b->roots[i];
	b->nroots = kept;
}

/* The references in compressed rows by node: the super-root's to the
 * rooted objects, each object's own (less those to rooted objects and to
 * objects outside the walk) and the dependent handles'. */
static int read_edges(struct build *b)
{
	const struct hg_records *r = b->r;
	struct heap_graph *g = b->g;
	uint32_t *count = xcalloc((size_t)g->n + 1, sizeof *count);
	for (uint64_t w = 0; w < b->nodes; w++)
		count[b->rank[w]] = b->edges_of[w];
	for (size_t i = 0; i < b->ndeps; i++)
		count[b->deps[i][0]]++;
	/* the super-root: each rooted object once */
	uint8_t *seen = xcalloc(g->n, 1);
	for (size_t i = 0; i < b->nroots; i++)
		if (!seen[b->roots[i].node]++)
			count[0]++;
	uint64_t total = 0;
	g->start = xmalloc(((size_t)g->n + 1) * sizeof *g->start);
	for (uint32_t v = 0; v < g->n; v++) {
		g->start[v] = (uint32_t)total;
		total += count[v];
		if (total > GRAPH_LIMIT) {
			free(count);
			free(seen);
			return fail(b, "more references than this reader numbers");
		}
	}
	g->start[g->n] = (uint32_t)total;
	g->refs = xmalloc((total ? total : 1) * sizeof *g->refs);
	uint32_t *fill = count; /* reused: the next free slot of each node */
	memcpy(fill, g->start, (size_t)g->n * sizeof *fill);
	memset(seen, 0, g->n);
	for (size_t i = 0; i < b->nroots; i++)
		if (!seen[b->roots[i].node]++)
			g->refs[fill[0]++] = b->roots[i].node;
	free(seen);
	struct list_reader lr;
	list_reader_init(&lr, &r->edges);
	uint64_t read = 0;
	struct cs_graph_edge e;
	for (uint64_t w = 0; w < b->nodes && !lr.bad; w++) {
		uint32_t from = b->rank[w];
		for (uint32_t k = 0; k < b->edges_of[w]; k++) {
			if (!list_reader_more(&lr, read) || !cs_next_graph_edge(&lr.c, &e)) {
				lr.bad = true;
				break;
			}
			read++;
			uint32_t to = index_exact(&b->index, g, e.target);
			if (!to)
				g->external_refs++;
			g->refs[fill[from]++] = to && !b->rooted[to] ? to : UINT32_MAX;
		}
	}
	for (size_t i = 0; i < b->ndeps; i++)
		g->refs[fill[b->deps[i][0]]++] = b->rooted[b->deps[i][1]] ? UINT32_MAX : b->deps[i][1];
	free(count);
	if (lr.bad || read != r->head.edges || lr.at != r->edges.len || cs_in_left(&lr.c.in))
		return fail(b, "its references do not add up to the count the agent wrote");
	g->references = read;
	/* squeeze out the references left out */
	uint32_t out = 0;
	for (uint32_t v = 0; v < g->n; v++) {
		uint32_t from = g->start[v], to = g->start[v + 1];
		g->start[v] = out;
		for (uint32_t k = from; k < to; k++)
			if (g->refs[k] != UINT32_MAX)
				g->refs[out++] = g->refs[k];
	}
	g->start[g->n] = out;
	return 0;
}

/* Objects no root reaches: each first one (by address) becomes a root of
 * its own, and what it reaches is reached. */
static void adopt_unreported(struct build *b)
{
	struct heap_graph *g = b->g;
	uint8_t *reached = xcalloc(g->n, 1);
	uint32_t *queue = xmalloc((size_t)g->n * sizeof *queue);
	uint32_t *adopted = NULL;
	size_t nadopted = 0, adopted_cap = 0;
	for (uint32_t from = 0; from < g->n; from++) {
		if (reached[from])
			continue;
		if (from) {
			xgrow(&adopted, &adopted_cap, nadopted + 1, sizeof *adopted);
			adopted[nadopted++] = from;
		}
		size_t head = 0, tail = 0;
		queue[tail++] = from;
		reached[from] = 1;
		while (head < tail) {
			uint32_t v = queue[head++];
			for (uint32_t e = g->start[v]; e < g->start[v + 1]; e++)
				if (!reached[g->refs[e]]) {
					reached[g->refs[e]] = 1;
					queue[tail++] = g->refs[e];
				}
		}
	}
	free(queue);
	free(reached);
	if (!nadopted)
		return;
	g->unreported = nadopted;
	uint32_t total = g->start[g->n];
	g->refs = xrealloc(g->refs, ((size_t)total + nadopted) * sizeof *g->refs);
	uint32_t zero_end = g->start[1];
	memmove(g->refs + zero_end + nadopted, g->refs + zero_end, (size_t)(total - zero_end) * sizeof *g->refs);
	memcpy(g->refs + zero_end, adopted, nadopted * sizeof *adopted);
	for (uint32_t v = 1; v <= g->n; v++)
		g->start[v] += (uint32_t)nadopted;
	for (size_t i = 0; i < nadopted; i++)
		add_root(b, adopted[i], HG_ROOT_UNREPORTED, "[no reported root]");
	free(adopted);
}

int hg_build(const struct hg_records *r, struct heap_graph *g, char *err, size_t errlen)
{
	*g = (struct heap_graph){.seq = r->seq};
	struct build b = {.r = r, .g = g, .err = err, .errlen = errlen};
	strmap_init(&b.label_index);
	strmap_init(&b.type_index);
	int rc = -1;
	if (!r->have_head)
		fail(&b, "its records are incomplete (no HEAP_GRAPH)");
	else if (read_nodes(&b) == 0) {
		index_build(&b.index, g);
		if (read_roots(&b) == 0) {
			order_roots(&b);
			if (read_edges(&b) == 0) {
				adopt_unreported(&b);
				rc = 0;
			}
		}
	}
	g->roots = b.roots;
	g->nroots = (uint32_t)b.nroots;
	free(b.index.dir);
	free(b.index.chunks);
	free(b.edges_of);
	free(b.rank);
	free(b.deps);
	free(b.rooted);
	strmap_free(&b.label_index);
	strmap_free(&b.type_index);
	if (rc < 0)
		hg_free(g);
	return rc;
}

void hg_free(struct heap_graph *g)
{
	free(g->address);
	free(g->type);
	free(g->size);
	free(g->start);
	free(g->refs);
	free(g->roots);
	for (uint32_t i = 0; i < g->nlabels; i++)
		free(g->labels[i]);
	free(g->labels);
	for (uint32_t i = 0; i < g->ntypes; i++)
		free(g->type_names[i]);
	free(g->type_names);
	*g = (struct heap_graph){0};
}
