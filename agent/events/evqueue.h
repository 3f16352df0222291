/* Runtime events on their way from application threads to the sampler
 * thread, which names them (symbols.c is single-threaded: a module's unload
 * names them in its place, holding the unload guard) and logs them.
 * An application thread only copies an item in under a short mutex, and an
 * item that does not fit is dropped and counted. */
#ifndef CLRSCOPE_AGENT_EVQUEUE_H
#define CLRSCOPE_AGENT_EVQUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"

#define EVQ_MAX_FRAMES 64
#define EVQ_MAX_TEXT 512

struct ev_item {
	uint16_t type; /* CS_REC_EXCEPTION, CATCH, JIT, MODULE, THREAD_EVENT, CONTENTION, WAIT */
	uint8_t kind;
	uint16_t nframes;  /* FunctionIDs that follow, innermost first */
	uint16_t text_len; /* bytes of text that follow the frames */
	uint32_t os_tid; /* a wait's source (WAIT) */
	uint64_t time_us, duration_us; /* duration: nanoseconds for CONTENTION and WAIT, bytes for ALLOC_SAMPLE */
	ThreadID thread;
	UINT_PTR id; /* FunctionID (catch, jit), ClassID (exception), object size (ALLOC_SAMPLE) */
};

int evq_init(void) AGENT_HIDDEN;
bool evq_push(const struct ev_item *item, const FunctionID *frames, const char *text) AGENT_HIDDEN;
typedef void (*evq_visit)(const struct ev_item *item, const FunctionID *frames, const char *text, void *ctx);
/* Hands every queued item to visit, oldest first. */
void evq_drain(evq_visit visit, void *ctx) AGENT_HIDDEN;
uint64_t evq_dropped(void) AGENT_HIDDEN;

#endif
