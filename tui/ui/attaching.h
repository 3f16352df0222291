/* Attaching from the terminal UI on a thread of its own: a runtime answers
 * AttachProfiler only once the agent has started (a stopped process, or one
 * busy starting up, keeps it waiting up to the request's timeout), and the
 * screen must not wait meanwhile.  One attach at a time. */
#ifndef CLRSCOPE_ATTACHING_H
#define CLRSCOPE_ATTACHING_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct attach_result {
	pid_t pid;
	int rc; /* attacher_start's: 0, or -1 with err */
	uint64_t asked_unix_ns;
	char session[PATH_MAX];
	char err[PATH_MAX + 512];
};

struct attaching;

/* Starts attaching to pid (dir: the session, NULL for a new one); NULL
 * and err when the thread cannot be made. */
struct attaching *attaching_start(pid_t pid, const char *dir, unsigned rate, const char *events, char *err,
				  size_t errlen);
/* The pid being attached to. */
pid_t attaching_pid(const struct attaching *a);
/* Readable once the attach is over (poll it with the terminal). */
int attaching_fd(const struct attaching *a);
/* The result once the attach is over (true), after which a is freed;
 * false while it goes on. */
bool attaching_take(struct attaching *a, struct attach_result *out);
/* Leaving the UI: frees an attach that is over; one still waiting for the
 * runtime is left to end with the process. */
void attaching_stop(struct attaching *a);

#endif
