#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "check.h"
#include "common/logfmt.h"
#include "testutil.h"

#define NREC 5

/* Builds NREC records of different sizes; ends[i] = offset after record i. */
static size_t build_records(uint8_t *buf, size_t cap, size_t ends[NREC])
{
	struct cs_out o;
	cs_out_init(&o, buf, cap);
	for (int i = 0; i < NREC; i++) {
		uint8_t payload[64];
		memset(payload, 0x10 + i, sizeof payload);
		put_record(&o, (uint16_t)(100 + i), payload, (size_t)(3 + 11 * i));
		ends[i] = o.len;
	}
	return o.len;
}

struct read_result {
	int records, status;
	uint16_t types[64];
	uint64_t skipped, torn;
	uint32_t bad_headers;
};

static struct read_result read_dir(const char *dir, bool final)
{
	struct read_result r = {0};
	struct cs_reader rd;
	if (cs_reader_open(&rd, dir) < 0) {
		r.status = -2;
		return r;
	}
	struct cs_record rec;
	while ((r.status = cs_reader_next(&rd, &rec, final)) == 1) {
		if (r.records < 64)
			r.types[r.records] = rec.type;
		r.records++;
	}
	r.skipped = rd.skipped_bytes;
	r.torn = rd.torn_bytes;
	r.bad_headers = rd.bad_headers;
	cs_reader_close(&rd);
	return r;
}

static void round_trip(void)
{
	char *dir = make_temp_dir();
	uint8_t buf[4096];
	size_t ends[NREC];
	size_t len = build_records(buf, sizeof buf, ends);
	write_segment(dir, 1, buf, len);
	struct read_result r = read_dir(dir, true);
	CHECK_EQ_U(r.records, NREC);
	CHECK_EQ_U(r.status, 0);
	for (int i = 0; i < NREC; i++)
		CHECK_EQ_U(r.types[i], 100 + i);
	CHECK_EQ_U(r.skipped, 0);
	CHECK_EQ_U(r.torn, 0);
	remove_tree(dir);
}

static void torn_tail_at_every_offset(void)
{
	char *dir = make_temp_dir();
	uint8_t buf[4096];
	size_t ends[NREC];
	size_t len = build_records(buf, sizeof buf, ends);
	int failures = check_failures;
	for (size_t cut = 0; cut <= len && check_failures == failures; cut++) {
		write_segment(dir, 1, buf, cut);
		int whole = 0;
		size_t last_end = 0;
		for (int i = 0; i < NREC; i++)
			if (ends[i] <= cut)
				whole = i + 1, last_end = ends[i];
		struct read_result r = read_dir(dir, true);
		CHECK_EQ_U(r.records, whole);
		CHECK_EQ_U(r.torn, cut - last_end);
		CHECK_EQ_U(r.skipped, 0);
		/* a live reader waits for the rest instead of calling it torn */
		struct read_result live = read_dir(dir, false);
		CHECK_EQ_U(live.records, whole);
		CHECK_EQ_U(live.torn, 0);
	}
	remove_tree(dir);
}

static void truncated_header(void)
{
	char *dir = make_temp_dir();
	uint8_t header[CS_SEG_HEADER_LEN];
	cs_seg_header_make(header, 1);
	char path[512];
	snprintf(path, sizeof path, "%s/" CS_SEG_NAME_FMT, dir, 1u);
	for (size_t cut = 0; cut < CS_SEG_HEADER_LEN; cut++) {
		write_file(path, header, cut);
		struct read_result r = read_dir(dir, true);
		CHECK_EQ_U(r.records, 0);
		CHECK(r.status == 0);
	}
	remove_tree(dir);
}

