#include "live/dialer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "common/dials.h"
#include "common/namedevent.h"
#include "common/session.h"
#include "util/clock.h"

/* The answer to generation among those from index from on: an agent
 * answers a file it cannot read with the generation after its own, so an
 * older answer may carry the number we are waiting for. */
static const struct prof_dials_ack *find_ack(const struct prof_process *p, uint64_t generation, size_t from)
{
	for (size_t i = p->ndials; i-- > from;)
		if (p->dials[i].generation == generation)
			return &p->dials[i];
	return NULL;
}

/* The highest generation any answer carried. */
static uint64_t highest_answered(const struct prof_process *p)
{
	uint64_t g = 0;
	for (size_t i = 0; i < p->ndials; i++)
		if (p->dials[i].generation > g)
			g = p->dials[i].generation;
	return g;
}

/* The state the agent last acknowledged, or what it started with. */
static void start_from_acknowledged(const struct prof_process *p, struct cs_dials *d)
{
	cs_dials_default(d, p->rate_hz ? p->rate_hz : CS_RATE_DEFAULT);
	if (p->hello_events)
		d->events = p->hello_events;
	/* what the program was started with, not more */
	d->instrument = p->features & CS_FEATURE_INSTRUMENT;
	d->allocations = p->features & CS_FEATURE_ALLOCATIONS;
	for (size_t i = p->ndials; i-- > 0;) {
		if (p->dials[i].status == CS_DIALS_REJECTED)
			continue;
		*d = p->dials[i].dials;
		break;
	}
	d->generation = 0;
}

/* Writes the new dials under the process directory's lock, so that two
 * clients never hand out one generation twice; returns the generation.
 * The directories must be the user's own: nothing is written into another
 * user's session, nor through a symbolic link. */
static int write_dials(struct prof_process *p, char *const *assignments, int n, uint64_t *generation, char *err, size_t errlen)
{
	char why[300];
	int dirfd = cs_proc_dir_open(p->dir, why, sizeof why);
	if (dirfd < 0) {
		snprintf(err, errlen, "will not write dials there: %s", why);
		return -1;
	}
	int lock = cs_open_file_at(dirfd, ".dials.lock", O_RDWR | O_CREAT, 0600, why, sizeof why);
	if (lock < 0 || flock(lock, LOCK_EX) != 0) {
		if (lock >= 0)
			snprintf(why, sizeof why, "cannot be locked (%s)", strerror(errno));
		snprintf(err, errlen, "%s/.dials.lock %s", p->dir, why);
		if (lock >= 0)
			close(lock);
		close(dirfd);
		return -1;
	}
	const char *kind = cs_entry_kind(dirfd, CS_DIALS_FILE);
	if (strcmp(kind, "missing") != 0 && strcmp(kind, "a regular file") != 0) {
		snprintf(err, errlen, "%s/%s is %s, not a dials file: remove it and dial again", p->dir, CS_DIALS_FILE, kind);
		close(lock);
		close(dirfd);
		return -1;
	}
	struct cs_dials d;
	cs_dials_default(&d, p->rate_hz ? p->rate_hz : CS_RATE_DEFAULT);
	if (cs_dials_read(dirfd, &d, why, sizeof why) < 0)
		start_from_acknowledged(p, &d); /* a damaged file: what the agent last applied */
	close(dirfd);
	d.detach = false;
	for (int i = 0; i < n; i++)
		cs_dials_assign(&d, assignments[i], why, sizeof why); /* validated by the caller */
	uint64_t last = highest_answered(p);
	d.generation = (d.generation > last ? d.generation : last) + 1;
	int rc = cs_dials_write(p->dir, &d, err, errlen);
	close(lock);
	*generation = d.generation;
	return rc;
}

/* Whether p's agent is gone without a word: its process holds
 * SESSION/.agent-PID.lock for as long as the agent runs, and lets go of it
 * after its END record (or when the process dies).  Unknown counts as
 * there. */
