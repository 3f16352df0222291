/* The diagnostics IPC client (see ipc.h).  Layouts confirmed against
 * dotnet/diagnostics documentation/design-docs/ipc-protocol.md and
 * dotnet/runtime src/native/eventpipe: ds-protocol.c (header, strings,
 * replies), ds-process-protocol.c (ProcessInfo/ProcessInfo2 payloads),
 * ds-profiler-protocol.c (AttachProfiler payload), ds-types.h (command ids,
 * DS_IPC_E_* results) and the PAL's PAL_GetTransportName (socket name). */
#include "ipc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "procs.h"
#include "text.h"
#include "utf16.h"
#include "xalloc.h"

/* HRESULTs that are not in agent/corprof.h (which tui/ may not include):
 * winerror.h and corerror.xml values. */
#define HR(x) ((int32_t)(uint32_t)(x))
#define HR_CORDIAGIPC_E_BAD_ENCODING HR(0x80131384u)
#define HR_CORDIAGIPC_E_UNKNOWN_COMMAND HR(0x80131385u)

static int g_timeout_ms = IPC_DEFAULT_TIMEOUT_MS;

void ipc_set_timeout(int ms)
{
	g_timeout_ms = ms > 0 ? ms : IPC_DEFAULT_TIMEOUT_MS;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

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
		set_err(err, errlen, "truncated header (%zu of %d bytes)", len, IPC_HEADER_SIZE);
		return -1;
	}
	if (memcmp(buf, IPC_MAGIC, IPC_MAGIC_SIZE) != 0) {
		set_err(err, errlen, "not a diagnostics IPC message (bad magic)");
		return -1;
	}
	uint16_t sz = get_u16(buf + 14);
	if (sz < IPC_HEADER_SIZE) {
		set_err(err, errlen, "bad message size %u in the header", (unsigned)sz);
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
		set_err(err, errlen, "truncated reply (%zu of %u bytes)", len, (unsigned)r->size);
		return -1;
	}
	r->payload = buf + IPC_HEADER_SIZE;
	r->payload_len = r->size - IPC_HEADER_SIZE;
	if (r->command_set != IPC_SET_SERVER) {
		set_err(err, errlen, "unexpected reply (command set 0x%02X, id 0x%02X)", r->command_set,
			r->command_id);
		return -1;
	}
	if (r->command_id == IPC_SERVER_ERROR) {
		if (r->payload_len < 4) {
			set_err(err, errlen, "error reply without its HRESULT (%zu payload bytes)", r->payload_len);
			return -1;
		}
		r->hresult = (int32_t)get_u32(r->payload);
		return 1;
	}
	if (r->command_id != IPC_SERVER_OK) {
		set_err(err, errlen, "unexpected reply id 0x%02X", r->command_id);
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
		set_err(err, errlen, "truncated process information (%zu bytes)", len);
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
			set_err(err, errlen, "truncated process information (in the %s)", names[i]);
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
		int hi = text_hex_digit(s[i]), lo = text_hex_digit(s[i + 1]);
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

int ipc_parse_stat_starttime(const char *stat, size_t len, uint64_t *starttime)
{
	/* pid (comm) state ppid ... : comm may hold spaces and ")", so start
	 * after the last ')'; starttime is field 22, the 20th after comm */
	const char *end = stat + len, *p = NULL;
	for (const char *q = stat; q < end; q++)
		if (*q == ')')
			p = q;
	if (!p)
		return -1;
	p++;
	for (int field = 3; field <= 22; field++) {
		if (p >= end || *p != ' ')
			return -1;
		p++;
		if (field == 22) {
			uint64_t v = 0;
			const char *start = p;
			while (p < end && *p >= '0' && *p <= '9') {
				if (v > (UINT64_MAX - 9) / 10)
					return -1;
				v = v * 10 + (uint64_t)(*p - '0');
				p++;
			}
			if (p == start || (p < end && *p != ' ' && *p != '\n'))
				return -1;
			*starttime = v;
			return 0;
		}
		while (p < end && *p != ' ' && *p != '\n')
			p++;
	}
	return -1;
}

/* ---- finding the socket ---- */

struct target {
	pid_t pid;
	uid_t uid; /* the process's owner: its socket must be theirs too */
	long nspid; /* the pid as the target sees it (innermost pid namespace) */
	char comm[64];
	char *env;
	size_t envlen;
	uint64_t starttime;
	bool have_starttime;
	time_t start_epoch; /* 0 when unknown */
	char tmpdir[PATH_MAX];   /* as the target sees it */
	char dir[PATH_MAX + 32]; /* where we look for it */
	bool elsewhere;          /* another mount namespace or root */
};

static void target_free(struct target *t)
{
	free(t->env);
	t->env = NULL;
}

static time_t boot_time(void)
{
	FILE *f = fopen("/proc/stat", "re");
	if (!f)
		return 0;
	char line[256];
	long long bt = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "btime %lld", &bt) == 1)
			break;
	fclose(f);
	return (time_t)bt;
}

