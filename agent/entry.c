/* The COM surface the runtime sees: DllGetClassObject, a class factory, and
 * one profiler object whose vtable answers every ICorProfilerCallback
 * version up to 11.  Only a few callbacks do anything; the rest return S_OK. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CORPROF_DEFINE_GUIDS
#include "agent.h"
#include "logwriter.h"
#include "records.h"
#include "sampler.h"
#include "session.h"
#include "utf16.h"

/* {BC8604E2-7E73-4C7E-B410-5D3E412990D8}: CS_AGENT_CLSID in session.h */
static const GUID CLSID_clrscope = {0xBC8604E2, 0x7E73, 0x4C7E, {0xB4, 0x10, 0x5D, 0x3E, 0x41, 0x29, 0x90, 0xD8}};

static bool guid_eq(REFGUID a, REFGUID b)
{
	return memcmp(a, b, sizeof(GUID)) == 0;
}

/* ---- the profiler object ---- */

struct profiler {
	const struct ICorProfilerCallback11Vtbl *vtbl;
	_Atomic ULONG refs;
};

/* One profiler per process: a second CreateInstance (a second runtime, or the
 * same image loaded twice) gets an error and the first keeps going. */
static atomic_bool g_active;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define DEFAULT_STUB(ret, name, params) \
	static ret default_##name params { return 0; }
CORPROF_CALLBACK_METHODS(DEFAULT_STUB)
#undef DEFAULT_STUB
#pragma GCC diagnostic pop

#define DEFAULT_SLOT(ret, name, params) .name = default_##name,
static struct ICorProfilerCallback11Vtbl callback_vtbl = {CORPROF_CALLBACK_METHODS(DEFAULT_SLOT)};
#undef DEFAULT_SLOT

static HRESULT profiler_query_interface(ICorProfilerCallback11 *self, REFIID riid, void **out)
{
	static const GUID *const answered[] = {
		&IID_IUnknown,
		&IID_ICorProfilerCallback,
		&IID_ICorProfilerCallback2,
		&IID_ICorProfilerCallback3,
		&IID_ICorProfilerCallback4,
		&IID_ICorProfilerCallback5,
		&IID_ICorProfilerCallback6,
		&IID_ICorProfilerCallback7,
		&IID_ICorProfilerCallback8,
		&IID_ICorProfilerCallback9,
		&IID_ICorProfilerCallback10,
		&IID_ICorProfilerCallback11,
	};
	if (!out)
		return E_POINTER;
	for (size_t i = 0; i < sizeof answered / sizeof *answered; i++) {
		if (guid_eq(riid, answered[i])) {
			*out = self;
			self->vtbl->AddRef(self);
			return S_OK;
		}
	}
	*out = NULL;
	return E_NOINTERFACE;
}

static ULONG profiler_add_ref(ICorProfilerCallback11 *self)
{
	return atomic_fetch_add(&((struct profiler *)self)->refs, 1) + 1;
}

static ULONG profiler_release(ICorProfilerCallback11 *self)
{
	/* The object is static and outlives every reference: never freed. */
	return atomic_fetch_sub(&((struct profiler *)self)->refs, 1) - 1;
}

static void read_command_line(char *out, size_t cap)
{
	out[0] = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, out, cap - 1);
	close(fd);
	if (n <= 0)
		return;
	for (ssize_t i = 0; i < n; i++)
		if (out[i] == 0)
			out[i] = ' ';
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = 0;
}

static void runtime_version(char *out, size_t cap)
{
	ICorProfilerInfo10 *info = g_agent.info;
	USHORT id = 0, major = 0, minor = 0, build = 0, qfe = 0;
	COR_PRF_RUNTIME_TYPE type = 0;
	WCHAR wide[128];
	ULONG len = 0;
	snprintf(out, cap, "unknown");
	if (FAILED(info->vtbl->GetRuntimeInformation(info, &id, &type, &major, &minor, &build, &qfe, 128, &len, wide)))
		return;
	char text[128];
	cs_utf16_to_utf8((const uint16_t *)wide, len, text, sizeof text);
	if (text[0])
		snprintf(out, cap, "CoreCLR %s", text);
	else
		snprintf(out, cap, "CoreCLR %u.%u.%u.%u", major, minor, build, qfe);
}

