#include "agent/events/eventpipe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "agent/events/gcstream.h"
#include "agent/events/instrument.h"
#include "common/dials.h"

/* Microsoft-Windows-DotNETRuntime keywords (ClrEtwAll.man) */
#define KW_GC UINT64_C(0x1)
#define KW_CONTENTION UINT64_C(0x4000)
#define KW_EXCEPTION UINT64_C(0x8000)
#define KW_THREADING UINT64_C(0x10000)
#define KW_WAIT_HANDLE UINT64_C(0x40000000000)
#define KW_ALLOCATION_SAMPLING UINT64_C(0x80000000000)
#define KW_TYPE_DIAGNOSTIC UINT64_C(0x8000000000) /* TypeLoadStart/Stop: activity.c's [type loading] */

/* The kinds the stream delivers, and the level each needs: a session's
 * level is one for all its keywords, so the verbose wait events get a
 * session of their own rather than bring the GC keyword's verbose
 * allocation ticks along. */
enum { SESSION_INFO, SESSION_VERBOSE, SESSIONS };
#define STREAM_KINDS (CS_EV_GC | CS_EV_EXCEPTIONS | CS_EV_CONTENTION | CS_EV_WAITS | CS_EV_THREADPOOL | CS_EV_ALLOCSAMPLES)

static const WCHAR provider_name[] = u"Microsoft-Windows-DotNETRuntime";

static struct {
	pthread_mutex_t mu;
	bool probed, available;
	struct {
		bool open;
		EVENTPIPE_SESSION id;
		uint64_t keywords;
	} sessions[SESSIONS];
} ep = {.mu = PTHREAD_MUTEX_INITIALIZER};

static _Atomic uint32_t covered;

bool eventpipe_available(void)
{
	pthread_mutex_lock(&ep.mu);
	if (!ep.probed) {
		ICorProfilerInfo10 *info = g_agent.info;
		void *info12 = NULL;
		ep.available = SUCCEEDED(info->vtbl->QueryInterface(info, &IID_ICorProfilerInfo12, &info12)) &&
			       info12;
		if (info12)
			info->vtbl->Release(info);
		ep.probed = true;
	}
	bool available = ep.available;
	pthread_mutex_unlock(&ep.mu);
	return available;
}

bool eventpipe_covers(uint32_t kind)
{
	return atomic_load_explicit(&covered, memory_order_relaxed) & kind;
}

static uint64_t keywords_of(int session, uint32_t kinds, bool labels)
{
	uint64_t kw = 0;
	if (session == SESSION_VERBOSE)
		return kinds & CS_EV_WAITS ? KW_WAIT_HANDLE : 0;
	if (labels) /* whatever the kinds: it labels samples */
		kw |= KW_TYPE_DIAGNOSTIC;
	if (kinds & CS_EV_GC)
		kw |= KW_GC;
	if (kinds & CS_EV_EXCEPTIONS)
		kw |= KW_EXCEPTION;
	if (kinds & CS_EV_CONTENTION)
		kw |= KW_CONTENTION;
	if (kinds & CS_EV_THREADPOOL)
		kw |= KW_THREADING;
	if (kinds & CS_EV_ALLOCSAMPLES)
		kw |= KW_ALLOCATION_SAMPLING;
	return kw;
}

static uint32_t kinds_of(int session)
{
	return session == SESSION_VERBOSE ? CS_EV_WAITS : STREAM_KINDS & ~CS_EV_WAITS;
}

/* One session to the keywords kw (none: stopped); ep.mu held. */
static HRESULT set_session(int i, uint64_t kw)
{
	ICorProfilerInfo10 *info = g_agent.info;
	if (ep.sessions[i].open && kw == ep.sessions[i].keywords)
		return S_OK;
	/* A session's keywords are fixed: a change is a new session.  Stopped
	 * first, so that no event arrives twice. */
	if (ep.sessions[i].open) {
		atomic_fetch_and(&covered, ~kinds_of(i));
		info->vtbl->EventPipeStopSession(info, ep.sessions[i].id);
		ep.sessions[i].open = false;
		if (i == SESSION_INFO)
			gcs_reset();
	}
	if (!kw)
		return S_OK;
	COR_PRF_EVENTPIPE_PROVIDER_CONFIG cfg = {
		provider_name, kw, i == SESSION_VERBOSE ? COR_PRF_EVENTPIPE_VERBOSE : COR_PRF_EVENTPIPE_INFORMATIONAL, NULL};
	HRESULT hr = info->vtbl->EventPipeStartSession(info, 1, &cfg, FALSE, &ep.sessions[i].id);
	if (SUCCEEDED(hr)) {
		ep.sessions[i].open = true;
		ep.sessions[i].keywords = kw;
	}
	return hr;
}

uint32_t eventpipe_apply(uint32_t kinds, bool labels, char *why, size_t whylen)
{
	if (why && whylen)
		why[0] = 0;
	if (!eventpipe_available())
		return 0;
	if (instr_configured()) {
		/* instrumentation keeps the exception callbacks on, which beside a
		 * session make the runtime abort (see compute_mask in eventmask.c) */
		if (why && kinds & STREAM_KINDS & ~CS_EV_EXCEPTIONS)
			snprintf(why, whylen, "is off in a process started with --instrument");
		return 0;
	}
	pthread_mutex_lock(&ep.mu);
	for (int i = 0; i < SESSIONS; i++) {
		HRESULT hr = set_session(i, keywords_of(i, kinds, labels));
		if (SUCCEEDED(hr))
			atomic_fetch_or(&covered, kinds & kinds_of(i));
		else if (why)
			snprintf(why, whylen, "the runtime refused an event session (0x%08x)", (unsigned)hr);
	}
	atomic_fetch_and(&covered, kinds);
	pthread_mutex_unlock(&ep.mu);
	return atomic_load(&covered);
}