/* Whether the target sees a different file system root than we do. */
static bool other_root(pid_t pid)
{
	char path[64];
	struct stat ours, theirs;
	snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
	if (stat("/proc/self/ns/mnt", &ours) == 0 && stat(path, &theirs) == 0 &&
	    (ours.st_ino != theirs.st_ino || ours.st_dev != theirs.st_dev))
		return true;
	char mine[PATH_MAX], link[PATH_MAX];
	snprintf(path, sizeof path, "/proc/%d/root", (int)pid);
	ssize_t a = readlink("/proc/self/root", mine, sizeof mine - 1);
	ssize_t b = readlink(path, link, sizeof link - 1);
	if (a <= 0 || b <= 0)
		return false;
	mine[a] = link[b] = 0;
	return strcmp(mine, link) != 0;
}

static const char *user_name(uid_t uid, char *buf, size_t n)
{
	struct passwd entry, *pw = NULL;
	char strings[1024]; /* getpwuid_r: the UI's process list runs on a thread */
	if (getpwuid_r(uid, &entry, strings, sizeof strings, &pw) == 0 && pw && pw->pw_name)
		snprintf(buf, n, "%s", pw->pw_name);
	else
		snprintf(buf, n, "uid %u", (unsigned)uid);
	return buf;
}

