/* The agent's id map, built from its source: every key found again after
 * growth, key 0 kept like any other (a failed GetClassFromObject gives
 * ClassID 0; an empty slot must not answer for it). */
#include <stdlib.h>

#include "agent/symbols/idmap.h"
#include "check.h"

static void keys_and_zero(void)
{
	struct idmap m;
	CHECK(idmap_init(&m, 4));
	uint32_t v = 99;
	CHECK(!idmap_get(&m, 0, &v));   /* before: an empty table "found" it */
	CHECK(!idmap_get(&m, 12345, &v));
	for (uint64_t k = 1; k <= 5000; k++)
		CHECK(idmap_put(&m, k * 0x1000, (uint32_t)k));
	CHECK(!idmap_get(&m, 0, &v));
	CHECK(idmap_put(&m, 0, 77));
	CHECK(idmap_get(&m, 0, &v) && v == 77);
	CHECK(idmap_put(&m, 0, 78));
	CHECK(idmap_get(&m, 0, &v) && v == 78);
	CHECK_EQ_U(m.count, 5001);
	int wrong = 0;
	for (uint64_t k = 1; k <= 5000; k++)
		wrong += !idmap_get(&m, k * 0x1000, &v) || v != k;
	CHECK_EQ_U(wrong, 0);
	idmap_free(&m);
	CHECK(!idmap_get(&m, 0, &v));
}

int main(void)
{
	RUN(keys_and_zero);
	return CHECK_DONE();
}
