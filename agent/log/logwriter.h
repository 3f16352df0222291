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
#include <sys/types.h>

#include "agent/agent.h"
#include "common/records.h"


int lw_start(const char *proc_dir, uint32_t flush_ms) AGENT_HIDDEN;
/* Flushes everything, writes the END record and stops the writer thread. */
void lw_stop(uint8_t end_reason, const char *why) AGENT_HIDDEN;

/* Appends framed records (whole ones only).  Returns false if dropped. */
bool lw_append(const void *records, size_t len, uint32_t nrecords) AGENT_HIDDEN;
/* The same for a producer that may wait (never the runtime's threads):
 * while the buffer is full it wakes the writer and waits for room, up to
 * timeout_ms; then, or when the records can never fit, drops them. */
bool lw_append_wait(const void *records, size_t len, uint32_t nrecords, uint32_t timeout_ms) AGENT_HIDDEN;
/* Frames one record of the given type from a payload and appends it. */
bool lw_append_record(uint16_t type, const void *payload, size_t len) AGENT_HIDDEN;
/* A line for the session log (a MESSAGE record of level CS_LEVEL_*) and
 * the debug log. */
void lw_message(int level, const char *fmt, ...) AGENT_HIDDEN __attribute__((format(printf, 2, 3)));

void lw_set_flush_ms(uint32_t ms) AGENT_HIDDEN;
/* Wakes the writer now (an acknowledgement someone waits for). */
void lw_flush_soon(void) AGENT_HIDDEN;

/* Bumped whenever anything is dropped: definitions emitted before the
 * current epoch may be lost and must be restated before they are used. */
uint32_t lw_drop_epoch(void) AGENT_HIDDEN;

/* The sampler publishes its counters here: the fields of the STATUS
 * records that are not the writer's own (the time, the drops and write
 * errors, the writer's CPU time, which it fills in itself). */
void lw_set_sampler_stats(const struct cs_status *s) AGENT_HIDDEN;
/* How the writer writes segment bytes: write(2), unless a test puts a
 * full disk or a short write in its place (set before lw_start; NULL:
 * write(2) again). */
typedef ssize_t lw_write_fn(int fd, const void *buf, size_t n);
void lw_set_write(lw_write_fn *fn) AGENT_HIDDEN;
/* Records dropped before they reached the writer (the event queue's),
 * added to the writer's own drops in STATUS.  Set by its owner before the
 * first lw_start; NULL: none. */
void lw_set_drop_counter(uint64_t (*count)(void)) AGENT_HIDDEN;

#endif
