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

#include "cmd/cmd.h"
#include "cmd/rotate.h"
#include "common/session.h"
#include "live/attacher.h"
#include "profile/profile.h"
#include "util/clock.h"

#define HELLO_TIMEOUT_S 10.0

/* Waits for the signals that end a recording, the duration, or the
 * target's own exit; returns why it stopped. */
enum stop_reason { STOP_SIGNAL, STOP_DURATION, STOP_TARGET_EXITED };

static enum stop_reason wait_until_done(pid_t pid, double duration, const sigset_t *watched, struct rotator *rot)
{
	double deadline = duration > 0 ? clock_now_s() + duration : 0;
	for (;;) {
		if (!attacher_process_alive(pid))
			return STOP_TARGET_EXITED;
		rotator_poll(rot);
		double wait = rotator_wait_s(rot, 0.2);
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

int record_attach(int pid, const char *dir, unsigned rate, const char *events, double duration, double rotate,
		  uint64_t max_size)
{
	char err[PATH_MAX + 512], session[PATH_MAX];
	sigset_t watched, old;
	static const int sigs[] = {SIGINT, SIGTERM, SIGQUIT, SIGHUP};
	watch_signals(sigs, sizeof sigs / sizeof *sigs, &watched, &old);

	int rc = 1;
	struct prof_recording s;
	uint64_t asked_unix_ns;
	if (attacher_start(pid, dir, rate, events, max_size, &asked_unix_ns, session, sizeof session, err,
			   sizeof err) < 0) {
		cmd_error("%s", err);
		goto out;
	}
	if (prof_recording_open(&s, session, err, sizeof err) < 0) {
		cmd_error("%s", err);
		goto out;
	}
	struct prof_process *p = attacher_wait_hello(&s, pid, asked_unix_ns, HELLO_TIMEOUT_S);
	if (!p) {
		if (!attacher_process_alive(pid)) /* not the agent's fault */
			cmd_error("pid %d exited right after the agent was attached, before it wrote anything; nothing "
				  "was recorded", pid);
		else
			cmd_error("the runtime accepted the agent but it never reported in (see %s, or set %s in the "
				  "target's environment)", session, CS_ENV_AGENT_LOG);
		prof_recording_free(&s);
		goto out;
	}
	fprintf(stderr, "clrscope: attached to pid %d, recording into %s (Ctrl-C to stop and detach)\n", pid, session);
	struct rotator rot;
	rotator_init(&rot, session, rotate);
	enum stop_reason why = wait_until_done(pid, duration, &watched, &rot);
	rc = 0;
	if (why == STOP_TARGET_EXITED)
		fprintf(stderr, "clrscope: pid %d has exited\n", pid);
	else if (attacher_detach(&s, p, err, sizeof err) == 0)
		fprintf(stderr, "clrscope: detached from pid %d; it keeps running\n", pid);
	else {
		cmd_error("could not detach: %s; its agent keeps recording into %s", err, session);
		rc = 1;
	}
	prof_recording_free(&s);
	rotator_finish(&rot);
	uint64_t samples;
	size_t full;
	record_summarize(session, &samples, &full);
	record_close_session(session, false, full);
	fprintf(stderr, "clrscope: recorded %" PRIu64 " samples into %s\n", samples, session);
	fprintf(stderr, "clrscope: see them with: clrscope report %s\n", session);
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
