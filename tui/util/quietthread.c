/* Helper threads without signals (see quietthread.h). */
#include "util/quietthread.h"

#include <signal.h>

int quiet_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg, const char *name)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old); /* the new thread inherits the mask */
	int rc = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		pthread_setname_np(*thread, name);
	return rc;
}
