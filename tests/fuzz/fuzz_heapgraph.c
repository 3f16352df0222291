/* libFuzzer target for the heap graph's reader (tui/profile/heapgraph.c,
 * heapanalysis.c, heapsummary.c): the input is a run of records, each a
 * byte choosing the kind (HEAP_NODES + byte % 7), a 16-bit length and the
 * payload.  They are kept as the reader keeps them; every snapshot with
 * its totals is built and analysed, and then:
 *   - a graph that builds numbers its objects by address, each reference
 *     and each root in range;
 *   - every reached object has a dominator reached before it, the
 *     super-root retains every reached object's bytes, and no object
 *     retains less than itself;
 *   - the types' objects add up to the objects, and so do the groups of
 *     paths; every path starts at a root's label. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/logfmt.h"
#include "profile/heapanalysis.h"
#include "profile/heapsummary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "heapgraph: %s\n", what);
	abort();
}

static void check_graph(const struct heap_analysis *a)
{
	const struct heap_graph *g = &a->g;
	for (uint32_t v = 2; v < g->n; v++)
		if (g->address[v] <= g->address[v - 1])
			fail("objects not in address order");
	for (uint32_t e = 0; e < g->start[g->n]; e++)
		if (g->refs[e] == 0 || g->refs[e] >= g->n)
			fail("a reference out of range");
	for (uint32_t i = 0; i < g->nroots; i++)
		if (!g->roots[i].node || g->roots[i].node >= g->n || g->roots[i].label >= g->nlabels)
			fail("a root out of range");
	uint64_t reached_bytes = 0;
	for (uint32_t i = 1; i < a->dom.reached; i++) {
		uint32_t v = a->dom.order[i], d = a->dom.idom[v];
		if (d == DOM_NONE || d >= g->n)
			fail("a reached object without its dominator");
		if (a->retained[v] < g->size[v] || a->retained[d] < a->retained[v])
			fail("a retained size below its parts");
		reached_bytes += g->size[v];
	}
	if (a->dom.reached != g->n)
		fail("an object no root reaches, after the unreported ones were adopted");
	if (a->retained[0] != reached_bytes)
		fail("the super-root does not retain every reached byte");
	uint64_t count = 0;
	for (uint32_t t = 0; t < g->ntypes; t++)
		count += a->types[t].count;
	if (count != a->objects)
		fail("the types' objects do not add up");
	struct ha_path *groups;
	size_t n = ha_paths(a, HG_NO_TYPE, &groups);
	count = 0;
	for (size_t i = 0; i < n; i++) {
		const char *names[8];
		bool repeated[8];
		count += groups[i].count;
		if (!ha_path_names(a, groups[i].link, names, repeated, 8))
			fail("an empty path");
		char text[256];
		ha_path_text(a, groups[i].link, text, sizeof text);
	}
	if (count != a->objects)
		fail("the groups of paths do not add up");
	free(groups);
	struct ha_suspect sus[4];
	ha_suspects(a, sus, 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hg_store store = {0};
	size_t at = 0;
	while (size - at >= 3) {
		uint16_t type = (uint16_t)(CS_REC_HEAP_NODES + data[at] % 7);
		size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
		at += 3;
		if (len > size - at)
			len = size - at;
		struct cs_record rec = {type, (uint32_t)len, data + at};
		hg_store_add(&store, &rec);
		at += len;
	}
	for (size_t i = 0; i < store.n; i++) {
		const struct hg_records *r = &store.snaps[i];
		if (!r->have_head || r->head.nodes > 100000 || r->head.edges > 100000)
			continue;
		struct heap_analysis a;
		char err[256];
		if (ha_analyse(r, &a, err, sizeof err) == 0) {
			check_graph(&a);
			ha_free(&a);
		} else if (!err[0])
			fail("a refusal without a reason");
	}
	hg_store_free(&store);
	return 0;
}
