/* A tick's samples, weighed, held, staged and written (samples.h). */
#include "agent/sampling/samples.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/log/logwriter.h"
#include "agent/sampling/credit.h"
#include "agent/sampling/stillthreads.h"
#include "agent/symbols/asyncstack.h"
#include "agent/symbols/symbols.h"
#include "common/logfmt.h"

#define DEFS_FLUSH_BYTES (SYM_DEFS_BYTES / 2) /* pending definitions written before a tick could overflow them */
#define STAGE_BYTES (32u << 10)
#define STAGE_COMMIT_BYTES (24u << 10)
#define STAGE_COMMIT_NS (50u * 1000000u)
#define HOLDS_ENDED 4096            /* runs that ended kept for the next flush */
#define HOLD_BYTES (32u << 10)
#define OWED_SLOTS 512 /* CPU_OWED entries (at most 40 bytes each) a commit writes in one record of HOLD_BYTES */
#define HOLD_FLUSH_NS (100u * 1000000u) /* runs are written this often: what a killed program loses */
#define OWN_CPU_EVERY_NS 100000000ull   /* the sampler thread's own CPU clock is read this often */
/* The counts are published at most this often: half the shortest flush,
 * which is when the writer reads them (not every tick). */
#define PUBLISH_EVERY_NS 5000000ull

/* Threads whose last walk's root part is kept for the next one (a thread
 * that hashes to a slot another holds takes it over). */
#define MEMO_THREADS 64
struct thread_memo {
	ThreadID thread;
	struct sym_memo memo;
};

static struct {
	struct tick tick;
	struct cs_status stats;
	uint32_t rate_hz;        /* the last tick's (a run's period when it has one sample) */
	uint8_t *stage_buf;
	struct cs_out stage;
	size_t stage_at;         /* start of the open TICKS record */
	uint64_t stage_last_us;  /* time of the last tick in it */
	uint64_t stage_open_ns;  /* when it was opened */
	bool stage_open;
	/* A thread that keeps its stack through a run of ticks has its samples
	 * written as one HOLDS entry instead of one per tick (an idle program's
	 * log would otherwise grow by every parked thread every tick): the run
	 * is its entry's in the thread table. */
	uint32_t held[TT_THREADS]; /* the table's slots of the open runs, in the order they began */
	uint32_t nheld;
	struct cs_hold *ended;   /* runs that ended since the last flush */
	uint32_t nended;
	uint64_t holds_flushed_ns;
	uint8_t *holds_buf;      /* (and CPU_OWED's) */
	struct cs_cpu_owed owed[OWED_SLOTS]; /* since the last commit */
	uint32_t nowed;
	struct thread_memo *memos; /* MEMO_THREADS, by a hash of the thread */
	uint64_t published_ns;     /* when the counts were last published; 0: all are */
	uint64_t cpu_read_ns;      /* when the sampler thread's own CPU clock was last read */
} rec;

int samples_init(void)
{
	struct tick *t = &rec.tick;
	if (!t->pool)
		t->pool = malloc(TICK_FRAME_POOL * sizeof *t->pool);
	if (!t->addrs)
		t->addrs = malloc(TICK_FRAME_POOL * sizeof *t->addrs);
	if (!t->walks)
		t->walks = malloc(TICK_MAX_WALKS * sizeof *t->walks);
	if (!rec.stage_buf)
		rec.stage_buf = malloc(STAGE_BYTES);
	if (!rec.holds_buf)
		rec.holds_buf = malloc(HOLD_BYTES);
	if (!rec.ended)
		rec.ended = malloc(HOLDS_ENDED * sizeof *rec.ended);
	if (!rec.memos)
		rec.memos = calloc(MEMO_THREADS, sizeof *rec.memos);
	if (!t->pool || !t->addrs || !t->walks || !rec.stage_buf || !rec.holds_buf || !rec.ended ||
	    !rec.memos)
		return -1;
	for (uint32_t i = 0; i < rec.nheld; i++)
		tt_at(rec.held[i])->hold.open = false; /* runs of a former attach were written or are gone */
	rec.nheld = 0;
	rec.nended = 0;
	rec.nowed = 0;
	memset(rec.memos, 0, MEMO_THREADS * sizeof *rec.memos); /* ids of a former attach */
	cs_out_init(&rec.stage, rec.stage_buf, STAGE_BYTES);
	rec.stage_open = false;
	memset(&rec.stats, 0, sizeof rec.stats);
	t->stats = &rec.stats;
	t->start_ns = 0;
	rec.cpu_read_ns = 0;
	return 0;
}

