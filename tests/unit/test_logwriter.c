/* The agent's log writer (agent/log/logwriter.c) and size cap (sizecap.c),
 * from their own source: records framed through common/logfmt and read
 * back by common's reader; the buffer swap; drops counted when the buffer
 * is full or a write fails (the writer's writes go through a test's
 * function: lw_set_write); STATUS records and the status file; the size
 * cap's END; segments rotated, and a name already taken stepped over. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agent/log/logwriter.h"
#include "agent/log/sizecap.h"
#include "check.h"
#include "common/sessionlimits.h"
#include "testutil.h"

#define TEST_TYPE 0x7f01 /* records of a kind no reader knows: framing only */
#define BUFFER_BYTES (2u << 20) /* logwriter.c's LW_BUFFER_BYTES */
#define NO_TIMER 600000       /* a flush interval no test reaches: flushes are asked for */

/* --- the writer's writes ---------------------------------------------- */

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool hold;       /* writes wait until released */
	bool holding;    /* one waits now */
	int fail_header; /* segment headers refused (ENOSPC) */
	int fail_data;   /* writes of records refused */
	long short_at;   /* the next write of records writes this many bytes (-1: all) */
	uint64_t calls;
	uint8_t mark[16]; /* drain's record, seen written (mark_seen) */
	bool mark_seen;
} fw = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, 0, 0, -1, 0, {0}, false};

static ssize_t test_write(int fd, const void *buf, size_t n)
{
	pthread_mutex_lock(&fw.mu);
	while (fw.hold) {
		fw.holding = true;
		pthread_cond_broadcast(&fw.cv);
		pthread_cond_wait(&fw.cv, &fw.mu);
	}
	fw.holding = false;
	bool header = n == CS_SEG_HEADER_LEN && !memcmp(buf, CS_SEG_MAGIC, 8);
	size_t len = n;
	int fail = 0;
	if (header && fw.fail_header > 0) {
		fw.fail_header--;
		fail = ENOSPC;
	} else if (!header && fw.fail_data > 0) {
		fw.fail_data--;
		fail = ENOSPC;
	} else if (!header && fw.short_at >= 0) {
		len = (size_t)fw.short_at < n ? (size_t)fw.short_at : n;
		fw.short_at = -1;
		fw.fail_data = 1; /* the rest of it: the disk is full */
	}
	ssize_t done = fail ? -1 : write(fd, buf, len);
	if (done > 0 && memmem(buf, (size_t)done, fw.mark, sizeof fw.mark))
		fw.mark_seen = true;
	fw.calls++;
	pthread_cond_broadcast(&fw.cv);
	pthread_mutex_unlock(&fw.mu);
	if (fail)
		errno = fail;
	return done;
}

enum wait_for { CALLS, HELD, MARK };

/* Waits until the writer has made at least calls writes, is held in one,
 * or wrote drain's mark; false after ten seconds. */
static bool wait_writer(enum wait_for what, uint64_t calls)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&fw.mu);
	bool ok;
	for (;;) {
		ok = what == HELD ? fw.holding : what == MARK ? fw.mark_seen : fw.calls >= calls;
		if (ok || pthread_cond_timedwait(&fw.cv, &fw.mu, &until) != 0)
			break;
	}
	pthread_mutex_unlock(&fw.mu);
	return ok;
}

static uint64_t writes(void)
{
	pthread_mutex_lock(&fw.mu);
	uint64_t n = fw.calls;
	pthread_mutex_unlock(&fw.mu);
	return n;
}

static void hold_writes(bool on)
{
	pthread_mutex_lock(&fw.mu);
	fw.hold = on;
	pthread_cond_broadcast(&fw.cv);
	pthread_mutex_unlock(&fw.mu);
}

/* --- a session ---------------------------------------------------------- */

struct session {
	char dir[64], proc[96];
	int fd;
};

/* A session directory with one process's, and the writer started on it
 * as the agent starts it: its size cap first (max 0: none). */
static void session_start(struct session *s, uint64_t max)
{
	snprintf(s->dir, sizeof s->dir, "%s", make_temp_dir());
	snprintf(s->proc, sizeof s->proc, "%s/4242", s->dir);
	if (mkdir(s->proc, 0700) != 0) {
		perror(s->proc);
		exit(1);
	}
	s->fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	sizecap_start(max ? dup(s->fd) : -1, max);
	CHECK(lw_start(s->proc, NO_TIMER) == 0);
}

