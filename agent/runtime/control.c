#include "agent/runtime/control.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/events/allocs.h"
#include "agent/events/eventmask.h"
#include "agent/events/heapsnap.h"
#include "agent/events/instrument.h"
#include "agent/log/logwriter.h"
#include "agent/log/sizecap.h"
#include "agent/runtime/lifecycle.h"
#include "agent/sampling/sampler.h"
#include "agent/symbols/asyncstack.h"
#include "common/records.h"
#include "common/session.h"

#include "common/namedevent.h"

#define WAIT_SLICE_MS 250
#define HEALTH_EVERY_MS 1000

/* One control thread at a time: a new session's semaphore and directory
 * are made only once the old thread is gone (control_wait_idle), so it
 * cannot close them as it leaves. */
static struct {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* CLOCK_MONOTONIC, set up once */
	pthread_once_t cv_once;
	bool stop;
	bool alive; /* started and not yet done with sem and dirfd */
	sem_t *sem;
	int dirfd;
	struct cs_dials current;
} c = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv_once = PTHREAD_ONCE_INIT, .dirfd = -1};

static void cv_init(void)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c.cv, &ca);
	pthread_condattr_destroy(&ca);
}

/* Waits under c.mu until the thread is gone or ms passed: whether it is gone. */
static bool wait_gone_locked(int ms)
{
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	until.tv_sec += ms / 1000 + until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	while (c.alive && pthread_cond_timedwait(&c.cv, &c.mu, &until) != ETIMEDOUT)
		;
	return !c.alive;
}

int control_wait_idle(int ms)
{
	pthread_once(&c.cv_once, cv_init);
	pthread_mutex_lock(&c.mu);
	bool gone = wait_gone_locked(ms);
	pthread_mutex_unlock(&c.mu);
	return gone ? 0 : -1;
}

/* Closes what control_prepare made (the thread's own exit, or a start
 * that failed). */
static void release(bool unlink_name)
{
	if (unlink_name && g_agent.control_name[0])
		sem_unlink(g_agent.control_name);
	if (c.sem)
		sem_close(c.sem);
	c.sem = NULL;
	if (c.dirfd >= 0)
		close(c.dirfd);
	c.dirfd = -1;
}

static sem_t *create_semaphore(void)
{
	/* mode 0600 under any umask of ours: the umask can only take bits away */
	return sem_open(g_agent.control_name, O_CREAT | O_EXCL, 0600, 0);
}

int control_prepare(const struct cs_dials *initial)
{
	uint32_t nonce = (uint32_t)(agent_mono_ns() ^ ((uint64_t)getpid() << 16));
	cs_namedevent_name(g_agent.control_name, sizeof g_agent.control_name, getpid(), nonce);
	c.sem = create_semaphore();
	if (c.sem == SEM_FAILED) {
		c.sem = NULL;
		agent_debug("cannot create semaphore %s: %s", g_agent.control_name, strerror(errno));
		g_agent.control_name[0] = 0;
	}
	c.current = *initial;
	char err[256];
	c.dirfd = cs_proc_dir_open(g_agent.proc_dir, err, sizeof err);
	if (c.dirfd < 0)
		agent_debug("%s", err);
	if (cs_dials_write(g_agent.proc_dir, initial, err, sizeof err) < 0)
		agent_debug("%s", err);
	return c.sem ? 0 : -1;
}

static void acknowledge(uint64_t generation, int status, const char *error)
{
	char effective[256];
	cs_dials_summary(&c.current, effective, sizeof effective);
	struct cs_dials_ack ack = {
		.time_us = agent_now_us(),
		.generation = generation,
		.status = (uint8_t)status,
		.effective = {effective, strlen(effective)},
		.error = {error, strlen(error)},
		.has_dials = true,
		.dials = c.current,
	};
	uint8_t payload[1024];
	struct cs_out o;
	cs_out_init(&o, payload, sizeof payload);
	cs_dials_ack_encode(&o, &ack);
	lw_append_record(CS_REC_DIALS, o.buf, o.len);
	lw_flush_soon();
}

/* A recording switch of a feature chosen at startup (instrument,
 * allocations): applied when the process has the feature; the state in
 * effect is returned. */
