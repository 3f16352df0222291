#include "agent/events/gcstream.h"

#include <pthread.h>
#include <string.h>

#include "agent/log/logwriter.h"
#include "common/logfmt.h"
#include "common/records.h"

/* A background GC stays open while foreground GCs start and end inside it;
 * more than that at once means events went missing. */
#define OPEN_MAX 4

struct open_gc {
	bool used, ended, stats;
	uint32_t count;
	struct cs_gc rec;
};

static struct {
	pthread_mutex_t mu;
	struct open_gc gcs[OPEN_MAX];
	uint64_t suspend_start_us; /* 0: not suspended for a GC */
	bool stats_early;          /* heap stats came before their GCEnd */
	struct gcs_heap_stats early;
} s = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void write_gc(struct open_gc *g)
{
	uint8_t payload[160];
	struct cs_out o;
	cs_out_init(&o, payload, sizeof payload);
	cs_gc_encode(&o, &g->rec);
	lw_append_record(CS_REC_GC, o.buf, o.len);
	g->used = false;
}

/* Complete GCs go out once the runtime runs again: their pause is known. */
static void write_complete_locked(void)
{
	if (s.suspend_start_us)
		return;
	for (int i = 0; i < OPEN_MAX; i++)
		if (s.gcs[i].used && s.gcs[i].ended && s.gcs[i].stats)
			write_gc(&s.gcs[i]);
}

static void apply_stats(struct open_gc *g, const struct gcs_heap_stats *st)
{
	memcpy(g->rec.gen_bytes, st->gen_bytes, sizeof g->rec.gen_bytes);
	g->rec.ngens = CS_GC_GENERATIONS;
	g->rec.promoted_bytes = st->promoted_bytes;
	g->rec.pinned_objects = st->pinned_objects;
	g->stats = true;
}

void gcs_started(uint32_t count, uint32_t depth, uint32_t reason, uint32_t type)
{
	pthread_mutex_lock(&s.mu);
	struct open_gc *slot = NULL;
	for (int i = 0; i < OPEN_MAX && !slot; i++)
		if (!s.gcs[i].used)
			slot = &s.gcs[i];
	if (!slot) { /* events were lost: the oldest goes out as it is */
		slot = &s.gcs[0];
		for (int i = 1; i < OPEN_MAX; i++)
			if (s.gcs[i].rec.start_us < slot->rec.start_us)
				slot = &s.gcs[i];
		write_gc(slot);
	}
	*slot = (struct open_gc){.used = true, .count = count};
	slot->rec.start_us = agent_now_us();
	slot->rec.generation = (uint8_t)(depth < 2 ? depth : 2);
	slot->rec.cause = reason + 1;
	/* the callbacks' two reasons: gc_reason 1 is reason_induced, 7 induced_noforce,
	 * 9 induced low memory, 10 induced_compacting, 17 induced_aggressive */
	slot->rec.reason = reason == 1 || reason == 7 || reason == 9 || reason == 10 || reason == 17 ? CS_GC_INDUCED
												     : CS_GC_OTHER;
	slot->rec.type = type <= 2 ? (uint8_t)(type + 1) : CS_GC_TYPE_UNKNOWN;
	s.stats_early = false;
	pthread_mutex_unlock(&s.mu);
}

void gcs_ended(uint32_t count)
{
	pthread_mutex_lock(&s.mu);
	for (int i = 0; i < OPEN_MAX; i++) {
		struct open_gc *g = &s.gcs[i];
		if (!g->used || g->ended || g->count != count)
			continue;
		g->ended = true;
		g->rec.duration_us = agent_now_us() - g->rec.start_us;
		if (s.stats_early) {
			apply_stats(g, &s.early);
			s.stats_early = false;
		}
		break;
	}
	write_complete_locked();
	pthread_mutex_unlock(&s.mu);
}

void gcs_heap_stats(const struct gcs_heap_stats *st)
{
	pthread_mutex_lock(&s.mu);
	/* the stats follow the GCEnd of the GC they describe: the latest one
	 * that ended without them */
	struct open_gc *latest = NULL;
	for (int i = 0; i < OPEN_MAX; i++) {
		struct open_gc *g = &s.gcs[i];
		if (g->used && g->ended && !g->stats && (!latest || g->rec.start_us > latest->rec.start_us))
			latest = g;
	}
	if (latest) {
		apply_stats(latest, st);
	} else {
		s.early = *st;
		s.stats_early = true;
	}
	write_complete_locked();
	pthread_mutex_unlock(&s.mu);
}

void gcs_suspend_begin(uint32_t reason)
{
	/* GCSuspendEEReason: 1 SuspendForGC, 6 SuspendForGCPrep */
	if (reason != 1 && reason != 6)
		return;
	pthread_mutex_lock(&s.mu);
	if (!s.suspend_start_us)
		s.suspend_start_us = agent_now_us();
	pthread_mutex_unlock(&s.mu);
}

void gcs_restart_end(void)
{
	pthread_mutex_lock(&s.mu);
	if (s.suspend_start_us) {
		uint64_t paused = agent_now_us() - s.suspend_start_us;
		/* every GC in progress was paused for it (a background GC's pause is
		 * the sum of its suspensions) */
		for (int i = 0; i < OPEN_MAX; i++)
			if (s.gcs[i].used)
				s.gcs[i].rec.pause_us += paused;
		s.suspend_start_us = 0;
	}
	write_complete_locked();
	pthread_mutex_unlock(&s.mu);
}

void gcs_reset(void)
{
	pthread_mutex_lock(&s.mu);
	memset(s.gcs, 0, sizeof s.gcs);
	s.suspend_start_us = 0;
	s.stats_early = false;
	pthread_mutex_unlock(&s.mu);
}
