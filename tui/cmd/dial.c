/* clrscope dial: change the dials of a live session and wait for the agent
 * to acknowledge them. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "common/dials.h"
#include "common/namedevent.h"
#include "common/session.h"
#include "live/dialer.h"
#include "live/targetsession.h"
#include "profile/profile.h"
#include "util/clock.h"

#define DEFAULT_TIMEOUT_S 5.0

void cmd_dial_usage(FILE *f)
{
	fprintf(f, "usage: clrscope dial [--timeout SEC] DIR|PID KEY=VALUE...\n"
		   "\n"
		   "Changes the dials of a running, profiled process and waits until its agent\n"
		   "has applied them.  DIR is a session (every live process in it) or a process\n"
		   "directory; PID is found among the sessions under the default session root.\n"
		   "\n"
		   "dials:\n"
		   "  sampling=on|off      take stack samples or not\n"
		   "  sampler=mixed|kernel|suspend|signal  signal running threads and walk the\n"
		   "                       rest, have the kernel sample running threads, suspend\n"
		   "                       the runtime per tick, or signal busy threads\n"
		   "  rate=HZ              samples per second, %d to %d\n"
		   "  events=LIST          gc, exceptions, jit, modules, threads, contention,\n"
		   "                       waits, threadpool, allocsamples, all, none;\n"
		   "                       +KIND and -KIND change the current list\n"
		   "  flush_ms=N           how often the agent writes its log, %d to %d ms\n"
		   "  instrument=on|off    record or pause the calls of instrumented functions\n"
		   "  allocations=on|off   count allocations or pause (programs started with -A)\n"
		   "  snapshot=heap|awaits  take a heap snapshot: live objects by type (a full\n"
		   "                       GC); or an awaits snapshot: the async methods waiting\n"
		   "                       at an await now, each chain of them counted once\n"
		   "  validate=N           repeat every Nth fast walk of a thread with the runtime's\n"
		   "                       unwinder and count the differences (0: never)\n"
		   "  async=on|off         logical stacks: samples of resumed async methods go on\n"
		   "                       into the methods awaiting them\n"
		   "  detach               the agent stops and leaves the process (it keeps running)\n"
		   "\n"
		   "  -t, --timeout SEC    how long to wait for the acknowledgement (default %.0f)\n"
		   "  -h, --help           show this help\n",
		CS_RATE_MIN, CS_RATE_MAX, CS_FLUSH_MS_MIN, CS_FLUSH_MS_MAX, DEFAULT_TIMEOUT_S);
}

/* Sends the dials to one process and waits; returns the exit status. */
static int dial_one(struct prof_recording *s, struct prof_process *p, char **assignments, int n, double timeout)
{
	char err[600];
	const struct prof_dials_ack *ack;
	if (dialer_send(s, p, assignments, n, timeout, &ack, err, sizeof err) < 0) {
		cmd_error("pid %" PRIu32 ": %s", p->pid, err);
		return 1;
	}
	uint64_t generation = ack->generation;
	switch (ack->status) {
	case CS_DIALS_APPLIED:
		printf("pid %" PRIu32 ": generation %" PRIu64 " applied: %s\n", p->pid, generation,
		       ack->error[0] ? ack->error : ack->effective);
		return 0;
	case CS_DIALS_PARTIAL:
		cmd_error("pid %" PRIu32 ": generation %" PRIu64 " applied in part: %s (now %s)", p->pid, generation,
			  ack->error, ack->effective);
		return 1;
	default:
		cmd_error("pid %" PRIu32 ": generation %" PRIu64 " rejected: %s (still %s)", p->pid, generation, ack->error,
			  ack->effective);
		return 1;
	}
}

/* True when no wanted process is live yet but one has a log with no hello:
 * its agent is still starting. */
static bool waiting_for_hello(const struct prof_recording *s, const char *target)
{
	bool starting = false;
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct prof_process *p = s->procs[i];
		if (p->have_hello && !p->ended && target_session_wanted(target, p))
			return false;
		starting |= !p->have_hello && !p->ended;
	}
	return starting;
}

int cmd_dial(int argc, char **argv)
{
	static const struct option options[] = {
		{"timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	double timeout = DEFAULT_TIMEOUT_S;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+t:h", options, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_seconds(optarg, &timeout) < 0)
				return cmd_usage_error("dial", "--timeout wants a positive number of seconds, not '%s'", optarg);
			break;
		case 'h':
			cmd_dial_usage(stdout);
			return 0;
		default:
			return cmd_usage_error("dial", "unknown option");
		}
	}
	if (argc - optind < 2)
		return cmd_usage_error("dial", "give a session (or pid) and at least one KEY=VALUE");
	const char *target = argv[optind];
	char **assignments = argv + optind + 1;
	int n = argc - optind - 1;
	struct cs_dials check;
	cs_dials_default(&check, CS_RATE_DEFAULT);
	for (int i = 0; i < n; i++) {
		char err[300];
		if (cs_dials_assign(&check, assignments[i], err, sizeof err) < 0)
			return cmd_usage_error("dial", "%s", err);
	}

	struct prof_recording s;
	char err[1024];
	if (target_session_open(&s, target, err, sizeof err) < 0) {
		cmd_error("%s", err);
		return 1;
	}
	/* a program that has just started may not have said hello yet */
	for (int tries = 0; tries < 100 && waiting_for_hello(&s, target); tries++) {
		clock_sleep_ms(30);
		prof_recording_update(&s, false);
	}
	int rc = 0, live = 0;
	for (size_t i = 0; i < s.nprocs; i++) {
		struct prof_process *p = s.procs[i];
		if (!p->have_hello || p->ended || !target_session_wanted(target, p))
			continue;
		live++;
		int r = dial_one(&s, p, assignments, n, timeout);
		if (r)
			rc = r;
	}
	if (!live) {
		for (size_t i = 0; i < s.nprocs; i++) /* a directory that could not be read may be why */
			if (s.procs[i]->error[0])
				cmd_error("%s", s.procs[i]->error);
		cmd_error("no live profiled process in %s: its agents have all stopped (detached, or the programs exited)",
			  target);
		rc = 1;
	}
	prof_recording_free(&s);
	return rc;
}
