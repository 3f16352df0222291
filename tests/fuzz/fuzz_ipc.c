/* libFuzzer target for what the diagnostics IPC client reads
 * (tui/live/ipccodec.c, diagsocket.c): the runtime's replies, ProcessInfo payloads,
 * protocol strings, the advertise message of a connect port, and the /proc
 * text it looks at (stat, environ, maps).  Every decoder must stay inside
 * its buffer and return UTF-8; encoders must decode back to what they were
 * given.
 *
 * The first input byte picks what the rest is, modulo 8:
 *   0 a whole reply message     1 a ProcessInfo(2) payload
 *   2 a string to encode        3 protocol strings back to back
 *   4 a /proc/PID/stat line     5 a GUID in text
 *   6 an advertise message      7 /proc/PID/environ, then maps text */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "live/ipc.h"
#include "live/procfs.h"
#include "utf8_check.h"
#include "util/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void check_utf8(const char *s)
{
	if (s && !utf8_valid(s, strlen(s)))
		abort();
}

static void check_process_info(const uint8_t *payload, size_t len, bool v2)
{
	struct ipc_process_info info;
	char err[256] = "";
	if (ipc_decode_process_info(payload, len, v2, &info, err, sizeof err) != 0) {
		if (!err[0] || info.command_line || info.os || info.arch || info.entrypoint_assembly ||
		    info.clr_version || info.version)
			abort(); /* a failure says why and leaves nothing behind */
		return;
	}
	if (info.version != (v2 ? 2 : 1) || (!v2 && (info.entrypoint_assembly || info.clr_version)))
		abort();
	check_utf8(info.command_line);
	check_utf8(info.os);
	check_utf8(info.arch);
	check_utf8(info.entrypoint_assembly);
	check_utf8(info.clr_version);
	ipc_process_info_free(&info);
}

static void check_reply(const uint8_t *buf, size_t len)
{
	struct ipc_reply r;
	char err[256] = "";
	int rc = ipc_decode_reply(buf, len, &r, err, sizeof err);
	if (rc < 0) {
		if (rc != -1 || !err[0])
			abort();
		return;
	}
	if (rc > 1 || r.command_set != IPC_SET_SERVER || r.size > len || r.size < IPC_HEADER_SIZE ||
	    r.payload != buf + IPC_HEADER_SIZE || r.payload_len != (size_t)r.size - IPC_HEADER_SIZE)
		abort();
	if (rc == 1 && (r.command_id != IPC_SERVER_ERROR || r.payload_len < 4))
		abort();
	if (rc == 0 && r.command_id != IPC_SERVER_OK)
		abort();
	char words[512];
	ipc_hresult_describe(r.hresult, words, sizeof words);
	if (rc == 0) { /* what ipc_process_info does with an OK */
		check_process_info(r.payload, r.payload_len, true);
		check_process_info(r.payload, r.payload_len, false);
	}
}

/* Reads strings until one runs past the end; each is UTF-8 and takes
 * exactly its count of units. */
static void check_strings(const uint8_t *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t n = len;
	for (;;) {
		const uint8_t *before = p;
		size_t left = n;
		char *s;
		if (ipc_decode_string(&p, &n, &s) != 0) {
			if (s || p != before || n != left)
				abort(); /* a failure moves nothing */
			return;
		}
		size_t used = 4 + (size_t)le32(before) * 2;
		if (p != before + used || n != left - used || !le32(before) != !s)
			abort();
		check_utf8(s);
		free(s);
	}
}

