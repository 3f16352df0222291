/* How long the runtime may stay suspended: however slowly it stops
 * (threads waiting for a core to reach a safe point, a debugger), at most
 * a tenth of the time.  A budget grows by a tenth of the time that passes
 * (up to a little in store), each suspension spends its length, and while
 * the budget is spent the walks are put off (and counted). */
#ifndef CLRSCOPE_AGENT_BUDGET_H
#define CLRSCOPE_AGENT_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#define SUSPEND_SHARE 10
#define SUSPEND_BUDGET_MAX_NS 10000000

struct suspend_budget {
	int64_t ns;     /* suspension time that may be spent now */
	uint64_t at_ns; /* when it was last topped up (0: never) */
};

/* A full budget (a new attach). */
static inline struct suspend_budget budget_full(void)
{
	return (struct suspend_budget){SUSPEND_BUDGET_MAX_NS, 0};
}

/* Tops the budget up to now_ns; whether a suspension may begin. */
static inline bool budget_allows(struct suspend_budget *b, uint64_t now_ns)
{
	if (b->at_ns) {
		b->ns += (int64_t)((now_ns - b->at_ns) / SUSPEND_SHARE);
		if (b->ns > SUSPEND_BUDGET_MAX_NS)
			b->ns = SUSPEND_BUDGET_MAX_NS;
	}
	b->at_ns = now_ns;
	return b->ns > 0;
}

/* A suspension that lasted ns. */
static inline void budget_spend(struct suspend_budget *b, uint64_t ns)
{
	b->ns -= (int64_t)ns;
}

#endif