static void session_end(struct session *s)
{
	close(s->fd);
	remove_tree(s->dir);
}

/* Waits until everything appended so far is written: a record of its own
 * goes after it (tried again while the buffer is full: the refusals
 * counted, as the writer counts them). */
static uint64_t drain(void)
{
	static uint32_t serial;
	uint8_t mark[16];
	snprintf((char *)mark, sizeof mark, "drain %08x", ++serial);
	pthread_mutex_lock(&fw.mu);
	memcpy(fw.mark, mark, sizeof mark);
	fw.mark_seen = false;
	pthread_mutex_unlock(&fw.mu);
	uint64_t refused = 0;
	while (!lw_append_record(TEST_TYPE + 2, mark, sizeof mark)) {
		refused++;
		usleep(1000);
	}
	lw_flush_soon();
	CHECK(wait_writer(MARK, 0));
	return refused;
}

/* A record of TEST_TYPE numbered n, len bytes framed. */
static bool append_numbered(uint32_t n, size_t len)
{
	static uint8_t payload[1u << 20];
	size_t plen = len - CS_REC_HEADER_LEN;
	memset(payload, (int)(n & 0xff), plen);
	memcpy(payload, &n, sizeof n);
	return lw_append_record(TEST_TYPE, payload, plen);
}

/* What a process directory's log holds, as common's reader reads it. */
#define RECORDS_MAX 4096
struct readback {
	uint32_t n;
	uint16_t type[RECORDS_MAX];
	uint32_t len[RECORDS_MAX];
	uint8_t *payload[RECORDS_MAX];
	struct cs_reader r;
};

static void read_back(const char *proc, struct readback *b)
{
	memset(b, 0, sizeof *b);
	CHECK(cs_reader_open(&b->r, proc) == 0);
	struct cs_record rec;
	int got;
	while ((got = cs_reader_next(&b->r, &rec, true)) == 1 && b->n < RECORDS_MAX) {
		b->type[b->n] = rec.type;
		b->len[b->n] = rec.len;
		b->payload[b->n] = malloc(rec.len ? rec.len : 1);
		memcpy(b->payload[b->n], rec.payload, rec.len);
		b->n++;
	}
	CHECK(got == 0);
	CHECK_EQ_U(b->r.torn_bytes, 0);
	CHECK_EQ_U(b->r.skipped_bytes, 0);
}

static void readback_free(struct readback *b)
{
	for (uint32_t i = 0; i < b->n; i++)
		free(b->payload[i]);
	cs_reader_close(&b->r);
}

/* The numbers of the TEST_TYPE records, in order, into out (at most max). */
static uint32_t numbers(const struct readback *b, uint32_t *out, uint32_t max)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < b->n && k < max; i++)
		if (b->type[i] == TEST_TYPE)
			memcpy(&out[k++], b->payload[i], sizeof *out);
	return k;
}

static bool last_status(const struct readback *b, struct cs_status *st)
{
	memset(st, 0, sizeof *st);
	for (uint32_t i = b->n; i-- > 0;)
		if (b->type[i] == CS_REC_STATUS)
			return cs_status_decode(b->payload[i], b->len[i], st);
	return false;
}

/* --- the cases -------------------------------------------------------- */

/* Records of any kind, one or several framed at once, MESSAGE lines; at
 * the end a STATUS and the END, read back as written. */