static void garbage_between_records(void)
{
	char *dir = make_temp_dir();
	uint8_t recs[4096], buf[8192];
	size_t ends[NREC];
	size_t len = build_records(recs, sizeof recs, ends);
	/* 37 bytes of garbage, including sync bytes, after record 2 */
	uint8_t garbage[37];
	for (size_t i = 0; i < sizeof garbage; i++)
		garbage[i] = (uint8_t)(i % 3 == 0 ? CS_REC_SYNC0 : i % 3 == 1 ? CS_REC_SYNC1 : 0xEE);
	memcpy(buf, recs, ends[1]);
	memcpy(buf + ends[1], garbage, sizeof garbage);
	memcpy(buf + ends[1] + sizeof garbage, recs + ends[1], len - ends[1]);
	write_segment(dir, 1, buf, len + sizeof garbage);
	struct read_result r = read_dir(dir, true);
	CHECK_EQ_U(r.records, NREC);
	CHECK_EQ_U(r.skipped, sizeof garbage);
	CHECK_EQ_U(r.torn, 0);
	remove_tree(dir);
}

/* A forged segment: a header claiming a 128 KiB payload at every 12th
 * byte of 512 KiB, then real records.  Each candidate's checksum would read
 * 128 KiB (some 5 GiB in all); the reader's work is bounded per input byte,
 * so it gets through at once and still finds the records after it. */
static void forged_segment_costs_linear_work(void)
{
	char *dir = make_temp_dir();
	size_t forged = 512u << 10, plen = 128u << 10;
	uint8_t recs[4096];
	size_t ends[NREC];
	size_t rlen = build_records(recs, sizeof recs, ends);
	uint8_t *buf = calloc(1, forged + rlen);
	for (size_t at = 0; at + CS_REC_HEADER_LEN <= forged; at += CS_REC_HEADER_LEN) {
		buf[at] = CS_REC_SYNC0;
		buf[at + 1] = CS_REC_SYNC1;
		buf[at + 2] = 100;
		cs_store_u32(buf + at + 4, (uint32_t)plen);
		cs_store_u32(buf + at + 8, (uint32_t)at); /* never the right checksum */
	}
	memcpy(buf + forged, recs, rlen);
	write_segment(dir, 1, buf, forged + rlen);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct read_result r = read_dir(dir, true);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(took < 1.0);
	if (took >= 1.0)
		fprintf(stderr, "forged segment: %.2f s\n", took);
	CHECK_EQ_U(r.records, NREC);
	CHECK_EQ_U(r.skipped, forged);
	free(buf);
	remove_tree(dir);
}

static void corrupted_record_is_skipped(void)
{
	char *dir = make_temp_dir();
	uint8_t buf[4096];
	size_t ends[NREC];
	size_t len = build_records(buf, sizeof buf, ends);
	buf[ends[1] + CS_REC_HEADER_LEN + 1] ^= 0x40; /* payload of record 3 */
	write_segment(dir, 1, buf, len);
	struct read_result r = read_dir(dir, true);
	CHECK_EQ_U(r.records, NREC - 1);
	CHECK_EQ_U(r.types[2], 103);
	CHECK_EQ_U(r.skipped, ends[2] - ends[1]);

	/* a length field blown up to swallow the records after it */
	len = build_records(buf, sizeof buf, ends);
	cs_store_u32(buf + ends[0] + 4, 900);
	write_segment(dir, 1, buf, len);
	r = read_dir(dir, true);
	CHECK_EQ_U(r.records, NREC - 1);
	CHECK_EQ_U(r.torn, 0);
	remove_tree(dir);
}

static void newer_format_is_refused(void)
{
	char *dir = make_temp_dir();
	uint8_t seg[CS_SEG_HEADER_LEN];
	cs_seg_header_make(seg, 1);
	cs_store_u16(seg + 8, CS_FORMAT_MAJOR + 1);
	char path[512];
	snprintf(path, sizeof path, "%s/" CS_SEG_NAME_FMT, dir, 1u);
	write_file(path, seg, sizeof seg);
	struct cs_reader rd;
	CHECK(cs_reader_open(&rd, dir) == 0);
	struct cs_record rec;
	CHECK(cs_reader_next(&rd, &rec, true) == -1);
	CHECK(strstr(rd.error, "log format 2.0") != NULL);
	cs_reader_close(&rd);

	/* a minor version bump is read as usual */
	uint8_t buf[4096];
	size_t ends[NREC];
	size_t len = build_records(buf, sizeof buf, ends);
	write_segment(dir, 1, buf, len);
	int fd = open(path, O_WRONLY);
	uint8_t minor[2];
	cs_store_u16(minor, CS_FORMAT_MINOR + 7);
	CHECK(pwrite(fd, minor, 2, 10) == 2);
	close(fd);
	CHECK_EQ_U(read_dir(dir, true).records, NREC);
	remove_tree(dir);
}

