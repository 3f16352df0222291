/* The session log's framing: segment files made of checksummed records.
 *
 *   segment  = header(16) record*
 *   header   = "CLRSCOPE" u16 major u16 minor u32 sequence
 *   record   = 0xC5 0x5C u16 type u32 length u32 crc32c(type,length,payload) payload
 *
 * The writer may die between any two bytes, so a reader accepts a torn tail,
 * and it resynchronises on the next marker after garbage.  Record payloads are
 * described in schema.h; this file knows nothing about them. */
#ifndef CLRSCOPE_LOGFMT_H
#define CLRSCOPE_LOGFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/wire.h"

#define CS_SEG_MAGIC "CLRSCOPE"
#define CS_FORMAT_MAJOR 1
#define CS_FORMAT_MINOR 0
#define CS_SEG_HEADER_LEN 16
#define CS_REC_HEADER_LEN 12
#define CS_REC_SYNC0 0xC5
#define CS_REC_SYNC1 0x5C
#define CS_REC_MAX_PAYLOAD (1u << 20)
/* The reader's checksum work: each byte read earns this many bytes of
 * checksumming, up to a store of CS_RESYNC_BUDGET_MAX (two of the largest
 * records), so a forged segment costs time linear in its size. */
#define CS_RESYNC_WORK_PER_BYTE 16u
#define CS_RESYNC_BUDGET_MAX (2ull * CS_REC_MAX_PAYLOAD + 4096u)
/* The writer starts a new segment once the current one passes this size. */
#define CS_SEG_TARGET_BYTES (8u << 20)

uint32_t cs_crc32c(uint32_t crc, const void *data, size_t len);

void cs_seg_header_make(uint8_t out[CS_SEG_HEADER_LEN], uint32_t seq);

enum cs_seg_header_status {
	CS_SEG_OK,
	CS_SEG_SHORT,     /* fewer than 16 bytes so far */
	CS_SEG_BAD_MAGIC, /* not a clrscope segment (or its header is damaged) */
	CS_SEG_NEWER,     /* written by an incompatible (newer major) format */
};
enum cs_seg_header_status cs_seg_header_parse(const uint8_t *p, size_t n, uint16_t *major,
					      uint16_t *minor, uint32_t *seq);

/* Record framing into a buffer: begin reserves the header, the caller appends
 * the payload with the cs_put_* functions, end fills in the header.  On
 * overflow the buffer is rolled back to where begin found it and end returns
 * false. */
size_t cs_record_begin(struct cs_out *o);
bool cs_record_end(struct cs_out *o, size_t start, uint16_t type);

struct cs_record {
	uint16_t type;
	uint32_t len;
	const uint8_t *payload;
};

enum cs_scan_result {
	CS_SCAN_RECORD,    /* *rec is a whole, valid record of *used bytes */
	CS_SCAN_NEED_MORE, /* the bytes may be the start of a record */
	CS_SCAN_GARBAGE,   /* the first *used bytes cannot start a record */
};
enum cs_scan_result cs_scan_record(const uint8_t *buf, size_t len, struct cs_record *rec,
				   size_t *used);

/* Reads the records of one process directory, segment after segment.  It can
 * be called again after it ran out to pick up what the agent wrote since
 * (tailing a live session). */
struct cs_reader {
	int dirfd;
	int fd;          /* current segment, -1 before the first */
	uint32_t seq;    /* its sequence number */
	bool header_ok;  /* its header was read */
	uint8_t *buf;
	size_t cap, start, end;
	/* what the reader saw, for reports and status bars */
	uint64_t records;
	uint64_t bytes;         /* all segment bytes consumed */
	uint64_t skipped_bytes; /* garbage skipped while resynchronising */
	uint64_t torn_bytes;    /* an incomplete record at the very end (final reads) */
	uint32_t segments;
	uint32_t bad_headers;
	uint32_t refused_segments; /* names taken by something else (a symbolic link ...) */
	uint64_t crc_budget;       /* checksum bytes it may still spend (see CS_RESYNC_*) */
	char note[256];            /* about the latest refused one */
	char error[256];
};

int cs_reader_open(struct cs_reader *r, const char *proc_dir);
void cs_reader_close(struct cs_reader *r);

/* Returns 1 with a record (valid until the next call), 0 when nothing more
 * is there for now, -1 on an error that stops this directory (r->error).
 * With final, the data on disk is taken as complete: an incomplete tail is
 * counted in torn_bytes; without it, it is left for a later call. */
int cs_reader_next(struct cs_reader *r, struct cs_record *rec, bool final);

#endif
