/* Buffered, lock-light log output.  Producers copy whole framed records into
 * the active buffer under a short mutex; the writer thread swaps buffers and
 * writes to the segment files when the buffer passes a threshold and at least
 * every flush interval.  When the buffer is full or the disk refuses a write,
 * data is dropped and counted, never waited for. */
#ifndef CLRSCOPE_AGENT_LOGWRITER_H
#define CLRSCOPE_AGENT_LOGWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
#include "common/records.h"

/* Counters other modules contribute to the periodic STATUS record. */
struct lw_sampler_stats {
	uint64_t ticks, samples, suspend_total_ns, suspend_max_ns;
	uint64_t truncated_stacks, failed_walks, deferred_walks;
	uint64_t stack_checks, stack_mismatches;
	uint64_t signals, parked_kept, signals_waiting;
	uint64_t sampler_cpu_ns, handler_cpu_ns; /* see struct cs_status */
	uint64_t unwind_ns, survey_ns, signal_ns, record_ns;
};

int lw_start(const char *proc_dir, uint32_t flush_ms) AGENT_HIDDEN;
/* Flushes everything, writes the END record and stops the writer thread. */
void lw_stop(uint8_t end_reason, const char *why) AGENT_HIDDEN;

/* Appends framed records (whole ones only).  Returns false if dropped. */
bool lw_append(const void *records, size_t len, uint32_t nrecords) AGENT_HIDDEN;
/* Frames one record of the given type from a payload and appends it. */
bool lw_append_record(uint16_t type, const void *payload, size_t len) AGENT_HIDDEN;

void lw_set_flush_ms(uint32_t ms) AGENT_HIDDEN;
/* Wakes the writer now (an acknowledgement someone waits for). */
void lw_flush_soon(void) AGENT_HIDDEN;

/* Bumped whenever anything is dropped: definitions emitted before the
 * current epoch may be lost and must be restated before they are used. */
uint32_t lw_drop_epoch(void) AGENT_HIDDEN;

/* The sampler publishes its counters here (copied into STATUS records). */
void lw_set_sampler_stats(const struct lw_sampler_stats *s) AGENT_HIDDEN;

#endif
