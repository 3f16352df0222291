#include "agent/log/logwriter.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/log/sizecap.h"
#include "common/logfmt.h"
#include "common/session.h"

#define LW_BUFFER_BYTES (2u << 20)
#define LW_FLUSH_THRESHOLD (256u << 10)
#define LW_STATUS_EVERY_NS 1000000000ull

struct logwriter {
	pthread_mutex_t mu;
	pthread_cond_t wake;
	uint8_t *active, *spare;
	size_t active_len;
	uint32_t active_records;
	bool stop, running, flush_requested;
	uint32_t flush_ms;
	pthread_t thread;

	/* writer-thread only */
	int dirfd, segfd;
	int statusfd; /* SESSION/PID/status: the latest STATUS, rewritten in place */
	uint32_t seq;
	uint64_t seg_bytes;
	bool capped; /* the session's size cap was reached: END written, the rest dropped */
	uint64_t last_status_ns;

	_Atomic uint64_t dropped_records, dropped_bytes, write_errors;
	_Atomic uint32_t drop_epoch;

	pthread_mutex_t stats_mu;
	struct cs_status stats; /* the sampler's fields of the next STATUS */
	uint64_t (*other_drops)(void); /* lw_set_drop_counter's */
	lw_write_fn *write;            /* lw_set_write's */
};

static struct logwriter lw = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.stats_mu = PTHREAD_MUTEX_INITIALIZER,
	.dirfd = -1,
	.segfd = -1,
	.statusfd = -1,
	.write = write,
};

#define STATUS_FILE "status"
#define STATUS_FILE_BYTES 4096

uint32_t lw_drop_epoch(void)
{
	return atomic_load_explicit(&lw.drop_epoch, memory_order_acquire);
}

static void count_drop(uint64_t records, uint64_t bytes)
{
	atomic_fetch_add(&lw.dropped_records, records);
	atomic_fetch_add(&lw.dropped_bytes, bytes);
	atomic_fetch_add_explicit(&lw.drop_epoch, 1, memory_order_release);
}

/* Copies records into the active buffer when they fit; lw.mu held. */
static bool append_locked(const void *records, size_t len, uint32_t nrecords, bool *wake)
{
	if (!lw.running || len > LW_BUFFER_BYTES - lw.active_len)
		return false;
	memcpy(lw.active + lw.active_len, records, len);
	lw.active_len += len;
	lw.active_records += nrecords;
	*wake = lw.active_len >= LW_FLUSH_THRESHOLD;
	return true;
}

bool lw_append(const void *records, size_t len, uint32_t nrecords)
{
	if (!len)
		return true;
	bool wake = false;
	pthread_mutex_lock(&lw.mu);
	bool ok = append_locked(records, len, nrecords, &wake);
	pthread_mutex_unlock(&lw.mu);
	if (!ok)
		count_drop(nrecords, len);
	if (wake)
		pthread_cond_signal(&lw.wake);
	return ok;
}

bool lw_append_wait(const void *records, size_t len, uint32_t nrecords, uint32_t timeout_ms)
{
	uint64_t deadline = agent_mono_ns() + (uint64_t)timeout_ms * 1000000u;
	for (;;) {
		bool wake = false;
		pthread_mutex_lock(&lw.mu);
		bool running = lw.running;
		bool ok = running && append_locked(records, len, nrecords, &wake);
		if (!ok)
			lw.flush_requested = true;
		pthread_mutex_unlock(&lw.mu);
		if (wake || (!ok && running))
			pthread_cond_signal(&lw.wake);
		if (ok)
			return true;
		if (!running || len > LW_BUFFER_BYTES || agent_mono_ns() >= deadline) {
			count_drop(nrecords, len);
			return false;
		}
		struct timespec pause = {0, 200 * 1000L};
		nanosleep(&pause, NULL);
	}
}

bool lw_append_record(uint16_t type, const void *payload, size_t len)
{
	uint8_t small[4096];
	uint8_t *buf = small;
	size_t need = len + CS_REC_HEADER_LEN;
	if (need > sizeof small && !(buf = malloc(need))) {
		count_drop(1, need);
		return false;
	}
	struct cs_out o;
	cs_out_init(&o, buf, need);
	size_t at = cs_record_begin(&o);
	cs_put_bytes(&o, payload, len);
	bool ok = cs_record_end(&o, at, type) && lw_append(o.buf, o.len, 1);
	if (buf != small)
		free(buf);
	return ok;
}

