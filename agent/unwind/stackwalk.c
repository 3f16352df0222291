#include "agent/unwind/stackwalk.h"

HRESULT walk_frame(FunctionID fn, UINT_PTR ip, COR_PRF_FRAME_INFO frame, ULONG32 context_size, BYTE context[],
		   void *client)
{
	(void)frame, (void)context_size, (void)context;
	struct walk *w = client;
	/* the first frame is where the thread is; the others are at a call */
	uint64_t addr = w->started && ip ? (uint64_t)ip - 1 : (uint64_t)ip;
	w->started = true;
	if (fn == 0 && w->n && w->frames[w->n - 1] == 0)
		return S_OK;
	if (w->n == w->cap) {
		w->truncated = true;
		return S_FALSE;
	}
	if (w->addrs)
		w->addrs[w->n] = addr;
	w->frames[w->n++] = fn;
	return S_OK;
}

bool walk_has_managed(const struct walk *w)
{
	for (uint32_t i = 0; i < w->n; i++)
		if (w->frames[i])
			return true;
	return false;
}
