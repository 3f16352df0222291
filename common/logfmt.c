#include "common/logfmt.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/session.h"

/* ---- CRC32C (Castagnoli), slicing by 8 ---- */

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

uint32_t cs_crc32c(uint32_t crc, const void *data, size_t len)
{
	pthread_once(&crc_once, crc_init);
	const uint8_t *p = data;
	crc = ~crc;
	while (len >= 8) {
		uint32_t lo = crc ^ cs_load_u32(p);
		uint32_t hi = cs_load_u32(p + 4);
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- segment header ---- */

void cs_seg_header_make(uint8_t out[CS_SEG_HEADER_LEN], uint32_t seq)
{
	memcpy(out, CS_SEG_MAGIC, 8);
	cs_store_u16(out + 8, CS_FORMAT_MAJOR);
	cs_store_u16(out + 10, CS_FORMAT_MINOR);
	cs_store_u32(out + 12, seq);
}

enum cs_seg_header_status cs_seg_header_parse(const uint8_t *p, size_t n, uint16_t *major,
					      uint16_t *minor, uint32_t *seq)
{
	if (n < CS_SEG_HEADER_LEN)
		return memcmp(p, CS_SEG_MAGIC, n < 8 ? n : 8) ? CS_SEG_BAD_MAGIC : CS_SEG_SHORT;
	if (memcmp(p, CS_SEG_MAGIC, 8))
		return CS_SEG_BAD_MAGIC;
	*major = cs_load_u16(p + 8);
	*minor = cs_load_u16(p + 10);
	*seq = cs_load_u32(p + 12);
	return *major == CS_FORMAT_MAJOR ? CS_SEG_OK : CS_SEG_NEWER;
}

/* ---- record framing ---- */

size_t cs_record_begin(struct cs_out *o)
{
	size_t start = o->len;
	uint8_t hole[CS_REC_HEADER_LEN] = {0};
	cs_put_bytes(o, hole, sizeof hole);
	return start;
}

static uint32_t record_crc(const uint8_t *header, const uint8_t *payload, uint32_t len)
{
	uint32_t crc = cs_crc32c(0, header + 2, 6); /* type and length */
	return cs_crc32c(crc, payload, len);
}

bool cs_record_end(struct cs_out *o, size_t start, uint16_t type)
{
	size_t payload_len = o->len - start - CS_REC_HEADER_LEN;
	if (o->overflow || payload_len > CS_REC_MAX_PAYLOAD) {
		o->len = start;
		o->overflow = false;
		return false;
	}
	uint8_t *h = o->buf + start;
	h[0] = CS_REC_SYNC0;
	h[1] = CS_REC_SYNC1;
	cs_store_u16(h + 2, type);
	cs_store_u32(h + 4, (uint32_t)payload_len);
	cs_store_u32(h + 8, record_crc(h, h + CS_REC_HEADER_LEN, (uint32_t)payload_len));
	return true;
}

/* Where the next byte that could begin a record is, at or after from. */
static size_t next_sync(const uint8_t *buf, size_t len, size_t from)
{
	const uint8_t *p = from < len ? memchr(buf + from, CS_REC_SYNC0, len - from) : NULL;
	return p ? (size_t)(p - buf) : len;
}

/* cs_scan_record with a bound on the checksum work: a candidate whose
 * payload is longer than *budget is garbage without a look, and the bytes
 * checksummed are taken from it (budget NULL: no bound). */
static enum cs_scan_result scan_bounded(const uint8_t *buf, size_t len, struct cs_record *rec, size_t *used,
					uint64_t *budget)
{
	*used = 0;
	if (len == 0)
		return CS_SCAN_NEED_MORE;
	if (buf[0] != CS_REC_SYNC0 || (len > 1 && buf[1] != CS_REC_SYNC1)) {
		*used = next_sync(buf, len, 1);
		return CS_SCAN_GARBAGE;
	}
	if (len < CS_REC_HEADER_LEN)
		return CS_SCAN_NEED_MORE;
	uint32_t plen = cs_load_u32(buf + 4);
	if (plen > CS_REC_MAX_PAYLOAD) {
		*used = next_sync(buf, len, 1);
		return CS_SCAN_GARBAGE;
	}
	if (len - CS_REC_HEADER_LEN < plen)
		return CS_SCAN_NEED_MORE;
	if (budget && plen > *budget) {
		*used = next_sync(buf, len, 1);
		return CS_SCAN_GARBAGE;
	}
	if (budget)
		*budget -= plen;
	if (record_crc(buf, buf + CS_REC_HEADER_LEN, plen) != cs_load_u32(buf + 8)) {
		*used = next_sync(buf, len, 1);
		return CS_SCAN_GARBAGE;
	}
	rec->type = cs_load_u16(buf + 2);
	rec->len = plen;
	rec->payload = buf + CS_REC_HEADER_LEN;
	*used = CS_REC_HEADER_LEN + plen;
	return CS_SCAN_RECORD;
}

enum cs_scan_result cs_scan_record(const uint8_t *buf, size_t len, struct cs_record *rec,
				   size_t *used)
{
	return scan_bounded(buf, len, rec, used, NULL);
}

/* ---- reader ---- */

int cs_reader_open(struct cs_reader *r, const char *proc_dir)
{
	memset(r, 0, sizeof *r);
	r->crc_budget = CS_RESYNC_BUDGET_MAX;
	r->fd = -1;
	r->dirfd = cs_dir_open_at(AT_FDCWD, proc_dir, false, proc_dir, r->error, sizeof r->error);
	if (r->dirfd < 0)
		return -1;
	r->cap = 1u << 20;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		close(r->dirfd);
		snprintf(r->error, sizeof r->error, "out of memory");
		return -1;
	}
	return 0;
}

void cs_reader_close(struct cs_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->buf);
	r->buf = NULL;
	r->fd = r->dirfd = -1;
}