static void framing(void)
{
	struct session s;
	session_start(&s, 0);
	CHECK(lw_append(NULL, 0, 0));
	CHECK(lw_append_record(TEST_TYPE, "abc", 3));
	uint8_t two[64];
	struct cs_out o;
	cs_out_init(&o, two, sizeof two);
	put_record(&o, TEST_TYPE, "de", 2);
	put_record(&o, TEST_TYPE + 1, "", 0);
	CHECK(lw_append(o.buf, o.len, 2));
	lw_message(CS_LEVEL_WARNING, "a warning %d", 7);
	lw_stop(CS_END_SHUTDOWN, "bye");
	struct readback b;
	read_back(s.proc, &b);
	CHECK_EQ_U(b.r.segments, 1);
	CHECK(b.n >= 6);
	if (b.n >= 6) {
		CHECK(b.type[0] == TEST_TYPE && b.len[0] == 3 && !memcmp(b.payload[0], "abc", 3));
		CHECK(b.type[1] == TEST_TYPE && b.len[1] == 2 && !memcmp(b.payload[1], "de", 2));
		CHECK(b.type[2] == TEST_TYPE + 1 && b.len[2] == 0);
		struct cs_message m;
		CHECK(b.type[3] == CS_REC_MESSAGE && cs_message_decode(b.payload[3], b.len[3], &m));
		CHECK(m.level == CS_LEVEL_WARNING && m.text.len == 11 && !memcmp(m.text.p, "a warning 7", 11));
		CHECK(b.type[b.n - 2] == CS_REC_STATUS);
		CHECK(b.type[b.n - 1] == CS_REC_END && cs_message_decode(b.payload[b.n - 1], b.len[b.n - 1], &m));
		CHECK(m.level == CS_END_SHUTDOWN && m.text.len == 3 && !memcmp(m.text.p, "bye", 3));
	}
	readback_free(&b);
	/* stopped: nothing is taken, and the drop is counted */
	uint32_t epoch = lw_drop_epoch();
	CHECK(!lw_append_record(TEST_TYPE, "x", 1));
	CHECK_EQ_U(lw_drop_epoch(), epoch + 1);
	session_end(&s);
}

/* The buffer fills while the writer is held in a write: what does not fit
 * is dropped and counted (records and bytes, in STATUS), what did is all
 * there after the swap. */
static void buffer_full(void)
{
	struct session s;
	session_start(&s, 0);
	hold_writes(true);
	CHECK(append_numbered(0, 64));
	lw_flush_soon();
	CHECK(wait_writer(HELD, 0)); /* in its first write, record 0 swapped out */
	uint32_t epoch = lw_drop_epoch(), taken = 0, refused = 0;
	for (uint32_t n = 1; n <= 40; n++) {
		if (append_numbered(n, 64u << 10))
			taken++;
		else
			refused++;
	}
	CHECK_EQ_U(taken, BUFFER_BYTES / (64u << 10));
	CHECK_EQ_U(refused, 40 - taken);
	CHECK_EQ_U(lw_drop_epoch(), epoch + refused);
	hold_writes(false);
	uint64_t refused_marks = drain(); /* (the buffer may still be full) */
	lw_stop(CS_END_SHUTDOWN, "");
	struct readback b;
	read_back(s.proc, &b);
	uint32_t got[64];
	uint32_t n = numbers(&b, got, 64);
	CHECK_EQ_U(n, taken + 1);
	for (uint32_t k = 0; k < n; k++)
		CHECK_EQ_U(got[k], k);
	struct cs_status st;
	CHECK(last_status(&b, &st));
	CHECK_EQ_U(st.dropped_records, refused + refused_marks);
	CHECK_EQ_U(st.dropped_bytes, (uint64_t)refused * (64u << 10) + refused_marks * (CS_REC_HEADER_LEN + 16));
	CHECK_EQ_U(st.write_errors, 0);
	readback_free(&b);
	session_end(&s);
}

/* A segment's header cannot be written: that flush is lost (counted), the
 * segment is not left headless, and the next flush starts it again. */
static void header_write_fails(void)
{
	struct session s;
	session_start(&s, 0);
	fw.fail_header = 1;
	uint64_t w = writes();
	CHECK(append_numbered(1, 100));
	lw_flush_soon();
	CHECK(wait_writer(CALLS, w + 1));
	CHECK(append_numbered(2, 100));
	lw_flush_soon();
	CHECK(wait_writer(CALLS, w + 3)); /* the header again, and the records */
	lw_stop(CS_END_SHUTDOWN, "");
	struct readback b;
	read_back(s.proc, &b);
	uint32_t got[8];
	CHECK_EQ_U(numbers(&b, got, 8), 1);
	CHECK_EQ_U(got[0], 2);
	CHECK_EQ_U(b.r.segments, 1);
	struct cs_status st;
	CHECK(last_status(&b, &st));
	CHECK_EQ_U(st.write_errors, 1);
	CHECK_EQ_U(st.dropped_records, 1);
	CHECK_EQ_U(st.dropped_bytes, 100);
	readback_free(&b);
	session_end(&s);
}

/* A full disk takes part of a write: the whole records that made it stay,
 * the segment is cut at the last of them, and what comes later follows
 * there; a write refused outright loses its flush.  Each is counted. */
