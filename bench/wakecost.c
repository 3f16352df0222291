/* wakecost [PERIOD_US] [COUNT]: the CPU time a thread uses to sleep for a
 * period and wake up again, on this machine, alone on its CPU and beside a
 * thread that keeps that CPU busy.  A sampler that wakes every tick pays
 * this much for each tick before doing any work (so does EventPipe's, which
 * sleeps between its samples too); on a virtual machine it is many times
 * what it is on bare metal.  Also what reading another thread's CPU clock
 * costs (a system call): the mixed sampler's survey reads one per thread
 * each tick to learn which threads ran.  Run it pinned to one CPU (taskset
 * -c 0) for the figure "beside a busy thread" to mean one that shares its
 * CPU. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchargs.h"

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static atomic_bool spinning;

static void *spin(void *arg)
{
	(void)arg;
	while (atomic_load_explicit(&spinning, memory_order_relaxed))
		;
	return NULL;
}

/* A thread that waits for good (a read of a pipe nobody writes to), as
 * most of a server's threads do between two ticks. */
static void *wait_for_good(void *arg)
{
	char c;
	while (read(*(int *)arg, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* The CPU time one read of a waiting thread's CPU clock takes, in
 * microseconds; negative when there is no such thread to read. */
static double clock_read_us(unsigned count)
{
	int fds[2];
	if (pipe(fds) != 0)
		return -1;
	pthread_t waiter;
	if (pthread_create(&waiter, NULL, wait_for_good, &fds[0]) != 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	clockid_t clock;
	double us = -1;
	if (pthread_getcpuclockid(waiter, &clock) == 0) {
		uint64_t cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		for (unsigned i = 0; i < count; i++)
			clock_ns(clock);
		us = (double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / 1000.0 / count;
	}
	close(fds[1]); /* its read returns 0: it ends */
	pthread_join(waiter, NULL);
	close(fds[0]);
	return us;
}

/* The CPU time per sleep of period_ns and wake-up, in microseconds. */
static double cpu_per_wake_us(uint64_t period_ns, unsigned count)
{
	uint64_t cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), next = clock_ns(CLOCK_MONOTONIC);
	for (unsigned i = 0; i < count; i++) {
		next += period_ns;
		struct timespec until = {(time_t)(next / 1000000000ull), (long)(next % 1000000000ull)};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
			;
	}
	return (double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / 1000.0 / count;
}

int main(int argc, char **argv)
{
	if (argc > 3) {
		fprintf(stderr, "usage: wakecost [PERIOD_US] [COUNT]\n");
		return 2;
	}
	uint64_t period_ns = (argc > 1 ? bench_positive("wakecost", argv[1], "PERIOD_US", 1000000) : 1000) * 1000ull;
	unsigned count = argc > 2 ? bench_positive("wakecost", argv[2], "COUNT", 1000000) : 2000;
	double alone = cpu_per_wake_us(period_ns, count);
	atomic_store(&spinning, true);
	pthread_t busy;
	int err = pthread_create(&busy, NULL, spin, NULL);
	if (err) {
		fprintf(stderr, "wakecost: no second thread: %s\n", strerror(err));
		return 1;
	}
	double beside = cpu_per_wake_us(period_ns, count);
	atomic_store(&spinning, false);
	pthread_join(busy, NULL);
	double per_s = 1e9 / (double)period_ns;
	printf("sleep %llu us and wake: %.1f us of CPU alone (%.1f %% of a CPU), %.1f us beside a busy thread (%.1f %%)\n",
	       (unsigned long long)(period_ns / 1000), alone, alone * per_s / 1e4, beside, beside * per_s / 1e4);
	double read_us = clock_read_us(100000);
	if (read_us >= 0)
		printf("read a waiting thread's CPU clock: %.2f us of CPU (once a tick for 10 threads: %.2f %% of a CPU)\n",
		       read_us, 10 * read_us * per_s / 1e4);
	return 0;
}