/* What stands under a segment's name. */
enum segment_slot {
	SLOT_EMPTY,   /* not written yet */
	SLOT_OPENED,  /* a segment, now in *fd */
	SLOT_REFUSED, /* something else: a symbolic link, a FIFO, a device ... */
	SLOT_ERROR,   /* a segment that cannot be opened now (r->error) */
};

static enum segment_slot open_segment(struct cs_reader *r, uint32_t seq, int *fd)
{
	char name[CS_SEG_NAME_MAX], why[128];
	snprintf(name, sizeof name, CS_SEG_NAME_FMT, seq);
	*fd = cs_open_file_at(r->dirfd, name, O_RDONLY, 0, why, sizeof why);
	if (*fd >= 0)
		return SLOT_OPENED;
	int err = errno;
	if (err == ENOENT)
		return SLOT_EMPTY;
	struct stat st;
	bool foreign = err == ELOOP || err == EINVAL || /* cs_open_file_at's refusals */
		       (fstatat(r->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode));
	if (!foreign) { /* out of descriptors, say: not a reason to skip data */
		snprintf(r->error, sizeof r->error, "cannot open %s: %s", name, strerror(err));
		return SLOT_ERROR;
	}
	r->refused_segments++;
	snprintf(r->note, sizeof r->note, "%s %s: skipped it", name, why);
	return SLOT_REFUSED;
}

/* Reads more of the current segment into the window; returns bytes read. */
static ssize_t fill(struct cs_reader *r)
{
	if (r->start > 0 && (r->start > r->cap / 2 || r->end == r->cap)) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->end == r->cap) {
		/* a record larger than the window: grow up to the largest legal one */
		size_t ncap = r->cap * 2;
		if (ncap > 4 * (CS_REC_MAX_PAYLOAD + CS_REC_HEADER_LEN))
			return 0;
		uint8_t *nb = realloc(r->buf, ncap);
		if (!nb)
			return 0;
		r->buf = nb;
		r->cap = ncap;
	}
	ssize_t n;
	do
		n = read(r->fd, r->buf + r->end, r->cap - r->end);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		r->end += (size_t)n;
		r->bytes += (uint64_t)n;
	}
	return n;
}

/* Every byte the reader gets past (a record or garbage) earns checksum
 * work: resynchronising stays linear in the input, whatever a forged
 * segment claims (candidate lengths up to 1 MiB at every other byte). */
static void earn(struct cs_reader *r, size_t n)
{
	uint64_t b = r->crc_budget + (uint64_t)n * CS_RESYNC_WORK_PER_BYTE;
	r->crc_budget = b > CS_RESYNC_BUDGET_MAX ? CS_RESYNC_BUDGET_MAX : b;
}

