/* Awaits snapshots (AWAITS records) folded into the model: each is kept
 * whole or not at all, its groups biggest count first. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/fold.h"
#include "profile/profile.h"
#include "util/xalloc.h"

static int cmp_stacks(const void *a, const void *b)
{
	const struct prof_await_group *x = a, *y = b;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* Biggest count first; a tie by stack id, the order the agent defined them. */
static int cmp_groups(const void *a, const void *b)
{
	const struct prof_await_group *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return cmp_stacks(a, b);
}

/* A group names a stack defined before it (the agent writes the chains'
 * STACKS records first) and counts at least one chain. */
static bool group_ok(const struct prof_process *p, const struct cs_await_group *g)
{
	return g->stack && fold_id_ok(p, g->stack) && g->stack < p->nstacks && p->stacks[g->stack].frame && g->count;
}

/* The groups of one record in a's order, a stack listed twice added up;
 * false when an entry is damage. */
static bool read_groups(const struct prof_process *p, struct cs_in *in, struct prof_awaits *a)
{
	size_t cap = 0;
	struct cs_await_group g;
	while (cs_next_await_group(in, &g)) {
		if (!group_ok(p, &g))
			return false;
		xgrow(&a->groups, &cap, a->ngroups + 1, sizeof *a->groups);
		a->groups[a->ngroups++] = (struct prof_await_group){(uint32_t)g.stack, g.count};
	}
	if (in->bad)
		return false;
	if (!a->ngroups)
		return true;
	qsort(a->groups, a->ngroups, sizeof *a->groups, cmp_stacks);
	size_t n = 1;
	for (size_t i = 1; i < a->ngroups; i++) {
		if (a->groups[i].stack == a->groups[n - 1].stack)
			a->groups[n - 1].count += a->groups[i].count;
		else
			a->groups[n++] = a->groups[i];
	}
	a->ngroups = n;
	qsort(a->groups, a->ngroups, sizeof *a->groups, cmp_groups);
	return true;
}

/* Where snapshot seq goes in the list, kept in seq order; SIZE_MAX when
 * it is there already. */
static size_t place_of(const struct prof_process *p, uint64_t seq)
{
	size_t at = p->nawaits;
	while (at > 0 && p->awaits[at - 1].seq >= seq) {
		if (p->awaits[at - 1].seq == seq)
			return SIZE_MAX;
		at--;
	}
	return at;
}

void fold_awaits(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_in in;
	cs_in_init(&in, rec->payload, rec->len);
	struct cs_awaits_head h;
	if (!cs_awaits_head_decode(&in, &h) || !h.seq) {
		p->bad_records++;
		return;
	}
	fold_note_time(p, h.time_us);
	size_t at = place_of(p, h.seq);
	if (at == SIZE_MAX)
		return; /* written again */
	struct prof_awaits a = {
		.seq = h.seq, .time_us = h.time_us, .pause_us = h.pause_us, .suspended = h.suspended,
		.chains = h.chains, .unresolved = h.unresolved, .lost = h.lost, .walk = h.walk,
	};
	if (!read_groups(p, &in, &a)) {
		free(a.groups);
		p->bad_records++;
		return;
	}
	xgrow(&p->awaits, &p->awaits_cap, p->nawaits + 1, sizeof *p->awaits);
	memmove(&p->awaits[at + 1], &p->awaits[at], (p->nawaits - at) * sizeof *p->awaits);
	p->awaits[at] = a;
	p->nawaits++;
}

const struct prof_awaits *prof_latest_awaits(const struct prof_process *p)
{
	return p->nawaits ? &p->awaits[p->nawaits - 1] : NULL;
}

void prof_awaits_text(const struct prof_awaits *a, char *out, size_t n)
{
	char lost[64] = "";
	if (a->lost)
		snprintf(lost, sizeof lost, ", %" PRIu64 " not counted (no room)", a->lost);
	snprintf(out, n,
		 "awaits snapshot %" PRIu64 " at %.2f s: %" PRIu64 " chains pending in %zu groups, %" PRIu64
		 " async methods suspended, %" PRIu64 " unresolved%s; paused %.1f ms%s",
		 a->seq, (double)a->time_us / 1e6, a->chains, a->ngroups, a->suspended, a->unresolved, lost,
		 (double)a->pause_us / 1000.0,
		 a->walk == CS_HEAP_WALK_SUSPENDED ? " (every object walked: chains no longer reachable count too)" : "");
}

void awaits_free(struct prof_process *p)
{
	for (size_t i = 0; i < p->nawaits; i++)
		free(p->awaits[i].groups);
	free(p->awaits);
	p->awaits = NULL;
	p->nawaits = p->awaits_cap = 0;
}