/* Everything about the target we need before looking for its socket. */
static int target_open(pid_t pid, struct target *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	t->pid = pid;
	t->nspid = pid;
	if (pid <= 0) {
		set_err(err, errlen, "%d is not a process id", (int)pid);
		return IPC_ERR_ARGS;
	}
	char path[64];
	struct stat st;
	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	if (stat(path, &st) < 0) {
		set_err(err, errlen, "no process %d is running (see 'clrscope ps' for your .NET processes)", (int)pid);
		return IPC_ERR_NO_PROCESS;
	}
	size_t len;
	char *status = proc_read(pid, "status", &len);
	if (!status) {
		set_err(err, errlen, "no process %d is running (see 'clrscope ps' for your .NET processes)", (int)pid);
		return IPC_ERR_NO_PROCESS;
	}
	char *line = strstr(status, "Name:\t");
	if (line)
		sscanf(line + 6, "%63[^\n]", t->comm);
	text_sanitize(t->comm); /* the process names itself; the name reaches terminals */
	line = strstr(status, "\nTgid:\t");
	long tgid = line ? strtol(line + 7, NULL, 10) : pid;
	line = strstr(status, "\nNSpid:\t");
	if (line) {
		char *p = line + 8, *next;
		for (long v; (v = strtol(p, &next, 10)), next != p; p = next)
			t->nspid = v; /* the last one is the innermost namespace */
	}
	free(status);
	if (tgid != pid) {
		set_err(err, errlen, "%d is a thread of process %ld, not a process: use %ld", (int)pid, tgid, tgid);
		return IPC_ERR_NO_PROCESS;
	}
	t->uid = st.st_uid;
	uid_t me = geteuid();
	if (st.st_uid != me && me != 0) {
		char name[64];
		set_err(err, errlen,
			"process %d (%s) belongs to %s, not to you: clrscope can only reach your own processes "
			"(run it as that user)",
			(int)pid, t->comm, user_name(st.st_uid, name, sizeof name));
		return IPC_ERR_OTHER_USER;
	}
	t->env = proc_read(pid, "environ", &t->envlen);
	if (!t->env) {
		int e = errno;
		if (e == ENOENT || e == ESRCH) {
			set_err(err, errlen, "process %d exited", (int)pid);
			return IPC_ERR_NO_PROCESS;
		}
		set_err(err, errlen,
			"cannot read the environment of process %d (%s): %s; it runs with other privileges "
			"(setuid or not dumpable), so clrscope cannot reach it",
			(int)pid, t->comm, strerror(e));
		return e == EACCES || e == EPERM ? IPC_ERR_OTHER_USER : IPC_ERR_IO;
	}
	char *stat_line = proc_read(pid, "stat", &len);
	if (stat_line && ipc_parse_stat_starttime(stat_line, len, &t->starttime) == 0) {
		t->have_starttime = true;
		time_t bt = boot_time();
		long hz = sysconf(_SC_CLK_TCK);
		if (bt && hz > 0)
			t->start_epoch = bt + (time_t)(t->starttime / (uint64_t)hz);
	}
	free(stat_line);
	/* the PAL's GetTempPathA: $TMPDIR when set and not empty, else /tmp */
	const char *tmp = proc_env_get(t->env, t->envlen, "TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (tmp[0] == '/')
		snprintf(t->tmpdir, sizeof t->tmpdir, "%s", tmp);
	else /* relative to the target's working directory */
		snprintf(t->tmpdir, sizeof t->tmpdir, "/proc/%d/cwd/%s", (int)pid, tmp);
	size_t tl = strlen(t->tmpdir);
	while (tl > 1 && t->tmpdir[tl - 1] == '/')
		t->tmpdir[--tl] = 0;
	t->elsewhere = tmp[0] == '/' && other_root(pid);
	if (t->elsewhere)
		snprintf(t->dir, sizeof t->dir, "/proc/%d/root%s", (int)pid, t->tmpdir);
	else
		snprintf(t->dir, sizeof t->dir, "%s", t->tmpdir);
	return 0;
}

/* Looks for dotnet-diagnostic-NSPID-KEY-socket in t->dir, among the sockets
 * owned by the process's owner (anyone may make such a name in /tmp): the
 * key equal to the start time first, else the newest socket made after the
 * process started.  stale counts sockets left by an earlier process with
 * this pid, foreign those of another owner, which are never used. */
static bool target_find(const struct target *t, char *out, size_t n, int *stale, int *foreign, int *dir_errno)
{
	*stale = 0;
	*foreign = 0;
	*dir_errno = 0;
	DIR *d = opendir(t->dir);
	if (!d) {
		*dir_errno = errno;
		return false;
	}
	char prefix[64];
	int plen = snprintf(prefix, sizeof prefix, "dotnet-diagnostic-%ld-", t->nspid);
	char best[NAME_MAX + 1] = "";
	time_t best_time = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *name = e->d_name;
		if (strncmp(name, prefix, (size_t)plen) != 0)
			continue;
		const char *k = name + plen;
		char *end;
		if (*k < '0' || *k > '9')
			continue;
		errno = 0;
		unsigned long long key = strtoull(k, &end, 10);
		if (errno || strcmp(end, "-socket") != 0)
			continue;
		struct stat st;
		if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		if (st.st_uid != t->uid) {
			(*foreign)++;
			continue;
		}
		if (t->have_starttime && key == t->starttime) {
			snprintf(best, sizeof best, "%s", name);
			break;
		}
		if (t->start_epoch && st.st_ctime + 2 < t->start_epoch) {
			(*stale)++;
			continue;
		}
		if (!best[0] || st.st_ctime > best_time) {
			snprintf(best, sizeof best, "%s", name);
			best_time = st.st_ctime;
		}
	}
	closedir(d);
	if (!best[0])
		return false;
	return (size_t)snprintf(out, n, "%s/%s", t->dir, best) < n;
}

/* ipc_find_socket, also telling the process's owner (whom the socket's
 * listener must run as). */
