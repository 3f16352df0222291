/* Stopping and detaching the agent (see lifecycle.h). */
#include "agent/runtime/lifecycle.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "agent/events/allocs.h"
#include "agent/events/eventmask.h"
#include "agent/events/heapsnap.h"
#include "agent/events/instrument.h"
#include "agent/log/logwriter.h"
#include "agent/sampling/sampler.h"
#include "common/records.h"

/* Starting, stopping and detaching happen under one lock: Shutdown (a
 * runtime thread) and a detach (the control thread) may come at once, and
 * neither may join what the other stops or restart what it stopped. */
static pthread_mutex_t life_mu = PTHREAD_MUTEX_INITIALIZER;
static bool running; /* threads started and not yet stopped */

void life_started(void)
{
	pthread_mutex_lock(&life_mu);
	running = true;
	pthread_mutex_unlock(&life_mu);
}

void life_stop(uint8_t reason, const char *why)
{
	pthread_mutex_lock(&life_mu);
	if (!running) { /* the other of Shutdown and a detach was first */
		pthread_mutex_unlock(&life_mu);
		return;
	}
	running = false;
	heapsnap_stop();
	sampler_stop(500);
	if (reason == CS_END_FATAL || reason == CS_END_SIZE_CAP) /* no more callbacks for a log that takes nothing */
		evmask_stop();
	lw_stop(reason, why);
	if (g_agent.lock_fd >= 0)
		close(g_agent.lock_fd);
	g_agent.lock_fd = -1;
	pthread_mutex_unlock(&life_mu);
}

static int detach_locked(uint64_t generation, uint32_t rate_hz, bool sampling, char *why, size_t whylen)
{
	ICorProfilerInfo10 *info = g_agent.info;
	if (!running) {
		snprintf(why, whylen, "cannot detach: the profiler has stopped (the runtime is shutting down)");
		return -1;
	}
	if (instr_configured() || allocs_configured()) {
		snprintf(why, whylen, "cannot detach: this program was started with %s, which the runtime cannot undo; "
				      "pause recording with the %s=off dial instead",
			 instr_configured() ? "--instrument (enter/leave hooks)" : "--allocations",
			 instr_configured() ? "instrument" : "allocations");
		return -1;
	}
	uint32_t kinds = evmask_enabled();
	char ignored[64];
	heapsnap_stop();
	evmask_stop();
	if (sampler_stop(2000) < 0) {
		snprintf(why, whylen, "cannot detach: the sampler did not stop in time");
		evmask_apply(kinds, ignored, sizeof ignored);
		return -1;
	}
	/* our threads are stopped: the runtime may check for the unload soon
	 * (0 would mean 5 s, and a new attach waits for the old detach) */
	HRESULT hr = info->vtbl->RequestProfilerDetach(info, 200);
	if (FAILED(hr)) {
		snprintf(why, whylen, "the runtime refused to detach (0x%08x%s); profiling goes on", (unsigned)hr,
			 hr == CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT ? ": instrumentation cannot be undone" : "");
		evmask_apply(kinds, ignored, sizeof ignored);
		sampler_start(rate_hz, sampling);
		return -1;
	}
	agent_debug("detach requested (generation %llu)", (unsigned long long)generation);
	return 0;
}

bool life_hold_running(void)
{
	pthread_mutex_lock(&life_mu);
	if (running)
		return true;
	pthread_mutex_unlock(&life_mu);
	return false;
}

void life_release(void)
{
	pthread_mutex_unlock(&life_mu);
}

int life_detach(uint64_t generation, uint32_t rate_hz, bool sampling, char *why, size_t whylen)
{
	pthread_mutex_lock(&life_mu);
	int rc = detach_locked(generation, rate_hz, sampling, why, whylen);
	pthread_mutex_unlock(&life_mu);
	return rc;
}