void lw_message(int level, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	agent_debug("%s", text);

	uint8_t payload[600];
	struct cs_out o;
	cs_out_init(&o, payload, sizeof payload);
	struct cs_message m = {agent_now_us(), (uint8_t)level, {text, strlen(text)}};
	cs_message_encode(&o, &m);
	lw_append_record(CS_REC_MESSAGE, o.buf, o.len);
}

void lw_set_sampler_stats(const struct cs_status *s)
{
	pthread_mutex_lock(&lw.stats_mu);
	lw.stats = *s;
	pthread_mutex_unlock(&lw.stats_mu);
}

void lw_set_write(lw_write_fn *fn)
{
	lw.write = fn ? fn : write;
}

void lw_set_drop_counter(uint64_t (*count)(void))
{
	lw.other_drops = count;
}

void lw_set_flush_ms(uint32_t ms)
{
	pthread_mutex_lock(&lw.mu);
	lw.flush_ms = ms;
	pthread_mutex_unlock(&lw.mu);
	pthread_cond_signal(&lw.wake);
}

void lw_flush_soon(void)
{
	pthread_mutex_lock(&lw.mu);
	lw.flush_requested = true;
	pthread_mutex_unlock(&lw.mu);
	pthread_cond_signal(&lw.wake);
}

/* ---- writer thread ---- */

/* How many taken segment names the writer steps over before it gives up. */
#define LW_SEGMENT_TRIES 16

/* Creates the next segment; a name already taken (by a symbolic link, or
 * anything not made here) is left alone, and the log goes on under the next
 * number, which readers find too (clrscope-session(5)). */
static int open_segment(void)
{
	for (int tries = 0; tries < LW_SEGMENT_TRIES; tries++) {
		char name[CS_SEG_NAME_MAX], why[128];
		snprintf(name, sizeof name, CS_SEG_NAME_FMT, lw.seq);
		int fd = cs_open_file_at(lw.dirfd, name, O_WRONLY | O_CREAT | O_EXCL, 0600, why, sizeof why);
		if (fd < 0 && errno == EEXIST) {
			lw_message(CS_LEVEL_WARNING,
				   "%s already existed (%s), made by someone else: left alone, the log goes on in "
				   "segment %u",
				   name, cs_entry_kind(lw.dirfd, name), lw.seq + 1);
			lw.seq++;
			continue;
		}
		if (fd < 0)
			return -1;
		uint8_t header[CS_SEG_HEADER_LEN];
		cs_seg_header_make(header, lw.seq);
		if (lw.write(fd, header, sizeof header) != (ssize_t)sizeof header) {
			/* leave no headless segment behind: the next try reuses the number */
			close(fd);
			unlinkat(lw.dirfd, name, 0);
			return -1;
		}
		lw.seg_bytes = sizeof header;
		return fd;
	}
	return -1;
}

