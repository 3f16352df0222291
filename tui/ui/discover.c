/* The discovery thread (see discover.h). */
#include "ui/discover.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/quietthread.h"
#include "util/xalloc.h"

struct discovery {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool requested, stopping;
	struct dotnet_proc *ready; /* the newest list not yet taken */
	size_t nready;
	bool have_ready;
	int pipe[2]; /* a byte per list made */
};

static void *discover_main(void *arg)
{
	struct discovery *d = arg;
	pthread_mutex_lock(&d->lock);
	for (;;) {
		while (!d->requested && !d->stopping)
			pthread_cond_wait(&d->wake, &d->lock);
		if (d->stopping)
			break;
		d->requested = false;
		pthread_mutex_unlock(&d->lock);
		struct dotnet_proc *procs;
		size_t n = procs_list(&procs);
		pthread_mutex_lock(&d->lock);
		if (d->have_ready)
			procs_free(d->ready, d->nready);
		d->ready = procs;
		d->nready = n;
		d->have_ready = true;
		char byte = 1;
		if (write(d->pipe[1], &byte, 1) < 0) {
			/* full: the reader has bytes enough to wake up */
		}
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

struct discovery *discover_start(char *err, size_t errlen)
{
	struct discovery *d = xcalloc(1, sizeof *d);
	if (pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(err, errlen, "cannot make a pipe for the process list: %s", strerror(errno));
		free(d);
		return NULL;
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->wake, NULL);
	d->requested = true;
	int rc = quiet_thread_start(&d->thread, discover_main, d, "clrscope-procs");
	if (rc != 0) {
		snprintf(err, errlen, "cannot start the process list thread: %s", strerror(rc));
		close(d->pipe[0]);
		close(d->pipe[1]);
		pthread_cond_destroy(&d->wake);
		pthread_mutex_destroy(&d->lock);
		free(d);
		return NULL;
	}
	return d;
}

void discover_request(struct discovery *d)
{
	pthread_mutex_lock(&d->lock);
	d->requested = true;
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->lock);
}

int discover_fd(const struct discovery *d)
{
	return d->pipe[0];
}

long discover_take(struct discovery *d, struct dotnet_proc **out)
{
	char buf[64];
	while (read(d->pipe[0], buf, sizeof buf) > 0) {
	}
	pthread_mutex_lock(&d->lock);
	long n = -1;
	if (d->have_ready) {
		*out = d->ready;
		n = (long)d->nready;
		d->ready = NULL;
		d->have_ready = false;
	}
	pthread_mutex_unlock(&d->lock);
	return n;
}

void discover_stop(struct discovery *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->stopping = true;
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	if (d->have_ready)
		procs_free(d->ready, d->nready);
	close(d->pipe[0]);
	close(d->pipe[1]);
	pthread_cond_destroy(&d->wake);
	pthread_mutex_destroy(&d->lock);
	free(d);
}
