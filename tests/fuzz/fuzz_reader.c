/* libFuzzer target for everything that reads a session: the segment reader
 * (framing, resynchronisation, torn tails), the record decoders and the
 * profile model with its three exports.
 *
 * The first input byte picks how the rest is used:
 *   even: the raw bytes of a segment file, header and all;
 *   odd:  chunks of (u8 type, u8 length, payload) framed into valid records,
 *         so that the decoders see well-formed frames with hostile payloads. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "logfmt.h"
#include "profile.h"

static char dir[64];
static char seg_path[128];

static void write_segment(const uint8_t *data, size_t size)
{
	int fd = open(seg_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

static void frame_chunks(const uint8_t *data, size_t size)
{
	size_t cap = CS_SEG_HEADER_LEN + size * 8 + 64;
	uint8_t *buf = malloc(cap);
	cs_seg_header_make(buf, 1);
	struct cs_out o;
	cs_out_init(&o, buf + CS_SEG_HEADER_LEN, cap - CS_SEG_HEADER_LEN);
	size_t i = 0;
	while (i + 2 <= size) {
		uint16_t type = data[i] % 10;
		size_t len = data[i + 1];
		i += 2;
		if (len > size - i)
			len = size - i;
		size_t at = cs_record_begin(&o);
		cs_put_bytes(&o, data + i, len);
		cs_record_end(&o, at, type);
		i += len;
	}
	write_segment(buf, CS_SEG_HEADER_LEN + o.len);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/clrscope-fuzz-XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(seg_path, sizeof seg_path, "%s/seg-000001.clog", dir);
	}
	if (size == 0)
		return 0;
	if (data[0] & 1)
		frame_chunks(data + 1, size - 1);
	else
		write_segment(data + 1, size - 1);

	struct prof_session s;
	char err[256];
	if (prof_session_open(&s, dir, err, sizeof err) != 0)
		abort(); /* the segment exists: it must open */
	prof_session_update(&s, false);
	prof_session_update(&s, true);
	FILE *sink = fopen("/dev/null", "w");
	static const enum export_format formats[] = {EXPORT_TEXT, EXPORT_COLLAPSED, EXPORT_JSON};
	for (size_t i = 0; i < 3; i++) {
		struct export_options o = {formats[i], 0, 0};
		export_session(sink, &s, &o);
	}
	fclose(sink);
	prof_session_free(&s);
	return 0;
}
