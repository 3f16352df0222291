/* sigcost [RATE] [SECONDS]: the CPU time a timer's signal costs a thread
 * that is parked in a futex wait when it comes: the thread wakes, runs an
 * empty handler and waits again.  The mixed sampler signals each thread
 * that ran since the last tick and could not be proven back in its wait,
 * so a worker that handled a request and parked again pays this for its
 * capture, on top of the handler's own copy (which the agent counts).
 * Run it pinned to one CPU (taskset -c 0), as the server is. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "benchargs.h"

static atomic_int parked_word;   /* never changes: the thread waits on it for good */
static atomic_int parked_tid;
static atomic_long signals_seen;
static clockid_t parked_clock;

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add_explicit(&signals_seen, 1, memory_order_relaxed);
}

static void *park(void *arg)
{
	(void)arg;
	pthread_getcpuclockid(pthread_self(), &parked_clock);
	atomic_store(&parked_tid, (int)syscall(SYS_gettid));
	for (;;) /* the handler's return restarts the wait (SA_RESTART) */
		syscall(SYS_futex, &parked_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	return NULL;
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc > 3) {
		fprintf(stderr, "usage: sigcost [RATE] [SECONDS]\n");
		return 2;
	}
	unsigned rate = argc > 1 ? bench_positive("sigcost", argv[1], "RATE", 100000) : 1000;
	unsigned seconds = argc > 2 ? bench_positive("sigcost", argv[2], "SECONDS", 600) : 2;
	int signo = SIGRTMIN + 4;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(signo, &sa, NULL);
	pthread_t thread;
	int err = pthread_create(&thread, NULL, park, NULL);
	if (err) {
		fprintf(stderr, "sigcost: no second thread: %s\n", strerror(err));
		return 1;
	}
	while (!atomic_load(&parked_tid))
		usleep(1000);
	usleep(10000); /* in its wait */
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = signo;
	ev._sigev_un._tid = atomic_load(&parked_tid);
	timer_t timer;
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) {
		fprintf(stderr, "sigcost: timer_create: %s\n", strerror(errno));
		return 1;
	}
	long period = 1000000000L / (long)rate;
	struct itimerspec every = {{period / 1000000000L, period % 1000000000L}, {period / 1000000000L, period % 1000000000L}};
	uint64_t cpu0 = clock_ns(parked_clock);
	timer_settime(timer, 0, &every, NULL);
	sleep(seconds);
	static const struct itimerspec off;
	timer_settime(timer, 0, &off, NULL);
	usleep(10000); /* the last one handled */
	uint64_t cpu = clock_ns(parked_clock) - cpu0;
	long n = atomic_load(&signals_seen);
	if (!n) {
		fprintf(stderr, "sigcost: no signal arrived\n");
		return 1;
	}
	printf("a signal to a parked thread, %u a second: %.1f us of that thread's CPU each (%ld signals, %.1f %% of a CPU)\n",
	       rate, (double)cpu / 1000.0 / (double)n, n, 100.0 * (double)cpu / 1e9 / seconds);
	return 0;
}
