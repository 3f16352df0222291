#include "cmd/rotate.h"

#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "profile/pprof.h"
#include "util/clock.h"

void rotator_init(struct rotator *r, const char *session, double seconds)
{
	memset(r, 0, sizeof *r);
	r->seconds = seconds;
	r->next = clock_now_s() + seconds;
	snprintf(r->session, sizeof r->session, "%s", session);
	if (seconds > 0)
		fprintf(stderr, "clrscope: writing a pprof profile every %g s to %s.NNNNNN.pb.gz\n", seconds, session);
}

double rotator_wait_s(const struct rotator *r, double wait_s)
{
	if (r->seconds <= 0)
		return wait_s;
	double left = r->next - clock_now_s();
	return left < 0 ? 0 : left < wait_s ? left : wait_s;
}

/* Reads what arrived since the last file, writes it and starts afresh. */
static void write_interval(struct rotator *r, bool final)
{
	char err[1024];
	if (!r->open) {
		if (prof_recording_open(&r->s, r->session, err, sizeof err) < 0) {
			cmd_error("--rotate: %s; no more pprof files", err);
			r->seconds = 0;
			return;
		}
		r->s.by_thread = true;
		r->open = true;
	}
	prof_recording_update(&r->s, final);
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s.%06u.pb.gz", r->session, ++r->seq);
	if (pprof_write_file(path, &r->s, 0, err, sizeof err) < 0) {
		cmd_error("--rotate: %s; no more pprof files", err);
		r->seconds = 0;
	}
	prof_thread_stacks_clear(&r->s);
}

void rotator_poll(struct rotator *r)
{
	if (r->seconds <= 0 || clock_now_s() < r->next)
		return;
	write_interval(r, false);
	/* the next interval from the schedule, not from now: files stay on the beat */
	r->next += r->seconds;
	double now = clock_now_s();
	if (r->next < now)
		r->next = now + r->seconds;
}

void rotator_finish(struct rotator *r)
{
	if (r->seconds > 0) {
		write_interval(r, true);
		if (r->seconds > 0 && r->seq == 1) /* (a failure turned it off, and said so) */
			fprintf(stderr, "clrscope: wrote 1 pprof file: %s.000001.pb.gz\n", r->session);
		else if (r->seconds > 0)
			fprintf(stderr, "clrscope: wrote %u pprof files: %s.000001.pb.gz to %s.%06u.pb.gz\n", r->seq,
				r->session, r->session, r->seq);
	}
	if (r->open)
		prof_recording_free(&r->s);
	r->open = false;
	r->seconds = 0;
}
