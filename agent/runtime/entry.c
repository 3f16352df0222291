/* The COM surface the runtime sees: DllGetClassObject, a class factory, and
 * one profiler object whose vtable answers every ICorProfilerCallback
 * version up to 11.  Only the callbacks the folders install do anything;
 * the rest return S_OK.  Initialize and InitializeForAttach start the
 * agent; the hooks of the lower folders are set before either can run. */
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

#include "agent/agent.h"
#include "agent/events/allocs.h"
#include "agent/events/eventmask.h"
#include "agent/events/events.h"
#include "agent/events/evqueue.h"
#include "agent/events/heapsnap.h"
#include "agent/events/instrument.h"
#include "agent/log/logwriter.h"
#include "agent/log/sizecap.h"
#include "agent/runtime/control.h"
#include "agent/runtime/lifecycle.h"
#include "agent/sampling/sampler.h"
#include "agent/sampling/stillthreads.h"
#include "agent/sampling/threadlist.h"
#include "agent/symbols/activity.h"
#include "agent/symbols/asyncstack.h"
#include "agent/symbols/symbols.h"
#include "common/dials.h"
#include "common/records.h"
#include "common/session.h"
#include "common/sessionlimits.h"
#include "common/utf16.h"

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

struct runtime_version_ask {
	char *out;
	size_t cap;
};

static void *ask_runtime_version(void *arg)
{
	struct runtime_version_ask *ask = arg;
	ICorProfilerInfo10 *info = g_agent.info;
	USHORT id = 0, major = 0, minor = 0, build = 0, qfe = 0;
	COR_PRF_RUNTIME_TYPE type = 0;
	WCHAR wide[128];
	ULONG len = 0;
	if (FAILED(info->vtbl->GetRuntimeInformation(info, &id, &type, &major, &minor, &build, &qfe, 128, &len, wide)))
		return NULL;
	char text[128];
	cs_utf16_to_utf8((const uint16_t *)wide, len, text, sizeof text);
	if (text[0])
		snprintf(ask->out, ask->cap, "CoreCLR %s", text);
	else
		snprintf(ask->out, ask->cap, "CoreCLR %u.%u.%u.%u", major, minor, build, qfe);
	return NULL;
}

/* The runtime refuses GetRuntimeInformation on its own threads outside a
 * callback (CORPROF_E_UNSUPPORTED_CALL_SEQUENCE), as on the thread that runs
 * a first attach's InitializeForAttach; a thread of the agent's is never
 * refused, so the agent asks on one. */
static void runtime_version(char *out, size_t cap)
{
	struct runtime_version_ask ask = {out, cap};
	pthread_t t;
	snprintf(out, cap, "unknown");
	if (pthread_create(&t, NULL, ask_runtime_version, &ask) == 0)
		pthread_join(t, NULL);
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
		.control = {g_agent.control_name, strlen(g_agent.control_name)},
		.events = evmask_enabled(),
		.features = (instr_configured() ? CS_FEATURE_INSTRUMENT : 0u) |
			    (allocs_configured() ? CS_FEATURE_ALLOCATIONS : 0u) |
			    (heapsnap_gc_walk() ? CS_FEATURE_HEAP_SNAPSHOTS : 0u),
		.patterns = {instr_patterns(), strlen(instr_patterns())},
	};
	uint8_t payload[4600];
	struct cs_out o;
	cs_out_init(&o, payload, sizeof payload);
	cs_hello_encode(&o, &h);
	lw_append_record(CS_REC_HELLO, o.buf, o.len);
	lw_flush_soon(); /* clrscope waits for it to find the process */
}

/* What the agent is told to do: from the environment at startup, from the
 * client data of an attach request. */
struct agent_config {
	char session[PATH_MAX];
	uint32_t table_cap; /* 0: the default */
	struct cs_dials dials;
	const char *instrument; /* patterns, one per line (startup only) */
	bool allocations;       /* count allocations (startup only) */
	bool heap_snapshots;    /* snapshots by a forced GC, background GC off (startup only) */
};

