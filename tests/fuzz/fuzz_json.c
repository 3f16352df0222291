/* libFuzzer target for the JSON writers: the report (-f json) and the
 * speedscope export of a profile built from fuzzed log bytes, and the
 * string escaper (tui/util/json.c) alone.  Every output must pass
 * json_check; the escaper's must also decode back to its input, with each
 * byte that is not part of a well-formed UTF-8 character replaced by
 * U+FFFD (what json.h promises).
 *
 * The first input byte picks the mode: 2 modulo 4, the rest is one string
 * for json_stringn; otherwise a session as in fuzz_reader (even: a raw
 * segment, odd: framed chunks). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_session.h"
#include "json_check.h"
#include "profile/export.h"
#include "profile/profile.h"
#include "utf8_check.h"
#include "util/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must_be_json(const char *text, size_t len, const char *what)
{
	size_t at;
	const char *error;
	if (json_check(text, len, &at, &error))
		return;
	size_t from = at > 60 ? at - 60 : 0, to = len - at > 60 ? at + 60 : len;
	fprintf(stderr, "%s wrote invalid JSON at byte %zu of %zu: %s\n  near: %.*s\n", what, at, len, error,
		(int)(to - from), text + from);
	abort();
}

static void check_export(struct prof_recording *s, enum export_format format, const char *what)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		abort();
	struct export_options o = {format, 0, 0};
	export_session(mem, s, &o);
	fclose(mem);
	must_be_json(text, len, what);
	free(text);
}

static void check_session(uint8_t mode, const uint8_t *data, size_t size)
{
	const char *dir = fuzz_session_write(mode, data, size);
	struct prof_recording s;
	char err[256];
	if (prof_recording_open(&s, dir, err, sizeof err) != 0)
		abort();
	prof_recording_update(&s, true);
	check_export(&s, EXPORT_JSON, "the JSON report");
	check_export(&s, EXPORT_SPEEDSCOPE, "the speedscope export");
	prof_recording_free(&s);
}

static void check_string(const uint8_t *data, size_t size)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		abort();
	json_stringn(mem, (const char *)data, size);
	fclose(mem);
	must_be_json(text, len, "json_stringn");

	char *want = malloc(size * 3 + 1), *got = malloc(len + 1);
	if (!want || !got)
		abort();
	size_t wlen = 0, glen = 0;
	for (size_t i = 0; i < size;) {
		size_t l = utf8_char_len(data + i, size - i);
		if (l) {
			memcpy(want + wlen, data + i, l);
			wlen += l;
			i += l;
		} else {
			memcpy(want + wlen, "\xEF\xBF\xBD", 3);
			wlen += 3;
			i++;
		}
	}
	const char *error;
	if (json_decode_string(text, len, got, &glen, &error) != len)
		abort(); /* one string and nothing else */
	if (glen != wlen || memcmp(got, want, wlen) != 0) {
		fprintf(stderr, "json_stringn: %zu bytes decode to %zu bytes, want %zu\n", size, glen, wlen);
		abort();
	}
	free(want);
	free(got);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] % 4 == 2)
		check_string(data + 1, size - 1);
	else
		check_session(data[0], data + 1, size - 1);
	return 0;
}