struct tick *samples_tick_begin(uint32_t rate_hz, uint32_t validate)
{
	struct tick *t = &rec.tick;
	t->prev_start_ns = t->start_ns;
	t->start_ns = agent_mono_ns();
	t->rate_hz = rate_hz;
	t->validate = validate;
	t->n = 0;
	t->suspend_ns = 0;
	rec.rate_hz = rate_hz;
	return t;
}

static struct cs_hold hold_entry(const struct thread_hold *h)
{
	uint64_t period_us = agent_period_ns(rec.rate_hz) / 1000;
	struct cs_hold e = {h->ref, h->stack, h->first_us,
			    h->count > 1 ? (h->last_us - h->first_us) / (h->count - 1) : period_us, h->count};
	if (!e.period_us)
		e.period_us = 1;
	return e;
}

static void write_holds(bool open_too);

/* A run that ended (its thread ran, or took another stack): kept with the
 * others until the next flush. */
static void end_hold(const struct thread_hold *h)
{
	if (rec.nended == HOLDS_ENDED)
		write_holds(false);
	rec.ended[rec.nended++] = hold_entry(h);
}

/* Writes the runs that ended, and with open_too every open one, as HOLDS
 * entries (records of at most HOLD_BYTES), and forgets them. */
static void write_holds(bool open_too)
{
	sym_flush_defs(sym_defs()); /* the stacks they name first */
	struct cs_out o;
	cs_out_init(&o, rec.holds_buf, HOLD_BYTES);
	size_t at = cs_record_begin(&o);
	uint32_t nopen = open_too ? rec.nheld : 0;
	for (uint32_t i = 0; i < rec.nended + nopen; i++) {
		struct thread_hold *h = i >= rec.nended ? &tt_at(rec.held[i - rec.nended])->hold : NULL;
		struct cs_hold e = h ? hold_entry(h) : rec.ended[i];
		size_t before = o.len;
		cs_hold_encode(&o, &e);
		if (o.overflow) { /* this record is full: send it, start another */
			o.overflow = false;
			o.len = before;
			if (cs_record_end(&o, at, CS_REC_HOLDS))
				lw_append(o.buf, o.len, 1);
			cs_out_init(&o, rec.holds_buf, HOLD_BYTES);
			at = cs_record_begin(&o);
			cs_hold_encode(&o, &e);
		}
		if (h)
			h->open = false;
	}
	if (rec.nended + nopen && cs_record_end(&o, at, CS_REC_HOLDS))
		lw_append(o.buf, o.len, 1);
	if (open_too)
		rec.nheld = 0;
	rec.nended = 0;
}

static void write_owed(void)
{
	struct cs_out o;
	cs_out_init(&o, rec.holds_buf, HOLD_BYTES);
	size_t at = cs_record_begin(&o);
	for (uint32_t i = 0; i < rec.nowed; i++)
		cs_cpu_owed_encode(&o, &rec.owed[i]); /* (OWED_SLOTS entries fit: see its definition) */
	if (rec.nowed && cs_record_end(&o, at, CS_REC_CPU_OWED))
		lw_append(o.buf, o.len, 1);
	rec.nowed = 0;
}

/* Writes the staged ticks, their CPU_OWED, and the runs when
 * HOLD_FLUSH_NS passed since they were last written (or runs_now). */
