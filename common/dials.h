/* Dials: what clrscope asks a running agent to do.  One syntax serves the
 * command line (clrscope dial), the TUI's prompt and the dials file:
 *
 *   sampling=on|off   rate=HZ   events=+gc,-jit,...   flush_ms=N
 *   sampler=mixed|kernel|suspend|signal   instrument=on|off   allocations=on|off
 *   snapshot=heap|awaits   validate=N   async=on|off   detach
 *
 * instrument and allocations pause or resume recording of what the program
 * was started with (--instrument, --allocations).  snapshot=heap is a
 * request, not a state: it counts up "snapshots", and the agent takes a heap
 * snapshot whenever that count passes the last one it took (snapshot=awaits
 * likewise counts up "await_snapshots").  async
 * switches the logical stacks of async methods (on by default).
 *
 * The dials file (PROCESS_DIR/dials, written by clrscope with a new file and
 * a rename) holds the whole desired state and a generation number:
 *
 *   generation 7
 *   sampling=on
 *   rate=500
 *   events=gc,exceptions,modules,threads,contention,waits,threadpool,allocsamples
 *   flush_ms=100
 *
 * clrscope then posts the agent's named semaphore; the agent re-reads the
 * file, applies it, and answers with a DIALS record (records.h). */
#ifndef CLRSCOPE_DIALS_H
#define CLRSCOPE_DIALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CS_DIALS_FILE "dials"
#define CS_FLUSH_MS_MIN 10
#define CS_FLUSH_MS_MAX 10000
#define CS_FLUSH_MS_DEFAULT 100
#define CS_VALIDATE_MAX 1000000
#define CS_VALIDATE_DEFAULT 1000

/* Runtime event kinds, as bits. */
enum cs_event_kind {
	CS_EV_GC = 1u << 0,
	CS_EV_EXCEPTIONS = 1u << 1,
	CS_EV_JIT = 1u << 2,
	CS_EV_MODULES = 1u << 3,
	CS_EV_THREADS = 1u << 4,
	CS_EV_CONTENTION = 1u << 5, /* lock contention (the runtime's event stream only) */
	CS_EV_WAITS = 1u << 6,      /* blocking WaitHandle waits (event stream, .NET 9+) */
	CS_EV_THREADPOOL = 1u << 7, /* thread pool workers and adjustments (event stream) */
	CS_EV_ALLOCSAMPLES = 1u << 8, /* sampled allocations with their stacks (event stream, .NET 10+) */
};
#define CS_EV_ALL                                                                                                \
	(CS_EV_GC | CS_EV_EXCEPTIONS | CS_EV_JIT | CS_EV_MODULES | CS_EV_THREADS | CS_EV_CONTENTION | CS_EV_WAITS | \
	 CS_EV_THREADPOOL | CS_EV_ALLOCSAMPLES)
#define CS_EV_DEFAULT CS_EV_ALL

/* Name of one kind ("gc") or NULL. */
const char *cs_event_name(uint32_t kind);
/* Writes "gc,exceptions" (or "none") into out. */
void cs_events_format(uint32_t kinds, char *out, size_t n);

/* How the agent takes a tick (see agent/sampling/sampler.h). */
enum cs_sampler { CS_SAMPLER_SUSPEND = 0, CS_SAMPLER_SIGNAL = 1, CS_SAMPLER_MIXED = 2, CS_SAMPLER_KERNEL = 3 };
/* "suspend", "signal", "mixed", "kernel"; -1 from the parser for anything else. */
const char *cs_sampler_name(uint8_t sampler);
int cs_sampler_parse(const char *name);

struct cs_dials {
	uint64_t generation;
	bool sampling;
	uint8_t sampler; /* cs_sampler */
	uint32_t rate_hz;
	uint32_t events; /* CS_EV_* bits */
	uint32_t flush_ms;
	bool instrument;    /* record calls of instrumented functions */
	bool allocations;   /* count allocations by type */
	uint32_t snapshots; /* heap snapshots asked for so far */
	uint32_t await_snapshots; /* awaits snapshots asked for so far */
	uint32_t validate;  /* every Nth fast walk of a thread repeated exactly (0: never) */
	bool async;         /* samples of resumed async methods get their logical stacks */
	bool detach;
};

void cs_dials_default(struct cs_dials *d, uint32_t rate_hz);

/* Applies one "key=value" (or "detach") to d.  Values are validated; on a
 * bad one, d is unchanged, -1 is returned and err says what is wrong. */
int cs_dials_assign(struct cs_dials *d, const char *assignment, char *err, size_t errlen);

/* The whole state as file text (generation line first). */
size_t cs_dials_format(const struct cs_dials *d, char *out, size_t n);
/* The state as one line: "sampling=on rate=500 events=gc,jit flush_ms=100 ...". */
void cs_dials_summary(const struct cs_dials *d, char *out, size_t n);
/* Applies the words of such a line (len bytes, no NUL needed) to d; a word
 * that is not a valid dial (a newer agent's) is passed over.  Returns how
 * many words were applied. */
int cs_dials_apply_summary(struct cs_dials *d, const char *line, size_t len);

/* Parses file text into d (starting from d's current values).  Returns -1
 * with err (naming the line) on the first bad line; d is then unchanged. */
int cs_dials_parse(struct cs_dials *d, const char *text, size_t len, char *err, size_t errlen);

/* Reads DIR/dials (a regular file, no symlinks followed, at most 4 KiB) into d. */
int cs_dials_read(int dirfd, struct cs_dials *d, char *err, size_t errlen);
/* Writes d to DIR/dials atomically (a new file, 0600, then rename). */
int cs_dials_write(const char *dir, const struct cs_dials *d, char *err, size_t errlen);

#endif