static bool apply_startup_switch(bool want, bool current, bool available, void (*set)(bool), const char *missing,
				 const char *how, int *status, char *error, size_t errlen)
{
	if (want == current)
		return current;
	if (available) {
		set(want);
		return want;
	}
	snprintf(error, errlen, "%s: it must be chosen when the program starts (%s)", missing, how);
	*status = CS_DIALS_PARTIAL;
	return current;
}

int control_apply(const struct cs_dials *want, char *error, size_t errlen)
{
	error[0] = 0;
	int status = CS_DIALS_APPLIED;
	if (want->rate_hz != c.current.rate_hz)
		sampler_set_rate(want->rate_hz);
	if (want->sampling != c.current.sampling)
		sampler_set_sampling(want->sampling);
	if (want->validate != c.current.validate)
		sampler_set_validate(want->validate);
	if (want->async != c.current.async)
		async_set_enabled(want->async);
	if (want->flush_ms != c.current.flush_ms)
		lw_set_flush_ms(want->flush_ms);
	uint8_t sampler = c.current.sampler;
	if (want->sampler != c.current.sampler) {
		if (sampler_set_mode(want->sampler, error, errlen) == 0)
			sampler = want->sampler;
		else
			status = CS_DIALS_PARTIAL;
	}
	uint32_t events = evmask_enabled();
	if (want->events != events) {
		events = evmask_apply(want->events, error, errlen);
		if (events != want->events)
			status = CS_DIALS_PARTIAL;
	}
	bool instrument = apply_startup_switch(want->instrument, c.current.instrument, instr_configured(),
					       instr_set_recording, "no instrumentation",
					       "clrscope record --instrument PATTERN -- PROGRAM", &status, error, errlen);
	bool allocations = apply_startup_switch(want->allocations, c.current.allocations, allocs_configured(),
						allocs_set_recording, "no allocation counting",
						"clrscope record --allocations -- PROGRAM", &status, error, errlen);
	const struct {
		enum snapshot_kind kind;
		uint32_t want, have;
	} snapshots[] = {{SNAPSHOT_HEAP, want->snapshots, c.current.snapshots},
			 {SNAPSHOT_AWAITS, want->await_snapshots, c.current.await_snapshots}};
	for (size_t i = 0; i < sizeof snapshots / sizeof *snapshots; i++) {
		size_t at = strlen(error);
		char why[300];
		if (snapshots[i].want > snapshots[i].have &&
		    heapsnap_request(snapshots[i].kind, snapshots[i].want, why, sizeof why) < 0) {
			snprintf(error + at, errlen - at, "%s%s", at ? "; " : "", why);
			status = CS_DIALS_PARTIAL;
		}
	}
	uint64_t generation = c.current.generation;
	c.current = *want;
	c.current.events = events;
	c.current.instrument = instrument;
	c.current.allocations = allocations;
	c.current.sampler = sampler;
	c.current.detach = false;
	if (want->generation > generation)
		c.current.generation = want->generation;
	return status;
}

/* Reads the dials file and applies it; returns true when a detach was asked. */
static bool handle_post(void)
{
	struct cs_dials want = c.current;
	want.detach = false;
	char error[300];
	if (cs_dials_read(c.dirfd, &want, error, sizeof error) < 0) {
		/* the generation of a bad file is unknown: answer with the one
		 * it would have had, the next after ours */
		acknowledge(c.current.generation + 1, CS_DIALS_REJECTED, error);
		return false;
	}
	if (want.detach) {
		c.current.generation = want.generation;
		return true;
	}
	if (!life_hold_running())
		return false; /* stopping: nothing to apply to */
	int status = control_apply(&want, error, sizeof error);
	life_release();
	acknowledge(want.generation, status, error);
	return false;
}

/* The session directory was removed under us: nobody can read what we
 * write, so stop working and leave the program alone. */
static bool session_vanished(void)
{
	struct stat st;
	return c.dirfd < 0 || fstat(c.dirfd, &st) != 0 || st.st_nlink == 0;
}

