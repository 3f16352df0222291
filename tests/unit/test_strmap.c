#include <stdio.h>

#include "check.h"
#include "strmap.h"

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

int main(void)
{
	RUN(many_keys_with_nuls);
	return CHECK_DONE();
}
