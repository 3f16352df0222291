/* The attach thread (see attaching.h). */
#include "ui/attaching.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/attacher.h"
#include "util/quietthread.h"
#include "util/xalloc.h"

struct attaching {
	pthread_t thread;
	int pipe[2]; /* a byte once the result is in */
	atomic_bool done;
	char *dir, *events;
	unsigned rate;
	struct attach_result result;
};

static void *attaching_main(void *arg)
{
	struct attaching *a = arg;
	struct attach_result *r = &a->result;
	r->rc = attacher_start(r->pid, a->dir, a->rate, a->events, 0, &r->asked_unix_ns, r->session, sizeof r->session,
			       r->err, sizeof r->err);
	atomic_store(&a->done, true);
	char byte = 1;
	if (write(a->pipe[1], &byte, 1) < 0) {
		/* cannot fail on an empty pipe; the UI also polls done */
	}
	return NULL;
}

static void attaching_free(struct attaching *a)
{
	close(a->pipe[0]);
	close(a->pipe[1]);
	free(a->dir);
	free(a->events);
	free(a);
}

struct attaching *attaching_start(pid_t pid, const char *dir, unsigned rate, const char *events, char *err,
				  size_t errlen)
{
	struct attaching *a = xcalloc(1, sizeof *a);
	if (pipe2(a->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(err, errlen, "cannot make a pipe to attach with: %s", strerror(errno));
		free(a);
		return NULL;
	}
	a->dir = dir ? xstrdup(dir) : NULL;
	a->events = events ? xstrdup(events) : NULL;
	a->rate = rate;
	a->result.pid = pid;
	int rc = quiet_thread_start(&a->thread, attaching_main, a, "clrscope-attach");
	if (rc != 0) {
		snprintf(err, errlen, "cannot start a thread to attach with: %s", strerror(rc));
		attaching_free(a);
		return NULL;
	}
	return a;
}

pid_t attaching_pid(const struct attaching *a)
{
	return a->result.pid;
}

int attaching_fd(const struct attaching *a)
{
	return a->pipe[0];
}

bool attaching_take(struct attaching *a, struct attach_result *out)
{
	if (!atomic_load(&a->done))
		return false;
	pthread_join(a->thread, NULL);
	*out = a->result;
	attaching_free(a);
	return true;
}

void attaching_stop(struct attaching *a)
{
	if (!a)
		return;
	if (!atomic_load(&a->done)) {
		/* the runtime may keep it until its request times out: the UI
		 * is leaving, and the thread ends with the process */
		pthread_detach(a->thread);
		return;
	}
	pthread_join(a->thread, NULL);
	attaching_free(a);
}