static void skip(struct cs_reader *r, size_t n)
{
	r->start += n;
	r->skipped_bytes += n;
	earn(r, n);
}

/* Moves on to segment seq+1 if it exists.  What is left of the current one
 * can no longer grow, so it is scanned to the end first by the caller. */
static bool next_segment_exists(struct cs_reader *r)
{
	char name[CS_SEG_NAME_MAX];
	snprintf(name, sizeof name, CS_SEG_NAME_FMT, r->seq + 1);
	struct stat st;
	return fstatat(r->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Offset of the first whole record after buf[0], or len if there is none. */
static size_t next_valid_record(struct cs_reader *r, const uint8_t *buf, size_t len)
{
	size_t last = 0;
	for (size_t at = next_sync(buf, len, 1); at < len; at = next_sync(buf, len, at + 1)) {
		struct cs_record rec;
		size_t used;
		earn(r, at - last); /* the bytes stepped over pay for looking further */
		last = at;
		if (scan_bounded(buf + at, len - at, &rec, &used, &r->crc_budget) == CS_SCAN_RECORD)
			return at;
	}
	return len;
}

static void advance_segment(struct cs_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->seq++;
	r->start = r->end = 0;
	r->header_ok = false;
}

int cs_reader_next(struct cs_reader *r, struct cs_record *rec, bool final)
{
	if (r->dirfd < 0)
		return -1;
	for (;;) {
		if (r->fd < 0) {
			uint32_t seq = r->seq ? r->seq : 1;
			int fd;
			switch (open_segment(r, seq, &fd)) {
			case SLOT_EMPTY:
				return 0; /* not written yet */
			case SLOT_REFUSED:
				r->seq = seq + 1; /* the writer stepped over it too */
				continue;
			case SLOT_ERROR:
				return -1;
			case SLOT_OPENED:
				break;
			}
			r->fd = fd;
			r->seq = seq;
			r->segments++;
		}
		size_t avail = r->end - r->start;
		if (!r->header_ok) {
			uint16_t major = 0, minor = 0;
			uint32_t seq = 0;
			switch (cs_seg_header_parse(r->buf + r->start, avail, &major, &minor, &seq)) {
			case CS_SEG_OK:
				r->start += CS_SEG_HEADER_LEN;
				r->header_ok = true;
				continue;
			case CS_SEG_NEWER:
				snprintf(r->error, sizeof r->error,
					 "segment %u uses log format %u.%u, this clrscope reads %u.x: "
					 "open it with a matching clrscope",
					 r->seq, major, minor, CS_FORMAT_MAJOR);
				return -1;
			case CS_SEG_BAD_MAGIC:
				/* damaged header: the records after it are still worth reading */
				r->bad_headers++;
				r->header_ok = true;
				continue;
			case CS_SEG_SHORT:
				break;
			}
		} else {
			size_t used = 0;
			switch (scan_bounded(r->buf + r->start, avail, rec, &used, &r->crc_budget)) {
			case CS_SCAN_RECORD:
				r->start += used;
				r->records++;
				earn(r, used + rec->len); /* a good record costs nothing */
				return 1;
			case CS_SCAN_GARBAGE:
				skip(r, used);
				continue;
			case CS_SCAN_NEED_MORE:
				break;
			}
		}
		/* need more bytes */
		ssize_t n = fill(r);
		if (n > 0)
			continue;
		if (n < 0) {
			snprintf(r->error, sizeof r->error, "reading segment %u: %s", r->seq, strerror(errno));
			return -1;
		}
		avail = r->end - r->start;
		bool sealed = next_segment_exists(r);
		if (!sealed && !final)
			return 0; /* the writer may still complete it */
		if (avail > 0) {
			/* The rest can never complete.  It may still hide whole records
			 * (a bogus length swallowed them): step over one byte and rescan. */
			if (!r->header_ok) {
				r->bad_headers++;
				r->header_ok = true;
				continue;
			}
			size_t next = next_valid_record(r, r->buf + r->start, avail);
			if (next == avail && !sealed && r->buf[r->start] == CS_REC_SYNC0) {
				r->torn_bytes += avail; /* the writer stopped mid-record */
				r->start = r->end;
				return 0;
			}
			skip(r, next);
			continue;
		}
		if (!sealed)
			return 0;
		advance_segment(r);
	}
}