/* Writes as much as it can; returns the bytes written. */
static size_t write_all(int fd, const uint8_t *p, size_t n)
{
	size_t done = 0;
	while (done < n) {
		ssize_t w = lw.write(fd, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	return done;
}

/* The end of the last whole record within the first n bytes of data (a
 * buffer of whole records), and how many records that is. */
static size_t whole_records(const uint8_t *data, size_t n, uint32_t *count)
{
	size_t at = 0;
	*count = 0;
	for (;;) {
		struct cs_record rec;
		size_t used;
		if (cs_scan_record(data + at, n - at, &rec, &used) != CS_SCAN_RECORD)
			return at;
		at += used;
		(*count)++;
	}
}

static void write_out(const uint8_t *data, size_t len, uint32_t nrecords);

/* The session is full: one END says so (a few bytes over the cap), and
 * everything after it is dropped until the agent stops. */
static void end_at_cap(void)
{
	char why[160];
	snprintf(why, sizeof why, "the session reached its size cap of %llu KiB (max-size); recording stopped",
		 (unsigned long long)(sizecap_max() >> 10));
	uint8_t frame[256];
	struct cs_out o;
	cs_out_init(&o, frame, sizeof frame);
	size_t at = cs_record_begin(&o);
	struct cs_message end = {.time_us = agent_now_us(), .level = CS_END_SIZE_CAP, .text = {why, strlen(why)}};
	cs_message_encode(&o, &end);
	if (cs_record_end(&o, at, CS_REC_END))
		write_out(o.buf, o.len, 0); /* 0: past the cap check */
	agent_debug("%s", why);
}

static void write_out(const uint8_t *data, size_t len, uint32_t nrecords)
{
	if (!len)
		return;
	size_t room;
	if (nrecords && !sizecap_fits(len, &room)) {
		/* the whole records that still fit go out before the END */
		uint32_t fit = 0;
		size_t part = whole_records(data, room < len ? room : len, &fit);
		size_t unused;
		if (part && !lw.capped && sizecap_fits(part, &unused)) {
			write_out(data, part, 0); /* (0: counted in already) */
			len -= part;
			nrecords -= fit;
		}
		sizecap_refuse();
		bool first = !lw.capped;
		lw.capped = true;
		count_drop(nrecords, len);
		if (first)
			end_at_cap();
		return;
	}
	if (lw.segfd >= 0 && lw.seg_bytes >= CS_SEG_TARGET_BYTES) {
		close(lw.segfd);
		lw.segfd = -1;
		lw.seq++;
	}
	if (lw.segfd < 0)
		lw.segfd = open_segment();
	if (lw.segfd < 0) {
		atomic_fetch_add(&lw.write_errors, 1);
		count_drop(nrecords, len);
		return;
	}
	size_t written = write_all(lw.segfd, data, len);
	if (written == len) {
		lw.seg_bytes += len;
		return;
	}
	/* A full disk took part of it: keep the whole records that made it and
	 * cut the rest, so that the segment ends on a record boundary. */
	uint32_t kept;
	size_t keep = whole_records(data, written, &kept);
	if (ftruncate(lw.segfd, (off_t)(lw.seg_bytes + keep)) != 0) {
		close(lw.segfd); /* the tail is torn: readers skip it; start afresh */
		lw.segfd = -1;
		lw.seq++;
	} else {
		lseek(lw.segfd, (off_t)(lw.seg_bytes + keep), SEEK_SET);
		lw.seg_bytes += keep;
	}
	atomic_fetch_add(&lw.write_errors, 1);
	count_drop(nrecords > kept ? nrecords - kept : 0, len - keep);
}

static void append_status(void)
{
	pthread_mutex_lock(&lw.stats_mu);
	struct cs_status st = lw.stats; /* the sampler's fields; the writer's below */
	pthread_mutex_unlock(&lw.stats_mu);
	/* the writer's own clock, by its id: lw_stop writes the last STATUS
	 * from another thread */
	clockid_t clock;
	if (pthread_getcpuclockid(lw.thread, &clock) == 0)
		st.writer_cpu_ns = agent_clock_ns(clock);
	st.time_us = agent_now_us();
	st.dropped_records = atomic_load(&lw.dropped_records) + (lw.other_drops ? lw.other_drops() : 0);
	st.dropped_bytes = atomic_load(&lw.dropped_bytes);
	st.write_errors = atomic_load(&lw.write_errors);
	uint8_t payload[8 + 32 * 10]; /* its time, and room for 32 varints of 10 bytes */
	struct cs_out o;
	cs_out_init(&o, payload, sizeof payload);
	cs_status_encode(&o, &st);
	lw_append_record(CS_REC_STATUS, o.buf, o.len);
	/* The same record overwrites the status file's preallocated first bytes,
	 * which needs no new space: on a full disk it still tells the reader
	 * what was dropped. */
	if (lw.statusfd >= 0) {
		uint8_t frame[sizeof payload + 64];
		struct cs_out f;
		cs_out_init(&f, frame, sizeof frame);
		size_t at = cs_record_begin(&f);
		cs_put_bytes(&f, o.buf, o.len);
		if (cs_record_end(&f, at, CS_REC_STATUS) && pwrite(lw.statusfd, f.buf, f.len, 0) < 0)
			atomic_fetch_add(&lw.write_errors, 1);
	}
}

/* Swaps buffers under the lock, writes outside it. */
static void flush_once(void)
{
	pthread_mutex_lock(&lw.mu);
	uint8_t *data = lw.active;
	size_t len = lw.active_len;
	uint32_t n = lw.active_records;
	lw.active = lw.spare;
	lw.spare = data;
	lw.active_len = 0;
	lw.active_records = 0;
	pthread_mutex_unlock(&lw.mu);
	write_out(data, len, n);
}

static void *writer_main(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&lw.mu);
	while (!lw.stop) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)lw.flush_ms * 1000000ull;
		until.tv_sec += (time_t)(ns / 1000000000ull);
		until.tv_nsec = (long)(ns % 1000000000ull);
		while (!lw.stop && lw.active_len < LW_FLUSH_THRESHOLD && !lw.flush_requested) {
			if (pthread_cond_timedwait(&lw.wake, &lw.mu, &until) == ETIMEDOUT)
				break;
		}
		lw.flush_requested = false;
		pthread_mutex_unlock(&lw.mu);
		uint64_t now = agent_mono_ns();
		if (now - lw.last_status_ns >= LW_STATUS_EVERY_NS) {
			lw.last_status_ns = now;
			append_status();
		}
		flush_once();
		pthread_mutex_lock(&lw.mu);
	}
	pthread_mutex_unlock(&lw.mu);
	return NULL;
}

