/* The diagnostics IPC protocol's messages (see ipccodec.h): pure
 * functions over buffers, no system calls.  Layouts confirmed against
 * dotnet/diagnostics documentation/design-docs/ipc-protocol.md and
 * dotnet/runtime src/native/eventpipe: ds-protocol.c (header, strings,
 * replies), ds-process-protocol.c (ProcessInfo/ProcessInfo2 payloads),
 * ds-profiler-protocol.c (AttachProfiler payload) and ds-types.h (command
 * ids, DS_IPC_E_* results). */
#include "live/ipccodec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf16.h"
#include "common/wire.h"
#include "util/text.h"
#include "util/xalloc.h"

/* ---- little-endian ---- */

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* ---- encoding ---- */

void ipc_encode_header(uint8_t *out, uint16_t size, uint8_t command_set, uint8_t command_id)
{
	memcpy(out, IPC_MAGIC, IPC_MAGIC_SIZE); /* the 13 characters and their NUL */
	put_u16(out + 14, size);
	out[16] = command_set;
	out[17] = command_id;
	put_u16(out + 18, 0);
}

size_t ipc_encode_simple(uint8_t *out, size_t cap, uint8_t command_set, uint8_t command_id)
{
	if (cap < IPC_HEADER_SIZE)
		return 0;
	ipc_encode_header(out, IPC_HEADER_SIZE, command_set, command_id);
	return IPC_HEADER_SIZE;
}

