#include "dialer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "dials.h"
#include "namedevent.h"
#include "session.h"

static const struct prof_dials_ack *find_ack(const struct prof_process *p, uint64_t generation)
{
	for (size_t i = p->ndials; i-- > 0;)
		if (p->dials[i].generation == generation)
			return &p->dials[i];
	return NULL;
}

/* The state the agent last acknowledged (its "effective" line is in dials
 * syntax), or what it started with. */
static void start_from_acknowledged(const struct prof_process *p, struct cs_dials *d)
{
	cs_dials_default(d, p->rate_hz ? p->rate_hz : CS_RATE_DEFAULT);
	if (p->hello_events)
		d->events = p->hello_events;
	for (size_t i = p->ndials; i-- > 0;) {
		if (p->dials[i].status == CS_DIALS_REJECTED)
			continue;
		char line[512], why[300];
		snprintf(line, sizeof line, "%s", p->dials[i].effective);
		char *save = NULL;
		for (char *a = strtok_r(line, " ", &save); a; a = strtok_r(NULL, " ", &save))
			cs_dials_assign(d, a, why, sizeof why);
		break;
	}
	d->generation = 0;
}

/* Writes the new dials under the process directory's lock, so that two
 * clients never hand out one generation twice; returns the generation. */
static int write_dials(struct prof_process *p, char *const *assignments, int n, uint64_t *generation, char *err, size_t errlen)
{
	char lock_path[PATH_MAX];
	snprintf(lock_path, sizeof lock_path, "%s/.dials.lock", p->dir);
	int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lock < 0 || flock(lock, LOCK_EX) != 0) {
		snprintf(err, errlen, "cannot lock %s: %s", lock_path, strerror(errno));
		if (lock >= 0)
			close(lock);
		return -1;
	}
	struct cs_dials d;
	int dirfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	char why[300];
	cs_dials_default(&d, p->rate_hz ? p->rate_hz : CS_RATE_DEFAULT);
	if (dirfd < 0 || cs_dials_read(dirfd, &d, why, sizeof why) < 0)
		start_from_acknowledged(p, &d); /* a damaged file: what the agent last applied */
	if (dirfd >= 0)
		close(dirfd);
	d.detach = false;
	for (int i = 0; i < n; i++)
		cs_dials_assign(&d, assignments[i], why, sizeof why); /* validated by the caller */
	uint64_t last = p->ndials ? p->dials[p->ndials - 1].generation : 0;
	d.generation = (d.generation > last ? d.generation : last) + 1;
	int rc = cs_dials_write(p->dir, &d, err, errlen);
	close(lock);
	*generation = d.generation;
	return rc;
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
	if (write_dials(p, assignments, n, generation, err, errlen) < 0)
		return -1;
	return cs_namedevent_post(p->control, err, errlen);
}

int dialer_send(struct prof_session *s, struct prof_process *p, char *const *assignments, int n, double timeout,
		const struct prof_dials_ack **out, char *err, size_t errlen)
{
	uint64_t generation;
	if (dialer_post(p, assignments, n, &generation, err, errlen) < 0)
		return -1;
	double deadline = clock_now_s() + timeout;
	const struct prof_dials_ack *ack = NULL;
	while (!(ack = find_ack(p, generation)) && clock_now_s() < deadline && !p->ended) {
		clock_sleep_ms(20);
		prof_session_update(s, false);
	}
	if (!ack) {
		if (p->ended)
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

bool dialer_wait_end(struct prof_session *s, struct prof_process *p, double timeout)
{
	double deadline = clock_now_s() + timeout;
	while (!p->ended && clock_now_s() < deadline) {
		clock_sleep_ms(20);
		prof_session_update(s, false);
	}
	return p->ended;
}
