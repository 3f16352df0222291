#include "agent/symbols/ilmap.h"

#include <stdlib.h>
#include <string.h>

#include "agent/unwind/codemap.h"
#include "common/records.h"

#define BODIES 8192 /* power of two */
#define PROBES 16
#define ENTRIES (256u * 1024u) /* map entries kept for all bodies */
#define MAP_MAX 16384u         /* a body with more is not looked up */
#define RT_NO_MAPPING 0xFFFFFFFFu
#define RT_PROLOG 0xFFFFFFFEu

struct entry {
	uint32_t native, native_end, il;
};

/* An address's answer, kept: a walk asks again for every return address
 * of every sample, and each answer costs a code-map lookup, the body's map
 * and a search of it. */
#define ANSWERS 4096 /* power of two */
struct answer {
	uint64_t addr; /* 0: free */
	FunctionID fn;
	uint32_t il;
	bool leaf_maybe_call;
};

struct body_map {
	uint64_t start; /* 0: free */
	uint32_t first, n; /* in entries; n 0: the runtime has no map */
};

static struct {
	struct body_map *bodies;
	struct entry *entries;
	uint32_t nentries;
	uint32_t generation;
	COR_DEBUG_IL_TO_NATIVE_MAP *fetched;
	struct answer *answers;
} im;

int ilmap_init(void)
{
	if (!im.bodies)
		im.bodies = calloc(BODIES, sizeof *im.bodies);
	if (!im.entries)
		im.entries = malloc(ENTRIES * sizeof *im.entries);
	if (!im.fetched)
		im.fetched = malloc(MAP_MAX * sizeof *im.fetched);
	if (!im.answers)
		im.answers = calloc(ANSWERS, sizeof *im.answers);
	im.nentries = 0;
	im.generation = codemap_generation();
	return im.bodies && im.entries && im.fetched && im.answers ? 0 : -1;
}

void ilmap_fini(void)
{
	free(im.bodies);
	free(im.entries);
	free(im.fetched);
	free(im.answers);
	memset(&im, 0, sizeof im);
}

static void forget(void)
{
	memset(im.bodies, 0, BODIES * sizeof *im.bodies);
	im.nentries = 0;
}

static struct answer *answer_slot(uint64_t addr)
{
	return &im.answers[(uint32_t)((addr * 0x9E3779B97F4A7C15ull) >> 52) & (ANSWERS - 1)];
}

static int by_native(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->native != y->native)
		return x->native < y->native ? -1 : 1;
	return x->native_end < y->native_end ? -1 : x->native_end > y->native_end;
}

/* The runtime's map of the body at start, sorted by native offset. */
static const struct body_map *map_of(uint64_t start)
{
	uint32_t h = (uint32_t)((start * 0x9E3779B97F4A7C15ull) >> 40);
	struct body_map *slot = NULL;
	for (uint32_t k = 0; k < PROBES; k++) {
		struct body_map *b = &im.bodies[(h + k) & (BODIES - 1)];
		if (b->start == start)
			return b;
		if (!b->start) {
			slot = b;
			break;
		}
	}
	if (!slot)
		return NULL; /* crowded: not kept, asked again next time */
	ICorProfilerInfo10 *info = g_agent.info;
	ULONG32 n = 0;
	if (FAILED(info->vtbl->GetILToNativeMapping3(info, (UINT_PTR)start, MAP_MAX, &n, im.fetched)))
		n = 0;
	if (n > MAP_MAX)
		n = 0;
	if (n > ENTRIES - im.nentries) {
		forget();
		return map_of(start);
	}
	slot->start = start;
	slot->first = im.nentries;
	slot->n = n;
	for (ULONG32 i = 0; i < n; i++)
		im.entries[im.nentries++] = (struct entry){im.fetched[i].nativeStartOffset,
							   im.fetched[i].nativeEndOffset, im.fetched[i].ilOffset};
	qsort(im.entries + slot->first, n, sizeof *im.entries, by_native);
	return slot;
}

/* The IL offset at addr in fn's code, from the runtime's map; *keep: the
 * answer may be kept for addr (not a dynamic method's, whose code and id a
 * later compilation may reuse). */
static uint32_t lookup(FunctionID fn, uint64_t addr, bool leaf_maybe_call, bool *keep)
{
	*keep = false;
	if (leaf_maybe_call) {
		/* a thread stopped in a call out of managed code is at the call's
		 * return address: name the call */
		int code = codemap_code_facts(addr);
		if (code > 0 && (code & CODE_FOLLOWS_CALL))
			addr--;
	}
	struct code_at at = codemap_at(addr, false);
	if (at.fn != fn || !at.body || addr < at.body->start || addr >= at.body->end)
		return ILMAP_NONE;
	const struct body_map *b = map_of(at.body->start);
	*keep = b && !at.dynamic; /* (no map kept: a crowded table, asked again) */
	if (!b || !b->n)
		return ILMAP_NONE;
	uint32_t off = (uint32_t)(addr - at.body->start);
	const struct entry *e = im.entries + b->first;
	/* the last entry that starts at or before off */
	uint32_t lo = 0, hi = b->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (e[mid].native <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo; i-- > 0 && lo - i <= 4;) {
		if (off >= e[i].native_end)
			continue;
		if (e[i].il == RT_PROLOG)
			return 0;
		if (e[i].il == RT_NO_MAPPING)
			return ILMAP_NONE;
		return e[i].il; /* an IL offset, or CS_IL_EPILOG (the runtime's own value) */
	}
	return ILMAP_NONE;
}

uint32_t ilmap_offset(FunctionID fn, uint64_t addr, bool leaf_maybe_call)
{
	if (!fn || !addr || !im.bodies)
		return ILMAP_NONE;
	if (im.generation != codemap_generation()) {
		im.generation = codemap_generation();
		forget();
		memset(im.answers, 0, ANSWERS * sizeof *im.answers);
	}
	struct answer *a = answer_slot(addr);
	if (a->addr == addr && a->fn == fn && a->leaf_maybe_call == leaf_maybe_call)
		return a->il;
	bool keep;
	uint32_t il = lookup(fn, addr, leaf_maybe_call, &keep);
	if (keep)
		*a = (struct answer){addr, fn, il, leaf_maybe_call};
	return il;
}