static void data_write_fails(void)
{
	struct session s;
	session_start(&s, 0);
	uint64_t w = writes();
	for (uint32_t n = 0; n < 5; n++)
		CHECK(append_numbered(n, 1000));
	fw.short_at = 2900; /* records 0 and 1 whole, most of 2: longer than all that follows */
	lw_flush_soon();
	CHECK(wait_writer(CALLS, w + 3)); /* the header, the short write, the refused rest */
	for (uint32_t n = 5; n < 7; n++)
		CHECK(append_numbered(n, 64));
	lw_flush_soon();
	CHECK(wait_writer(CALLS, w + 4));
	pthread_mutex_lock(&fw.mu);
	fw.fail_data = 1;
	pthread_mutex_unlock(&fw.mu);
	CHECK(append_numbered(7, 64));
	lw_flush_soon();
	CHECK(wait_writer(CALLS, w + 5));
	CHECK(append_numbered(8, 64));
	drain(); /* (and the refusal before is counted) */
	lw_stop(CS_END_SHUTDOWN, "");
	struct readback b;
	read_back(s.proc, &b);
	uint32_t got[16];
	uint32_t n = numbers(&b, got, 16);
	CHECK_EQ_U(n, 5);
	const uint32_t want[] = {0, 1, 5, 6, 8};
	for (uint32_t k = 0; k < n && k < 5; k++)
		CHECK_EQ_U(got[k], want[k]);
	struct cs_status st;
	CHECK(last_status(&b, &st));
	CHECK_EQ_U(st.write_errors, 2);
	CHECK_EQ_U(st.dropped_records, 4);
	CHECK_EQ_U(st.dropped_bytes, 3 * 1000 + 64);
	readback_free(&b);
	session_end(&s);
}

static uint64_t five_more(void)
{
	return 5;
}

/* STATUS: the sampler's counters as set, the writer's own drops and the
 * event queue's; the status file holds the same record. */
static void status_records(void)
{
	lw_set_drop_counter(five_more);
	struct session s;
	session_start(&s, 0);
	lw_set_sampler_stats(&(struct cs_status){.ticks = 11, .samples = 22, .signals = 33, .kernel_lost = 44});
	static uint8_t big[BUFFER_BYTES + 1];
	CHECK(!lw_append(big, sizeof big, 1)); /* more than the buffer holds */
	lw_stop(CS_END_DETACH, "detached");
	lw_set_drop_counter(NULL);
	struct readback b;
	read_back(s.proc, &b);
	struct cs_status st;
	CHECK(last_status(&b, &st));
	CHECK_EQ_U(st.ticks, 11);
	CHECK_EQ_U(st.samples, 22);
	CHECK_EQ_U(st.signals, 33);
	CHECK_EQ_U(st.kernel_lost, 44);
	CHECK_EQ_U(st.dropped_records, 1 + 5);
	CHECK_EQ_U(st.dropped_bytes, sizeof big);
	struct cs_message end;
	CHECK(b.n && b.type[b.n - 1] == CS_REC_END && cs_message_decode(b.payload[b.n - 1], b.len[b.n - 1], &end));
	CHECK(end.level == CS_END_DETACH);
	/* the status file: that STATUS, framed, at its start */
	char path[160];
	snprintf(path, sizeof path, "%s/status", s.proc);
	uint8_t file[4096];
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	ssize_t got = fd >= 0 ? read(fd, file, sizeof file) : -1;
	if (fd >= 0)
		close(fd);
	struct cs_record rec;
	size_t used;
	struct cs_status in_file;
	memset(&in_file, 0, sizeof in_file);
	CHECK(got > 0 && cs_scan_record(file, (size_t)got, &rec, &used) == CS_SCAN_RECORD);
	CHECK(rec.type == CS_REC_STATUS && cs_status_decode(rec.payload, rec.len, &in_file));
	CHECK(memcmp(&in_file, &st, sizeof st) == 0);
	readback_free(&b);
	session_end(&s);
}

/* The session's size cap: the whole records that fit, then one END that
 * says so; the session is closed to later processes, and what comes after
 * is dropped. */
