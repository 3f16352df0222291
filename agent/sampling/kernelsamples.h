/* Samples the kernel takes of a running thread: a perf_event software
 * task clock per thread that fires each time the thread has used a
 * sampling period of CPU time, with its user registers and a copy of the
 * top of its user stack, written into a ring this process maps (what
 * `perf record` asks for).  No signal, no handler, nothing in the thread
 * itself, and never for a thread that waits (its task clock stands
 * still).  Where the kernel refuses (kernel.perf_event_paranoid above 2,
 * a seccomp filter, the locked-memory limit), the sampler signals the
 * thread instead.  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_KERNELSAMPLES_H
#define CLRSCOPE_AGENT_KERNELSAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent/agent.h"

/* The stack bytes each sample copies (the kernel's limit is just under
 * 64 KiB; a ring holds three samples and most of a fourth). */
#define KS_STACK_BYTES 32768u

struct ks_thread {
	int fd; /* descriptor + 1; 0: none */
	void *ring;
	uint64_t period_ns;
};

/* Starts sampling OS thread tid every period_ns of its CPU time; false
 * (why says why) when the kernel refuses. */
bool ks_open(struct ks_thread *t, pid_t tid, uint64_t period_ns, char *why, size_t whylen) AGENT_HIDDEN;
void ks_close(struct ks_thread *t) AGENT_HIDDEN;
/* A new sampling period (the rate dial); false when refused. */
bool ks_set_period(struct ks_thread *t, uint64_t period_ns) AGENT_HIDDEN;

struct ks_sample {
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	uint64_t ip, sp, bp;
	uint32_t len; /* stack bytes copied into the caller's buffer */
	bool user;    /* the registers are user mode's (false: a kernel thread's, no sample) */
};
/* Consumes every sample in the ring and returns how many there were; the
 * latest one is in *out, its stack in stack[0..out->len) (cap bytes at
 * most).  Lost samples (a full ring) are counted in *lost. */
uint32_t ks_drain(struct ks_thread *t, struct ks_sample *out, uint8_t *stack, uint32_t cap, uint64_t *lost) AGENT_HIDDEN;

#endif