static void stage_commit(bool runs_now)
{
	sym_flush_defs(sym_defs()); /* definitions before the samples that use them */
	if (rec.stage_open && cs_record_end(&rec.stage, rec.stage_at, CS_REC_TICKS))
		lw_append(rec.stage.buf, rec.stage.len, 1);
	write_owed();
	rec.stage.len = 0;
	rec.stage_open = false;
	uint64_t now = agent_mono_ns();
	if (now - rec.holds_flushed_ns >= HOLD_FLUSH_NS || runs_now) {
		rec.holds_flushed_ns = now;
		write_holds(true);
	}
}

/* Adds a sample of a still thread (t, ref: its reference) to its run. */
static void hold_sample(struct sampled_thread *t, uint64_t ref, uint64_t stack, uint64_t tick_us)
{
	uint64_t period_us = agent_period_ns(rec.rate_hz) / 1000;
	struct thread_hold *h = &t->hold;
	if (!h->open) {
		*h = (struct thread_hold){ref, stack, tick_us, tick_us, 1, true};
		rec.held[rec.nheld++] = t->slot;
		return;
	}
	/* the same run: same thread and stack, the next tick (ticks come at
	 * random gaps of up to 1.5 periods, later under load: a run is not cut
	 * for that), not too long */
	if (h->ref == ref && h->stack == stack && tick_us - h->last_us <= CS_HOLD_MAX_GAP_PERIODS * period_us &&
	    h->count < CS_HOLD_MAX_COUNT) {
		h->count++;
		h->last_us = tick_us;
		return;
	}
	/* a new run (of this thread, or of the thread that has the entry now):
	 * the old one is written first */
	end_hold(h);
	*h = (struct thread_hold){ref, stack, tick_us, tick_us, 1, true};
}

static void stage_open(uint64_t now_ns)
{
	rec.stage.len = 0;
	rec.stage.overflow = false;
	rec.stage_at = cs_record_begin(&rec.stage);
	rec.stage_last_us = 0; /* the first tick carries its absolute time */
	rec.stage_open_ns = now_ns;
	rec.stage_open = true;
}

/* On-CPU samples past a tick's own (see credit_on_cpu), written after the
 * tick's record. */
static void owe_cpu(uint64_t ref, uint64_t stack, uint64_t tick_us, uint32_t more)
{
	if (rec.nowed == OWED_SLOTS)
		stage_commit(false);
	rec.owed[rec.nowed++] = (struct cs_cpu_owed){ref, stack, tick_us, more};
}

static struct sym_memo *memo_of(ThreadID thread)
{
	struct thread_memo *m = &rec.memos[(thread * 0x9E3779B97F4A7C15ull) >> 58 & (MEMO_THREADS - 1)];
	if (m->thread != thread) {
		m->thread = thread;
		m->memo.n = 0;
		m->memo.ids_stamp = 0;
	}
	return &m->memo;
}

/* A capture of a thread whose frames a proof kept (the validate dial's
 * turn): caught at the site the proof found it, it has the frames the
 * proof kept, or the proof was wrong.  Caught elsewhere, it moved after
 * the proof (in the microseconds before its signal): no comparison. */
static void check_parked(struct sampled_thread *known, const struct sig_walk *capture, uint64_t stack)
{
	uint64_t kept = known->parked_check;
	known->parked_check = 0;
	if (!kept || !syscall_site_same(&known->parked_check_site, &capture->wait))
		return;
	rec.stats.stack_checks++;
	if (stack != kept && rec.stats.stack_mismatches++ < 20)
		agent_debug("stack check: frames kept by proof (stack %llu) differ from a capture at the same site "
			    "(stack %llu, ip %#lx)",
			    (unsigned long long)kept, (unsigned long long)stack, (unsigned long)capture->wait.pc);
}