size_t ipc_encode_string(uint8_t *out, size_t cap, const char *utf8)
{
	if (!utf8) {
		if (cap < 4)
			return 0;
		put_u32(out, 0);
		return 4;
	}
	size_t max_units = strlen(utf8) + 1; /* UTF-8 never needs more units than bytes */
	uint16_t *units = xmalloc(max_units * sizeof *units);
	size_t n = cs_utf8_to_utf16(utf8, units, max_units);
	size_t need = 4 + 2 * n;
	if (!n || need > cap) {
		free(units);
		return 0;
	}
	put_u32(out, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		put_u16(out + 4 + 2 * i, units[i]);
	free(units);
	return need;
}

size_t ipc_encode_attach_profiler(uint8_t *out, size_t cap, uint32_t attach_timeout_ms, const uint8_t clsid[16],
				  const char *profiler_path, const void *client_data, uint32_t client_data_len)
{
	if (cap > IPC_MAX_MESSAGE)
		cap = IPC_MAX_MESSAGE;
	size_t at = IPC_HEADER_SIZE;
	if (!profiler_path || (client_data_len && !client_data) || cap < at + 4 + 16)
		return 0;
	put_u32(out + at, attach_timeout_ms);
	at += 4;
	memcpy(out + at, clsid, 16);
	at += 16;
	size_t s = ipc_encode_string(out + at, cap - at, profiler_path);
	if (!s)
		return 0;
	at += s;
	if (cap - at < 4 || cap - at - 4 < client_data_len)
		return 0;
	put_u32(out + at, client_data_len);
	at += 4;
	if (client_data_len)
		memcpy(out + at, client_data, client_data_len);
	at += client_data_len;
	ipc_encode_header(out, (uint16_t)at, IPC_SET_PROFILER, IPC_PROFILER_ATTACH);
	return at;
}

/* ---- decoding ---- */

int ipc_decode_header(const uint8_t *buf, size_t len, uint16_t *size, uint8_t *command_set, uint8_t *command_id,
		      char *err, size_t errlen)
{
	if (len < IPC_HEADER_SIZE) {
		text_format(err, errlen, "truncated header (%zu of %d bytes)", len, IPC_HEADER_SIZE);
		return -1;
	}
	if (memcmp(buf, IPC_MAGIC, IPC_MAGIC_SIZE) != 0) {
		text_format(err, errlen, "not a diagnostics IPC message (bad magic)");
		return -1;
	}
	uint16_t sz = get_u16(buf + 14);
	if (sz < IPC_HEADER_SIZE) {
		text_format(err, errlen, "bad message size %u in the header", (unsigned)sz);
		return -1;
	}
	*size = sz;
	*command_set = buf[16];
	*command_id = buf[17];
	return 0;
}

int ipc_decode_reply(const uint8_t *buf, size_t len, struct ipc_reply *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	if (ipc_decode_header(buf, len, &r->size, &r->command_set, &r->command_id, err, errlen) < 0)
		return -1;
	if (len < r->size) {
		text_format(err, errlen, "truncated reply (%zu of %u bytes)", len, (unsigned)r->size);
		return -1;
	}
	r->payload = buf + IPC_HEADER_SIZE;
	r->payload_len = r->size - IPC_HEADER_SIZE;
	if (r->command_set != IPC_SET_SERVER) {
		text_format(err, errlen, "unexpected reply (command set 0x%02X, id 0x%02X)", r->command_set,
			r->command_id);
		return -1;
	}
	if (r->command_id == IPC_SERVER_ERROR) {
		if (r->payload_len < 4) {
			text_format(err, errlen, "error reply without its HRESULT (%zu payload bytes)", r->payload_len);
			return -1;
		}
		r->hresult = (int32_t)get_u32(r->payload);
		return 1;
	}
	if (r->command_id != IPC_SERVER_OK) {
		text_format(err, errlen, "unexpected reply id 0x%02X", r->command_id);
		return -1;
	}
	if (r->payload_len >= 4)
		r->hresult = (int32_t)get_u32(r->payload);
	return 0;
}

int ipc_decode_string(const uint8_t **p, size_t *n, char **out)
{
	*out = NULL;
	if (*n < 4)
		return -1;
	uint32_t count = get_u32(*p);
	if (count > (*n - 4) / 2)
		return -1;
	const uint8_t *s = *p + 4;
	if (count) {
		uint16_t *units = xmalloc(count * sizeof *units);
		for (uint32_t i = 0; i < count; i++)
			units[i] = get_u16(s + 2 * i);
		size_t cap = (size_t)count * 3 + 1; /* 3 bytes per unit at most; a pair makes 4 from 2 */
		char *utf8 = xmalloc(cap);
		cs_utf16_to_utf8(units, count, utf8, cap);
		free(units);
		*out = text_sanitize(utf8); /* it reaches terminals */
	}
	*p += 4 + (size_t)count * 2;
	*n -= 4 + (size_t)count * 2;
	return 0;
}

void ipc_process_info_free(struct ipc_process_info *p)
{
	free(p->command_line);
	free(p->os);
	free(p->arch);
	free(p->entrypoint_assembly);
	free(p->clr_version);
	memset(p, 0, sizeof *p);
}

int ipc_decode_process_info(const uint8_t *payload, size_t len, bool v2, struct ipc_process_info *out, char *err,
			    size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (len < 8 + 16) {
		text_format(err, errlen, "truncated process information (%zu bytes)", len);
		return -1;
	}
	out->pid = get_u64(payload);
	memcpy(out->cookie, payload + 8, 16);
	const uint8_t *p = payload + 24;
	size_t n = len - 24;
	char **fields[] = {&out->command_line, &out->os, &out->arch, &out->entrypoint_assembly, &out->clr_version};
	size_t nfields = v2 ? 5 : 3;
	static const char *const names[] = {"command line", "OS", "architecture", "entry point assembly",
					    "runtime version"};
	for (size_t i = 0; i < nfields; i++) {
		if (ipc_decode_string(&p, &n, fields[i]) < 0) {
			text_format(err, errlen, "truncated process information (in the %s)", names[i]);
			ipc_process_info_free(out);
			return -1;
		}
	}
	out->version = v2 ? 2 : 1;
	return 0;
}

int ipc_decode_advertise(const uint8_t *buf, size_t len, struct ipc_advertise *adv)
{
	if (len < IPC_ADVERTISE_SIZE || memcmp(buf, "ADVR_V1", 8) != 0) /* the 7 characters and their NUL */
		return -1;
	memcpy(adv->cookie, buf + 8, 16);
	adv->pid = get_u64(buf + 24);
	return 0;
}

/* ---- GUIDs, HRESULTs, /proc/PID/stat ---- */


int ipc_guid_parse(const char *s, uint8_t out[16])
{
	/* text order: Data1 (8 hex), Data2 (4), Data3 (4), Data4 (4 + 12) */
	uint8_t text[16];
	size_t len = strlen(s);
	bool braces = len == 38 && s[0] == '{' && s[37] == '}';
	if (braces)
		s++;
	else if (len != 36)
		return -1;
	int k = 0;
	for (int i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -1;
			continue;
		}
		int hi = cs_hex_digit(s[i]), lo = cs_hex_digit(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		text[k++] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	/* memory: Data1 u32 LE, Data2 u16 LE, Data3 u16 LE, Data4 bytes as written */
	static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
	for (int i = 0; i < 16; i++)
		out[i] = text[order[i]];
	return 0;
}

struct hr_text {
	uint32_t hr;
	const char *text;
};

/* Sources: corerror.xml (CORPROF_E_*, CORDIAGIPC_E_*, COR_E_*), ds-types.h
 * (DS_IPC_E_*), winerror.h (HRESULT_FROM_WIN32), and which of them the
 * runtime's attach path (ProfilingAPIUtility::LoadProfiler,
 * EEToProfInterfaceImpl::CreateProfiler) and IPC server return. */
static const struct hr_text hr_texts[] = {
	{0x80131384u, "the runtime could not decode the request (CORDIAGIPC_E_BAD_ENCODING)"},
	{0x80131385u, "the runtime does not know this command: it is too old for it (CORDIAGIPC_E_UNKNOWN_COMMAND)"},
	{0x80131386u, "the runtime does not speak this version of the diagnostics protocol (CORDIAGIPC_E_UNKNOWN_MAGIC)"},
	{0x80131387u, "unknown error in the runtime's diagnostics server (CORDIAGIPC_E_UNKNOWN_ERROR)"},
	{0x8013135Bu, "the runtime is not running managed code yet (still starting, or paused at startup); try "
		      "again in a moment (CORPROF_E_NOT_YET_AVAILABLE)"},
	{0x80131371u, "the runtime's profiling support is not initialized: the process is starting or shutting "
		      "down (CORPROF_E_RUNTIME_UNINITIALIZED)"},
	{0x8013136Au, "a profiler is already loaded in that process; the runtime takes one at a time "
		      "(CORPROF_E_PROFILER_ALREADY_ACTIVE)"},
	{0x80131367u, "the previous profiler is still detaching from that process; try again in a few seconds "
		      "(CORPROF_E_PROFILER_DETACHING)"},
	{0x80131368u, "the profiler does not support attaching to a running process "
		      "(CORPROF_E_PROFILER_NOT_ATTACHABLE)"},
	{0x80131375u, "the profiler declined to load into that process (CORPROF_E_PROFILER_CANCEL_ACTIVATION)"},
	{0x80131379u, "timed out waiting for a background garbage collection to finish; try again, or allow a "
		      "longer attach timeout (CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC)"},
	{0x80131369u, "the attach request was not understood (CORPROF_E_UNRECOGNIZED_PIPE_MSG_FORMAT)"},
	{0x8013136Cu, "communication with the target failed (CORPROF_E_IPC_FAILED)"},
	{0x8013136Eu, "the profiler does not implement ICorProfilerCallback3, which attaching needs "
		      "(CORPROF_E_CALLBACK3_REQUIRED)"},
	{0x80131515u, "that runtime does not support this operation (COR_E_NOTSUPPORTED)"},
	{0x80131505u, "the operation timed out in the runtime (COR_E_TIMEOUT)"},
	{0x8007007Eu, "the runtime could not load the profiler library at that path: it does not exist or does not "
		      "load there, as seen from inside the target (another container or mount namespace?) "
		      "(ERROR_MOD_NOT_FOUND)"},
	{0x8007007Fu, "the profiler library has no DllGetClassObject export (ERROR_PROC_NOT_FOUND)"},
	{0x800700C1u, "the profiler library is not a valid shared library for that process (ERROR_BAD_EXE_FORMAT)"},
	{0x80070002u, "a file was not found in the target (ERROR_FILE_NOT_FOUND)"},
	{0x80070005u, "access denied (E_ACCESSDENIED)"},
	{0x800705B4u, "the operation timed out in the runtime (ERROR_TIMEOUT)"},
	{0x8007000Eu, "the runtime ran out of memory (E_OUTOFMEMORY)"},
	{0x80070057u, "the runtime rejected an argument, or the command is not allowed now (E_INVALIDARG)"},
	{0x8007007Au, "a buffer was too small in the runtime (ERROR_INSUFFICIENT_BUFFER)"},
	{0x80040111u, "the profiler library does not provide the requested class id (CLASS_E_CLASSNOTAVAILABLE)"},
	{0x80004002u, "the profiler does not implement ICorProfilerCallback2 (E_NOINTERFACE)"},
	{0x80004001u, "not implemented (E_NOTIMPL)"},
	{0x80004005u, "the runtime reported a failure without details (E_FAIL)"},
	{0x8000FFFFu, "unexpected failure in the runtime: the profiler may have crashed while loading "
		      "(E_UNEXPECTED)"},
};

const char *ipc_hresult_text(int32_t hr)
{
	for (size_t i = 0; i < sizeof hr_texts / sizeof *hr_texts; i++)
		if (hr_texts[i].hr == (uint32_t)hr)
			return hr_texts[i].text;
	return NULL;
}

void ipc_hresult_describe(int32_t hr, char *out, size_t n)
{
	const char *t = ipc_hresult_text(hr);
	if (t)
		snprintf(out, n, "%s, HRESULT 0x%08X", t, (unsigned)hr);
	else
		snprintf(out, n, "HRESULT 0x%08X", (unsigned)hr);
}
