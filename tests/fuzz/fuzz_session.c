#include "fuzz_session.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/logfmt.h"
#include "fuzz_tmp.h"

static char seg_path[4096 + 32];

static void frame_chunks(const uint8_t *data, size_t size)
{
	/* each chunk takes 2 or more input bytes and adds a 12-byte record header */
	size_t cap = CS_SEG_HEADER_LEN + size * 8 + 64;
	uint8_t *buf = malloc(cap);
	if (!buf)
		abort();
	cs_seg_header_make(buf, 1);
	struct cs_out o;
	cs_out_init(&o, buf + CS_SEG_HEADER_LEN, cap - CS_SEG_HEADER_LEN);
	size_t i = 0;
	while (i + 2 <= size) {
		/* every type there is and some to come: readers skip unknown ones */
		uint16_t type = data[i] % 48;
		size_t len = data[i + 1];
		i += 2;
		if (len > size - i)
			len = size - i;
		size_t at = cs_record_begin(&o);
		cs_put_bytes(&o, data + i, len);
		cs_record_end(&o, at, type);
		i += len;
	}
	fuzz_write_file(seg_path, buf, CS_SEG_HEADER_LEN + o.len);
	free(buf);
}

const char *fuzz_session_write(uint8_t mode, const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmp_dir();
	if (!seg_path[0]) {
		snprintf(seg_path, sizeof seg_path, "%s/seg-000001.clog", dir);
		unsetenv("DEBUGINFOD_URLS"); /* a forged log's modules: no server is asked for their debug files */
	}
	if (mode & 1)
		frame_chunks(data, size);
	else
		fuzz_write_file(seg_path, data, size);
	return dir;
}