void samples_add_still(struct tick *t)
{
	uint32_t n;
	struct sampled_thread **all = still_threads(&n);
	for (uint32_t i = 0; i < n && t->n < TICK_MAX_WALKS; i++) {
		if (!all[i]->still || !all[i]->stack)
			continue;
		t->walks[t->n++] = (struct sig_walk){.thread = all[i]->thread, .known = all[i]};
	}
}

/* The tick's TICKS entry (ordinary samples only; stacks carry the
 * off-CPU bit). */
static void write_tick(const uint64_t *refs, const uint64_t *stacks, uint32_t nslots, uint64_t tick_us,
		       uint64_t suspend_ns, uint64_t now_ns)
{
	if (!rec.stage_open)
		stage_open(now_ns);
	size_t before = rec.stage.len;
	cs_put_varint(&rec.stage, tick_us - rec.stage_last_us);
	cs_put_varint(&rec.stage, suspend_ns);
	cs_put_varint(&rec.stage, nslots);
	for (uint32_t t = 0; t < nslots; t++) {
		cs_put_varint(&rec.stage, refs[t]);
		cs_put_varint(&rec.stage, stacks[t]);
	}
	if (rec.stage.overflow) {
		/* a tick larger than what is left: send what we have, retry once */
		rec.stage.overflow = false;
		rec.stage.len = before;
		stage_commit(false);
		if (before > CS_REC_HEADER_LEN) {
			write_tick(refs, stacks, nslots, tick_us, suspend_ns, now_ns);
			return;
		}
		return; /* a single tick too large for a record: skip it */
	}
	rec.stage_last_us = tick_us;
	if (rec.stage.len >= STAGE_COMMIT_BYTES || now_ns - rec.stage_open_ns >= STAGE_COMMIT_NS)
		stage_commit(false);
}

/* The tick's walks, named and staged (now_ns: the time, for the staging's
 * commit). */
static void samples_record(struct tick *tk, uint64_t now_ns)
{
	struct sym_defs *defs = sym_defs();
	async_drain(); /* the box types loaded since, for the handlers */
	uint32_t nslots = tk->n;
	uint64_t tick_us = (tk->start_ns - g_agent.start_mono_ns) / 1000;

	static uint64_t refs[2 * TICK_MAX_WALKS], stacks[2 * TICK_MAX_WALKS], slot_stacks[TICK_MAX_WALKS];
	bool still[TICK_MAX_WALKS];
	for (uint32_t t = 0; t < nslots; t++) {
		struct sig_walk *slot = &tk->walks[t];
		struct sampled_thread *known = slot->known;
		still[t] = known && slot->n == 0;
		if (still[t]) {
			stacks[t] = known->stack; /* captures come first: theirs is interned */
		} else {
			rec.stats.truncated_stacks += slot->truncated;
			stacks[t] = sym_stack_of_memo(tk->pool + slot->start, tk->addrs + slot->start, slot->n,
						      slot->truncated, !slot->captured, &slot->act, defs,
						      memo_of(slot->thread));
			/* a resumed async method's sample: its logical stack */
			uint64_t physical = stacks[t];
			stacks[t] = async_stack(physical, tk->pool + slot->start, tk->addrs + slot->start, slot->n,
						slot->truncated, !slot->captured, &slot->act, sigsampler_async(slot),
						defs);
			if (known && slot->captured) {
				check_parked(known, slot, stacks[t]);
				known->stack = stacks[t];
				/* a thread found again in the same wait with the same frames
				 * may wait for another caller: not the same logical stack */
				if (stacks[t] != physical)
					known->wait = (struct syscall_site){0};
			} else if (known)
				still_walked(known, stacks[t]);
		}
		refs[t] = sym_thread(slot->thread);
		slot_stacks[t] = stacks[t];
	}
	if (sym_defs_pending() >= DEFS_FLUSH_BYTES)
		sym_flush_defs(defs); /* else with the staged samples, in one record each */
	/* still threads' samples go into their runs; the others into the tick,
	 * each on or off the CPU */
	uint64_t period_ns = agent_period_ns(tk->rate_hz);
	uint32_t n = 0, samples = 0;
	for (uint32_t t = 0; t < nslots; t++) {
		if (still[t] && stacks[t] == STILL_STACK_PENDING)
			continue; /* cannot happen: its capture was not in this tick */
		samples++;
		if (still[t]) {
			hold_sample(tk->walks[t].known, refs[t], stacks[t], tick_us);
			continue;
		}
		refs[n] = refs[t];
		const struct sig_walk *w = &tk->walks[t];
		uint32_t on = credit_on_cpu(w->known, period_ns, w->captured && w->blocked, w->captured && w->woke,
					    w->kernel_periods);
		if (on > 1)
			owe_cpu(refs[t], stacks[t], tick_us, on - 1);
		stacks[n] = cs_tick_stack_state(stacks[t], on == 0);
		n++;
	}
	for (uint32_t t = 0; t < nslots; t++) {
		const struct sig_walk *slot = &tk->walks[t];
		/* the ticks its thread sat with the signal pending: not running */
		for (uint32_t k = 1; slot->captured && k < slot->weight && n < 2 * TICK_MAX_WALKS; k++) {
			refs[n] = sym_thread(slot->thread);
			stacks[n] = cs_tick_stack_state(slot_stacks[t], true);
			n++;
			samples++;
		}
	}
	rec.stats.ticks++;
	rec.stats.samples += samples;
	write_tick(refs, stacks, n, tick_us, tk->suspend_ns, now_ns);
}