static void config_from_env(struct agent_config *cfg)
{
	const char *session = getenv(CS_ENV_SESSION_DIR);
	snprintf(cfg->session, sizeof cfg->session, "%s", session ? session : "");
	cfg->instrument = getenv(CS_ENV_INSTRUMENT);
	const char *cap = getenv(CS_ENV_TABLE_CAP);
	char *end = NULL;
	unsigned long entries = cap && *cap ? strtoul(cap, &end, 10) : 0;
	cfg->table_cap = entries && !*end && entries <= UINT32_MAX ? (uint32_t)entries : 0;
	const char *allocations = getenv(CS_ENV_ALLOCATIONS);
	cfg->allocations = allocations && !strcmp(allocations, "1");
	const char *heap = getenv(CS_ENV_HEAP_SNAPSHOTS);
	cfg->heap_snapshots = heap && !strcmp(heap, "1");
	cs_dials_default(&cfg->dials, CS_RATE_DEFAULT);
	static const struct {
		const char *env, *key;
	} settings[] = {{CS_ENV_RATE, "rate"}, {CS_ENV_EVENTS, "events"}, {CS_ENV_SAMPLING, "sampling"},
			{CS_ENV_SAMPLER, "sampler"}, {CS_ENV_VALIDATE, "validate"}, {CS_ENV_ASYNC, "async"}};
	for (size_t i = 0; i < sizeof settings / sizeof *settings; i++) {
		const char *v = getenv(settings[i].env);
		if (!v || !*v)
			continue;
		char assignment[256], err[256];
		snprintf(assignment, sizeof assignment, "%s=%s", settings[i].key, v);
		if (cs_dials_assign(&cfg->dials, assignment, err, sizeof err) < 0)
			agent_debug("ignoring %s: %s", settings[i].env, err);
	}
}

/* Client data: lines of "session=DIR" and dials ("rate=500"). */
static int config_from_client_data(struct agent_config *cfg, const void *data, UINT len)
{
	cs_dials_default(&cfg->dials, CS_RATE_DEFAULT);
	cfg->session[0] = 0;
	cfg->table_cap = 0;
	cfg->instrument = NULL; /* the runtime allows neither after attach */
	cfg->allocations = false;
	cfg->heap_snapshots = false;
	if (!data || len == 0 || len > 8192) {
		agent_debug("attach without usable client data (%u bytes)", len);
		return -1;
	}
	char text[8193];
	memcpy(text, data, len); /* the runtime's buffer is gone after this call */
	text[len] = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char err[256];
		if (!strncmp(line, "session=", 8))
			snprintf(cfg->session, sizeof cfg->session, "%s", line + 8);
		else if (cs_dials_assign(&cfg->dials, line, err, sizeof err) < 0)
			agent_debug("attach client data: %s", err);
	}
	return cfg->session[0] ? 0 : -1;
}

/* The session directory must be the user's own, and reached without a
 * symbolic link: we write into it.  Returns it open, or -1. */
static int open_session_dir(const char *dir)
{
	char err[300] = "not an absolute path";
	int fd = dir[0] == '/' ? cs_dir_open_private(dir, err, sizeof err) : -1;
	if (fd < 0)
		agent_debug("session directory %s: %s; not profiling", dir, err);
	return fd;
}

/* Holds SESSION/.agent-PID.lock so that a second copy of the agent (another
 * file) in this process stands down too.  Released when the process dies.
 * -1: another agent holds it; -2: anything but a plain file of ours there. */
