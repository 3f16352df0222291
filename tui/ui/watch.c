#include <stddef.h>

#include "ui/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <inotifytools/inotify.h>
#include <inotifytools/inotifytools.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EVENTS (IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE)

static struct {
	pthread_t thread;
	int pipe[2];
	atomic_bool stop;
	bool running;
	char wake[64]; /* a directory of ours: a file made in it wakes the thread at once */
} w = {.pipe = {-1, -1}};

static void *watch_main(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!atomic_load(&w.stop)) {
		struct inotify_event *e = inotifytools_next_event(1);
		if (!e)
			continue;
		if ((e->mask & IN_CREATE) && (e->mask & IN_ISDIR)) {
			/* a new process directory: watch it too */
			char path[4096];
			snprintf(path, sizeof path, "%s%s", inotifytools_filename_from_wd(e->wd), e->name);
			inotifytools_watch_recursively(path, EVENTS);
		}
		char byte = 1;
		if (write(w.pipe[1], &byte, 1) < 0 && errno != EAGAIN)
			break; /* a full pipe already says "look" */
	}
	return NULL;
}

int watch_start(const char *dir, char *err, size_t errlen)
{
	if (!inotifytools_initialize()) {
		snprintf(err, errlen, "cannot watch files: %s", strerror(inotifytools_error()));
		return -1;
	}
	if (!inotifytools_watch_recursively(dir, EVENTS)) {
		snprintf(err, errlen, "cannot watch %s: %s", dir, strerror(inotifytools_error()));
		return -1;
	}
	snprintf(w.wake, sizeof w.wake, "/tmp/clrscope-wake-XXXXXX");
	if (!mkdtemp(w.wake) || !inotifytools_watch_file(w.wake, IN_CREATE))
		w.wake[0] = 0; /* stopping then takes up to a second */
	if (pipe2(w.pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		snprintf(err, errlen, "cannot watch %s: %s", dir, strerror(errno));
		return -1;
	}
	atomic_store(&w.stop, false);
	if (pthread_create(&w.thread, NULL, watch_main, NULL) != 0) {
		snprintf(err, errlen, "cannot start the watcher thread");
		return -1;
	}
	w.running = true;
	return w.pipe[0];
}

int watch_drain(int fd)
{
	char buf[256];
	int total = 0;
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		total += (int)n;
	return total;
}

void watch_stop(void)
{
	if (!w.running)
		return;
	atomic_store(&w.stop, true);
	char poke[96] = "";
	if (w.wake[0]) {
		snprintf(poke, sizeof poke, "%s/stop", w.wake);
		int fd = open(poke, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
	}
	pthread_join(w.thread, NULL); /* woken by the poke, or within a second */
	if (w.wake[0]) {
		unlink(poke);
		rmdir(w.wake);
		w.wake[0] = 0;
	}
	inotifytools_cleanup();
	close(w.pipe[0]);
	close(w.pipe[1]);
	w.pipe[0] = w.pipe[1] = -1;
	w.running = false;
}
