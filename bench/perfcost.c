/* perfcost [RATE] [SECONDS] [STACK_BYTES]: what sampling a running thread
 * costs it, two ways, side by side:
 *  - signal: a timer's signal RATE times a second (the thread spins: its
 *    time is its CPU time; a CPU-time timer would fire at the scheduler's
 *    tick only) whose handler copies STACK_BYTES of its stack
 *    (process_vm_readv on its own pid), as clrscope's agent captures a
 *    running thread under the mixed sampler;
 *  - perf: the kernel samples the thread at RATE per second of its CPU
 *    time (perf_event_open, software task clock, with its user registers
 *    and STACK_BYTES of its user stack, as `perf record` takes them) into
 *    a ring the main thread drains every 10 ms: no signal, no handler.
 * A thread spins for SECONDS in each configuration (none, signal, perf,
 * rounds interleaved); printed: its work per second of its own CPU time
 * against none's, and each sampler's samples.  A parked thread gets no
 * perf sample at all (its task clock does not move), where a signal wakes
 * it (bench/sigcost).  Needs perf_event_paranoid <= 2 (the default); run
 * it pinned to one CPU (taskset -c 0). */
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "benchargs.h"

#define RING_PAGES 256 /* a power of two: 1 MiB */
#define ROUNDS 5

enum mode { NONE, SIGNAL, PERF };
static const char *const mode_names[] = {"none", "signal", "perf"};

static unsigned rate, seconds, stack_bytes;
static atomic_int spinner_tid, start, done;
static atomic_long handled;
static volatile uint64_t sink;
static uint64_t work_per_cpu_s[3][ROUNDS];
static uint64_t samples[3][ROUNDS];

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* What the agent's handler does: copy the stack from the interrupted sp. */
static void on_signal(int sig, siginfo_t *si, void *context)
{
	(void)sig;
	(void)si;
	static __thread uint8_t copy[65536];
	uint64_t sp = (uint64_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RSP];
	struct iovec local = {copy, stack_bytes}, remote = {(void *)(uintptr_t)sp, stack_bytes};
	process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
}

/* Spins until told to stop; the iterations per second of its own CPU. */
static void *spin(void *arg)
{
	uint64_t *out = arg;
	atomic_store(&spinner_tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&start))
		;
	uint64_t n = 0, cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	while (!atomic_load_explicit(&done, memory_order_relaxed)) {
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i * n;
		n++;
	}
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	*out = cpu ? n * 1000000000ull / cpu : 0;
	return NULL;
}

static int perf_open(pid_t tid, void **ring)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000000ull / rate;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = 1ull << 6 | 1ull << 7 | 1ull << 8; /* bp, sp, ip */
	a.sample_stack_user = stack_bytes;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, 0);
	if (fd < 0)
		return -1;
	*ring = mmap(NULL, (1 + RING_PAGES) * 4096ul, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*ring == MAP_FAILED) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Counts and consumes the ring's samples. */
static uint64_t drain(void *ring)
{
	struct perf_event_mmap_page *meta = ring;
	const uint8_t *data = (const uint8_t *)ring + 4096;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail, n = 0;
	while (tail < head) {
		struct perf_event_header h;
		memcpy(&h, data + tail % (RING_PAGES * 4096ul), sizeof h);
		n += h.type == PERF_RECORD_SAMPLE;
		tail += h.size ? h.size : head - tail;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

static int run(enum mode mode, int round)
{
	atomic_store(&start, 0);
	atomic_store(&done, 0);
	atomic_store(&spinner_tid, 0);
	atomic_store(&handled, 0);
	pthread_t th;
	if (pthread_create(&th, NULL, spin, &work_per_cpu_s[mode][round]) != 0)
		return -1;
	while (!atomic_load(&spinner_tid))
		usleep(100);
	pid_t tid = atomic_load(&spinner_tid);
	timer_t timer;
	void *ring = NULL;
	int fd = -1;
	if (mode == SIGNAL) {
		struct sigevent ev;
		memset(&ev, 0, sizeof ev);
		ev.sigev_notify = SIGEV_THREAD_ID;
		ev.sigev_signo = SIGRTMIN + 4;
		ev._sigev_un._tid = tid;
		struct itimerspec every = {{0, (long)(1000000000ull / rate)}, {0, (long)(1000000000ull / rate)}};
		if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0 || timer_settime(timer, 0, &every, NULL) != 0)
			return -1;
	} else if (mode == PERF && (fd = perf_open(tid, &ring)) < 0) {
		perror("perfcost: perf_event_open (is kernel.perf_event_paranoid above 2?)");
		return -1;
	}
	atomic_store(&start, 1);
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + seconds * 1000000000ull;
	while (clock_ns(CLOCK_MONOTONIC) < end) {
		usleep(10000);
		if (ring)
			samples[mode][round] += drain(ring);
	}
	atomic_store(&done, 1);
	pthread_join(th, NULL);
	if (mode == SIGNAL) {
		timer_delete(timer);
		samples[mode][round] = (uint64_t)atomic_load(&handled);
	}
	if (ring) {
		samples[mode][round] += drain(ring);
		munmap(ring, (1 + RING_PAGES) * 4096ul);
		close(fd);
	}
	return 0;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v)
{
	qsort(v, ROUNDS, sizeof *v, by_value);
	return v[ROUNDS / 2];
}

int main(int argc, char **argv)
{
	if (argc > 4) {
		fprintf(stderr, "usage: perfcost [RATE] [SECONDS] [STACK_BYTES]\n");
		return 2;
	}
	rate = argc > 1 ? bench_positive("perfcost", argv[1], "RATE", 10000) : 1000;
	seconds = argc > 2 ? bench_positive("perfcost", argv[2], "SECONDS", 600) : 2;
	stack_bytes = argc > 3 ? bench_positive("perfcost", argv[3], "STACK_BYTES", 65528) & ~7u : 32768;
	if (!stack_bytes)
		stack_bytes = 8;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMIN + 4, &sa, NULL);
	for (int round = 0; round < ROUNDS; round++)
		for (int m = 0; m < 3; m++)
			if (run((enum mode)((m + round) % 3), round) != 0) {
				fprintf(stderr, "perfcost: %s could not sample\n", mode_names[(m + round) % 3]);
				return 1;
			}
	uint64_t base = median(work_per_cpu_s[NONE]);
	printf("a spinning thread, %u samples per second of its CPU time, %u stack bytes each, %u rounds of %u s\n",
	       rate, stack_bytes, ROUNDS, seconds);
	printf("%-8s %14s %10s %10s\n", "sampler", "work/cpu-s", "vs none", "samples");
	for (int m = 0; m < 3; m++) {
		uint64_t w = median(work_per_cpu_s[m]), n = median(samples[m]);
		printf("%-8s %14llu %+9.1f%% %10llu\n", mode_names[m], (unsigned long long)w,
		       base ? 100.0 * ((double)w - (double)base) / (double)base : 0.0, (unsigned long long)n);
	}
	return 0;
}
