#include <stdio.h>

#include "check.h"
#include "util/strmap.h"
#include "util/u64map.h"

static void many_keys_with_nuls(void)
{
	struct strmap m;
	strmap_init(&m);
	char key[32];
	for (uint32_t i = 0; i < 5000; i++) {
		int n = snprintf(key, sizeof key, "mod%u", i % 7);
		key[n] = 0; /* module NUL name, as the profile keys functions */
		int k = snprintf(key + n + 1, sizeof key - (size_t)n - 1, "fn%u", i);
		CHECK(strmap_add(&m, key, (size_t)(n + 1 + k), i));
	}
	CHECK_EQ_U(m.count, 5000);
	for (uint32_t i = 0; i < 5000; i++) {
		int n = snprintf(key, sizeof key, "mod%u", i % 7);
		key[n] = 0;
		int k = snprintf(key + n + 1, sizeof key - (size_t)n - 1, "fn%u", i);
		uint32_t v = 0;
		CHECK(strmap_get(&m, key, (size_t)(n + 1 + k), &v) && v == i);
	}
	uint32_t v;
	CHECK(!strmap_get(&m, "mod1", 4, &v)); /* a prefix is another key */
	strmap_free(&m);
	CHECK(!strmap_get(&m, "x", 1, &v));
}

/* The per-thread sample counters: keys (thread << 32 | stack) far apart,
 * entries kept in insertion order across growth and clearing. */
static void u64_counters(void)
{
	struct u64map m;
	u64map_init(&m, 2);
	for (uint64_t i = 0; i < 3000; i++) {
		uint64_t *v = u64map_counters(&m, (i % 5) << 32 | i);
		CHECK(v[0] == 0 && v[1] == 0);
		v[0] = i;
		v[1] = i * 3;
	}
	CHECK_EQ_U(m.count, 3000);
	for (uint64_t i = 0; i < 3000; i++) {
		CHECK_EQ_U(m.keys[i], (i % 5) << 32 | i);
		uint64_t *v = u64map_counters(&m, (i % 5) << 32 | i);
		CHECK(v[0] == i && v[1] == i * 3);
	}
	CHECK_EQ_U(m.count, 3000); /* found, not added again */
	u64map_clear(&m);
	CHECK_EQ_U(m.count, 0);
	uint64_t *v = u64map_counters(&m, 7);
	CHECK(v[0] == 0 && v[1] == 0 && m.count == 1 && m.keys[0] == 7);
	u64map_free(&m);
	CHECK_EQ_U(m.count, 0);
}

int main(void)
{
	RUN(many_keys_with_nuls);
	RUN(u64_counters);
	return CHECK_DONE();
}
