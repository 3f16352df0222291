/* The guard between the sampler thread's IDs and the runtime's unloads
 * (see unloads.h).
 *
 * The unload waits on a plain mutex: ModuleUnloadStarted comes in
 * preemptive mode (Module::Destruct, on the finalizer thread), so a
 * suspension the sampler thread makes while it holds the guard does not
 * wait for the unloading thread, and the sampler thread takes the guard
 * holding nothing of the runtime's. */
#include "agent/symbols/unloads.h"

#include <pthread.h>

#include "agent/unwind/codemap.h"

static struct {
	pthread_mutex_t mu;
	bool sampler;     /* the sampler thread runs */
	uint64_t last_ns; /* the latest unload's start */
} u = {.mu = PTHREAD_MUTEX_INITIALIZER};

void unloads_hold(void)
{
	pthread_mutex_lock(&u.mu);
}

void unloads_release(void)
{
	pthread_mutex_unlock(&u.mu);
}

void unloads_sampler_running(bool on)
{
	u.sampler = on;
}

uint64_t unloads_last_ns(void)
{
	return u.last_ns;
}

void unloads_module(void (*flush)(void))
{
	pthread_mutex_lock(&u.mu);
	u.last_ns = agent_mono_ns();
	codemap_code_unloaded();
	if (u.sampler && flush)
		flush();
	pthread_mutex_unlock(&u.mu);
}