/* A string and an AttachProfiler request carrying it, decoded back. */
static void check_encoders(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	if (!text)
		abort();
	size_t len = strlen(text), cap = 4 + 2 * (len + 1);
	uint8_t *buf = malloc(cap);
	if (!buf)
		abort();
	size_t used = ipc_encode_string(buf, cap, text);
	if (!used)
		abort(); /* UTF-8 never needs more units than bytes */
	const uint8_t *p = buf;
	size_t n = used;
	char *back;
	if (ipc_decode_string(&p, &n, &back) != 0 || n != 0 || !back)
		abort();
	check_utf8(back);
	/* decoding masks control characters, and nothing else */
	char *masked = strdup(text);
	if (!masked || (utf8_valid(text, len) && strcmp(back, text_sanitize(masked)) != 0))
		abort();
	free(masked);
	for (const unsigned char *c = (const unsigned char *)back; *c; c++)
		if (*c < 0x20 || *c == 0x7F || (c[0] == 0xC2 && c[1] >= 0x80 && c[1] < 0xA0))
			abort();
	free(back);
	free(buf);

	static const uint8_t clsid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	uint8_t *msg = malloc(IPC_MAX_MESSAGE);
	if (!msg)
		abort();
	size_t mlen = ipc_encode_attach_profiler(msg, IPC_MAX_MESSAGE, 5000, clsid, text, data, (uint32_t)size);
	if (mlen) {
		uint16_t msize;
		uint8_t set, id;
		char err[256];
		if (ipc_decode_header(msg, mlen, &msize, &set, &id, err, sizeof err) != 0 || msize != mlen ||
		    set != IPC_SET_PROFILER || id != IPC_PROFILER_ATTACH)
			abort();
		p = msg + IPC_HEADER_SIZE + 4 + 16;
		n = mlen - IPC_HEADER_SIZE - 4 - 16;
		if (le32(msg + IPC_HEADER_SIZE) != 5000 || memcmp(msg + IPC_HEADER_SIZE + 4, clsid, 16) != 0 ||
		    ipc_decode_string(&p, &n, &back) != 0)
			abort();
		free(back);
		if (n != 4 + size || le32(p) != size || memcmp(p + 4, data, size) != 0)
			abort();
	} else if (IPC_HEADER_SIZE + 4 + 16 + 4 + 2 * (size + 1) + 4 + size <= IPC_MAX_MESSAGE) {
		abort(); /* refused a request that fits */
	}
	free(msg);
	free(text);
}

static void check_guid(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	if (!text)
		abort();
	uint8_t g[16], again[16];
	if (ipc_guid_parse(text, g) == 0) {
		char out[40];
		snprintf(out, sizeof out, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X", g[3],
			 g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
		const char *inner = text[0] == '{' ? text + 1 : text;
		if (strncasecmp(inner, out, 36) != 0 || ipc_guid_parse(out, again) != 0 || memcmp(g, again, 16) != 0)
			abort();
	}
	free(text);
}

static void check_advertise(const uint8_t *data, size_t size)
{
	struct ipc_advertise adv;
	bool want = size >= IPC_ADVERTISE_SIZE && memcmp(data, "ADVR_V1", 8) == 0;
	if ((ipc_decode_advertise(data, size, &adv) == 0) != want)
		abort();
	if (want && (memcmp(adv.cookie, data + 8, 16) != 0 ||
		     adv.pid != ((uint64_t)le32(data + 28) << 32 | le32(data + 24))))
		abort();
}

/* environ and maps as proc_read returns them: NUL-terminated. */
static void check_proc_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = 0;
	static const char *const names[] = {"TMPDIR", "DOTNET_EnableDiagnostics", "A"};
	for (size_t i = 0; i < 3; i++) {
		const char *v = proc_env_get(text, size, names[i]);
		if (v && (v < text + strlen(names[i]) + 1 || v > text + size))
			abort();
	}
	char buf[256];
	for (int profiler = 0; profiler < 2; profiler++) {
		const char *off = proc_diagnostics_off(text, size, profiler, buf, sizeof buf);
		if (off && strncmp(off, "DOTNET_", 7) != 0 && strncmp(off, "COMPlus_", 8) != 0)
			abort();
	}
	char path[4096], version[256];
	if (proc_maps_file(text, "libcoreclr.so", NULL, path, sizeof path) && path[0] != '/')
		abort();
	proc_maps_file(text, "libclrscope-agent-", ".so", path, sizeof path);
	if (proc_maps_runtime_version(text, version, sizeof version) && !isdigit((unsigned char)version[0]))
		abort();
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const uint8_t *rest = data + 1;
	size_t n = size - 1;
	uint64_t starttime;
	switch (data[0] % 8) {
	case 0: check_reply(rest, n); break;
	case 1:
		check_process_info(rest, n, true);
		check_process_info(rest, n, false);
		break;
	case 2: check_encoders(rest, n); break;
	case 3: check_strings(rest, n); break;
	case 4: ipc_parse_stat_starttime((const char *)rest, n, &starttime); break;
	case 5: check_guid(rest, n); break;
	case 6: check_advertise(rest, n); break;
	default: check_proc_text(rest, n); break;
	}
	return 0;
}
