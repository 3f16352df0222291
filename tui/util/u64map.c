#include "util/u64map.h"

#include <stdlib.h>
#include <string.h>

#include "common/mix64.h"
#include "util/xalloc.h"

static size_t slot_of(uint64_t key, size_t nslots)
{
	return (size_t)cs_mix64(key) & (nslots - 1);
}

void u64map_init(struct u64map *m, size_t width)
{
	memset(m, 0, sizeof *m);
	m->width = width;
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->slots);
	u64map_init(m, m->width);
}

void u64map_clear(struct u64map *m)
{
	m->count = 0;
	if (m->slots)
		memset(m->slots, 0, m->nslots * sizeof *m->slots);
}

static void rehash(struct u64map *m, size_t nslots)
{
	free(m->slots);
	m->slots = xcalloc(nslots, sizeof *m->slots);
	m->nslots = nslots;
	for (size_t e = 0; e < m->count; e++) {
		size_t i = slot_of(m->keys[e], nslots);
		while (m->slots[i])
			i = (i + 1) & (nslots - 1);
		m->slots[i] = (uint32_t)(e + 1);
	}
}

uint64_t *u64map_counters(struct u64map *m, uint64_t key)
{
	if (m->nslots) {
		for (size_t i = slot_of(key, m->nslots); m->slots[i]; i = (i + 1) & (m->nslots - 1))
			if (m->keys[m->slots[i] - 1] == key)
				return &m->vals[(m->slots[i] - 1) * m->width];
	}
	if ((m->count + 1) * 2 > m->nslots) /* at most half full */
		rehash(m, m->nslots ? m->nslots * 2 : 64);
	xgrow(&m->keys, &m->keys_cap, m->count + 1, sizeof *m->keys);
	xgrow(&m->vals, &m->vals_cap, (m->count + 1) * m->width, sizeof *m->vals);
	size_t e = m->count++;
	m->keys[e] = key;
	uint64_t *v = &m->vals[e * m->width];
	memset(v, 0, m->width * sizeof *v);
	size_t i = slot_of(key, m->nslots);
	while (m->slots[i])
		i = (i + 1) & (m->nslots - 1);
	m->slots[i] = (uint32_t)(e + 1);
	return v;
}
