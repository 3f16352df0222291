/* The shared state, time and the optional debug log (agent.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "agent/agent.h"
#include "common/session.h"

struct agent g_agent = {.lock_fd = -1};

static int debug_fd = -1;

clockid_t agent_thread_cpu_clock(uint32_t os_tid)
{
	return (clockid_t)((~os_tid << 3) | 6);
}

uint64_t agent_clock_ns(clockid_t clock)
{
	struct timespec ts;
	return clock_gettime(clock, &ts) == 0 ? (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec : 0;
}

uint64_t agent_mono_ns(void)
{
	return agent_clock_ns(CLOCK_MONOTONIC);
}

uint64_t agent_random_below(uint64_t *state, uint64_t n)
{
	if (!*state)
		*state = agent_mono_ns() | 1;
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (uint64_t)(((unsigned __int128)(*state >> 11) * n) >> 53);
}

uint64_t agent_now_us(void)
{
	return (agent_mono_ns() - g_agent.start_mono_ns) / 1000;
}

bool agent_grow(void *vp, size_t *cap, size_t need, size_t size, size_t first)
{
	void **p = vp;
	if (need <= *cap)
		return true;
	size_t ncap = *cap ? *cap : (first ? first : 1);
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / size)
			return false;
		ncap *= 2;
	}
	uint8_t *n = realloc(*p, ncap * size);
	if (!n)
		return false;
	memset(n + *cap * size, 0, (ncap - *cap) * size);
	*p = n;
	*cap = ncap;
	return true;
}

bool agent_secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

void agent_debug_open(void)
{
	if (agent_secure()) /* a path from the environment of a privileged process */
		return;
	const char *path = getenv(CS_ENV_AGENT_LOG);
	if (path && *path && debug_fd < 0)
		debug_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
}

__attribute__((format(printf, 1, 0))) static void debug_line(const char *fmt, va_list ap)
{
	if (debug_fd < 0)
		return;
	char line[1024];
	int n = snprintf(line, sizeof line, "clrscope-agent[%d] ", (int)getpid());
	if (n < 0)
		return;
	int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	if (m < 0)
		return;
	size_t len = strlen(line);
	line[len++] = '\n';
	ssize_t ignored = write(debug_fd, line, len);
	(void)ignored;
}

void agent_debug(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	debug_line(fmt, ap);
	va_end(ap);
}