void samples_end_tick(struct tick *t, uint64_t lap_ns)
{
	samples_record(t, lap_ns);
	t->stats->record_ns += tick_lap(&lap_ns);
	samples_publish(lap_ns);
}

static void publish_now(void)
{
	struct sig_stats sig = sigsampler_stats();
	rec.stats.signals = sig.signals;
	rec.stats.signals_waiting = sig.found_waiting;
	rec.stats.waiting_read = sig.waiting_read;
	rec.stats.kernel_samples = sig.kernel_samples;
	rec.stats.kernel_lost = sig.kernel_lost;
	rec.stats.beyond_copy = sig.kernel_truncated + sig.past_copy;
	rec.stats.unwind_ns = sig.unwind_ns;
	rec.stats.handler_cpu_ns = sigsampler_handler_ns();
	rec.stats.parked_kept = still_stats().parked_kept;
	struct async_counts ac = async_counts();
	rec.stats.async_resolved = ac.resolved;
	rec.stats.async_unresolved = 0;
	for (int k = 0; k < AW_STATUSES; k++)
		rec.stats.async_unresolved += ac.unresolved[k];
	rec.stats.async_ns = ac.ns;
	uint64_t now = agent_mono_ns(), cpu;
	if (now - rec.cpu_read_ns >= OWN_CPU_EVERY_NS && (cpu = agent_clock_ns(CLOCK_THREAD_CPUTIME_ID))) {
		rec.cpu_read_ns = now;
		rec.stats.sampler_cpu_ns = cpu;
	}
	struct cs_status status = rec.stats; /* (the checks of reads in place are the signal sampler's) */
	status.stack_checks += sig.waiting_checks;
	status.stack_mismatches += sig.waiting_mismatches;
	lw_set_sampler_stats(&status);
}

void samples_idle(uint32_t rate_hz)
{
	rec.rate_hz = rate_hz;
	stage_commit(true); /* what was staged before sampling stopped */
	if (rec.published_ns) { /* ... and its last counts */
		publish_now();
		rec.published_ns = 0;
	}
}

void samples_end(uint32_t rate_hz)
{
	rec.rate_hz = rate_hz;
	stage_commit(false);
	write_holds(true); /* whatever is still open: the log ends here */
}

void samples_publish(uint64_t now_ns)
{
	if (now_ns - rec.published_ns < PUBLISH_EVERY_NS)
		return;
	rec.published_ns = now_ns;
	publish_now();
}

void samples_publish_last(void)
{
	rec.cpu_read_ns = 0;
	publish_now();
}
