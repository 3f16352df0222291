/* Native help for the fault-injection test app (tests/apps/Faults): code a
 * profiler's signal handler must survive.  Loaded into a .NET program, so
 * never sanitized. */
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

long faults_spin_bad_frame_pointer(double seconds);
int faults_steal_rt_signals(void);
long faults_foreign_signals(void);

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
