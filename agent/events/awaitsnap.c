#include "agent/events/awaitsnap.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "agent/log/logwriter.h"
#include "agent/symbols/asyncstack.h"
#include "agent/symbols/asyncwalk.h"
#include "agent/symbols/idmap.h"
#include "common/logfmt.h"
#include "common/records.h"

#define MT_MASK (~(uint64_t)7)  /* the MethodTable word's low bits may be the GC's */
#define KEPT_MAX (1u << 22)     /* suspended boxes kept from one walk; more are lost */
#define RECORD_BYTES (64u << 10) /* one AWAITS record; groups beyond it are lost */
#define TYPE_SLOTS (1u << 15) /* the types the walk met (a power of two) */

/* A box suspended at an await, as the walk read it. */
struct kept {
	uint64_t box, parent;  /* parent: the box that awaits it (0: none, or not known) */
	uint64_t sm_class;     /* its state machine's type */
	uint64_t unknown_mt;   /* AW_TYPE: the type met on the way to its parent */
	uint64_t awaited_mt;   /* the type of the object it awaits, if that is an object (0: none) */
	uint8_t status;        /* enum aw_status of the step to its parent */
	bool when_all;         /* the parent awaits it through a WhenAll promise */
	bool blocked;          /* no parent: a thread waits for it */
};

enum { FREE, WALKING, WRITING };

static struct {
	_Atomic int phase;
	_Atomic uint32_t retake; /* a snapshot to walk again (0: none) */
	struct kept *v;
	size_t n, cap;
	uint64_t lost; /* boxes not kept: out of room */
	uint64_t *types;   /* TYPE_SLOTS: the objects' types the walk met (0: free) */
	bool retaken;      /* this snapshot's walk is the second, after types were learnt */
	uint64_t seq, time_us, pause_us;
	uint8_t walk;
} a;

bool awaitsnap_begin(void)
{
	int expected = FREE;
	if (!atomic_compare_exchange_strong(&a.phase, &expected, WALKING))
		return false;
	a.n = 0;
	a.lost = 0;
	a.types = calloc(TYPE_SLOTS, sizeof *a.types); /* (NULL: no type noted, none learnt) */
	return true;
}

/* The walk's memory goes back (snapshots are rare), and the next may begin. */
static void release(void)
{
	free(a.v);
	free(a.types);
	a.v = NULL;
	a.types = NULL;
	a.n = a.cap = 0;
	atomic_store(&a.phase, FREE);
}

/* Where type is or goes in the types met (NULL: no room). */
static uint64_t *type_slot(uint64_t mt)
{
	uint32_t k = (uint32_t)((mt * 0x9E3779B97F4A7C15ull) >> 40) & (TYPE_SLOTS - 1);
	for (uint32_t probes = 0; a.types && probes < 64; probes++, k = (k + 1) & (TYPE_SLOTS - 1))
		if (a.types[k] == mt || !a.types[k])
			return &a.types[k];
	return NULL;
}

/* The types met: the ones not known yet are learnt after the walk
 * (classes loaded before an attach), and an awaited object's type is named
 * only if an object of it was met (else the word was no object's). */
static void note_type(uint64_t mt)
{
	uint64_t *slot = mt ? type_slot(mt) : NULL;
	if (slot)
		*slot = mt;
}

static bool type_met(uint64_t mt)
{
	uint64_t *slot = mt ? type_slot(mt) : NULL;
	return slot && *slot == mt;
}

void awaitsnap_visit(uint64_t address, uint64_t type)
{
	struct aw_type t;
	const struct aw_env *env = async_memory();
	note_type(type & MT_MASK);
	if (!aw_types_get(type & MT_MASK, &t) || t.kind != AW_BOX || !aw_suspended(env, address, &t))
		return;
	if (a.n == KEPT_MAX || !agent_grow(&a.v, &a.cap, a.n + 1, sizeof *a.v, 1024)) {
		a.lost++;
		return;
	}
	struct kept *k = &a.v[a.n++];
	struct aw_caller caller = {0};
	*k = (struct kept){.box = address, .sm_class = t.sm_class};
	k->status = (uint8_t)aw_awaiter(env, address, &t, &k->parent, &caller, &k->unknown_mt, &k->blocked);
	k->when_all = k->parent && caller.when_all;
	uint64_t awaited = aw_awaited(env, address, &t), mt = 0;
	if (awaited && env->read(env->ctx, awaited, &mt, sizeof mt) == 0)
		k->awaited_mt = mt & MT_MASK;
}

uint32_t awaitsnap_retake(void)
{
	return atomic_exchange(&a.retake, 0);
}

void awaitsnap_end(uint64_t seq, uint64_t time_us, int64_t pause_us, uint8_t walk)
{
	if (pause_us < 0) {
		release();
		return;
	}
	a.seq = seq;
	a.time_us = time_us;
	a.pause_us = (uint64_t)pause_us;
	a.walk = walk;
	atomic_store(&a.phase, WRITING); /* the sampler thread's turn */
}

/* ---- the sampler thread ---- */

/* The chains, grouped by stack. */
struct groups {
	struct idmap index; /* stack id -> entry */
	struct cs_await_group *v;
	size_t n, cap;
};