static bool agent_vanished(const struct prof_process *p)
{
	if (!p->pid)
		return false;
	const char *slash = strrchr(p->dir, '/');
	char path[PATH_MAX];
	int len = slash ? snprintf(path, sizeof path, "%.*s/.agent-%u.lock", (int)(slash - p->dir), p->dir, p->pid)
			: snprintf(path, sizeof path, ".agent-%u.lock", p->pid);
	if (len < 0 || (size_t)len >= sizeof path)
		return false;
	char why[160];
	int fd = cs_open_file_at(AT_FDCWD, path, O_RDONLY, 0, why, sizeof why);
	if (fd < 0)
		return false;
	bool unlocked = flock(fd, LOCK_SH | LOCK_NB) == 0;
	close(fd);
	return unlocked;
}

/* Reads the log until cond holds for p, the timeout passes, or the agent
 * has gone; a last read after it went catches an answer written just
 * before. */
static void wait_for(struct prof_recording *s, struct prof_process *p, double timeout,
		     bool (*cond)(const struct prof_process *, const void *), const void *arg, bool *vanished)
{
	double deadline = clock_now_s() + timeout, next_check = 0;
	*vanished = false;
	while (!cond(p, arg) && !p->ended && clock_now_s() < deadline) {
		clock_sleep_ms(20);
		prof_recording_update(s, false);
		if (clock_now_s() >= next_check) {
			next_check = clock_now_s() + 0.2;
			if (agent_vanished(p)) {
				prof_recording_update(s, false);
				*vanished = !cond(p, arg) && !p->ended;
				return;
			}
		}
	}
}

struct awaited {
	uint64_t generation;
	size_t from; /* answers before this one were there before the post */
};

static bool answered(const struct prof_process *p, const void *arg)
{
	const struct awaited *w = arg;
	return find_ack(p, w->generation, w->from) != NULL;
}

static bool never(const struct prof_process *p, const void *unused)
{
	(void)p, (void)unused;
	return false;
}

int dialer_post(struct prof_process *p, char *const *assignments, int n, uint64_t *generation, char *err,
		size_t errlen)
{
	if (!p->control[0]) {
		snprintf(err, errlen, "its agent has no control channel (see its messages in 'clrscope report %s')", p->dir);
		return -1;
	}
	if (p->ended) {
		snprintf(err, errlen, "its agent has stopped (%s)", p->end_text ? p->end_text : "ended");
		return -1;
	}
	if (agent_vanished(p)) {
		snprintf(err, errlen, "the process exited (or was killed) without its agent's end record: nothing there "
				      "can answer");
		return -1;
	}
	if (write_dials(p, assignments, n, generation, err, errlen) < 0)
		return -1;
	return cs_namedevent_post(p->control, err, errlen);
}

int dialer_send(struct prof_recording *s, struct prof_process *p, char *const *assignments, int n, double timeout,
		const struct prof_dials_ack **out, char *err, size_t errlen)
{
	struct awaited w = {0, p->ndials};
	if (dialer_post(p, assignments, n, &w.generation, err, errlen) < 0)
		return -1;
	uint64_t generation = w.generation;
	bool vanished;
	wait_for(s, p, timeout, answered, &w, &vanished);
	const struct prof_dials_ack *ack = find_ack(p, generation, w.from);
	if (!ack) {
		if (vanished)
			snprintf(err, errlen,
				 "the process exited (or was killed) before its agent answered generation %llu; nothing "
				 "was changed",
				 (unsigned long long)generation);
		else if (p->ended)
			snprintf(err, errlen, "the agent stopped before it answered");
		else
			snprintf(err, errlen,
				 "no answer to generation %llu within %.1f s (is the process stopped, or its agent stuck? "
				 "see 'clrscope report %s')",
				 (unsigned long long)generation, timeout, p->dir);
		return -1;
	}
	*out = ack;
	return 0;
}

bool dialer_wait_end(struct prof_recording *s, struct prof_process *p, double timeout)
{
	bool vanished;
	wait_for(s, p, timeout, never, NULL, &vanished);
	return p->ended;
}