static void write_hello(void)
{
	char cmdline[4096], runtime[160];
	read_command_line(cmdline, sizeof cmdline);
	runtime_version(runtime, sizeof runtime);
	struct cs_hello h = {
		.pid = (uint32_t)getpid(),
		.ppid = (uint32_t)getppid(),
		.start_unix_ns = g_agent.start_unix_ns,
		.load_mode = g_agent.load_mode,
		.rate_hz = g_agent.rate_hz,
		.agent_version = {CLRSCOPE_VERSION, strlen(CLRSCOPE_VERSION)},
		.runtime_version = {runtime, strlen(runtime)},
		.command_line = {cmdline, strlen(cmdline)},
	};
	uint8_t payload[4600];
	struct cs_out o;
	cs_out_init(&o, payload, sizeof payload);
	cs_hello_encode(&o, &h);
	lw_append_record(CS_REC_HELLO, o.buf, o.len);
}

static uint32_t rate_from_env(void)
{
	const char *s = getenv(CS_ENV_RATE);
	if (!s || !*s)
		return CS_RATE_DEFAULT;
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < CS_RATE_MIN || v > CS_RATE_MAX) {
		agent_debug("ignoring %s=%s (want %d..%d)", CS_ENV_RATE, s, CS_RATE_MIN, CS_RATE_MAX);
		return CS_RATE_DEFAULT;
	}
	return (uint32_t)v;
}

/* The session directory must be the user's own: we write into it. */
static int check_session_dir(const char *dir)
{
	struct stat st;
	if (dir[0] != '/' || lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		agent_debug("session directory %s is missing or not private; not profiling", dir);
		return -1;
	}
	return 0;
}

/* Holds SESSION/.agent-PID.lock so that a second copy of the agent (another
 * file) in this process stands down too.  Released when the process dies. */
static int take_process_lock(const char *session)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/.agent-%d.lock", session, (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static HRESULT start_profiling(IUnknown *info_unk, uint8_t load_mode)
{
	agent_debug_open();
	const char *session = getenv(CS_ENV_SESSION_DIR);
	if (!session || !*session) {
		agent_debug("%s is not set; not profiling", CS_ENV_SESSION_DIR);
		return E_FAIL;
	}
	if (strlen(session) >= sizeof g_agent.session_dir - 16 || check_session_dir(session) < 0)
		return E_FAIL;
	ICorProfilerInfo10 *info = NULL;
	if (FAILED(info_unk->vtbl->QueryInterface(info_unk, &IID_ICorProfilerInfo10, (void **)&info)) || !info) {
		agent_debug("the runtime has no ICorProfilerInfo10 (.NET 6 or later is needed)");
		return E_FAIL;
	}
	int lock_fd = take_process_lock(session);
	if (lock_fd < 0) {
		agent_debug("another clrscope agent is already active in this process");
		info->vtbl->Release(info);
		return CORPROF_E_PROFILER_ALREADY_ACTIVE;
	}
	char err[256];
	memset(&g_agent, 0, sizeof g_agent);
	g_agent.info = info;
	g_agent.lock_fd = lock_fd;
	g_agent.load_mode = load_mode;
	g_agent.rate_hz = rate_from_env();
	g_agent.start_mono_ns = agent_mono_ns();
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	g_agent.start_unix_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	snprintf(g_agent.session_dir, sizeof g_agent.session_dir, "%s", session);
	if (cs_proc_dir_create(session, getpid(), g_agent.proc_dir, sizeof g_agent.proc_dir, err, sizeof err) < 0 ||
	    lw_start(g_agent.proc_dir, 100) < 0) {
		agent_debug("cannot start the log: %s", err);
		close(lock_fd);
		info->vtbl->Release(info);
		g_agent.info = NULL;
		return E_FAIL;
	}
	write_hello();

	DWORD low = COR_PRF_ENABLE_STACK_SNAPSHOT;
	HRESULT hr = info->vtbl->SetEventMask2(info, low, 0);
	if (FAILED(hr))
		agent_message(CS_LEVEL_ERROR, "SetEventMask2 failed (0x%08x): no stack samples", (unsigned)hr);
	else if (sampler_start(g_agent.rate_hz) < 0)
		agent_message(CS_LEVEL_ERROR, "the sampler could not start (out of memory?)");
	agent_debug("profiling into %s at %u Hz", g_agent.proc_dir, g_agent.rate_hz);
	return S_OK;
}