static void damaged_header_keeps_records(void)
{
	char *dir = make_temp_dir();
	uint8_t buf[4096];
	size_t ends[NREC];
	size_t len = build_records(buf, sizeof buf, ends);
	write_segment(dir, 1, buf, len);
	char path[512];
	snprintf(path, sizeof path, "%s/" CS_SEG_NAME_FMT, dir, 1u);
	int fd = open(path, O_WRONLY);
	CHECK(pwrite(fd, "XX", 2, 0) == 2);
	close(fd);
	struct read_result r = read_dir(dir, true);
	CHECK_EQ_U(r.records, NREC);
	CHECK_EQ_U(r.bad_headers, 1);
	remove_tree(dir);
}

static void segments_in_sequence(void)
{
	char *dir = make_temp_dir();
	uint8_t buf[4096];
	size_t ends[NREC];
	size_t len = build_records(buf, sizeof buf, ends);
	/* segment 1 ends mid-record (its writer moved on): that part is damage,
	 * not a torn tail, since segment 2 follows */
	write_segment(dir, 1, buf, ends[2] + 5);
	write_segment(dir, 2, buf + ends[2], len - ends[2]);
	struct read_result r = read_dir(dir, true);
	CHECK_EQ_U(r.records, NREC);
	CHECK_EQ_U(r.skipped, 5);
	CHECK_EQ_U(r.torn, 0);
	remove_tree(dir);
}

static void tailing_a_live_segment(void)
{
	char *dir = make_temp_dir();
	uint8_t buf[4096];
	size_t ends[NREC];
	size_t len = build_records(buf, sizeof buf, ends);
	size_t half = ends[0] + (ends[1] - ends[0]) / 2;
	write_segment(dir, 1, buf, half);
	struct cs_reader rd;
	CHECK(cs_reader_open(&rd, dir) == 0);
	struct cs_record rec;
	CHECK(cs_reader_next(&rd, &rec, false) == 1);
	CHECK(cs_reader_next(&rd, &rec, false) == 0);
	/* the writer completes the record and adds the rest */
	char path[512];
	snprintf(path, sizeof path, "%s/" CS_SEG_NAME_FMT, dir, 1u);
	int fd = open(path, O_WRONLY | O_APPEND);
	CHECK(write(fd, buf + half, len - half) == (ssize_t)(len - half));
	close(fd);
	int more = 0;
	while (cs_reader_next(&rd, &rec, false) == 1)
		more++;
	CHECK_EQ_U(more, NREC - 1);
	CHECK_EQ_U(rd.torn_bytes, 0);
	/* a new segment appears later */
	write_segment(dir, 2, buf, ends[0]);
	CHECK(cs_reader_next(&rd, &rec, false) == 1);
	CHECK_EQ_U(rd.segments, 2);
	cs_reader_close(&rd);
	remove_tree(dir);
}

/* Something else under a segment's name (a symbolic link, a FIFO that would
 * block a read, a directory) is skipped with a note, as the writer skips it:
 * the records before and after it are all read. */
