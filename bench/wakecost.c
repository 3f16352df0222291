/* wakecost [PERIOD_US] [COUNT]: the CPU time a thread uses to sleep for a
 * period and wake up again, on this machine, alone on its CPU and beside a
 * thread that keeps that CPU busy.  A sampler that wakes every tick pays
 * this much for each tick before doing any work (so does EventPipe's, which
 * sleeps between its samples too); on a virtual machine it is many times
 * what it is on bare metal.  Also what reading another thread's CPU clock
 * costs (a system call): the mixed sampler's survey reads one per thread
 * each tick to learn which threads ran; and what a context switch costs,
 * plainly and with a counting perf event on each thread (the kernel
 * rewrites such an event's mapped page each time its thread is switched
 * in, which could tell the survey that a thread ran without a system call,
 * but every switch of every watched thread pays for it).  Run it pinned to
 * one CPU (taskset -c 0) for the figure "beside a busy thread" to mean one
 * that shares its CPU, and for the switches to be switches. */
#include <errno.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
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

/* Two threads that hand a turn back and forth through a futex: each hand-
 * over is a wake-up and a switch. */
struct relay {
	atomic_int turn;
	unsigned count;
	bool watched;       /* each side opens a counting perf event on itself */
	atomic_int refused; /* ... and the kernel refused one */
	atomic_int ready;   /* sides past opening their event (if they open one) */
};
#define RELAY_OFF -1 /* the turn when the relay ends before it began */
struct side {
	struct relay *r;
	int me;
};

static void futex_call(atomic_int *word, int op, int val)
{
	syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

static void *relay_side(void *arg)
{
	struct side *sd = arg;
	struct relay *r = sd->r;
	int fd = -1;
	void *page = MAP_FAILED;
	if (r->watched) {
		struct perf_event_attr at = {.size = sizeof at,
					     .type = PERF_TYPE_SOFTWARE,
					     .config = PERF_COUNT_SW_TASK_CLOCK,
					     .exclude_kernel = 1,
					     .exclude_hv = 1};
		fd = (int)syscall(SYS_perf_event_open, &at, 0, -1, -1, 0);
		if (fd >= 0)
			page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
		if (page == MAP_FAILED)
			atomic_fetch_add(&r->refused, 1);
	}
	atomic_fetch_add(&r->ready, 1);
	for (unsigned i = 0; i < r->count; i++) {
		int t;
		while ((t = atomic_load(&r->turn)) != sd->me && t != RELAY_OFF)
			futex_call(&r->turn, FUTEX_WAIT_PRIVATE, t);
		if (t == RELAY_OFF)
			break;
		atomic_store(&r->turn, 1 - sd->me);
		futex_call(&r->turn, FUTEX_WAKE_PRIVATE, 1);
	}
	if (page != MAP_FAILED)
		munmap(page, (size_t)sysconf(_SC_PAGESIZE));
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* The process's CPU time per hand-over, in microseconds; negative when
 * there are no threads for it, or (watched) no perf events. */
static double switch_us(bool watched, unsigned count)
{
	struct relay r = {.turn = 2, .count = count, .watched = watched}; /* (turn 2: nobody's yet) */
	struct side sides[2] = {{&r, 0}, {&r, 1}};
	pthread_t th[2];
	int started = 0;
	for (; started < 2; started++)
		if (pthread_create(&th[started], NULL, relay_side, &sides[started]) != 0)
			break;
	if (started < 2) {
		atomic_store(&r.turn, RELAY_OFF);
		futex_call(&r.turn, FUTEX_WAKE_PRIVATE, 2);
		for (int i = 0; i < started; i++)
			pthread_join(th[i], NULL);
		return -1;
	}
	while (atomic_load(&r.ready) < 2) /* (opening the events is not timed) */
		usleep(1000);
	uint64_t cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	atomic_store(&r.turn, 0);
	futex_call(&r.turn, FUTEX_WAKE_PRIVATE, 2);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	uint64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	return atomic_load(&r.refused) ? -1 : (double)cpu / 1000.0 / (2.0 * count);
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
	double plain = switch_us(false, 50000), watched = switch_us(true, 50000);
	if (plain >= 0 && watched >= 0)
		printf("hand a turn to another thread (a futex wake-up and a switch): %.2f us of CPU, %.2f with a counting "
		       "perf event on each thread (+%.2f)\n",
		       plain, watched, watched - plain);
	else if (plain >= 0)
		printf("hand a turn to another thread (a futex wake-up and a switch): %.2f us of CPU (no perf events here)\n",
		       plain);
	return 0;
}
