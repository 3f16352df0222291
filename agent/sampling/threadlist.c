/* When to ask for the runtime's thread list again (see threadlist.h). */
#include "agent/sampling/threadlist.h"

#include <stdatomic.h>

#define LIST_REFRESH_NS 1000000000ull

static _Atomic uint64_t list_changes;

void threadlist_changed(void)
{
	atomic_fetch_add_explicit(&list_changes, 1, memory_order_relaxed);
}

uint64_t threadlist_changes(void)
{
	return atomic_load_explicit(&list_changes, memory_order_relaxed);
}

bool threadlist_due(const struct threadlist_asked *a, uint64_t now_ns)
{
	return threadlist_changes() != a->changes || now_ns - a->at_ns >= LIST_REFRESH_NS;
}

void threadlist_taken(struct threadlist_asked *a, uint64_t changes, uint64_t now_ns)
{
	a->changes = changes;
	a->at_ns = now_ns;
}
