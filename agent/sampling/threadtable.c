/* What the sampler knows of each managed thread (threadtable.h). */
#include "agent/sampling/threadtable.h"

#include <string.h>

static struct {
	struct sampled_thread e[TT_THREADS];
	uint32_t n; /* entries ever used: those past it are free */
	struct sampled_thread *listed[TT_LISTED_MAX]; /* the survey's list, by ThreadID */
	uint32_t nlisted;
	uint32_t generation; /* lists made so far */
} tt;

/* An entry is free when neither the survey's list nor a signal slot holds
 * it (what it held stays until it is taken again: the last tick may still
 * read it). */
static bool in_use(const struct sampled_thread *t)
{
	return t->listed || t->sig.slot >= 0;
}

void tt_reset(void)
{
	tt.n = 0; /* (the entries are set up as they are taken: the table's pages stay untouched until then) */
	tt.nlisted = 0;
	tt.generation = 0;
}

struct sampled_thread *tt_at(uint32_t slot)
{
	return slot < TT_THREADS ? &tt.e[slot] : NULL;
}

struct sampled_thread *tt_find_listed(ThreadID thread)
{
	uint32_t lo = 0, hi = tt.nlisted;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (tt.listed[mid]->thread < thread)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < tt.nlisted && tt.listed[lo]->thread == thread ? tt.listed[lo] : NULL;
}

struct sampled_thread *tt_entry(ThreadID thread, uint32_t os_tid)
{
	struct sampled_thread *t = tt_find_listed(thread), *free_entry = NULL;
	if (t && t->os_tid == os_tid)
		return t;
	for (uint32_t i = 0; i < tt.n; i++) {
		t = &tt.e[i];
		if (in_use(t) && t->thread == thread && t->os_tid == os_tid)
			return t;
		if (!in_use(t) && !free_entry)
			free_entry = t;
	}
	if (!free_entry && tt.n < TT_THREADS) {
		free_entry = &tt.e[tt.n++];
		free_entry->hold = (struct thread_hold){0};
	}
	if (!free_entry)
		return NULL;
	t = free_entry;
	struct thread_hold hold = t->hold; /* (a run outlives its thread) */
	*t = (struct sampled_thread){.thread = thread, .os_tid = os_tid, .slot = (uint32_t)(t - tt.e), .hold = hold};
	t->clock = os_tid ? agent_thread_cpu_clock(os_tid) : 0;
	t->sig.slot = -1;
	return t;
}

void tt_forget_survey(struct sampled_thread *t)
{
	*t = (struct sampled_thread){
		.thread = t->thread,
		.os_tid = t->os_tid,
		.clock = t->clock,
		.slot = t->slot,
		.listed = t->listed,
		.generation = t->generation,
		.sig = t->sig,
		.kernel = t->kernel,
		.hold = t->hold,
	};
}

struct sampled_thread **tt_listed(uint32_t *n)
{
	*n = tt.nlisted;
	return tt.listed;
}

void tt_list_keep(struct sampled_thread *t)
{
	t->listed = true;
	t->generation = tt.generation + 1;
}

void tt_set_listed(struct sampled_thread *const *list, uint32_t n)
{
	tt.generation++;
	for (uint32_t i = 0; i < tt.nlisted; i++) {
		struct sampled_thread *t = tt.listed[i];
		if (t->generation != tt.generation)
			t->listed = false;
	}
	if (n)
		memcpy(tt.listed, list, n * sizeof *list);
	tt.nlisted = n;
}