/* Someone removed our semaphore: make a new one under the same name. */
static void check_semaphore(void)
{
	if (!g_agent.control_name[0])
		return;
	sem_t *probe = sem_open(g_agent.control_name, 0);
	if (probe != SEM_FAILED) {
		sem_close(probe);
		/* someone else's under our name: clrscope will not post it, and
		 * this agent cannot take the name back; say so once */
		static bool said;
		char path[96];
		struct stat st;
		snprintf(path, sizeof path, "/dev/shm/sem.%s", g_agent.control_name + 1);
		if (!said && stat(path, &st) == 0 && st.st_uid != geteuid()) {
			said = true;
			lw_message(CS_LEVEL_WARNING,
				   "the control semaphore %s was removed and made again by uid %u: dials cannot reach "
				   "this process any more",
				   g_agent.control_name, (unsigned)st.st_uid);
		}
		return;
	}
	if (errno != ENOENT)
		return;
	sem_t *fresh = create_semaphore();
	if (fresh == SEM_FAILED)
		return;
	if (c.sem)
		sem_close(c.sem);
	c.sem = fresh;
	lw_message(CS_LEVEL_WARNING, "the control semaphore %s was removed; made a new one", g_agent.control_name);
}

static void *control_main(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	uint64_t last_health = agent_mono_ns();
	enum { RUNNING, DETACHED, VANISHED, FULL } outcome = RUNNING;
	for (;;) {
		pthread_mutex_lock(&c.mu);
		bool stop = c.stop;
		pthread_mutex_unlock(&c.mu);
		if (stop)
			break;
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += WAIT_SLICE_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		bool posted = c.sem && sem_timedwait(c.sem, &until) == 0;
		if (!c.sem)
			nanosleep(&(struct timespec){0, WAIT_SLICE_MS * 1000000L}, NULL);
		if (posted) {
			while (sem_trywait(c.sem) == 0)
				; /* several posts, one read of the latest file */
			pthread_mutex_lock(&c.mu);
			stop = c.stop;
			pthread_mutex_unlock(&c.mu);
			if (stop)
				break;
			if (handle_post()) {
				char why[300];
				if (life_detach(c.current.generation, c.current.rate_hz, c.current.sampling, why, sizeof why) == 0) {
					acknowledge(c.current.generation, CS_DIALS_APPLIED, "detaching");
					life_stop(CS_END_DETACH, "detached on request");
					outcome = DETACHED;
					break;
				}
				acknowledge(c.current.generation, CS_DIALS_REJECTED, why);
			}
		}
		if (sizecap_reached()) {
			outcome = FULL;
			break;
		}
		uint64_t now = agent_mono_ns();
		if (now - last_health >= HEALTH_EVERY_MS * 1000000ull) {
			last_health = now;
			if (session_vanished()) {
				outcome = VANISHED;
				break;
			}
			check_semaphore();
		}
	}
	if (outcome == VANISHED)
		life_stop(CS_END_FATAL, "the session directory was removed");
	if (outcome == FULL) /* the writer has written END and drops the rest */
		life_stop(CS_END_SIZE_CAP, "the session reached its size cap");
	release(true); /* a stopped session's name must not linger either */
	pthread_mutex_lock(&c.mu);
	c.alive = false;
	pthread_cond_broadcast(&c.cv);
	pthread_mutex_unlock(&c.mu);
	return NULL;
}

int control_start(void)
{
	pthread_once(&c.cv_once, cv_init);
	pthread_mutex_lock(&c.mu);
	c.stop = false;
	c.alive = true;
	pthread_mutex_unlock(&c.mu);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old); /* from its first instruction */
	int rc = pthread_create(&c.thread, NULL, control_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_mutex_lock(&c.mu);
		c.alive = false;
		pthread_mutex_unlock(&c.mu);
		release(true);
		return -1;
	}
	pthread_setname_np(c.thread, "clrscope-ctl");
	/* nobody joins it: it may end itself (detach, vanished session) */
	pthread_detach(c.thread);
	return 0;
}

void control_abandon(void)
{
	release(true);
}

void control_stop(void)
{
	pthread_once(&c.cv_once, cv_init);
	pthread_mutex_lock(&c.mu);
	/* the control thread stopping everything itself (a detach) goes on */
	if (!c.alive || pthread_equal(pthread_self(), c.thread)) {
		pthread_mutex_unlock(&c.mu);
		return;
	}
	c.stop = true;
	if (c.sem)
		sem_post(c.sem);
	wait_gone_locked(500); /* a thread still busy leaves on its own */
	pthread_mutex_unlock(&c.mu);
}
