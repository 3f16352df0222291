/* Helpers shared by the unit tests: temporary directories and writing
 * segments the way the agent does. */
#ifndef CLRSCOPE_TESTUTIL_H
#define CLRSCOPE_TESTUTIL_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/logfmt.h"
#include "common/records.h"
#include "common/session.h"

static inline char *make_temp_dir(void)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/clrscope-test-XXXXXX");
	if (!mkdtemp(path)) {
		perror("mkdtemp");
		exit(1);
	}
	return path;
}

static inline void remove_tree(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static inline void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
		perror(path);
		exit(1);
	}
	close(fd);
}

/* Appends a record with the given payload to o. */
static inline void put_record(struct cs_out *o, uint16_t type, const void *payload, size_t len)
{
	size_t at = cs_record_begin(o);
	cs_put_bytes(o, payload, len);
	cs_record_end(o, at, type);
}

/* Writes segment seq of dir from a record stream (header added). */
static inline void write_segment(const char *dir, uint32_t seq, const uint8_t *records, size_t len)
{
	char path[1024], name[CS_SEG_NAME_MAX];
	snprintf(name, sizeof name, CS_SEG_NAME_FMT, seq);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	uint8_t *buf = malloc(len + CS_SEG_HEADER_LEN);
	cs_seg_header_make(buf, seq);
	memcpy(buf + CS_SEG_HEADER_LEN, records, len);
	write_file(path, buf, len + CS_SEG_HEADER_LEN);
	free(buf);
}

#endif
