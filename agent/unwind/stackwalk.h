/* Copying a thread's FunctionIDs with DoStackSnapshot: shared by the
 * sampler (other threads, runtime suspended) and the exception callback
 * (the current thread, synchronously). */
#ifndef CLRSCOPE_AGENT_STACKWALK_H
#define CLRSCOPE_AGENT_STACKWALK_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"

struct walk {
	FunctionID *frames; /* innermost first, as the runtime reports them */
	uint32_t n, cap;
	bool truncated;
	/* optional, beside frames: the instruction each frame is at (the
	 * innermost one's ip, the others' return address minus one), for
	 * source lines */
	uint64_t *addrs;
	bool started; /* a frame was reported */
};

/* The StackSnapshotCallback: one 0 per run of native frames; stops the
 * walk (S_FALSE) when the buffer is full. */
HRESULT walk_frame(FunctionID fn, UINT_PTR ip, COR_PRF_FRAME_INFO frame, ULONG32 context_size, BYTE context[],
		   void *client) AGENT_HIDDEN;

/* Whether the walk found any managed frame. */
bool walk_has_managed(const struct walk *w) AGENT_HIDDEN;

#endif
