/* Monotonic time in seconds, for deadlines and timeouts. */
#ifndef CLRSCOPE_CLOCK_H
#define CLRSCOPE_CLOCK_H

#include <time.h>

static inline double clock_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void clock_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

#endif