static int find_socket(pid_t pid, char *path, size_t n, uid_t *owner, char *err, size_t errlen)
{
	struct target t;
	int rc = target_open(pid, &t, err, errlen);
	if (rc < 0) {
		target_free(&t);
		return rc;
	}
	*owner = t.uid;
	int stale, foreign, dir_errno;
	if (target_find(&t, path, n, &stale, &foreign, &dir_errno)) {
		target_free(&t);
		return 0;
	}
	char ignored[128] = "";
	if (foreign)
		snprintf(ignored, sizeof ignored, " (%d socket%s of that name owned by another user ignored)", foreign,
			 foreign == 1 ? "" : "s");
	size_t mlen = 0;
	char *maps = proc_read(pid, "maps", &mlen);
	if (!maps && (errno == EACCES || errno == EPERM)) {
		set_err(err, errlen, "cannot read the memory map of process %d (%s): %s; it runs with other privileges",
			(int)pid, t.comm, strerror(errno));
		target_free(&t);
		return IPC_ERR_OTHER_USER;
	}
	if (!maps) {
		set_err(err, errlen, "process %d exited", (int)pid);
		target_free(&t);
		return IPC_ERR_NO_PROCESS;
	}
	bool coreclr = proc_maps_file(maps, "libcoreclr.so", NULL, NULL, 0);
	free(maps);
	char off[128];
	const char *disabled = proc_diagnostics_off(t.env, t.envlen, false, off, sizeof off);
	if (!coreclr) {
		set_err(err, errlen,
			"process %d (%s) is not a .NET program: it has no CoreCLR (libcoreclr.so) loaded and no "
			"diagnostics socket%s (see 'clrscope ps' for your .NET processes)",
			(int)pid, t.comm, ignored);
		rc = IPC_ERR_NOT_DOTNET;
	} else if (disabled) {
		set_err(err, errlen,
			"the .NET process %d (%s) runs with its diagnostics turned off (%s in its environment): "
			"restart it without that setting to profile it",
			(int)pid, t.comm, disabled);
		rc = IPC_ERR_DISABLED;
	} else {
		char why[PATH_MAX + 256] = "";
		if (t.elsewhere && (dir_errno == EACCES || dir_errno == EPERM)) {
			set_err(err, errlen,
				"the .NET process %d (%s) runs in another mount namespace (a container?) and its "
				"TMPDIR cannot be reached through /proc/%d/root (%s): run clrscope inside that "
				"container, or with the right to trace the process",
				(int)pid, t.comm, (int)pid, strerror(dir_errno));
			target_free(&t);
			return IPC_ERR_NO_SOCKET;
		}
		if (dir_errno)
			snprintf(why, sizeof why, " (cannot open %s: %s)", t.dir, strerror(dir_errno));
		else if (stale)
			snprintf(why, sizeof why, " (only %d stale socket%s left by an earlier process %d)%s", stale,
				 stale == 1 ? "" : "s", (int)pid, ignored);
		else
			snprintf(why, sizeof why, "%s", ignored);
		set_err(err, errlen,
			"the .NET process %d (%s) has no diagnostics socket dotnet-diagnostic-%ld-%llu-socket in "
			"%s%s%s: it may still be starting, or the socket was deleted (by a /tmp cleaner?); "
			"restarting the program makes a new one",
			(int)pid, t.comm, t.nspid, (unsigned long long)t.starttime, t.dir,
			t.elsewhere ? " (its TMPDIR, seen through its root)" : "", why);
		rc = IPC_ERR_NO_SOCKET;
	}
	target_free(&t);
	return rc;
}

int ipc_find_socket(pid_t pid, char *path, size_t n, char *err, size_t errlen)
{
	uid_t owner;
	return find_socket(pid, path, n, &owner, err, errlen);
}

