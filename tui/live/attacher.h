/* Joining and leaving a running .NET process: AttachProfiler with the
 * session in its client data, then (later) a detach dial.  Used by
 * 'record --pid' and by the terminal UI. */
#ifndef CLRSCOPE_ATTACHER_H
#define CLRSCOPE_ATTACHER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "profile/profile.h"

/* Creates a session (dir, or a new one) and attaches the agent to pid;
 * session receives the directory.  max_size caps the session (0: the
 * default share of the free space); asked_unix_ns receives the wall-clock
 * time of the request, before which the agent cannot have started.  -1 with
 * err (the runtime's reason in words) on failure. */
int attacher_start(pid_t pid, const char *dir, unsigned rate, const char *events, uint64_t max_size,
		   uint64_t *asked_unix_ns, char *session, size_t n, char *err, size_t errlen);

/* Whether pid still exists (ours or not). */
bool attacher_process_alive(pid_t pid);

/* The process of pid's agent that started at or after not_before_unix_ns
 * in the session as last read, or NULL (it does not wait). */
struct prof_process *attacher_find_hello(struct prof_recording *s, pid_t pid, uint64_t not_before_unix_ns);

/* Waits for the hello of pid's agent that started at or after
 * not_before_unix_ns (attacher_start's asked_unix_ns: the session may hold
 * earlier runs of the same pid) in an open session; NULL on timeout. */
struct prof_process *attacher_wait_hello(struct prof_recording *s, pid_t pid, uint64_t not_before_unix_ns,
					 double timeout);

/* Asks the agent to detach and waits for its END record. */
int attacher_detach(struct prof_recording *s, struct prof_process *p, char *err, size_t errlen);

#endif
