#include "agent/symbols/idmap.h"

#include <stdlib.h>

#include "common/mix64.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)cs_mix64(key) & (cap - 1);
}

bool idmap_init(struct idmap *m, size_t cap)
{
	size_t c = 16;
	while (c < cap)
		c <<= 1;
	m->keys = calloc(c, sizeof *m->keys);
	m->vals = calloc(c, sizeof *m->vals);
	m->cap = c;
	m->count = 0;
	m->has_zero = false;
	if (!m->keys || !m->vals) {
		idmap_free(m);
		return false;
	}
	return true;
}

void idmap_free(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->count = 0;
	m->has_zero = false;
}

bool idmap_get(const struct idmap *m, uint64_t key, uint32_t *val)
{
	if (!key) {
		*val = m->zero_val;
		return m->has_zero;
	}
	if (!m->cap)
		return false;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return true;
		}
		if (m->keys[i] == 0)
			return false;
	}
}

static void place(uint64_t *keys, uint32_t *vals, size_t cap, uint64_t key, uint32_t val)
{
	size_t i = slot_of(key, cap);
	while (keys[i] && keys[i] != key)
		i = (i + 1) & (cap - 1);
	keys[i] = key;
	vals[i] = val;
}

static bool grow(struct idmap *m)
{
	size_t ncap = m->cap * 2;
	uint64_t *nk = calloc(ncap, sizeof *nk);
	uint32_t *nv = calloc(ncap, sizeof *nv);
	if (!nk || !nv) {
		free(nk);
		free(nv);
		return false;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			place(nk, nv, ncap, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return true;
}

bool idmap_put(struct idmap *m, uint64_t key, uint32_t val)
{
	if (!key) {
		m->count += !m->has_zero;
		m->has_zero = true;
		m->zero_val = val;
		return true;
	}
	if ((m->count + 1) * 4 > m->cap * 3 && !grow(m))
		return false;
	uint32_t old;
	if (!idmap_get(m, key, &old))
		m->count++;
	place(m->keys, m->vals, m->cap, key, val);
	return true;
}