static bool count_chain(struct groups *g, uint64_t stack)
{
	uint32_t at;
	if (idmap_get(&g->index, stack, &at)) {
		g->v[at].count++;
		return true;
	}
	if (!agent_grow(&g->v, &g->cap, g->n + 1, sizeof *g->v, 64))
		return false;
	if (!idmap_put(&g->index, stack, g->n))
		return false;
	g->v[g->n++] = (struct cs_await_group){stack, 1};
	return true;
}

static int by_count(const void *x, const void *y)
{
	const struct cs_await_group *p = x, *q = y;
	return p->count != q->count ? (p->count < q->count ? 1 : -1) : (p->stack > q->stack) - (p->stack < q->stack);
}

/* The record: the groups that fit, most chains first (the chains of the
 * others counted as lost). */
static void write_record(struct groups *g, struct cs_awaits_head *head, struct sym_defs *defs)
{
	qsort(g->v, g->n, sizeof *g->v, by_count);
	static uint8_t entries[RECORD_BYTES - 256], buf[RECORD_BYTES];
	struct cs_out e, o;
	cs_out_init(&e, entries, sizeof entries);
	uint32_t fits = 0;
	for (; fits < g->n; fits++) {
		size_t before = e.len;
		cs_await_group_encode(&e, &g->v[fits]);
		if (e.overflow) {
			e.len = before;
			break;
		}
	}
	for (uint32_t i = fits; i < g->n; i++)
		head->lost += g->v[i].count;
	cs_out_init(&o, buf, sizeof buf);
	size_t at = cs_record_begin(&o);
	cs_awaits_head_encode(&o, head);
	cs_put_bytes(&o, entries, e.len);
	sym_flush_defs(defs); /* the chains' stacks before the record */
	if (!cs_record_end(&o, at, CS_REC_AWAITS) || !lw_append(o.buf, o.len, 1))
		lw_message(CS_LEVEL_WARNING, "awaits snapshot %llu lost: the log could not take it",
			   (unsigned long long)head->seq);
}

/* Learns the types met and not known that the walk follows; true when a
 * box's type is among them (the walk missed its objects). */
static bool learn_unknown(void)
{
	bool boxes = false;
	for (uint32_t k = 0; a.types && k < TYPE_SLOTS; k++)
		if (a.types[k])
			boxes |= async_learn_walked(a.types[k]);
	return boxes;
}

void awaitsnap_drain(struct sym_defs *defs)
{
	if (atomic_load(&a.phase) != WRITING)
		return;
	if (learn_unknown() && !a.retaken) {
		/* boxes of types loaded before an attach: walked again, now
		 * that their types are known */
		a.retaken = true;
		release();
		atomic_store(&a.retake, (uint32_t)a.seq);
		return;
	}
	a.retaken = false;
	struct cs_awaits_head head = {.time_us = a.time_us, .seq = a.seq, .pause_us = a.pause_us,
				      .suspended = a.n + a.lost, .lost = a.lost, .walk = a.walk};
	struct idmap by_box = {0};
	struct groups g = {0};
	bool *awaited = calloc(a.n ? a.n : 1, sizeof *awaited);
	struct aw_caller *chain = malloc(AW_MAX_DEPTH * sizeof *chain);
	bool ok = awaited && chain && idmap_init(&by_box, 2 * a.n + 16) && idmap_init(&g.index, 256);
	for (size_t i = 0; ok && i < a.n; i++)
		ok = idmap_put(&by_box, a.v[i].box, (uint32_t)i);
	uint32_t parent;
	for (size_t i = 0; ok && i < a.n; i++) {
		if (a.v[i].parent && idmap_get(&by_box, a.v[i].parent, &parent))
			awaited[parent] = true;
	}
	/* each innermost box's chain, out to its root or to where it is lost */
	for (size_t i = 0; ok && i < a.n; i++) {
		if (awaited[i])
			continue;
		const struct kept *k = &a.v[i];
		uint64_t awaited_mt = type_met(k->awaited_mt) ? k->awaited_mt : 0;
		uint32_t n = 0;
		chain[n++] = (struct aw_caller){k->sm_class, false};
		bool resolved;
		for (;;) {
			if (k->status != AW_RESOLVED) {
				resolved = false;
				break;
			}
			if (!k->parent) {
				resolved = true;
				break;
			}
			/* an awaiting box not suspended (still registering its
			 * await as the program stopped) ends the chain, unresolved */
			if (n == AW_MAX_DEPTH || !idmap_get(&by_box, k->parent, &parent)) {
				resolved = false;
				break;
			}
			chain[n++] = (struct aw_caller){a.v[parent].sm_class, k->when_all};
			k = &a.v[parent];
		}
		head.chains++;
		head.unresolved += !resolved;
		enum async_root root = !resolved ? ASYNC_ROOT_UNRESOLVED : k->blocked ? ASYNC_ROOT_BLOCKED : ASYNC_ROOT_NONE;
		uint64_t stack = async_chain_stack(chain, n, root, awaited_mt, defs);
		if (!stack || !count_chain(&g, stack))
			head.lost++;
	}
	if (ok)
		write_record(&g, &head, defs);
	else
		lw_message(CS_LEVEL_WARNING, "awaits snapshot %llu lost: out of memory", (unsigned long long)a.seq);
	if (a.lost)
		lw_message(CS_LEVEL_WARNING, "awaits snapshot %llu: %llu suspended async methods not kept (out of memory)",
			   (unsigned long long)a.seq, (unsigned long long)a.lost);
	free(awaited);
	free(chain);
	free(g.v);
	idmap_free(&g.index);
	idmap_free(&by_box);
	release();
}