int lw_start(const char *proc_dir, uint32_t flush_ms)
{
	char err[300];
	lw.dirfd = cs_proc_dir_open(proc_dir, err, sizeof err);
	if (lw.dirfd < 0) {
		agent_debug("%s", err);
		return -1;
	}
	/* kept across detach and attach again: a late producer may still hold
	 * the lock on them, and the image is never unloaded */
	if (!lw.active)
		lw.active = malloc(LW_BUFFER_BYTES);
	if (!lw.spare)
		lw.spare = malloc(LW_BUFFER_BYTES);
	if (!lw.active || !lw.spare) {
		free(lw.active);
		free(lw.spare);
		lw.active = lw.spare = NULL;
		close(lw.dirfd);
		lw.dirfd = -1;
		return -1;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&lw.wake, &ca);
	pthread_condattr_destroy(&ca);
	char why[128];
	lw.statusfd = cs_open_file_at(lw.dirfd, STATUS_FILE, O_RDWR | O_CREAT | O_EXCL, 0600, why, sizeof why);
	if (lw.statusfd < 0)
		agent_debug("cannot create %s/%s: it %s", proc_dir, STATUS_FILE, why);
	if (lw.statusfd >= 0 && posix_fallocate(lw.statusfd, 0, STATUS_FILE_BYTES) != 0) {
		close(lw.statusfd); /* no room even for that: do without */
		lw.statusfd = -1;
	}
	lw.active_len = 0;
	lw.active_records = 0;
	lw.capped = false;
	lw.seq = 1;
	lw.segfd = -1;
	lw.stop = false;
	lw.flush_requested = false;
	lw.flush_ms = flush_ms ? flush_ms : 100;
	lw.last_status_ns = agent_mono_ns();
	atomic_store(&lw.dropped_records, 0);
	atomic_store(&lw.dropped_bytes, 0);
	atomic_store(&lw.write_errors, 0);
	memset(&lw.stats, 0, sizeof lw.stats);
	lw.running = true;
	if (pthread_create(&lw.thread, NULL, writer_main, NULL) != 0) {
		lw.running = false;
		return -1;
	}
	pthread_setname_np(lw.thread, "clrscope-write"); /* top -H, the Threads view */
	return 0;
}

void lw_stop(uint8_t end_reason, const char *why)
{
	pthread_mutex_lock(&lw.mu);
	bool was_running = lw.running;
	pthread_mutex_unlock(&lw.mu);
	if (!was_running)
		return;
	if (!sizecap_reached()) /* else its END is written already */
		append_status();
	uint8_t payload[512];
	struct cs_out o;
	cs_out_init(&o, payload, sizeof payload);
	struct cs_message end = {.time_us = agent_now_us(), .level = end_reason,
				 .text = {why, strlen(why)}};
	cs_message_encode(&o, &end);
	if (!sizecap_reached())
		lw_append_record(CS_REC_END, o.buf, o.len);

	pthread_mutex_lock(&lw.mu);
	lw.stop = true;
	pthread_mutex_unlock(&lw.mu);
	pthread_cond_signal(&lw.wake);
	pthread_join(lw.thread, NULL);

	pthread_mutex_lock(&lw.mu);
	lw.running = false;
	pthread_mutex_unlock(&lw.mu);
	flush_once(); /* whatever arrived before running went false */
	if (lw.segfd >= 0)
		close(lw.segfd);
	if (lw.statusfd >= 0)
		close(lw.statusfd);
	close(lw.dirfd);
	lw.segfd = lw.dirfd = lw.statusfd = -1;
	sizecap_stop();
	pthread_cond_destroy(&lw.wake);
}
