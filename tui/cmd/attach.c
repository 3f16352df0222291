/* clrscope record --pid: attach to a running .NET process over the
 * diagnostics IPC, record, and detach at the end (the process keeps
 * running). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agentpath.h"
#include "clock.h"
#include "cmd.h"
#include "dialer.h"
#include "ipc.h"
#include "procs.h"
#include "profile.h"
#include "session.h"

#define ATTACH_TIMEOUT_MS 10000
#define HELLO_TIMEOUT_S 10.0
#define DETACH_TIMEOUT_S 15.0

static bool process_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

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

/* Waits for the signals that end a recording, the duration, or the
 * target's own exit; returns why it stopped. */
enum stop_reason { STOP_SIGNAL, STOP_DURATION, STOP_TARGET_EXITED };

static enum stop_reason wait_until_done(pid_t pid, double duration, const sigset_t *watched)
{
	double deadline = duration > 0 ? clock_now_s() + duration : 0;
	for (;;) {
		if (!process_alive(pid))
			return STOP_TARGET_EXITED;
		double wait = 0.2;
		if (deadline) {
			double left = deadline - clock_now_s();
			if (left <= 0)
				return STOP_DURATION;
			if (left < wait)
				wait = left;
		}
		struct timespec ts = {0, (long)(wait * 1e9)};
		siginfo_t info;
		int sig = sigtimedwait(watched, &info, &ts);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT)
			return STOP_SIGNAL;
	}
}

static struct prof_process *wait_for_hello(struct prof_session *s, pid_t pid, double timeout)
{
	double deadline = clock_now_s() + timeout;
	for (;;) {
		prof_session_update(s, false);
		for (size_t i = 0; i < s->nprocs; i++)
			if (s->procs[i]->have_hello && s->procs[i]->pid == (uint32_t)pid)
				return s->procs[i];
		if (clock_now_s() >= deadline || !process_alive(pid))
			return NULL;
		clock_sleep_ms(20);
	}
}

static int detach(struct prof_session *s, struct prof_process *p)
{
	char err[600];
	const struct prof_dials_ack *ack;
	char *detach_dial[] = {"detach"};
	if (dialer_send(s, p, detach_dial, 1, DETACH_TIMEOUT_S, &ack, err, sizeof err) < 0) {
		if (p->ended && p->end_reason != CS_END_DETACH)
			return 0; /* it went away on its own meanwhile */
		cmd_error("could not detach from pid %" PRIu32 ": %s", p->pid, err);
		return -1;
	}
	if (ack->status != CS_DIALS_APPLIED) {
		cmd_error("pid %" PRIu32 " refused to detach: %s; its agent keeps recording into %s", p->pid, ack->error,
			  s->dir);
		return -1;
	}
	if (!dialer_wait_end(s, p, DETACH_TIMEOUT_S)) {
		cmd_error("pid %" PRIu32 " acknowledged the detach but its agent has not finished within %.0f s", p->pid,
			  DETACH_TIMEOUT_S);
		return -1;
	}
	return 0;
}

int record_attach(int pid, const char *dir, unsigned rate, const char *events, double duration)
{
	char agent[PATH_MAX], socket_path[PATH_MAX], err[PATH_MAX + 512], session[PATH_MAX];
	if (agent_path_find(agent, sizeof agent, err, sizeof err) < 0) {
		cmd_error("%s", err);
		return 1;
	}
	if (ipc_find_socket(pid, socket_path, sizeof socket_path, err, sizeof err) < 0) {
		cmd_error("%s", err);
		return 1;
	}
	char name[64], command[64];
	process_name(pid, name, sizeof name);
	snprintf(command, sizeof command, "attach %d", pid);
	if (cs_session_create(dir, name, command, session, sizeof session, err, sizeof err) < 0) {
		cmd_error("%s", err);
		return 1;
	}

	char data[PATH_MAX + 256];
	int len = snprintf(data, sizeof data, "session=%s\nrate=%u\n%s%s%s", session, rate, events ? "events=" : "",
			   events ? events : "", events ? "\n" : "");
	uint8_t clsid[16];
	ipc_guid_parse(CS_AGENT_CLSID, clsid);

	sigset_t watched, old;
	static const int sigs[] = {SIGINT, SIGTERM, SIGQUIT, SIGHUP};
	watch_signals(sigs, sizeof sigs / sizeof *sigs, &watched, &old);

	int rc = 1;
	struct prof_session s;
	if (ipc_attach_profiler(pid, ATTACH_TIMEOUT_MS, clsid, agent, data, (uint32_t)len, err, sizeof err) < 0) {
		cmd_error("%s", err);
		goto out;
	}
	if (prof_session_open(&s, session, err, sizeof err) < 0) {
		cmd_error("%s", err);
		goto out;
	}
	struct prof_process *p = wait_for_hello(&s, pid, HELLO_TIMEOUT_S);
	if (!p) {
		cmd_error("the runtime accepted the agent but it never reported in (see %s, or set %s in the "
			  "target's environment)", session, CS_ENV_AGENT_LOG);
		prof_session_free(&s);
		goto out;
	}
	fprintf(stderr, "clrscope: attached to pid %d, recording into %s (Ctrl-C to stop and detach)\n", pid, session);
	enum stop_reason why = wait_until_done(pid, duration, &watched);
	rc = 0;
	if (why == STOP_TARGET_EXITED)
		fprintf(stderr, "clrscope: pid %d has exited\n", pid);
	else if (detach(&s, p) == 0)
		fprintf(stderr, "clrscope: detached from pid %d; it keeps running\n", pid);
	else
		rc = 1;
	prof_session_free(&s);
	uint64_t samples;
	record_summarize(session, &samples);
	fprintf(stderr, "clrscope: recorded %" PRIu64 " samples into %s\n", samples, session);
	fprintf(stderr, "clrscope: see them with: clrscope report %s\n", session);
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