/* ---- connections ---- */

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int left_ms(long long deadline)
{
	long long left = deadline - now_ms();
	return left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/* Waits for events on fd until deadline: 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, long long deadline)
{
	for (;;) {
		struct pollfd p = {fd, events, 0};
		int r = poll(&p, 1, left_ms(deadline));
		if (r > 0)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

static int send_all(int fd, const uint8_t *buf, size_t len, long long deadline, char *err, size_t errlen)
{
	while (len) {
		int w = wait_fd(fd, POLLOUT, deadline);
		if (w == 0) {
			set_err(err, errlen, "timed out sending to the runtime");
			return IPC_ERR_TIMEOUT;
		}
		ssize_t n = w < 0 ? -1 : send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			set_err(err, errlen, "cannot send to the runtime: %s", strerror(errno));
			return IPC_ERR_IO;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads exactly len bytes: 0, or an error (1 for a clean end of stream
 * before the first byte, with *got the bytes read). */
static int recv_all(int fd, uint8_t *buf, size_t len, long long deadline, size_t *got, char *err, size_t errlen)
{
	*got = 0;
	while (*got < len) {
		int w = wait_fd(fd, POLLIN, deadline);
		if (w == 0) {
			set_err(err, errlen, "the runtime did not answer in time (is the process stopped, e.g. by "
					     "a debugger or SIGSTOP?)");
			return IPC_ERR_TIMEOUT;
		}
		ssize_t n = w < 0 ? -1 : recv(fd, buf + *got, len - *got, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			set_err(err, errlen, "cannot read the runtime's answer: %s", strerror(errno));
			return IPC_ERR_IO;
		}
		if (n == 0) {
			set_err(err, errlen, "the runtime closed the connection %s", *got ? "in the middle of its answer"
											   : "without answering");
			return IPC_ERR_PROTOCOL;
		}
		*got += (size_t)n;
	}
	return 0;
}

/* Connects to the Unix socket at path (through /proc/self/fd when the
 * path is longer than sun_path holds). */
static int connect_socket(const char *path, long long deadline, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int dirfd_ = -1;
	if (strlen(path) < sizeof sa.sun_path) {
		snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	} else {
		const char *slash = strrchr(path, '/');
		char dir[PATH_MAX + 64];
		if (!slash || (size_t)(slash - path) >= sizeof dir) {
			set_err(err, errlen, "socket path too long: %s", path);
			return IPC_ERR_ARGS;
		}
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
		dirfd_ = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dirfd_ < 0 || (size_t)snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", dirfd_,
						   slash + 1) >= sizeof sa.sun_path) {
			set_err(err, errlen, "cannot reach %s: %s", path, dirfd_ < 0 ? strerror(errno) : "name too long");
			if (dirfd_ >= 0)
				close(dirfd_);
			return IPC_ERR_ARGS;
		}
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		set_err(err, errlen, "cannot make a socket: %s", strerror(errno));
		if (dirfd_ >= 0)
			close(dirfd_);
		return IPC_ERR_IO;
	}
	int rc = 0;
	for (;;) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
			break;
		int e = errno;
		if (e == EINTR)
			continue;
		if (e == EAGAIN && left_ms(deadline) > 0) { /* backlog full: the runtime is busy */
			struct timespec ts = {0, 20 * 1000000};
			nanosleep(&ts, NULL);
			continue;
		}
		if (e == EINPROGRESS) {
			int w = wait_fd(fd, POLLOUT, deadline);
			int soerr = 0;
			socklen_t sl = sizeof soerr;
			if (w > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0)
				break;
			e = w == 0 ? ETIMEDOUT : soerr ? soerr : errno;
		}
		if (e == ECONNREFUSED)
			set_err(err, errlen,
				"nothing listens on %s: the process is exiting or the socket is stale", path);
		else if (e == ENOENT)
			set_err(err, errlen, "the diagnostics socket %s disappeared (did the process exit?)", path);
		else if (e == EACCES || e == EPERM)
			set_err(err, errlen, "not allowed to connect to %s (%s): it belongs to another user", path,
				strerror(e));
		else if (e == EAGAIN || e == ETIMEDOUT)
			set_err(err, errlen, "timed out connecting to %s: the runtime is not accepting connections",
				path);
		else
			set_err(err, errlen, "cannot connect to %s: %s", path, strerror(e));
		rc = e == EACCES || e == EPERM ? IPC_ERR_OTHER_USER
		     : e == ENOENT		 ? IPC_ERR_NO_SOCKET
		     : e == EAGAIN || e == ETIMEDOUT ? IPC_ERR_TIMEOUT
						     : IPC_ERR_CONNECT;
		break;
	}
	if (dirfd_ >= 0)
		close(dirfd_);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* Whether the listener at the other end of fd is process pid running as
 * uid: a socket of the right name and owner could still be served by
 * another process of that user, or by one that took over the name. */
