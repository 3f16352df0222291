#include "util/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

void strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof *m);
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->lens);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

static size_t find(char *const *keys, const size_t *lens, size_t cap, const char *key, size_t len)
{
	size_t i = (size_t)hash(key, len) & (cap - 1);
	while (keys[i] && !(lens[i] == len && memcmp(keys[i], key, len) == 0))
		i = (i + 1) & (cap - 1);
	return i;
}

bool strmap_get(const struct strmap *m, const char *key, size_t len, uint32_t *val)
{
	if (!m->cap)
		return false;
	size_t i = find(m->keys, m->lens, m->cap, key, len);
	if (!m->keys[i])
		return false;
	*val = m->vals[i];
	return true;
}

static void grow(struct strmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	char **nk = xcalloc(ncap, sizeof *nk);
	size_t *nl = xcalloc(ncap, sizeof *nl);
	uint32_t *nv = xcalloc(ncap, sizeof *nv);
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = find(nk, nl, ncap, m->keys[i], m->lens[i]);
		nk[j] = m->keys[i];
		nl[j] = m->lens[i];
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->lens);
	free(m->vals);
	m->keys = nk;
	m->lens = nl;
	m->vals = nv;
	m->cap = ncap;
}

bool strmap_add(struct strmap *m, const char *key, size_t len, uint32_t val)
{
	if ((m->count + 1) * 2 > m->cap)
		grow(m);
	size_t i = find(m->keys, m->lens, m->cap, key, len);
	m->keys[i] = xstrndup(key, len);
	m->lens[i] = len;
	m->vals[i] = val;
	m->count++;
	return true;
}
