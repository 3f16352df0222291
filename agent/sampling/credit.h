/* The CPU time a thread's samples stand for.  Each period of CPU time a
 * thread uses by its own clock (kernel time in system calls too) is one
 * on-CPU sample, so on-CPU samples add up to CPU time as a CPU-time
 * timer's would (e2e.cpu_wall checks it).  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_CREDIT_H
#define CLRSCOPE_AGENT_CREDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/sampling/threadtable.h"

/* The most CPU time kept as credit with no capture that found its thread
 * running, in periods (what is older is lost). */
#define CREDIT_MAX_PERIODS 8

/* How many on-CPU samples a thread's sample of this tick is (0: off the
 * CPU); more than one are written as CPU_OWED.  t: the thread as the
 * survey knows it (NULL: a plain sample, one on the CPU); waiting, woke:
 * a capture found it in a waiting system call, or just back from one;
 * kernel: the periods the kernel's sample stands for (0: not the
 * kernel's). */
uint32_t credit_on_cpu(struct sampled_thread *t, uint64_t period_ns, bool waiting, bool woke,
		       uint32_t kernel) AGENT_HIDDEN;

#endif