static int check_peer(int fd, const char *path, pid_t pid, uid_t uid, char *err, size_t errlen)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		set_err(err, errlen, "cannot tell who serves %s: %s", path, strerror(errno));
		return IPC_ERR_IO;
	}
	if (cred.pid != pid || cred.uid != uid) {
		set_err(err, errlen,
			"%s is served by process %d of uid %u, not by process %d of uid %u: not its runtime, so "
			"clrscope does not trust it (remove the socket if it is stale)",
			path, (int)cred.pid, (unsigned)cred.uid, (int)pid, (unsigned)uid);
		return IPC_ERR_CONNECT;
	}
	return 0;
}

/* Sends req on fd and reads one whole reply into *reply (malloc'd). */
static int exchange(int fd, const uint8_t *req, size_t reqlen, long long deadline, uint8_t **reply, size_t *replylen,
		    char *err, size_t errlen)
{
	*reply = NULL;
	*replylen = 0;
	int rc = send_all(fd, req, reqlen, deadline, err, errlen);
	if (rc < 0)
		return rc;
	uint8_t header[IPC_HEADER_SIZE];
	size_t got;
	rc = recv_all(fd, header, sizeof header, deadline, &got, err, errlen);
	if (rc < 0)
		return rc;
	uint16_t size;
	uint8_t set, id;
	char why[128];
	if (ipc_decode_header(header, sizeof header, &size, &set, &id, why, sizeof why) < 0) {
		set_err(err, errlen, "the runtime's answer is not the diagnostics protocol: %s", why);
		return IPC_ERR_PROTOCOL;
	}
	uint8_t *buf = xmalloc(size);
	memcpy(buf, header, sizeof header);
	rc = recv_all(fd, buf + IPC_HEADER_SIZE, size - IPC_HEADER_SIZE, deadline, &got, err, errlen);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*reply = buf;
	*replylen = size;
	return 0;
}

/* One command on a new connection to socket, served by process pid of uid
 * (else nothing is sent); the reply is decoded into r (pointing into *buf,
 * which the caller frees).  Returns 0 for OK, the HRESULT of an error
 * reply, or an ipc_error. */
static int transact(const char *socket_path, pid_t pid, uid_t uid, const uint8_t *req, size_t reqlen, int timeout_ms,
		    uint8_t **buf, struct ipc_reply *r, char *err, size_t errlen)
{
	*buf = NULL;
	long long deadline = now_ms() + timeout_ms;
	int fd = connect_socket(socket_path, deadline, err, errlen);
	if (fd < 0)
		return fd;
	int rc = check_peer(fd, socket_path, pid, uid, err, errlen);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	size_t len;
	rc = exchange(fd, req, reqlen, deadline, buf, &len, err, errlen);
	close(fd);
	if (rc < 0)
		return rc;
	char why[128];
	int k = ipc_decode_reply(*buf, len, r, why, sizeof why);
	if (k < 0) {
		set_err(err, errlen, "the runtime's answer is not the diagnostics protocol: %s", why);
		return IPC_ERR_PROTOCOL;
	}
	if (k == 1) {
		int32_t hr = r->hresult;
		if (!IPC_IS_HRESULT(hr)) /* a failure code we could not tell from ours */
			hr = HR(0x80004005u);
		char words[256];
		ipc_hresult_describe(r->hresult, words, sizeof words);
		set_err(err, errlen, "the runtime refused: %s", words);
		return hr;
	}
	return 0;
}

