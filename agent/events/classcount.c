#include "agent/events/classcount.h"

#include <stdlib.h>
#include <string.h>

int cc_init(struct cc_table *t, uint32_t slots)
{
	uint32_t cap = 64;
	while (cap < slots)
		cap <<= 1;
	t->slots = calloc(cap, sizeof *t->slots);
	if (!t->slots)
		return -1;
	t->mask = cap - 1;
	atomic_store(&t->used, 0);
	atomic_store(&t->dropped, 0);
	return 0;
}

void cc_free(struct cc_table *t)
{
	free(t->slots);
	t->slots = NULL;
	t->mask = 0;
}

void cc_clear(struct cc_table *t)
{
	if (t->slots)
		memset(t->slots, 0, (size_t)(t->mask + 1) * sizeof *t->slots);
	atomic_store(&t->used, 0);
	atomic_store(&t->dropped, 0);
}

static uint32_t hash(uintptr_t cls)
{
	uint64_t x = (uint64_t)cls;
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 32;
	return (uint32_t)x;
}

bool cc_add(struct cc_table *t, ClassID cls, uint64_t bytes)
{
	if (!t->slots || !cls)
		return false;
	/* probe at most a quarter of the table: past that it is too full to be
	 * worth the time on an allocating thread */
	uint32_t limit = (t->mask + 1) / 4;
	for (uint32_t i = hash(cls), n = 0; n < limit; i++, n++) {
		struct cc_slot *s = &t->slots[i & t->mask];
		uintptr_t seen = atomic_load_explicit(&s->cls, memory_order_acquire);
		if (seen == 0) {
			uintptr_t expected = 0;
			if (atomic_compare_exchange_strong(&s->cls, &expected, cls)) {
				atomic_fetch_add_explicit(&t->used, 1, memory_order_relaxed);
				seen = cls;
			} else
				seen = expected;
		}
		if (seen == cls) {
			atomic_fetch_add_explicit(&s->count, 1, memory_order_relaxed);
			atomic_fetch_add_explicit(&s->bytes, bytes, memory_order_relaxed);
			return true;
		}
	}
	atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed);
	return false;
}