static void size_cap(void)
{
	struct session s;
	const uint64_t max = 32u << 10;
	session_start(&s, max);
	uint64_t before = cs_session_bytes(s.fd); /* the status file */
	uint64_t w = writes();
	for (uint32_t n = 0; n < 60; n++)
		CHECK(append_numbered(n, 1024));
	lw_flush_soon();
	CHECK(wait_writer(CALLS, w + 3)); /* the header, what fits, the END */
	CHECK(sizecap_reached());
	CHECK(cs_session_closed(s.fd));
	CHECK(append_numbered(60, 1024)); /* taken into the buffer, never written */
	lw_stop(CS_END_SHUTDOWN, "");
	struct readback b;
	read_back(s.proc, &b);
	uint32_t got[64];
	uint32_t n = numbers(&b, got, 64);
	CHECK_EQ_U(n, (max - before) / 1024);
	for (uint32_t k = 0; k < n; k++)
		CHECK_EQ_U(got[k], k);
	uint32_t ends = 0;
	for (uint32_t i = 0; i < b.n; i++)
		ends += b.type[i] == CS_REC_END;
	CHECK_EQ_U(ends, 1);
	struct cs_message end;
	CHECK(b.n && b.type[b.n - 1] == CS_REC_END && cs_message_decode(b.payload[b.n - 1], b.len[b.n - 1], &end));
	CHECK(end.level == CS_END_SIZE_CAP);
	readback_free(&b);
	session_end(&s);
}

/* A log past a segment's size goes on in the next one; a producer that
 * finds the buffer full and tries again loses nothing, and each refusal
 * is counted. */
static void rotation(void)
{
	struct session s;
	session_start(&s, 0);
	const uint32_t records = 150; /* 64 KiB each: past CS_SEG_TARGET_BYTES */
	uint64_t refused = 0;
	for (uint32_t n = 0; n < records; n++) {
		while (!append_numbered(n, 64u << 10)) {
			refused++;
			usleep(1000);
		}
	}
	refused += drain(); /* room for the last STATUS and the END */
	lw_stop(CS_END_SHUTDOWN, "");
	struct readback b;
	read_back(s.proc, &b);
	CHECK_EQ_U(b.r.segments, 2);
	uint32_t got[256];
	uint32_t n = numbers(&b, got, 256);
	CHECK_EQ_U(n, records);
	for (uint32_t k = 0; k < n; k++)
		CHECK_EQ_U(got[k], k);
	struct cs_status st;
	CHECK(last_status(&b, &st));
	CHECK_EQ_U(st.dropped_records, refused);
	char path[160];
	struct stat first;
	snprintf(path, sizeof path, "%s/" CS_SEG_NAME_FMT, s.proc, 1u);
	CHECK(stat(path, &first) == 0 && (uint64_t)first.st_size >= CS_SEG_TARGET_BYTES);
	readback_free(&b);
	session_end(&s);
}

/* A segment's name taken by something the writer did not make: left
 * alone, the log goes on under the next number, and a MESSAGE says so. */
static void name_taken(void)
{
	char dir[64], proc[96], link[160];
	snprintf(dir, sizeof dir, "%s", make_temp_dir());
	snprintf(proc, sizeof proc, "%s/4242", dir);
	CHECK(mkdir(proc, 0700) == 0);
	snprintf(link, sizeof link, "%s/" CS_SEG_NAME_FMT, proc, 1u);
	CHECK(symlink("/nonexistent", link) == 0);
	sizecap_start(-1, 0);
	CHECK(lw_start(proc, NO_TIMER) == 0);
	CHECK(append_numbered(1, 100));
	drain(); /* the MESSAGE comes while the writer runs */
	lw_stop(CS_END_SHUTDOWN, "");
	struct readback b;
	read_back(proc, &b);
	CHECK_EQ_U(b.r.refused_segments, 1);
	uint32_t got[4];
	CHECK_EQ_U(numbers(&b, got, 4), 1);
	bool said = false;
	for (uint32_t i = 0; i < b.n; i++) {
		struct cs_message m;
		if (b.type[i] == CS_REC_MESSAGE && cs_message_decode(b.payload[i], b.len[i], &m))
			said |= m.level == CS_LEVEL_WARNING && memmem(m.text.p, m.text.len, "segment 2", 9) != NULL;
	}
	CHECK(said);
	struct stat st;
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode)); /* left alone */
	readback_free(&b);
	remove_tree(dir);
}

int main(void)
{
	lw_set_write(test_write);
	RUN(framing);
	RUN(buffer_full);
	RUN(header_write_fails);
	RUN(data_write_fails);
	RUN(status_records);
	RUN(size_cap);
	RUN(rotation);
	RUN(name_taken);
	return CHECK_DONE();
}