int ipc_process_info(pid_t pid, int timeout_ms, struct ipc_process_info *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	char path[PATH_MAX + 64];
	uid_t owner;
	int rc = find_socket(pid, path, sizeof path, &owner, err, errlen);
	if (rc < 0)
		return rc;
	for (int v = 2; v >= 1; v--) {
		uint8_t req[IPC_HEADER_SIZE], *buf;
		struct ipc_reply r;
		ipc_encode_simple(req, sizeof req, IPC_SET_PROCESS, v == 2 ? IPC_PROCESS_INFO2 : IPC_PROCESS_INFO);
		char why[512];
		rc = transact(path, pid, owner, req, sizeof req, timeout_ms > 0 ? timeout_ms : g_timeout_ms, &buf, &r,
			      why, sizeof why);
		if (rc == HR_CORDIAGIPC_E_UNKNOWN_COMMAND && v == 2) { /* .NET 5: no ProcessInfo2 */
			free(buf);
			continue;
		}
		if (rc == 0 && ipc_decode_process_info(r.payload, r.payload_len, v == 2, out, why, sizeof why) < 0)
			rc = IPC_ERR_PROTOCOL;
		free(buf);
		if (rc != 0)
			set_err(err, errlen, "process %d did not tell about itself: %s", (int)pid, why);
		return rc;
	}
	return IPC_ERR_PROTOCOL; /* not reached */
}

/* Whether the runtime's attach path itself returns hr (LoadProfiler,
 * CoCreateProfiler, the IPC server), rather than only passing on the
 * profiler's InitializeForAttach result. */
static bool attach_own_hresult(int32_t hr)
{
	static const uint32_t own[] = {
		0x80131384u, 0x80131385u, 0x80131386u, 0x80131387u, 0x8013135Bu, 0x80131371u, 0x8013136Au,
		0x80131367u, 0x80131368u, 0x80131515u, 0x8007007Eu, 0x8007007Fu, 0x800700C1u, 0x8007000Eu,
		0x80040111u, 0x80004002u, 0x8000FFFFu,
	};
	for (size_t i = 0; i < sizeof own / sizeof *own; i++)
		if ((uint32_t)hr == own[i])
			return true;
	return false;
}

int ipc_attach_profiler(pid_t pid, uint32_t attach_timeout_ms, const uint8_t clsid[16], const char *profiler_path,
			const void *client_data, uint32_t client_data_len, char *err, size_t errlen)
{
	uint8_t *req = xmalloc(IPC_MAX_MESSAGE);
	size_t len = ipc_encode_attach_profiler(req, IPC_MAX_MESSAGE, attach_timeout_ms, clsid, profiler_path,
						client_data, client_data_len);
	if (!len) {
		free(req);
		set_err(err, errlen, "the profiler path and client data (%u bytes) do not fit in one %d-byte message",
			(unsigned)client_data_len, IPC_MAX_MESSAGE);
		return IPC_ERR_ARGS;
	}
	char path[PATH_MAX + 64];
	uid_t owner;
	int rc = find_socket(pid, path, sizeof path, &owner, err, errlen);
	if (rc < 0) {
		free(req);
		return rc;
	}
	/* the runtime answers after loading the profiler and its
	 * InitializeForAttach, having waited up to attach_timeout_ms for a
	 * background GC */
	long long timeout = (long long)g_timeout_ms + attach_timeout_ms;
	uint8_t *buf;
	struct ipc_reply r;
	char why[512];
	rc = transact(path, pid, owner, req, len, timeout > INT_MAX ? INT_MAX : (int)timeout, &buf, &r, why,
		      sizeof why);
	free(req);
	if (rc == 0 && r.payload_len >= 4 && r.hresult < 0) { /* OK carrying a failure: not expected, but say so */
		char words[256];
		ipc_hresult_describe(r.hresult, words, sizeof words);
		snprintf(why, sizeof why, "the runtime answered OK with %s", words);
		rc = r.hresult;
	}
	free(buf);
	if (rc != 0)
		set_err(err, errlen, "process %d did not load the profiler %s: %s%s", (int)pid, profiler_path, why,
			IPC_IS_HRESULT(rc) && !attach_own_hresult(rc)
				? " (the runtime passes on what the profiler's InitializeForAttach returns: see its log)"
				: "");
	return rc;
}