static HRESULT profiler_initialize(ICorProfilerCallback11 *self, IUnknown *info_unk)
{
	(void)self;
	bool expected = false;
	if (!atomic_compare_exchange_strong(&g_active, &expected, true))
		return CORPROF_E_PROFILER_ALREADY_ACTIVE;
	HRESULT hr = start_profiling(info_unk, CS_LOAD_STARTUP);
	if (FAILED(hr))
		atomic_store(&g_active, false);
	return hr;
}

static HRESULT profiler_shutdown(ICorProfilerCallback11 *self)
{
	(void)self;
	if (!atomic_load(&g_active))
		return S_OK;
	sampler_stop(500);
	lw_stop(CS_END_SHUTDOWN, "runtime shutdown");
	return S_OK;
}

static struct profiler the_profiler = {&callback_vtbl, 0};

static void install_callbacks(void)
{
	callback_vtbl.QueryInterface = profiler_query_interface;
	callback_vtbl.AddRef = profiler_add_ref;
	callback_vtbl.Release = profiler_release;
	callback_vtbl.Initialize = profiler_initialize;
	callback_vtbl.Shutdown = profiler_shutdown;
}

/* ---- class factory ---- */

struct factory {
	const struct IClassFactoryVtbl *vtbl;
};

static HRESULT factory_query_interface(IClassFactory *self, REFIID riid, void **out)
{
	if (!out)
		return E_POINTER;
	if (guid_eq(riid, &IID_IUnknown) || guid_eq(riid, &IID_IClassFactory)) {
		*out = self;
		return S_OK;
	}
	*out = NULL;
	return E_NOINTERFACE;
}

static ULONG factory_add_ref(IClassFactory *self)
{
	(void)self;
	return 1;
}

static ULONG factory_release(IClassFactory *self)
{
	(void)self;
	return 1;
}

static HRESULT factory_create_instance(IClassFactory *self, IUnknown *outer, REFIID riid, void **out)
{
	(void)self;
	if (!out)
		return E_POINTER;
	*out = NULL;
	if (outer)
		return CLASS_E_NOAGGREGATION;
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, install_callbacks);
	return profiler_query_interface((ICorProfilerCallback11 *)&the_profiler, riid, out);
}

static HRESULT factory_lock_server(IClassFactory *self, BOOL lock)
{
	(void)self, (void)lock;
	return S_OK;
}

static const struct IClassFactoryVtbl factory_vtbl = {
	.QueryInterface = factory_query_interface,
	.AddRef = factory_add_ref,
	.Release = factory_release,
	.CreateInstance = factory_create_instance,
	.LockServer = factory_lock_server,
};

static struct factory the_factory = {&factory_vtbl};

__attribute__((visibility("default"))) HRESULT DllGetClassObject(REFCLSID clsid, REFIID riid, void **out);

HRESULT DllGetClassObject(REFCLSID clsid, REFIID riid, void **out)
{
	if (!out)
		return E_POINTER;
	*out = NULL;
	if (!guid_eq(clsid, &CLSID_clrscope))
		return CLASS_E_CLASSNOTAVAILABLE;
	return factory_query_interface((IClassFactory *)&the_factory, riid, out);
}