static void foreign_segment_names_are_skipped(void)
{
	char *dir = make_temp_dir();
	uint8_t buf[4096];
	size_t ends[NREC];
	size_t len = build_records(buf, sizeof buf, ends);
	write_segment(dir, 1, buf, ends[1]);
	char path[512], victim[512];
	snprintf(victim, sizeof victim, "%s/victim", dir);
	write_segment(dir, 99, buf, len); /* a whole log, reachable only by the link */
	snprintf(path, sizeof path, "%s/" CS_SEG_NAME_FMT, dir, 99u);
	CHECK(rename(path, victim) == 0);
	snprintf(path, sizeof path, "%s/" CS_SEG_NAME_FMT, dir, 2u);
	CHECK(symlink(victim, path) == 0);
	snprintf(path, sizeof path, "%s/" CS_SEG_NAME_FMT, dir, 3u);
	CHECK(mkfifo(path, 0600) == 0);
	write_segment(dir, 4, buf + ends[1], len - ends[1]);

	struct cs_reader rd;
	CHECK(cs_reader_open(&rd, dir) == 0);
	struct cs_record rec;
	int n = 0, status;
	while ((status = cs_reader_next(&rd, &rec, true)) == 1)
		n++;
	CHECK_EQ_U(status, 0);
	CHECK_EQ_U(n, NREC);
	CHECK_EQ_U(rd.refused_segments, 2);
	CHECK_EQ_U(rd.segments, 2);
	CHECK(strstr(rd.note, "seg-000003.clog is a FIFO") != NULL);
	cs_reader_close(&rd);

	/* the process directory itself as a link is refused, in words */
	char link[512];
	snprintf(link, sizeof link, "%s/link", dir);
	CHECK(symlink(dir, link) == 0);
	CHECK(cs_reader_open(&rd, link) == -1);
	CHECK(strstr(rd.error, "symbolic link") != NULL);
	remove_tree(dir);
}

/* Running out of descriptors is an error that stops the reader, not a
 * reason to skip segment after segment. */
static void out_of_descriptors(void)
{
	char *dir = make_temp_dir();
	uint8_t buf[4096];
	size_t ends[NREC];
	size_t len = build_records(buf, sizeof buf, ends);
	write_segment(dir, 1, buf, len);
	struct cs_reader rd;
	CHECK(cs_reader_open(&rd, dir) == 0);
	struct rlimit was, few;
	CHECK(getrlimit(RLIMIT_NOFILE, &was) == 0);
	few = was;
	few.rlim_cur = 64;
	CHECK(setrlimit(RLIMIT_NOFILE, &few) == 0);
	int spent[64], n = 0;
	while (n < 64 && (spent[n] = dup(0)) >= 0)
		n++;
	struct cs_record rec;
	CHECK(cs_reader_next(&rd, &rec, true) == -1);
	CHECK(strstr(rd.error, "seg-000001.clog") != NULL);
	CHECK_EQ_U(rd.refused_segments, 0);
	while (n > 0)
		close(spent[--n]);
	CHECK(setrlimit(RLIMIT_NOFILE, &was) == 0);
	cs_reader_close(&rd);
	remove_tree(dir);
}

static void record_framing_limits(void)
{
	uint8_t small[20];
	struct cs_out o;
	cs_out_init(&o, small, sizeof small);
	size_t at = cs_record_begin(&o);
	cs_put_bytes(&o, "0123456789", 10); /* 12 + 10 > 20 */
	CHECK(!cs_record_end(&o, at, 1));
	CHECK_EQ_U(o.len, 0); /* rolled back */
	CHECK(!o.overflow);

	struct cs_record rec;
	size_t used;
	static const uint8_t only_sync[] = {CS_REC_SYNC0};
	CHECK(cs_scan_record(only_sync, 1, &rec, &used) == CS_SCAN_NEED_MORE);
	static const uint8_t noise[] = {1, 2, 3, CS_REC_SYNC0, 9};
	CHECK(cs_scan_record(noise, sizeof noise, &rec, &used) == CS_SCAN_GARBAGE);
	CHECK_EQ_U(used, 3);
	CHECK_EQ_U(cs_crc32c(0, "123456789", 9), 0xE3069283); /* the CRC-32C check value */
}

int main(void)
{
	RUN(round_trip);
	RUN(torn_tail_at_every_offset);
	RUN(truncated_header);
	RUN(garbage_between_records);
	RUN(corrupted_record_is_skipped);
	RUN(forged_segment_costs_linear_work);
	RUN(newer_format_is_refused);
	RUN(damaged_header_keeps_records);
	RUN(segments_in_sequence);
	RUN(tailing_a_live_segment);
	RUN(record_framing_limits);
	RUN(foreign_segment_names_are_skipped);
	RUN(out_of_descriptors);
	return CHECK_DONE();
}