int ipc_resume_runtime(const char *socket_path, pid_t pid, char *err, size_t errlen)
{
	char proc[64];
	struct stat st;
	snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
	if (stat(proc, &st) < 0) {
		set_err(err, errlen, "no process %d is running", (int)pid);
		return IPC_ERR_NO_PROCESS;
	}
	uint8_t req[IPC_HEADER_SIZE], *buf;
	struct ipc_reply r;
	char why[512];
	ipc_encode_simple(req, sizeof req, IPC_SET_PROCESS, IPC_PROCESS_RESUME_RUNTIME);
	int rc = transact(socket_path, pid, st.st_uid, req, sizeof req, g_timeout_ms, &buf, &r, why, sizeof why);
	free(buf);
	if (rc != 0)
		set_err(err, errlen, "cannot resume the runtime at %s: %s", socket_path, why);
	return rc;
}

/* ---- connect ports ---- */

int ipc_port_listen(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path) {
		set_err(err, errlen, "diagnostic port path too long (%zu bytes, at most %zu): %s", strlen(path),
			sizeof sa.sun_path - 1, path);
		return IPC_ERR_ARGS;
	}
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			set_err(err, errlen, "%s exists and is not a socket: choose another path", path);
			return IPC_ERR_ARGS;
		}
		unlink(path);
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		set_err(err, errlen, "cannot make a socket: %s", strerror(errno));
		return IPC_ERR_IO;
	}
	mode_t old = umask(0177); /* the socket file is made 0600 */
	int b = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	int e = errno;
	umask(old);
	if (b < 0 || listen(fd, 8) < 0) {
		if (b == 0)
			e = errno;
		set_err(err, errlen, "cannot listen on %s: %s", path, strerror(e));
		close(fd);
		return IPC_ERR_IO;
	}
	return fd;
}

int ipc_port_accept(int listen_fd, int timeout_ms, struct ipc_advertise *adv, char *err, size_t errlen)
{
	long long deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : g_timeout_ms);
	int fd;
	for (;;) {
		int w = wait_fd(listen_fd, POLLIN, deadline);
		if (w == 0) {
			set_err(err, errlen, "the runtime did not connect to the diagnostic port within %d ms",
				timeout_ms > 0 ? timeout_ms : g_timeout_ms);
			return IPC_ERR_TIMEOUT;
		}
		fd = w < 0 ? -1 : accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd >= 0)
			break;
		if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) {
			set_err(err, errlen, "cannot accept on the diagnostic port: %s", strerror(errno));
			return IPC_ERR_IO;
		}
	}
	uint8_t msg[IPC_ADVERTISE_SIZE];
	size_t got;
	char why[256];
	struct ipc_advertise greeting;
	int rc = recv_all(fd, msg, sizeof msg, deadline, &got, why, sizeof why);
	if (rc == 0 && ipc_decode_advertise(msg, sizeof msg, &greeting) < 0) {
		snprintf(why, sizeof why, "not an advertise message");
		rc = IPC_ERR_PROTOCOL;
	}
	if (rc < 0) {
		set_err(err, errlen, "bad greeting on the diagnostic port: %s", why);
		close(fd);
		return rc;
	}
	if (adv)
		*adv = greeting;
	return fd;
}

int ipc_resume_runtime_fd(int fd, char *err, size_t errlen)
{
	uint8_t req[IPC_HEADER_SIZE], *buf;
	size_t len;
	char why[512];
	ipc_encode_simple(req, sizeof req, IPC_SET_PROCESS, IPC_PROCESS_RESUME_RUNTIME);
	int rc = exchange(fd, req, sizeof req, now_ms() + g_timeout_ms, &buf, &len, why, sizeof why);
	close(fd);
	if (rc == 0) {
		struct ipc_reply r;
		int k = ipc_decode_reply(buf, len, &r, why, sizeof why);
		if (k < 0)
			rc = IPC_ERR_PROTOCOL;
		else if (k == 1) {
			ipc_hresult_describe(r.hresult, why, sizeof why);
			rc = IPC_IS_HRESULT(r.hresult) ? r.hresult : HR(0x80004005u);
		}
	}
	free(buf);
	if (rc != 0)
		set_err(err, errlen, "cannot resume the runtime: %s", why);
	return rc;
}
