/* libFuzzer target for everything that reads a session: the segment reader
 * (framing, resynchronisation, torn tails), the record decoders and the
 * profile model with its exports.
 *
 * The first input byte picks how the rest is used (see fuzz_session.h):
 * even, a raw segment file; odd, chunks framed into valid records.
 * The collapsed export is checked line by line, since flamegraph.pl reads
 * "frame;frame;... count" and nothing else (the count after the line's
 * last space). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_session.h"
#include "profile/export.h"
#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void bad_line(const char *why, const char *line, size_t len)
{
	fprintf(stderr, "collapsed export: %s: '%.*s'\n", why, (int)len, line);
	abort();
}

/* Each line: frames without control characters, a space, a decimal
 * count. */
static void check_collapsed(const char *text, size_t len)
{
	for (size_t at = 0; at < len;) {
		const char *line = text + at;
		const char *nl = memchr(line, '\n', len - at);
		if (!nl)
			bad_line("the last line does not end", line, len - at);
		size_t ll = (size_t)(nl - line);
		const char *space = memrchr(line, ' ', ll);
		if (!space || space + 1 == nl) /* (a frame may have an empty name) */
			bad_line("not 'STACK COUNT'", line, ll);
		for (const char *c = line; c < space; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7F)
				bad_line("a control character in a frame", line, ll);
		for (const char *c = space + 1; c < nl; c++)
			if (*c < '0' || *c > '9')
				bad_line("not 'STACK COUNT'", line, ll);
		at += ll + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const char *dir = fuzz_session_write(data[0], data + 1, size - 1);
	struct prof_recording s;
	char err[256];
	if (prof_recording_open(&s, dir, err, sizeof err) != 0)
		abort(); /* the segment exists: it must open */
	prof_recording_update(&s, false);
	prof_recording_update(&s, true);
	FILE *sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	static const enum export_format formats[] = {EXPORT_TEXT, EXPORT_JSON, EXPORT_SPEEDSCOPE};
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
		struct export_options o = {formats[i], 0, 0};
		export_session(sink, &s, &o);
	}
	export_session(sink, &s, &(struct export_options){.format = EXPORT_TEXT, .awaits = true}); /* report --awaits */
	fclose(sink);

	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		abort();
	struct export_options o = {EXPORT_COLLAPSED, 0, 0};
	export_session(mem, &s, &o);
	fclose(mem);
	check_collapsed(text, len);
	free(text);
	prof_recording_free(&s);
	return 0;
}