static int take_process_lock(int session_fd, const char *session)
{
	char name[32], why[160];
	snprintf(name, sizeof name, ".agent-%d.lock", (int)getpid());
	int fd = cs_open_file_at(session_fd, name, O_RDWR | O_CREAT, 0600, why, sizeof why);
	if (fd < 0) {
		agent_debug("%s/%s %s; not profiling", session, name, why);
		return -2;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Sets (value NULL: removes) a variable in the runtime's own copy of the
 * environment, which managed code and the children it starts see, and in
 * libc's, which native children see. */
static void set_runtime_env(const char *name, const char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
	ICorProfilerInfo11 *info = NULL;
	if (FAILED(g_agent.info->vtbl->QueryInterface(g_agent.info, &IID_ICorProfilerInfo11,
						      (void **)&info)) ||
	    !info)
		return;
	uint16_t wname[64], wvalue[4200];
	if (cs_utf8_to_utf16(name, wname, 64) && (!value || cs_utf8_to_utf16(value, wvalue, 4200)))
		info->vtbl->SetEnvironmentVariable(info, (const WCHAR *)wname, value ? (const WCHAR *)wvalue : NULL);
	info->vtbl->Release(info);
}

/* record --pause adds "SESSION/diag.sock,connect,suspend" to the ports
 * (the user's own come first, ';'-separated).  The runtime has read it and
 * been resumed by the time the agent starts; a descendant started later,
 * perhaps after record is gone, would wait for it forever, so it goes from
 * this process's environment. */
static void drop_paused_start_port(const char *session)
{
	static const char var[] = "DOTNET_DiagnosticPorts";
	const char *ports = getenv(var);
	char ours[PATH_MAX + 64], rest[4200] = "";
	snprintf(ours, sizeof ours, "%s/diag.sock,connect,suspend", session);
	if (!ports || !strstr(ports, ours) || strlen(ports) >= sizeof rest)
		return;
	size_t len = 0;
	for (const char *p = ports; *p;) {
		const char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n && (n != strlen(ours) || strncmp(p, ours, n) != 0)) {
			len += (size_t)snprintf(rest + len, sizeof rest - len, "%s%.*s", len ? ";" : "", (int)n, p);
		}
		p += n + (end ? 1 : 0);
	}
	set_runtime_env(var, len ? rest : NULL);
	agent_debug("removed the paused start's port from %s", var);
}

/* A testing aid: CLRSCOPE_AGENT_FAIL_AT=STEP makes the start fail right
 * after STEP succeeded, as if what comes next had failed (session, lock,
 * log, symbols, control, sampler, control-thread), so that tests can check
 * what a partial start leaves behind: nothing but its log.  Never honoured
 * in a privileged process. */
static bool fail_after(const char *step)
{
	const char *v = agent_secure() ? NULL : getenv("CLRSCOPE_AGENT_FAIL_AT");
	if (!v || strcmp(v, step) != 0)
		return false;
	agent_debug("CLRSCOPE_AGENT_FAIL_AT=%s: failing the start here", step);
	return true;
}

static HRESULT start_profiling(IUnknown *info_unk, uint8_t load_mode, struct agent_config *cfg)
{
	agent_debug_open();
	if (!cfg->session[0]) {
		agent_debug("%s is not set; not profiling", CS_ENV_SESSION_DIR);
		return E_FAIL;
	}
	int session_fd = strlen(cfg->session) < sizeof g_agent.session_dir - 16 ? open_session_dir(cfg->session) : -1;
	if (session_fd < 0)
		return E_FAIL;
	/* a descendant that outlived the recording (a build server, say) */
	if (cs_session_closed(session_fd)) {
		agent_debug("the session %s is closed (its recording ended, or it is full); not profiling", cfg->session);
		close(session_fd);
		return E_FAIL;
	}
	ICorProfilerInfo10 *info = NULL;
	if (FAILED(info_unk->vtbl->QueryInterface(info_unk, &IID_ICorProfilerInfo10, (void **)&info)) || !info ||
	    fail_after("session")) {
		agent_debug("the runtime has no ICorProfilerInfo10 (.NET 6 or later is needed)");
		if (info)
			info->vtbl->Release(info);
		close(session_fd);
		return E_FAIL;
	}
	/* a new attach right after a detach: the old control thread may still
	 * be leaving, and it would close this session's semaphore */
	if (control_wait_idle(1000) < 0) {
		agent_debug("the previous session's control thread has not exited; not profiling (attach again)");
		close(session_fd);
		info->vtbl->Release(info);
		return CORPROF_E_PROFILER_ALREADY_ACTIVE;
	}
	int lock_fd = take_process_lock(session_fd, cfg->session);
	if (lock_fd >= 0 && fail_after("lock")) {
		close(lock_fd);
		lock_fd = -2;
	}
	uint64_t max_size = cs_session_read_max_size(session_fd);
	int cap_fd = lock_fd >= 0 && max_size ? dup(session_fd) : -1;
	close(session_fd);
	if (lock_fd < 0) {
		if (lock_fd == -1)
			agent_debug("another clrscope agent is already active in this process");
		info->vtbl->Release(info);
		return lock_fd == -1 ? CORPROF_E_PROFILER_ALREADY_ACTIVE : E_FAIL;
	}
	char err[256] = "";
	memset(&g_agent, 0, sizeof g_agent);
	g_agent.info = info;
	g_agent.lock_fd = lock_fd;
	g_agent.load_mode = load_mode;
	g_agent.rate_hz = cfg->dials.rate_hz;
	g_agent.start_mono_ns = agent_mono_ns();
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	g_agent.start_unix_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	snprintf(g_agent.session_dir, sizeof g_agent.session_dir, "%s", cfg->session);
	sizecap_start(cap_fd, max_size); /* the writer owns cap_fd from here on */
	bool log = false;
	if (cs_proc_dir_create(cfg->session, getpid(), g_agent.proc_dir, sizeof g_agent.proc_dir, err, sizeof err) < 0 ||
	    !(log = lw_start(g_agent.proc_dir, cfg->dials.flush_ms) == 0) || fail_after("log") || evq_init() < 0 ||
	    sym_init() < 0 || fail_after("symbols")) {
		agent_debug("cannot start the log: %s", err[0] ? err : "out of memory");
		sym_fini();
		if (log) /* its thread and segment would outlive the failed start */
			lw_stop(CS_END_FATAL, "the agent could not start");
		else
			sizecap_stop();
		close(lock_fd);
		g_agent.lock_fd = -1;
		info->vtbl->Release(info);
		g_agent.info = NULL;
		return E_FAIL;
	}
	if (cfg->table_cap)
		sym_set_table_cap(cfg->table_cap);
	/* startup-only features first: their mask bits go into every mask */
	char feature_why[300] = "";
	if (instr_configure(cfg->instrument, feature_why, sizeof feature_why) < 0 ||
	    allocs_configure(cfg->allocations, feature_why, sizeof feature_why) < 0)
		instr_configure(NULL, NULL, 0);
	bool background_gc_off = heapsnap_configure(cfg->heap_snapshots, load_mode == CS_LOAD_ATTACH);
	evmask_set_fixed(instr_mask_bits() | allocs_mask_bits(), background_gc_off);
	char why[300];
	uint32_t kinds = evmask_apply(cfg->dials.events, why, sizeof why);
	cfg->dials.events = kinds;
	if (instr_install(feature_why, sizeof feature_why) < 0)
		instr_configure(NULL, NULL, 0);
	cfg->dials.instrument = instr_configured();
	cfg->dials.allocations = allocs_configured();
	char mode_why[200] = "";
	if (cfg->dials.sampler != CS_SAMPLER_SUSPEND &&
	    sampler_set_mode(cfg->dials.sampler, mode_why, sizeof mode_why) < 0)
		cfg->dials.sampler = CS_SAMPLER_SUSPEND;
	else if (cfg->dials.sampler == CS_SAMPLER_SUSPEND)
		sampler_set_mode(CS_SAMPLER_SUSPEND, mode_why, sizeof mode_why); /* after a former attach */
	bool control = control_prepare(&cfg->dials) == 0 && !fail_after("control");
	if (!control)
		control_abandon(); /* no semaphore: no thread either, so nothing may stay open */
	write_hello();
	if (why[0])
		lw_message(CS_LEVEL_WARNING, "%s", why);
	if (feature_why[0])
		lw_message(CS_LEVEL_WARNING, "%s", feature_why);
	if (mode_why[0])
		lw_message(CS_LEVEL_WARNING, "signal sampling is not available (%s): suspending instead", mode_why);
	if (!control)
		lw_message(CS_LEVEL_WARNING, "no control semaphore: dials cannot reach this process");
	sampler_set_validate(cfg->dials.validate);
	async_set_enabled(cfg->dials.async);
	if (fail_after("sampler") || sampler_start(cfg->dials.rate_hz, cfg->dials.sampling) < 0)
		lw_message(CS_LEVEL_ERROR, "the sampler could not start (out of memory?)");
	bool thread_failed = control && fail_after("control-thread");
	if (thread_failed)
		control_abandon(); /* what control_start does when its thread cannot start */
	if (control && (thread_failed || control_start() < 0))
		lw_message(CS_LEVEL_WARNING, "the control thread could not start: dials cannot reach this process");
	life_started();
	if (load_mode == CS_LOAD_STARTUP)
		drop_paused_start_port(cfg->session);
	agent_debug("profiling into %s at %u Hz", g_agent.proc_dir, g_agent.rate_hz);
	return S_OK;
}

static HRESULT profiler_initialize(ICorProfilerCallback11 *self, IUnknown *info_unk)
{
	(void)self;
	bool expected = false;
	/* setuid or with raised capabilities: its environment is someone
	 * else's, and every setting at startup comes from there */
	if (agent_secure())
		return E_FAIL;
	if (!atomic_compare_exchange_strong(&g_active, &expected, true))
		return CORPROF_E_PROFILER_ALREADY_ACTIVE;
	struct agent_config cfg;
	config_from_env(&cfg);
	HRESULT hr = start_profiling(info_unk, CS_LOAD_STARTUP, &cfg);
	if (FAILED(hr))
		atomic_store(&g_active, false);
	else
		evmask_initialized();
	return hr;
}

static HRESULT profiler_initialize_for_attach(ICorProfilerCallback11 *self, IUnknown *info_unk, void *data, UINT len)
{
	(void)self;
	bool expected = false;
	if (!atomic_compare_exchange_strong(&g_active, &expected, true))
		return CORPROF_E_PROFILER_ALREADY_ACTIVE;
	agent_debug_open();
	struct agent_config cfg;
	HRESULT hr = config_from_client_data(&cfg, data, len) == 0 ? start_profiling(info_unk, CS_LOAD_ATTACH, &cfg)
								 : E_INVALIDARG;
	if (FAILED(hr))
		atomic_store(&g_active, false);
	else
		evmask_initialized();
	return hr;
}

static HRESULT profiler_shutdown(ICorProfilerCallback11 *self)
{
	(void)self;
	if (!atomic_load(&g_active))
		return S_OK;
	control_stop();
	life_stop(CS_END_SHUTDOWN, "runtime shutdown");
	return S_OK;
}

static HRESULT profiler_detach_succeeded(ICorProfilerCallback11 *self)
{
	(void)self;
	sym_fini();
	if (g_agent.info)
		g_agent.info->vtbl->Release(g_agent.info);
	g_agent.info = NULL;
	agent_debug("detached");
	atomic_store(&g_active, false);
	return S_OK;
}

static struct profiler the_profiler = {&callback_vtbl, 0};

/* Names and logs what other threads left for the sampler thread: runtime
 * events, call totals, allocation counts, a finished heap snapshot. */
static void drain_events(bool final)
{
	struct sym_defs *defs = sym_defs();
	evmask_settle();
	events_drain(defs);
	instr_drain(defs, final);
	allocs_drain(final);
	heapsnap_drain(defs);
}

/* The hooks by which lower modules reach modules above them, set once
 * before any thread of ours starts (CreateInstance, before Initialize). */
static void connect_hooks(void)
{
	lw_set_drop_counter(evq_dropped);
	sampler_set_drain(drain_events);
	events_set_thread_hook(threadlist_changed);
	sym_set_id_space_hook(still_reset); /* the still threads' stacks: walked again */
}

static void install_callbacks(void)
{
	connect_hooks();
	callback_vtbl.QueryInterface = profiler_query_interface;
	callback_vtbl.AddRef = profiler_add_ref;
	callback_vtbl.Release = profiler_release;
	callback_vtbl.Initialize = profiler_initialize;
	callback_vtbl.InitializeForAttach = profiler_initialize_for_attach;
	callback_vtbl.Shutdown = profiler_shutdown;
	callback_vtbl.ProfilerDetachSucceeded = profiler_detach_succeeded;
	events_install(&callback_vtbl);
	activity_install(&callback_vtbl);
	async_install(&callback_vtbl);
	instr_install_callbacks(&callback_vtbl);
	allocs_install_callbacks(&callback_vtbl);
	heapsnap_install_callbacks(&callback_vtbl);
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
