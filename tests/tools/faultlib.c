/* Native help for the fault-injection test app (tests/apps/Faults): code a
 * profiler's signal handler must survive.  Loaded into a .NET program, so
 * never sanitized. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

long faults_spin_bad_frame_pointer(double seconds);
int faults_steal_rt_signals(void);
long faults_foreign_signals(void);
long faults_spin_masked(double seconds);

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spins with rbp pointing into unmapped memory (and a push the unwind
 * tables do not know about): a frame-pointer walk from here reads page 0. */
long faults_spin_bad_frame_pointer(double seconds)
{
	long rounds = 0;
	double end = now() + seconds;
	while (now() < end) {
		__asm__ volatile("push %%rbp\n\t"
				 "mov $0x10, %%rbp\n\t"
				 "mov $2000000, %%rcx\n"
				 "1:\n\t"
				 "dec %%rcx\n\t"
				 "jnz 1b\n\t"
				 "pop %%rbp"
				 :
				 :
				 : "rcx", "memory", "cc");
		rounds++;
	}
	return rounds;
}

static atomic_long foreign;

static void on_foreign(int sig, siginfo_t *si, void *context)
{
	(void)sig, (void)si, (void)context;
	atomic_fetch_add(&foreign, 1);
}

/* Takes over every real-time signal someone in this process handles with
 * SA_SIGINFO, as a program installing its own handlers late would (the
 * runtime's own, SIGRTMIN, is left alone). */
int faults_steal_rt_signals(void)
{
	int n = 0;
	for (int sig = SIGRTMIN + 1; sig <= SIGRTMAX; sig++) {
		struct sigaction old, sa;
		if (sigaction(sig, NULL, &old) != 0 || !(old.sa_flags & SA_SIGINFO) || !old.sa_sigaction)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_foreign;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		n += sigaction(sig, &sa, NULL) == 0;
	}
	return n;
}

long faults_foreign_signals(void)
{
	return atomic_load(&foreign);
}

/* Signals queued for this user now (SigQ in /proc/self/status), less this
 * process's POSIX timers (/proc/self/timers): a timer holds an entry of
 * that queue from its creation, pending or not, and never more than one (a
 * timer that fires again before its signal is taken counts an overrun
 * instead); -1 when unreadable. */
static long queued_signals(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	long n = -1, limit;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "SigQ: %ld/%ld", &n, &limit) == 2)
			break;
	fclose(f);
	f = fopen("/proc/self/timers", "r");
	while (f && n > 0 && fgets(line, sizeof line, f))
		n -= strncmp(line, "ID:", 3) == 0;
	if (f)
		fclose(f);
	return n;
}

/* Spins with the real-time signals blocked (but the runtime's own,
 * SIGRTMIN), so that a profiler's signals stay pending; returns the most
 * signals queued for the user at once meanwhile, then unblocks them. */
long faults_spin_masked(double seconds)
{
	sigset_t rt, old;
	sigemptyset(&rt);
	for (int sig = SIGRTMIN + 1; sig <= SIGRTMAX; sig++)
		sigaddset(&rt, sig);
	pthread_sigmask(SIG_BLOCK, &rt, &old);
	long most = 0;
	double end = now() + seconds, next = 0;
	volatile unsigned x = 2463534242u;
	while (now() < end) {
		for (int i = 0; i < 10000; i++)
			x = x ^ (x << 13), x = x ^ (x >> 17), x = x ^ (x << 5);
		if (now() >= next) {
			long q = queued_signals();
			if (q > most)
				most = q;
			next = now() + 0.01;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return most;
}
