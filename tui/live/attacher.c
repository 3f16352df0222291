#include "live/attacher.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/newsession.h"
#include "common/session.h"
#include "common/sessionlimits.h"
#include "live/agentpath.h"
#include "live/dialer.h"
#include "live/ipc.h"
#include "live/procfs.h"
#include "util/clock.h"

#define ATTACH_TIMEOUT_MS 10000
#define DETACH_TIMEOUT_S 15.0

/* A short name for the session directory: the process's comm. */
static void process_name(pid_t pid, char *out, size_t n)
{
	size_t len = 0;
	char *comm = proc_read(pid, "comm", &len);
	snprintf(out, n, "pid%d", (int)pid);
	if (comm && len) {
		while (len && (comm[len - 1] == '\n' || comm[len - 1] == 0))
			len--;
		snprintf(out, n, "%.*s", (int)len, comm);
	}
	free(comm);
}

/* Whether pid is gone or goes within the time: a process being killed
 * closes its sockets a moment before it is seen to have exited. */
static bool exits_within(pid_t pid, double seconds)
{
	double deadline = clock_now_s() + seconds;
	while (attacher_process_alive(pid)) {
		if (clock_now_s() >= deadline)
			return false;
		clock_sleep_ms(10);
	}
	return true;
}

/* The agent takes SESSION/.agent-PID.lock when it starts and refuses
 * anything but a plain file there; say so here, where it can be said, rather
 * than hear the runtime's "a profiler is already loaded". */
static int lock_file_usable(const char *session, pid_t pid, char *err, size_t errlen)
{
	char name[64];
	snprintf(name, sizeof name, ".agent-%d.lock", (int)pid);
	int dirfd = cs_dir_open_private(session, err, errlen);
	if (dirfd < 0)
		return -1;
	const char *kind = cs_entry_kind(dirfd, name);
	close(dirfd);
	if (strcmp(kind, "missing") != 0 && strcmp(kind, "a regular file") != 0) {
		snprintf(err, errlen, "%s/%s is %s, which the agent will not open; remove it or record into another directory",
			 session, name, kind);
		return -1;
	}
	return 0;
}

int attacher_start(pid_t pid, const char *dir, unsigned rate, const char *events, uint64_t max_size,
		   uint64_t *asked_unix_ns, char *session, size_t n, char *err, size_t errlen)
{
	char agent[PATH_MAX], socket_path[PATH_MAX];
	if (agent_path_find(agent, sizeof agent, err, errlen) < 0)
		return -1;
	if (ipc_find_socket(pid, socket_path, sizeof socket_path, err, errlen) < 0)
		return -1;
	char name[64], command[64];
	process_name(pid, name, sizeof name);
	snprintf(command, sizeof command, "attach %d", (int)pid);
	if (cs_session_create(dir, name, command, session, n, err, errlen) < 0 ||
	    (max_size && cs_session_set_max_size(session, max_size, err, errlen) < 0))
		return -1;
	if (lock_file_usable(session, pid, err, errlen) < 0)
		return -1;
	char data[PATH_MAX + 256];
	int len = snprintf(data, sizeof data, "session=%s\nrate=%u\n%s%s%s", session, rate, events ? "events=" : "",
			   events ? events : "", events ? "\n" : "");
	uint8_t clsid[16];
	ipc_guid_parse(CS_AGENT_CLSID, clsid);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	*asked_unix_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	if (ipc_attach_profiler(pid, ATTACH_TIMEOUT_MS, clsid, agent, data, (uint32_t)len, err, errlen) < 0) {
		if (exits_within(pid, 0.3)) /* the runtime's words would be about a broken connection */
			snprintf(err, errlen, "pid %d exited while clrscope was attaching to it; nothing was recorded",
				 (int)pid);
		return -1;
	}
	return 0;
}

bool attacher_process_alive(pid_t pid)
{
	if (kill(pid, 0) != 0 && errno != EPERM)
		return false;
	/* a zombie has exited: only its parent has not collected it yet */
	size_t len = 0;
	char *stat = proc_read(pid, "stat", &len);
	const char *end = stat ? strrchr(stat, ')') : NULL;
	bool zombie = end && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X');
	free(stat);
	return !zombie;
}

/* The agent of pid that started at or after not_before_unix_ns: a session
 * recorded into again holds the earlier runs of the same pid too (their
 * directories PID, PID.2, ...). */
struct prof_process *attacher_find_hello(struct prof_recording *s, pid_t pid, uint64_t not_before_unix_ns)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		struct prof_process *p = s->procs[i];
		if (p->have_hello && p->pid == (uint32_t)pid && p->start_unix_ns >= not_before_unix_ns)
			return p;
	}
	return NULL;
}

struct prof_process *attacher_wait_hello(struct prof_recording *s, pid_t pid, uint64_t not_before_unix_ns,
					 double timeout)
{
	double deadline = clock_now_s() + timeout;
	for (;;) {
		prof_recording_update(s, false);
		struct prof_process *p = attacher_find_hello(s, pid, not_before_unix_ns);
		if (p || clock_now_s() >= deadline || !attacher_process_alive(pid))
			return p;
		clock_sleep_ms(20);
	}
}

int attacher_detach(struct prof_recording *s, struct prof_process *p, char *err, size_t errlen)
{
	const struct prof_dials_ack *ack;
	char *const detach_dial[] = {"detach"};
	if (dialer_send(s, p, detach_dial, 1, DETACH_TIMEOUT_S, &ack, err, errlen) < 0) {
		if (p->ended && p->end_reason != CS_END_DETACH)
			return 0; /* it went away on its own meanwhile */
		return -1;
	}
	if (ack->status != CS_DIALS_APPLIED) {
		snprintf(err, errlen, "pid %u refused to detach: %s", p->pid, ack->error);
		return -1;
	}
	if (!dialer_wait_end(s, p, DETACH_TIMEOUT_S)) {
		snprintf(err, errlen, "pid %u acknowledged the detach but its agent has not finished within %.0f s", p->pid,
			 DETACH_TIMEOUT_S);
		return -1;
	}
	return 0;
}
