#include "profile/profile.h"

#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common/labels.h"
#include "common/session.h"
#include "profile/fold.h"
#include "profile/natsym.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/xalloc.h"

#define PATH_LIMIT 4096

/* Every string of the log is the profiled program's to choose (its command
 * line, thread and type names): masked before anything prints it. */
static char *dup_str(struct cs_str s)
{
	return text_sanitize(xstrndup(s.p, s.len));
}

static struct prof_process *process_new(const char *dir)
{
	struct prof_process *p = xcalloc(1, sizeof *p);
	p->dir = xstrdup(dir);
	p->function_index = xcalloc(1, sizeof(struct strmap));
	strmap_init(p->function_index);
	p->exception_index = xcalloc(1, sizeof(struct strmap));
	strmap_init(p->exception_index);
	p->alloc_type_index = xcalloc(1, sizeof(struct strmap));
	strmap_init(p->alloc_type_index);
	p->code_path_index = xcalloc(1, sizeof(struct strmap));
	strmap_init(p->code_path_index);
	p->canon_index = xcalloc(1, sizeof *p->canon_index);
	u64map_init(p->canon_index, 1);
	p->control = xstrdup("");
	if (cs_reader_open(&p->reader, dir) == 0)
		p->reader_open = true;
	else
		snprintf(p->error, sizeof p->error, "%s", p->reader.error);
	return p;
}

static void process_free(struct prof_process *p)
{
	if (p->reader_open)
		cs_reader_close(&p->reader);
	if (p->thread_stacks) {
		u64map_free(p->thread_stacks);
		free(p->thread_stacks);
	}
	u64map_free(p->canon_index);
	free(p->canon_index);
	for (size_t i = 0; i < p->ncode_paths; i++)
		free(p->code_paths[i]);
	free(p->code_paths);
	free(p->path_refs);
	strmap_free(p->code_path_index);
	free(p->code_path_index);
	natsym_free(p->natsym);
	memory_free(p);
	awaits_free(p);
	for (size_t i = 0; i < p->nfunctions; i++) {
		free(p->functions[i].name);
		free(p->functions[i].module);
	}
	for (size_t i = 0; i < p->nthreads; i++) {
		free(p->threads[i].name);
		free(p->threads[i].managed_name);
		free(p->threads[i].os_name);
	}
	for (size_t i = 0; i < p->nmessages; i++)
		free(p->messages[i].text);
	strmap_free(p->function_index);
	free(p->function_index);
	strmap_free(p->exception_index);
	free(p->exception_index);
	for (size_t i = 0; i < p->nexception_types; i++) {
		free(p->exception_types[i].name);
		for (size_t k = 0; k < p->exception_types[i].nmessages; k++)
			free(p->exception_types[i].messages[k].text);
		free(p->exception_types[i].messages);
	}
	free(p->exception_types);
	free(p->contention.sites);
	free(p->contention.site_of_stack);
	free(p->waits.sites);
	free(p->waits.site_of_stack);
	free(p->alloc_sites.sites);
	free(p->alloc_sites.site_of_stack);
	for (size_t i = 0; i < p->nalloc_types; i++)
		free(p->alloc_types[i].type);
	free(p->alloc_types);
	strmap_free(p->alloc_type_index);
	free(p->alloc_type_index);
	free(p->thread_last_throw);
	for (size_t i = 0; i < p->nmodules; i++)
		free(p->modules[i].name);
	free(p->modules);
	for (size_t i = 0; i < p->ndials; i++) {
		free(p->dials[i].effective);
		free(p->dials[i].error);
	}
	free(p->dials);
	free(p->gcs);
	free(p->control);
	for (size_t i = 0; i < p->nlog; i++)
		free(p->log[i].text);
	free(p->log);
	free(p->functions);
	free(p->frames);
	free(p->stacks);
	free(p->stack_samples);
	free(p->stack_state);
	free(p->threads);
	free(p->messages);
	free(p->per_second);
	free(p->waited_per_second);
	free(p->suspend.buckets);
	free(p->agent_version);
	free(p->runtime_version);
	free(p->command_line);
	free(p->end_text);
	free(p->dir);
	free(p);
}

static void add_process(struct prof_recording *s, const char *dir)
{
	s->procs = xrealloc(s->procs, (s->nprocs + 1) * sizeof *s->procs);
	s->procs[s->nprocs++] = process_new(dir);
}

int prof_recording_open(struct prof_recording *s, const char *dir, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	switch (cs_dir_kind(dir)) {
	case CS_DIR_SESSION:
		break;
	case CS_DIR_PROCESS:
		s->single_process = true;
		break;
	case CS_DIR_OTHER:
		snprintf(err, errlen,
			 "%s is not a clrscope session (no %s, no log segments); "
			 "give the directory that 'clrscope record' printed",
			 dir, CS_SESSION_MARKER);
		return -1;
	}
	s->dir = xstrdup(dir);
	if (s->single_process)
		add_process(s, dir);
	return 0;
}

/* Picks up process directories created since the last look. */
static void discover_processes(struct prof_recording *s)
{
	if (s->single_process || !s->dir)
		return;
	char **dirs;
	int n = cs_session_processes(s->dir, &dirs);
	for (int i = 0; i < n; i++) {
		bool known = false;
		for (size_t j = 0; j < s->nprocs && !known; j++)
			known = strcmp(s->procs[j]->dir, dirs[i]) == 0;
		if (!known)
			add_process(s, dirs[i]);
	}
	cs_free_list(dirs, n);
}

void prof_recording_free(struct prof_recording *s)
{
	for (size_t i = 0; i < s->nprocs; i++)
		process_free(s->procs[i]);
	free(s->procs);
	free(s->dir);
	memset(s, 0, sizeof *s);
}

/* ---- folding records in ---- */

/* Ids beyond this are taken as damage, not as data (the agent counts up
 * from small numbers; a real session stays far below). */
#define ID_LIMIT (1u << 24)
/* Each id the agent hands out costs a definition of a few bytes in the log
 * (or in data it dropped), so an id far above the bytes read is damage too:
 * a few forged bytes must not make the model allocate gigabytes. */
#define ID_SLACK (1u << 20)

bool fold_id_ok(const struct prof_process *p, uint64_t id)
{
	return id < ID_LIMIT && id <= 2 * (p->reader.bytes + p->status.dropped_bytes) + ID_SLACK;
}

void fold_note_time(struct prof_process *p, uint64_t t)
{
	if (t > p->last_time_us)
		p->last_time_us = t;
}

static uint32_t intern_function(struct prof_process *p, struct cs_str name, struct cs_str module)
{
	/* functions are keyed by "module\0name": one row per distinct method,
	 * whatever number of FunctionIDs (generic instantiations) it had */
	size_t klen = module.len + 1 + name.len;
	char stackkey[512];
	char *key = klen <= sizeof stackkey ? stackkey : xmalloc(klen);
	memcpy(key, module.p, module.len);
	key[module.len] = 0;
	memcpy(key + module.len + 1, name.p, name.len);
	uint32_t idx;
	if (!strmap_get(p->function_index, key, klen, &idx)) {
		idx = (uint32_t)p->nfunctions;
		xgrow(&p->functions, &p->functions_cap, p->nfunctions + 1, sizeof *p->functions);
		p->functions[idx] = (struct prof_function){dup_str(name), dup_str(module), 0, 0};
		p->nfunctions++;
		if (!strmap_add(p->function_index, key, klen, idx)) {
			fprintf(stderr, "clrscope: out of memory\n");
			exit(1);
		}
	}
	if (key != stackkey)
		free(key);
	return idx;
}

struct prof_frame *fold_frame(struct prof_process *p, uint64_t id)
{
	if (id >= p->nframes + ID_GAP)
		return NULL;
	size_t cap = p->nframes;
	xgrow(&p->frames, &cap, id + 1, sizeof *p->frames);
	for (size_t i = p->nframes; i < cap; i++)
		p->frames[i] = (struct prof_frame){.function = UINT32_MAX};
	p->nframes = cap;
	return &p->frames[id];
}

/* A label is a function of its own, with no module: one row and one
 * spelling, whichever frames carry it. */
static uint32_t intern_label(struct prof_process *p, const char *label)
{
	return intern_function(p, (struct cs_str){label, strlen(label)}, (struct cs_str){"", 0});
}

/* A frame's function as the reader names it: runs of native code by their
 * module's label (common/labels.h), the rest as the log says (the agent
 * names its pseudo-frames from the same table). */
static void name_frame(struct prof_process *p, struct prof_frame *fr, struct cs_str name, struct cs_str module)
{
	const char *native = cs_label(CS_LABEL_NATIVE);
	fr->native_run = name.len == strlen(native) && !memcmp(name.p, native, name.len);
	if (!fr->native_run || !module.len || module.len >= 512) {
		fr->function = intern_function(p, name, module);
		return;
	}
	char file[512], label[520];
	snprintf(file, sizeof file, "%.*s", (int)module.len, module.p);
	enum cs_label kind = cs_module_label(file);
	if (kind != CS_LABELS) {
		fr->function = intern_label(p, cs_label(kind));
		return;
	}
	cs_label_module(file, label, sizeof label);
	fr->function = intern_label(p, label);
}

static void fold_frames(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_list l;
	struct cs_frame_def f;
	cs_list_init(&l, rec->payload, rec->len);
	while (cs_next_frame_def(&l, &f)) {
		if (!fold_id_ok(p, f.id) || f.id == CS_FRAME_THREAD_START) {
			p->bad_records++;
			return;
		}
		struct prof_frame *fr = fold_frame(p, f.id);
		if (!fr) {
			p->bad_records++;
			return;
		}
		name_frame(p, fr, f.name, f.module);
	}
	if (cs_list_bad(&l))
		p->bad_records++;
}

/* A thread reference near those seen (a THREAD record may have been
 * dropped, and comes again later): anything else is damage (see ID_GAP). */
static bool thread_ref_ok(const struct prof_process *p, uint64_t ref)
{
	return fold_id_ok(p, ref) && ref < p->nthreads + ID_GAP;
}

static void ensure_stack(struct prof_process *p, uint64_t id)
{
	xgrow(&p->stacks, &p->nstacks, id + 1, sizeof *p->stacks);
}

static uint32_t canonical(const struct prof_process *p, uint32_t stack)
{
	return stack < p->nstacks && p->stacks[stack].canon ? p->stacks[stack].canon : stack;
}

/* The first stack with the same frames as this one (its parent's
 * canonical stack and its frame) stands for it. */
static void canonicalise(struct prof_process *p, uint32_t id)
{
	struct prof_stack *st = &p->stacks[id];
	uint64_t key = (uint64_t)canonical(p, st->parent) << 32 | st->frame;
	uint64_t *v = u64map_counters(p->canon_index, key);
	if (!*v)
		*v = (uint64_t)id + 1;
	st->canon = *v - 1 == id ? 0 : (uint32_t)(*v - 1);
}

/* n samples whose innermost stack is stack, on the CPU or off it: only
 * the stack's own counts, one cache line per sample; the canonical stacks'
 * and the shown time's counts are derived once per update
 * (derive_counts). */
static void count_in_stack(struct prof_process *p, uint64_t stack, uint64_t wall, uint64_t cpu)
{
	if (stack >= p->nstack_samples) {
		size_t cap = 2 * p->nstack_samples; /* (xgrow zeroes what it adds) */
		xgrow(&p->stack_samples, &cap, 2 * ((size_t)stack + 1), sizeof *p->stack_samples);
		p->nstack_samples = cap / 2;
	}
	p->stack_samples[2 * stack] += wall;
	p->stack_samples[2 * stack + 1] += cpu;
	p->counts_stale = true;
}

/* The counts by path of functions (canonical stacks) and of the time shown,
 * from the stacks' own counts. */
static void derive_counts(struct prof_process *p)
{
	bool wall = p->time == PROF_TIME_WALL;
	if (p->nstack_samples > p->nstacks)
		ensure_stack(p, p->nstack_samples - 1);
	for (size_t s = 0; s < p->nstacks; s++) {
		struct prof_stack *st = &p->stacks[s];
		st->line_wall = s < p->nstack_samples ? p->stack_samples[2 * s] : 0;
		st->line_cpu = s < p->nstack_samples ? p->stack_samples[2 * s + 1] : 0;
		st->cpu = st->wall = 0;
		st->line_count = wall ? st->line_wall : st->line_cpu;
	}
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct prof_stack *st = &p->stacks[s];
		if (!st->line_wall && !st->line_cpu)
			continue;
		struct prof_stack *c = &p->stacks[canonical(p, (uint32_t)s)];
		c->cpu += st->line_cpu;
		c->wall += st->line_wall;
	}
	for (size_t s = 0; s < p->nstacks; s++) {
		struct prof_stack *st = &p->stacks[s];
		st->count = wall ? st->wall : st->cpu;
	}
	p->counts_stale = false;
}

/* Samples of a thread in a stack, of two kinds: `wall` ticks' moments, on
 * the CPU (then cpu == wall) or off it (cpu 0); or, wall 0, `cpu` on-CPU
 * samples that are no tick's moment (CPU_OWED), which count in CPU time
 * only.  The stacks, the thread's states (the moments'), the per-thread
 * counts of the pprof export and the process's totals. */
static void count_samples(struct prof_process *p, uint64_t thread, uint64_t stack, uint64_t wall, uint64_t cpu,
			  uint64_t period_ns, uint64_t time_us)
{
	count_in_stack(p, stack, wall, cpu);
	xgrow(&p->threads, &p->nthreads, thread + 1, sizeof *p->threads);
	struct prof_thread *th = &p->threads[thread];
	if (wall) {
		enum prof_state state = cpu ? PROF_STATE_RUNNING : prof_stack_state(p, (uint32_t)stack);
		th->states[state] += wall;
		if (time_us >= th->last_sample_us) {
			th->last_sample_us = time_us;
			th->last_state = (uint8_t)state;
		}
	}
	uint64_t owed = wall ? 0 : cpu, shown = p->time == PROF_TIME_WALL ? wall : cpu;
	th->cpu_owed += owed;
	th->samples += shown;
	if (p->thread_stacks) {
		uint64_t *v = u64map_counters(p->thread_stacks, thread << 32 | stack);
		/* a sample stands for one sampling period of its thread */
		v[PROF_VALUE_SAMPLES] += shown;
		v[PROF_VALUE_CPU_NS] += cpu * period_ns;
		v[PROF_VALUE_WALL_NS] += wall * period_ns;
	}
	p->wall_samples += wall;
	p->cpu_samples += cpu;
	p->cpu_owed += owed;
	p->samples += shown;
}

const char *prof_time_name(enum prof_time t)
{
	return t == PROF_TIME_WALL ? "wall" : "cpu";
}

int prof_time_parse(const char *name, enum prof_time *out)
{
	if (!strcmp(name, "cpu"))
		*out = PROF_TIME_CPU;
	else if (!strcmp(name, "wall"))
		*out = PROF_TIME_WALL;
	else
		return -1;
	return 0;
}

const char *prof_state_name(enum prof_state s)
{
	static const char *const names[PROF_STATES] = {"running", "lock", "wait", "sleep", "socket", "io", "other"};
	return (unsigned)s < PROF_STATES ? names[s] : "other";
}

/* Innermost frames that say what a blocked thread waits for, by the start
 * of their names; the first match from the leaf outward wins. */
static const struct {
	const char *prefix;
	enum prof_state state;
} wait_frames[] = {
	{"System.Threading.Thread.Sleep", PROF_STATE_SLEEP},
	{"System.Threading.Monitor.Wait", PROF_STATE_WAIT}, /* a condition: how events and tasks wait */
	{"System.Threading.Monitor.", PROF_STATE_LOCK},
	{"System.Threading.Lock.", PROF_STATE_LOCK},
	{"System.Threading.Lock+", PROF_STATE_LOCK},
	{"System.Net.Sockets.", PROF_STATE_SOCKET},
	{"Interop+Sys.WaitForSocketEvents", PROF_STATE_SOCKET},
	{"Interop+Sys.Receive", PROF_STATE_SOCKET},
	{"Interop+Sys.Accept", PROF_STATE_SOCKET},
	{"Interop+Sys.Poll", PROF_STATE_SOCKET},
	{"Interop+Sys.Read", PROF_STATE_IO},
	{"Interop+Sys.PRead", PROF_STATE_IO},
	{"System.IO.RandomAccess.", PROF_STATE_IO},
	{"System.IO.FileStream.Read", PROF_STATE_IO},
	{"System.ConsolePal.", PROF_STATE_IO},
	{"System.Threading.WaitHandle.", PROF_STATE_WAIT},
	{"System.Threading.WaitSubsystem", PROF_STATE_WAIT},
	{"System.Threading.ManualResetEventSlim.", PROF_STATE_WAIT},
	{"System.Threading.SemaphoreSlim.", PROF_STATE_WAIT},
	{"System.Threading.CountdownEvent.", PROF_STATE_WAIT},
	{"System.Threading.Barrier.", PROF_STATE_WAIT},
	{"System.Threading.LowLevelLifoSemaphore.", PROF_STATE_WAIT},
	{"System.Threading.LowLevelMonitor.", PROF_STATE_WAIT},
	{"System.Threading.LowLevelLock.", PROF_STATE_LOCK},
	{"System.Threading.Tasks.Task.", PROF_STATE_WAIT},
	{"System.Threading.Thread.Join", PROF_STATE_WAIT},
	{"System.Threading.PortableThreadPool+GateThread", PROF_STATE_WAIT},
};
#define STATE_FRAMES 16 /* frames looked at from the leaf outward */

enum prof_state prof_stack_state(struct prof_process *p, uint32_t stack)
{
	if (stack < p->stack_state_cap && p->stack_state[stack])
		return (enum prof_state)(p->stack_state[stack] - 1);
	enum prof_state state = PROF_STATE_OTHER;
	uint32_t s = stack;
	for (int depth = 0; s && s < p->nstacks && depth < STATE_FRAMES && state == PROF_STATE_OTHER;
	     depth++, s = p->stacks[s].parent) {
		const char *name = prof_frame_name(p, p->stacks[s].frame);
		for (size_t i = 0; i < sizeof wait_frames / sizeof *wait_frames; i++) {
			if (!strncmp(name, wait_frames[i].prefix, strlen(wait_frames[i].prefix))) {
				state = wait_frames[i].state;
				break;
			}
		}
	}
	if (stack < p->nstacks && p->stacks[stack].frame) { /* known only once defined */
		size_t cap = p->stack_state_cap;
		if (stack >= cap) {
			xgrow(&p->stack_state, &p->stack_state_cap, (size_t)stack + 1, 1);
			memset(p->stack_state + cap, 0, p->stack_state_cap - cap);
		}
		p->stack_state[stack] = (uint8_t)(state + 1);
	}
	return state;
}

double prof_thread_cpu_percent(const struct prof_thread *t)
{
	if (!t->prev_cpu_us_at || t->cpu_us_at <= t->prev_cpu_us_at || t->cpu_ns < t->prev_cpu_ns)
		return 0;
	return 100.0 * (double)(t->cpu_ns - t->prev_cpu_ns) / 1000.0 / (double)(t->cpu_us_at - t->prev_cpu_us_at);
}

void prof_process_set_time(struct prof_process *p, enum prof_time t)
{
	p->time = t;
	derive_counts(p);
	p->samples = t == PROF_TIME_WALL ? p->wall_samples : p->cpu_samples;
	for (size_t i = 0; i < p->nthreads; i++) {
		struct prof_thread *th = &p->threads[i];
		uint64_t all = 0;
		for (int k = 0; k < PROF_STATES; k++)
			all += th->states[k];
		th->samples = t == PROF_TIME_WALL ? all : th->states[PROF_STATE_RUNNING] + th->cpu_owed;
	}
}

void prof_recording_set_time(struct prof_recording *s, enum prof_time t)
{
	s->time = t;
	for (size_t i = 0; i < s->nprocs; i++)
		prof_process_set_time(s->procs[i], t);
}

#define CPU_PERCENT_WINDOW_US 1000000u

/* A STATUS record: the latest, and the one before it (for recent rates). */
static void note_status(struct prof_process *p, const struct cs_status *st)
{
	if (p->have_status && st->time_us > p->status.time_us)
		p->status_before = p->status;
	p->status = *st;
	p->have_status = true;
}

static uint64_t agent_cost_ns(const struct cs_status *st)
{
	return st->sampler_cpu_ns + st->writer_cpu_ns + st->handler_cpu_ns;
}

double prof_agent_cpu_share(const struct prof_process *p, bool recent)
{
	if (!p->have_status || !agent_cost_ns(&p->status))
		return -1;
	const struct cs_status *now = &p->status, *then = &p->status_before;
	if (!recent)
		return now->time_us ? (double)agent_cost_ns(now) / ((double)now->time_us * 1000.0) : -1;
	if (!then->time_us || !agent_cost_ns(then) || now->time_us <= then->time_us ||
	    agent_cost_ns(now) < agent_cost_ns(then))
		return -1;
	return (double)(agent_cost_ns(now) - agent_cost_ns(then)) / ((double)(now->time_us - then->time_us) * 1000.0);
}

static void fold_thread_cpu(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_list l;
	uint64_t time_us;
	struct cs_thread_cpu e;
	if (!cs_thread_cpu_begin(&l, rec->payload, rec->len, &time_us)) {
		p->bad_records++;
		return;
	}
	while (cs_next_thread_cpu(&l, &e)) {
		if (!thread_ref_ok(p, e.thread_ref)) {
			p->bad_records++;
			return;
		}
		xgrow(&p->threads, &p->nthreads, e.thread_ref + 1, sizeof *p->threads);
		struct prof_thread *th = &p->threads[e.thread_ref];
		if (time_us < th->cpu_us_at)
			continue; /* (an older reading, from a record read late) */
		/* CPU % over about a second: the reading before moves on only
		 * once the latest is a second past it */
		if (!th->prev_cpu_us_at || th->cpu_us_at - th->prev_cpu_us_at >= CPU_PERCENT_WINDOW_US) {
			th->prev_cpu_ns = th->cpu_ns;
			th->prev_cpu_us_at = th->cpu_us_at;
		}
		th->cpu_ns = e.cpu_ns;
		th->cpu_us_at = time_us;
	}
	if (cs_list_bad(&l))
		p->bad_records++;
	fold_note_time(p, time_us);
}

static void fold_code_paths(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_list l;
	struct cs_code_path c;
	cs_list_init(&l, rec->payload, rec->len);
	while (cs_next_code_path(&l, &c)) {
		if (!c.ref || !fold_id_ok(p, c.ref) || !c.path.len || c.path.len > 4096) {
			p->bad_records++;
			return;
		}
		uint32_t idx;
		if (!strmap_get(p->code_path_index, c.path.p, c.path.len, &idx)) {
			idx = (uint32_t)p->ncode_paths;
			xgrow(&p->code_paths, &p->code_paths_cap, p->ncode_paths + 1, sizeof *p->code_paths);
			p->code_paths[p->ncode_paths++] = dup_str(c.path);
			if (!strmap_add(p->code_path_index, c.path.p, c.path.len, idx)) {
				fprintf(stderr, "clrscope: out of memory\n");
				exit(1);
			}
		}
		xgrow(&p->path_refs, &p->path_refs_cap, (size_t)c.ref + 1, sizeof *p->path_refs);
		p->path_refs[c.ref] = idx + 1;
	}
	if (cs_list_bad(&l))
		p->bad_records++;
}

/* The path an agent's path reference stands for (CODE_PATH comes first):
 * its index in code_paths + 1, 0 for none. */
static uint32_t code_path_of(const struct prof_process *p, uint64_t ref)
{
	return ref < p->path_refs_cap ? p->path_refs[ref] : 0;
}

static void fold_frame_code(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_list l;
	struct cs_frame_code c;
	cs_list_init(&l, rec->payload, rec->len);
	while (cs_next_frame_code(&l, &c)) {
		uint32_t code_path = code_path_of(p, c.path_ref);
		if (!fold_id_ok(p, c.frame) || !code_path) {
			p->bad_records++; /* (its CODE_PATH comes first) */
			return;
		}
		struct prof_frame *f = fold_frame(p, c.frame);
		if (!f) {
			p->bad_records++;
			return;
		}
		f->token = c.token;
		f->code_path = code_path;
	}
	if (cs_list_bad(&l))
		p->bad_records++;
}

/* A native function: named here, from its module's file ("[native]" in
 * the module until then). */
static void fold_native_frames(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_list l;
	struct cs_native_frame nf;
	cs_list_init(&l, rec->payload, rec->len);
	while (cs_next_native_frame(&l, &nf)) {
		uint32_t code_path = code_path_of(p, nf.path_ref);
		struct prof_frame *fr = fold_id_ok(p, nf.frame) && code_path ? fold_frame(p, nf.frame) : NULL;
		if (!fr) {
			p->bad_records++; /* (its CODE_PATH comes first) */
			return;
		}
		const char *path = p->code_paths[code_path - 1];
		const char *slash = strrchr(path, '/');
		const char *file = slash ? slash + 1 : path;
		fr->native_run = false;
		enum cs_label kind = cs_module_label(path);
		if (kind != CS_LABELS) {
			fr->function = intern_label(p, cs_label(kind));
			continue;
		}
		if (!p->natsym)
			p->natsym = natsym_new();
		char name[512];
		natsym_name(p->natsym, path, nf.file_address, (const uint8_t *)nf.build_id.p, nf.build_id.len, name,
			    sizeof name);
		fr->function = intern_function(p, (struct cs_str){name, strlen(name)}, (struct cs_str){file, strlen(file)});
	}
	if (cs_list_bad(&l))
		p->bad_records++;
}

static void fold_stack_il(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_list l;
	struct cs_stack_il si;
	cs_list_init(&l, rec->payload, rec->len);
	while (cs_next_stack_il(&l, &si)) {
		if (!fold_id_ok(p, si.stack) || si.stack >= p->nstacks || si.il_offset == UINT32_MAX) {
			p->bad_records++; /* (the agent writes a stack before its IL offset) */
			return;
		}
		p->stacks[si.stack].il_plus1 = si.il_offset + 1;
		p->have_lines = true;
	}
	if (cs_list_bad(&l))
		p->bad_records++;
}

/* A stack's frame: at the root, a run of native code is where the thread
 * started (the runtime's thread start, the host's main): one labelled
 * root for every thread, whatever module the run ended in. */
static uint64_t root_frame(struct prof_process *p, uint64_t parent, uint64_t frame)
{
	if (parent || frame >= p->nframes || !p->frames[frame].native_run)
		return frame;
	struct prof_frame *start = fold_frame(p, CS_FRAME_THREAD_START);
	if (start && start->function == UINT32_MAX)
		start->function = intern_label(p, cs_label(CS_LABEL_THREAD_START));
	return start ? CS_FRAME_THREAD_START : frame;
}

static void fold_stacks(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_list l;
	struct cs_stack_def s;
	cs_list_init(&l, rec->payload, rec->len);
	while (cs_next_stack_def(&l, &s)) {
		if (!fold_id_ok(p, s.id) || !fold_id_ok(p, s.parent) || !fold_id_ok(p, s.frame) || s.parent == s.id ||
		    s.id >= p->nstacks + ID_GAP) {
			p->bad_records++;
			return;
		}
		ensure_stack(p, s.id);
		s.frame = root_frame(p, s.parent, s.frame);
		struct prof_stack *st = &p->stacks[s.id];
		if (st->frame == s.frame && st->parent == s.parent)
			continue; /* restated */
		if (st->frame) {
			p->bad_records++; /* defined twice, differently: keep the first */
			continue;
		}
		st->parent = (uint32_t)s.parent;
		st->frame = (uint32_t)s.frame;
		canonicalise(p, (uint32_t)s.id);
	}
	if (cs_list_bad(&l))
		p->bad_records++;
}

static void count_second(struct prof_process *p, uint64_t time_us, uint64_t n)
{
	uint64_t sec = time_us / 1000000u;
	if (sec >= 1u << 24 || sec > p->nseconds + 86400)
		return; /* half a year, or a day past the latest tick: damage */
	/* (grown by doubling its real capacity: a run of held samples a few
	 * seconds apart adds one second at a time, for days of them when forged) */
	xgrow(&p->per_second, &p->per_second_cap, sec + 1, sizeof *p->per_second);
	if (sec + 1 > p->nseconds)
		p->nseconds = sec + 1;
	p->per_second[sec] += n;
}

int prof_stacks_parse(const char *name, bool *physical)
{
	if (strcmp(name, "logical") == 0 || strcmp(name, "physical") == 0) {
		*physical = name[0] == 'p';
		return 0;
	}
	return -1;
}

/* LOGICAL: a logical stack's physical stack (both defined before). */
static void fold_logical(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_list l;
	struct cs_logical lg;
	cs_list_init(&l, rec->payload, rec->len);
	while (cs_next_logical(&l, &lg)) {
		if (!fold_id_ok(p, lg.stack) || !fold_id_ok(p, lg.physical) || lg.stack >= p->nstacks ||
		    lg.physical >= p->nstacks || !lg.physical || lg.physical == lg.stack) {
			p->bad_records++;
			return;
		}
		p->stacks[lg.stack].physical = (uint32_t)lg.physical;
	}
	if (cs_list_bad(&l))
		p->bad_records++;
}

/* The stack a sample counts in: its physical stack when the filter asks
 * for those and the sample names a logical one. */
static uint64_t counted_stack(const struct prof_process *p, uint64_t stack)
{
	if (p->filter.physical && stack && stack < p->nstacks && p->stacks[stack].physical)
		return p->stacks[stack].physical;
	return stack;
}

/* A sample names a stack the log defined before it (the agent writes
 * definitions first, and again after a drop) and a thread near those seen. */
static bool sample_ids_ok(const struct prof_process *p, uint64_t thread, uint64_t stack)
{
	return fold_id_ok(p, stack) && (stack == 0 || stack < p->nstacks) && thread_ref_ok(p, thread);
}

static void fold_samples(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_list l;
	struct cs_tick t;
	if (rec->type == CS_REC_TICKS)
		cs_list_init_ticks(&l, rec->payload, rec->len);
	else
		cs_list_init(&l, rec->payload, rec->len);
	const struct prof_filter *f = &p->filter;
	uint64_t rate = p->current_rate_hz ? p->current_rate_hz : p->rate_hz ? p->rate_hz : CS_RATE_DEFAULT;
	uint64_t period_ns = 1000000000u / rate;
	while (cs_next_tick(&l, &t)) {
		uint64_t thread, stack, n = 0;
		bool off_cpu;
		bool in_window = t.time_us >= f->from_us && (!f->to_us || t.time_us < f->to_us);
		if (t.time_us > p->last_tick_us)
			p->last_tick_us = t.time_us;
		while (cs_next_sample_state(&l, &thread, &stack, &off_cpu)) {
			if (!sample_ids_ok(p, thread, stack)) {
				p->bad_records++;
				continue;
			}
			if (!in_window ||
			    (f->os_tid && (thread >= p->nthreads || p->threads[thread].os_tid != f->os_tid))) {
				p->filtered_out++;
				continue;
			}
			count_samples(p, thread, counted_stack(p, stack), 1, off_cpu ? 0 : 1, period_ns, t.time_us);
			n++;
		}
		if (!in_window)
			continue;
		if (p->thread_stacks && n) {
			if (!p->window_ticks || t.time_us < p->window_first_us)
				p->window_first_us = t.time_us;
			if (!p->window_ticks || t.time_us > p->window_last_us)
				p->window_last_us = t.time_us;
			p->window_ticks++;
		}
		if (!p->ticks || t.time_us < p->counted_first_us)
			p->counted_first_us = t.time_us;
		if (t.time_us > p->counted_last_us)
			p->counted_last_us = t.time_us;
		p->ticks++;
		count_second(p, t.time_us, n);
		fold_note_time(p, t.time_us);
		prof_suspend_add(&p->suspend, t.suspend_ns);
	}
	if (cs_list_bad(&l))
		p->bad_records++;
}

/* A run of samples of a thread that kept its stack (HOLDS): counted at
 * once, the time window and the per-second histogram by arithmetic, so
 * that a long run costs no more than a short one. */
static void fold_hold(struct prof_process *p, const struct cs_hold *h, uint64_t period_ns)
{
	const struct prof_filter *f = &p->filter;
	if (f->os_tid && (h->thread_ref >= p->nthreads || p->threads[h->thread_ref].os_tid != f->os_tid)) {
		p->filtered_out += h->count;
		return;
	}
	/* the samples i in [first, end) with from <= first_us + i * period < to */
	uint64_t first = 0, end = h->count;
	if (f->from_us > h->first_us)
		first = (f->from_us - h->first_us + h->period_us - 1) / h->period_us;
	if (f->to_us)
		end = f->to_us > h->first_us ? (f->to_us - h->first_us + h->period_us - 1) / h->period_us : 0;
	if (end > h->count)
		end = h->count;
	uint64_t n = end > first ? end - first : 0;
	p->filtered_out += h->count - n;
	if (!n)
		return;
	uint64_t t0 = h->first_us + first * h->period_us, t1 = h->first_us + (end - 1) * h->period_us;
	/* a thread that kept its stack did not run: off the CPU */
	count_samples(p, h->thread_ref, counted_stack(p, h->stack_id), n, 0, period_ns, t1);
	if (p->thread_stacks) {
		if (!p->window_ticks || t0 < p->window_first_us)
			p->window_first_us = t0;
		if (!p->window_ticks || t1 > p->window_last_us)
			p->window_last_us = t1;
	}
	/* the chart by second: up to the latest tick read, and the ticks a run
	 * may hold that are not written yet (at most four periods of the
	 * slowest rate), so that a forged run cannot stretch it for days */
	uint64_t chart_end_us = p->last_tick_us + CS_HOLD_MAX_PERIOD_US + 1000000u;
	for (uint64_t t = t0, left = n; left && t <= chart_end_us;) {
		uint64_t next_second = (t / 1000000u + 1) * 1000000u;
		uint64_t k = (next_second - t + h->period_us - 1) / h->period_us;
		if (k > left)
			k = left;
		count_second(p, t, k);
		t += k * h->period_us;
		left -= k;
	}
	fold_note_time(p, t1);
}

static void fold_holds(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_list l;
	struct cs_hold h;
	cs_list_init(&l, rec->payload, rec->len);
	uint64_t rate = p->current_rate_hz ? p->current_rate_hz : p->rate_hz ? p->rate_hz : CS_RATE_DEFAULT;
	while (cs_next_hold(&l, &h)) {
		if (!sample_ids_ok(p, h.thread_ref, h.stack_id)) {
			p->bad_records++;
			continue;
		}
		fold_hold(p, &h, 1000000000u / rate);
	}
	if (cs_list_bad(&l))
		p->bad_records++;
}

/* CPU_OWED: the thread filter and the time window as for the ticks they
 * come with. */
static void fold_cpu_owed(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_list l;
	struct cs_cpu_owed c;
	cs_list_init(&l, rec->payload, rec->len);
	uint64_t rate = p->current_rate_hz ? p->current_rate_hz : p->rate_hz ? p->rate_hz : CS_RATE_DEFAULT;
	const struct prof_filter *f = &p->filter;
	while (cs_next_cpu_owed(&l, &c)) {
		if (!sample_ids_ok(p, c.thread_ref, c.stack_id)) {
			p->bad_records++;
			continue;
		}
		if (c.time_us < f->from_us || (f->to_us && c.time_us >= f->to_us) ||
		    (f->os_tid && (c.thread_ref >= p->nthreads || p->threads[c.thread_ref].os_tid != f->os_tid)))
			continue; /* (not the agent's samples: not in filtered_out) */
		count_samples(p, c.thread_ref, counted_stack(p, c.stack_id), 0, c.count, 1000000000u / rate, c.time_us);
	}
	if (cs_list_bad(&l))
		p->bad_records++;
}

const char *prof_event_kind_name(uint8_t kind)
{
	static const char *const names[] = {"gc",    "exception", "catch",   "jit",       "module",
					    "thread", "dials",    "message", "contention", "wait", "threadpool", "alloc"};
	return kind < sizeof names / sizeof *names ? names[kind] : "?";
}

/* Adds an event to the log (text: copied when given); returns it to be
 * filled in, or NULL when the log is full. */
static struct prof_event *log_event(struct prof_process *p, uint64_t time_us, uint8_t kind, uint64_t thread,
				    struct cs_str text)
{
	if (p->nlog >= PROF_EVENT_LOG_MAX) {
		p->log_dropped++;
		return NULL;
	}
	xgrow(&p->log, &p->log_cap, p->nlog + 1, sizeof *p->log);
	struct prof_event *e = &p->log[p->nlog++];
	*e = (struct prof_event){.time_us = time_us, .kind = kind, .thread = thread,
				 .text = text.len ? dup_str(text) : NULL};
	return e;
}

static const struct cs_str no_text;

static void fold_dials(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_dials_ack a;
	if (!cs_dials_ack_decode(rec->payload, rec->len, &a)) {
		p->bad_records++;
		return;
	}
	fold_note_time(p, a.time_us);
	if (a.dials.rate_hz >= CS_RATE_MIN && a.dials.rate_hz <= CS_RATE_MAX)
		p->current_rate_hz = a.dials.rate_hz;
	p->dials = xrealloc(p->dials, (p->ndials + 1) * sizeof *p->dials);
	p->dials[p->ndials++] = (struct prof_dials_ack){a.time_us, a.generation, a.status, dup_str(a.effective),
							dup_str(a.error), a.dials};
	struct prof_event *ev = log_event(p, a.time_us, PEV_DIALS, 0, no_text);
	if (ev)
		ev->ref = (uint32_t)(p->ndials - 1);
}

static void fold_gc(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_gc g;
	if (!cs_gc_decode(rec->payload, rec->len, &g)) {
		p->bad_records++;
		return;
	}
	fold_note_time(p, g.start_us + g.duration_us);
	xgrow(&p->gcs, &p->gcs_cap, p->ngcs + 1, sizeof *p->gcs);
	struct prof_gc *pg = &p->gcs[p->ngcs++];
	*pg = (struct prof_gc){g.start_us, g.duration_us, g.pause_us, g.generation, g.reason, {0},
			       g.cause, g.type, g.promoted_bytes, g.pinned_objects};
	memcpy(pg->gen_bytes, g.gen_bytes, sizeof pg->gen_bytes);
	p->events.gcs++;
	struct prof_event *ev = log_event(p, g.start_us, PEV_GC, 0, no_text);
	if (ev)
		ev->ref = (uint32_t)(p->ngcs - 1);
}

const char *prof_gc_reason(const struct prof_gc *g)
{
	return cs_gc_reason_name(g->reason, g->cause);
}

static void note_message(struct prof_exception_type *t, struct cs_str text)
{
	for (size_t i = 0; i < t->nmessages; i++) {
		if (strlen(t->messages[i].text) == text.len && !memcmp(t->messages[i].text, text.p, text.len)) {
			t->messages[i].count++;
			return;
		}
	}
	if (t->nmessages >= PROF_MESSAGES_MAX) {
		t->other_messages++;
		return;
	}
	t->messages = xrealloc(t->messages, (t->nmessages + 1) * sizeof *t->messages);
	t->messages[t->nmessages++] = (struct prof_text_count){dup_str(text), 1};
}

static void tally(struct prof_stack_tallies *c, const struct cs_event *e, uint64_t amount)
{
	c->count++;
	c->total += amount;
	xgrow(&c->site_of_stack, &c->site_of_stack_cap, e->id + 1, sizeof *c->site_of_stack);
	uint32_t site = c->site_of_stack[e->id];
	if (!site) {
		xgrow(&c->sites, &c->sites_cap, c->nsites + 1, sizeof *c->sites);
		c->sites[c->nsites++] = (struct prof_stack_tally){(uint32_t)e->id, 0, 0};
		site = c->site_of_stack[e->id] = (uint32_t)c->nsites;
	}
	c->sites[site - 1].count++;
	c->sites[site - 1].total += amount;
}

static uint32_t exception_type(struct prof_process *p, struct cs_str name)
{
	uint32_t idx;
	if (strmap_get(p->exception_index, name.p, name.len, &idx))
		return idx;
	idx = (uint32_t)p->nexception_types;
	p->exception_types = xrealloc(p->exception_types, (idx + 1) * sizeof *p->exception_types);
	p->exception_types[idx] = (struct prof_exception_type){dup_str(name), 0, 0, {0}, 0};
	p->nexception_types++;
	if (!strmap_add(p->exception_index, name.p, name.len, idx)) {
		fprintf(stderr, "clrscope: out of memory\n");
		exit(1);
	}
	return idx;
}

static void note_alloc_type(struct prof_process *p, struct cs_str name, uint64_t bytes)
{
	uint32_t idx;
	if (!strmap_get(p->alloc_type_index, name.p, name.len, &idx)) {
		idx = (uint32_t)p->nalloc_types;
		p->alloc_types = xrealloc(p->alloc_types, (idx + 1) * sizeof *p->alloc_types);
		p->alloc_types[idx] = (struct prof_type_count){dup_str(name), 0, 0};
		p->nalloc_types++;
		if (!strmap_add(p->alloc_type_index, name.p, name.len, idx)) {
			fprintf(stderr, "clrscope: out of memory\n");
			exit(1);
		}
	}
	p->alloc_types[idx].count++;
	p->alloc_types[idx].bytes += bytes;
}

static void fold_event(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_event e;
	if (!cs_event_decode(rec->type, rec->payload, rec->len, &e) || !fold_id_ok(p, e.thread_ref)) {
		p->bad_records++;
		return;
	}
	fold_note_time(p, e.time_us);
	struct prof_event *ev;
	switch (rec->type) {
	case CS_REC_EXCEPTION: {
		uint32_t t = exception_type(p, e.text);
		p->exception_types[t].thrown++;
		if (e.message.len)
			note_message(&p->exception_types[t], e.message);
		p->events.exceptions++;
		xgrow(&p->thread_last_throw, &p->thread_last_throw_cap, e.thread_ref + 1, sizeof *p->thread_last_throw);
		p->thread_last_throw[e.thread_ref] = t + 1;
		ev = log_event(p, e.time_us, PEV_EXCEPTION, e.thread_ref, e.message);
		if (ev)
			ev->ref = t;
		break;
	}
	case CS_REC_CONTENTION:
	case CS_REC_WAIT:
		if (!fold_id_ok(p, e.id)) {
			p->bad_records++;
			return;
		}
		uint64_t sec = e.time_us / 1000000u;
		if (sec < 1u << 24) { /* else damage: half a year */
			xgrow(&p->waited_per_second, &p->waited_cap, sec + 1, sizeof *p->waited_per_second);
			p->waited_per_second[sec] += e.wait_ns;
		}
		if (rec->type == CS_REC_CONTENTION) {
			p->events.contentions++;
			tally(&p->contention, &e, e.wait_ns);
		} else {
			p->events.waits++;
			tally(&p->waits, &e, e.wait_ns);
		}
		ev = log_event(p, e.time_us, rec->type == CS_REC_CONTENTION ? PEV_CONTENTION : PEV_WAIT, e.thread_ref, no_text);
		if (ev) {
			ev->variant = e.kind;
			ev->value = e.wait_ns;
		}
		break;
	case CS_REC_ALLOC_SAMPLE:
		if (!fold_id_ok(p, e.id)) {
			p->bad_records++;
			return;
		}
		p->events.alloc_samples++;
		tally(&p->alloc_sites, &e, e.weight);
		note_alloc_type(p, e.text, e.weight);
		break;
	case CS_REC_THREADPOOL: {
		struct prof_threadpool *t = &p->pool;
		p->events.threadpool++;
		t->started += e.kind == CS_POOL_WORKER_STARTED;
		t->stopped += e.kind == CS_POOL_WORKER_STOPPED;
		t->adjustments += e.kind == CS_POOL_ADJUSTED;
		t->starvation += e.kind == CS_POOL_ADJUSTED && e.reason == CS_POOL_STARVATION;
		t->workers = e.workers;
		if (e.workers > t->workers_max)
			t->workers_max = e.workers;
		ev = log_event(p, e.time_us, PEV_THREADPOOL, 0, no_text);
		if (ev) {
			ev->variant = e.kind;
			ev->value = e.workers;
			ev->value2 = e.reason;
		}
		break;
	}
	case CS_REC_CATCH:
		p->events.catches++;
		/* a catch belongs to the latest throw on its thread */
		if (e.thread_ref < p->thread_last_throw_cap && p->thread_last_throw[e.thread_ref]) {
			struct prof_exception_type *t = &p->exception_types[p->thread_last_throw[e.thread_ref] - 1];
			t->caught++;
			bool known = false;
			for (uint32_t i = 0; i < t->ncatchers && !known; i++)
				known = t->catchers[i] == e.id;
			if (!known && t->ncatchers < sizeof t->catchers / sizeof *t->catchers && fold_id_ok(p, e.id))
				t->catchers[t->ncatchers++] = (uint32_t)e.id;
			p->thread_last_throw[e.thread_ref] = 0;
		}
		if ((ev = log_event(p, e.time_us, PEV_CATCH, e.thread_ref, no_text)))
			ev->ref = (uint32_t)e.id;
		break;
	case CS_REC_JIT:
		p->events.jits++;
		p->jit_total_us += e.duration_us;
		if ((ev = log_event(p, e.time_us, PEV_JIT, 0, no_text))) {
			ev->ref = (uint32_t)e.id;
			ev->value = e.duration_us;
		}
		break;
	case CS_REC_MODULE:
		if (e.kind == CS_ASSEMBLY)
			p->events.assemblies++;
		else
			p->events.modules++;
		xgrow(&p->modules, &p->modules_cap, p->nmodules + 1, sizeof *p->modules);
		p->modules[p->nmodules++] = (struct prof_module){e.time_us, e.kind, dup_str(e.text)};
		if ((ev = log_event(p, e.time_us, PEV_MODULE, 0, no_text))) {
			ev->variant = e.kind;
			ev->ref = (uint32_t)(p->nmodules - 1);
		}
		break;
	case CS_REC_THREAD_EVENT:
		if (e.kind == CS_THREAD_CREATED)
			p->events.threads_created++;
		else if (e.kind == CS_THREAD_DESTROYED)
			p->events.threads_destroyed++;
		if ((ev = log_event(p, e.time_us, PEV_THREAD, e.thread_ref, e.kind == CS_THREAD_NAMED ? e.text : no_text))) {
			ev->variant = e.kind;
			ev->value = e.os_tid;
		}
		break;
	}
}

/* What a thread is called: the name the program gave it, else "main" for
 * the process's first thread, else the kernel's (the runtime names its own
 * threads there: ".NET Finalizer", ".NET TP Worker").  A thread the
 * program started without a name has its creator's comm: the main
 * thread's, the program's name. */
static void name_thread(struct prof_process *p, struct prof_thread *th)
{
	const char *name = th->managed_name && th->managed_name[0] ? th->managed_name
			   : p->have_hello && th->os_tid == p->pid ? "main"
			   : th->os_name && th->os_name[0]        ? th->os_name
								  : NULL;
	if (name && th->name && !strcmp(name, th->name))
		return;
	free(th->name);
	th->name = name ? xstrdup(name) : NULL;
}

static void fold(struct prof_process *p, const struct cs_record *rec)
{
	switch (rec->type) {
	case CS_REC_HELLO: {
		struct cs_hello h;
		if (!cs_hello_decode(rec->payload, rec->len, &h)) {
			p->bad_records++;
			return;
		}
		free(p->agent_version);
		free(p->runtime_version);
		free(p->command_line);
		p->have_hello = true;
		p->pid = h.pid;
		p->ppid = h.ppid;
		p->start_unix_ns = h.start_unix_ns;
		p->load_mode = h.load_mode;
		p->rate_hz = h.rate_hz;
		p->current_rate_hz = h.rate_hz;
		p->agent_version = dup_str(h.agent_version);
		p->runtime_version = dup_str(h.runtime_version);
		p->command_line = dup_str(h.command_line);
		free(p->control);
		p->control = dup_str(h.control);
		p->hello_events = h.events;
		p->features = h.features;
		free(p->patterns);
		p->patterns = dup_str(h.patterns);
		return;
	}
	case CS_REC_THREAD: {
		struct cs_thread t;
		if (!cs_thread_decode(rec->payload, rec->len, &t) || !thread_ref_ok(p, t.ref)) {
			p->bad_records++;
			return;
		}
		xgrow(&p->threads, &p->nthreads, t.ref + 1, sizeof *p->threads);
		struct prof_thread *th = &p->threads[t.ref];
		th->runtime_id = t.runtime_id;
		th->os_tid = t.os_tid;
		if (t.name.len) {
			free(th->managed_name);
			th->managed_name = dup_str(t.name);
		}
		if (t.os_name.len) {
			free(th->os_name);
			th->os_name = dup_str(t.os_name);
		}
		name_thread(p, th);
		return;
	}
	case CS_REC_FRAMES:
		fold_frames(p, rec);
		return;
	case CS_REC_STACKS:
		fold_stacks(p, rec);
		return;
	case CS_REC_CODE_PATH:
		fold_code_paths(p, rec);
		return;
	case CS_REC_NATIVE_FRAME:
		fold_native_frames(p, rec);
		return;
	case CS_REC_FRAME_CODE:
		fold_frame_code(p, rec);
		return;
	case CS_REC_STACK_IL:
		fold_stack_il(p, rec);
		return;
	case CS_REC_SAMPLES:
	case CS_REC_TICKS:
		fold_samples(p, rec);
		return;
	case CS_REC_THREAD_CPU:
		fold_thread_cpu(p, rec);
		return;
	case CS_REC_HOLDS:
		fold_holds(p, rec);
		return;
	case CS_REC_CPU_OWED:
		fold_cpu_owed(p, rec);
		return;
	case CS_REC_LOGICAL:
		fold_logical(p, rec);
		return;
	case CS_REC_STATUS: {
		struct cs_status st;
		if (!cs_status_decode(rec->payload, rec->len, &st)) {
			p->bad_records++;
			return;
		}
		note_status(p, &st);
		fold_note_time(p, p->status.time_us);
		return;
	}
	case CS_REC_MESSAGE:
	case CS_REC_END: {
		struct cs_message m;
		if (!cs_message_decode(rec->payload, rec->len, &m)) {
			p->bad_records++;
			return;
		}
		fold_note_time(p, m.time_us);
		if (rec->type == CS_REC_END) {
			p->ended = true;
			p->end_reason = m.level;
			free(p->end_text);
			p->end_text = dup_str(m.text);
			return;
		}
		p->messages = xrealloc(p->messages, (p->nmessages + 1) * sizeof *p->messages);
		p->messages[p->nmessages++] = (struct prof_message){m.time_us, m.level, dup_str(m.text)};
		log_event(p, m.time_us, PEV_MESSAGE, 0, m.text);
		return;
	}
	case CS_REC_DIALS:
		fold_dials(p, rec);
		return;
	case CS_REC_GC:
		fold_gc(p, rec);
		return;
	case CS_REC_EXCEPTION:
	case CS_REC_CATCH:
	case CS_REC_JIT:
	case CS_REC_MODULE:
	case CS_REC_THREAD_EVENT:
	case CS_REC_CONTENTION:
	case CS_REC_WAIT:
	case CS_REC_THREADPOOL:
	case CS_REC_ALLOC_SAMPLE:
		fold_event(p, rec);
		return;
	case CS_REC_CALLS:
		fold_calls(p, rec);
		return;
	case CS_REC_HEAP:
		fold_heap(p, rec);
		return;
	case CS_REC_HEAP_NODES:
	case CS_REC_HEAP_EDGES:
	case CS_REC_HEAP_ROOTS:
	case CS_REC_HEAP_STATICS:
	case CS_REC_HEAP_METHODS:
	case CS_REC_HEAP_TYPES:
	case CS_REC_HEAP_GRAPH:
		fold_heap_graph(p, rec);
		return;
	case CS_REC_ALLOCS:
		fold_allocs(p, rec);
		return;
	case CS_REC_AWAITS:
		fold_awaits(p, rec);
		return;
	default:
		return; /* a newer agent's record: not ours to read */
	}
}

/* The status file holds the agent's latest STATUS even when the disk was
 * too full for the log to take it. */
static void read_status_file(struct prof_process *p)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/status", p->dir);
	char why[160];
	int fd = cs_open_file_at(AT_FDCWD, path, O_RDONLY, 0, why, sizeof why); /* a FIFO would block */
	if (fd < 0)
		return;
	uint8_t buf[512];
	ssize_t n = read(fd, buf, sizeof buf);
	close(fd);
	struct cs_record rec;
	size_t used;
	struct cs_status st;
	if (n > 0 && cs_scan_record(buf, (size_t)n, &rec, &used) == CS_SCAN_RECORD && rec.type == CS_REC_STATUS &&
	    cs_status_decode(rec.payload, rec.len, &st) && (!p->have_status || st.time_us > p->status.time_us))
		note_status(p, &st);
}

void prof_recording_update(struct prof_recording *s, bool final)
{
	discover_processes(s);
	for (size_t i = 0; i < s->nprocs; i++) {
		struct prof_process *p = s->procs[i];
		p->filter = s->filter;
		if (!p->reader.records) /* (nothing folded yet: counts follow the session's time) */
			p->time = s->time;
		if (s->by_thread && !p->thread_stacks) {
			p->thread_stacks = xmalloc(sizeof *p->thread_stacks);
			u64map_init(p->thread_stacks, PROF_VALUES);
		}
		if (!p->reader_open)
			continue;
		struct cs_record rec;
		int r;
		while ((r = cs_reader_next(&p->reader, &rec, final)) == 1)
			fold(p, &rec);
		if (r < 0) {
			snprintf(p->error, sizeof p->error, "%s", p->reader.error);
			cs_reader_close(&p->reader);
			p->reader_open = false;
		}
		read_status_file(p);
		if (p->counts_stale)
			derive_counts(p);
	}
}

void prof_thread_stacks_clear(struct prof_recording *s)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		struct prof_process *p = s->procs[i];
		if (p->thread_stacks)
			u64map_clear(p->thread_stacks);
		p->window_first_us = p->window_last_us = p->window_ticks = 0;
	}
}

/* ---- derived figures ---- */

size_t prof_stack_path(const struct prof_process *p, uint32_t stack, uint32_t *frames, size_t cap)
{
	size_t depth = 0;
	for (uint32_t s = stack; s && s < p->nstacks && depth < PATH_LIMIT; s = p->stacks[s].parent)
		depth++;
	if (depth > cap)
		depth = cap;
	size_t i = depth;
	for (uint32_t s = stack; s && s < p->nstacks && i > 0; s = p->stacks[s].parent)
		frames[--i] = p->stacks[s].frame;
	return depth;
}

size_t prof_stack_path_at(const struct prof_process *p, uint32_t stack, uint32_t *frames, uint32_t *ils,
			  size_t cap)
{
	size_t depth = prof_stack_path(p, stack, frames, cap);
	size_t i = depth;
	for (uint32_t s = stack; s && s < p->nstacks && i > 0; s = p->stacks[s].parent)
		ils[--i] = p->stacks[s].il_plus1;
	return depth;
}

size_t prof_stack_functions(const struct prof_process *p, uint32_t stack, uint32_t *functions, size_t cap)
{
	size_t depth = prof_stack_path(p, stack, functions, cap);
	for (size_t i = 0; i < depth; i++)
		functions[i] = functions[i] < p->nframes ? p->frames[functions[i]].function : UINT32_MAX;
	return depth;
}

const char *prof_frame_name(const struct prof_process *p, uint32_t frame)
{
	if (frame < p->nframes && p->frames[frame].function != UINT32_MAX)
		return p->functions[p->frames[frame].function].name;
	return cs_label(CS_LABEL_UNKNOWN);
}

void prof_each_stack(const struct prof_process *p, prof_stack_visit visit, void *ctx)
{
	prof_each_stack_in(p, -1, visit, ctx);
}

void prof_each_stack_in(const struct prof_process *p, int time, prof_stack_visit visit, void *ctx)
{
	uint32_t *path = xmalloc(PATH_LIMIT * sizeof *path);
	for (uint32_t s = 1; s < p->nstacks; s++) {
		const struct prof_stack *st = &p->stacks[s];
		uint64_t c = time < 0 ? st->count : time == PROF_TIME_WALL ? st->wall : st->cpu;
		if (c)
			visit(ctx, path, prof_stack_functions(p, s, path, PATH_LIMIT), c);
	}
	free(path);
}

struct compute {
	struct prof_process *p;
	uint64_t *seen; /* per function: the last stack that counted it */
	uint64_t stack;
	int time; /* -1: the time shown */
};

static void count_stack(void *ctx, const uint32_t *functions, size_t depth, uint64_t c)
{
	struct compute *k = ctx;
	k->stack++;
	for (size_t i = 0; i < depth; i++) {
		uint32_t fn = functions[i];
		if (fn == UINT32_MAX)
			continue;
		struct prof_function *f = &k->p->functions[fn];
		uint64_t *self = k->time < 0 ? &f->self : k->time == PROF_TIME_WALL ? &f->self_wall : &f->self_cpu;
		uint64_t *total = k->time < 0 ? &f->total : k->time == PROF_TIME_WALL ? &f->total_wall : &f->total_cpu;
		if (k->seen[fn] != k->stack) { /* recursion counts once toward total */
			k->seen[fn] = k->stack;
			*total += c;
		}
		if (i == depth - 1)
			*self += c;
	}
}

void prof_compute(struct prof_process *p)
{
	for (size_t i = 0; i < p->nfunctions; i++) {
		struct prof_function *f = &p->functions[i];
		f->self = f->total = 0;
		f->self_cpu = f->total_cpu = f->self_wall = f->total_wall = 0;
		f->hooked = false;
		f->calls = f->inclusive_ns = f->exclusive_ns = 0;
	}
	struct compute k = {p, xcalloc(p->nfunctions ? p->nfunctions : 1, sizeof *k.seen), 0, -1};
	prof_each_stack(p, count_stack, &k);
	/* both times too, for the JSON report (a merged process has only the one shown) */
	for (int t = PROF_TIME_CPU; t <= PROF_TIME_WALL; t++) {
		k.time = t;
		prof_each_stack_in(p, t, count_stack, &k);
	}
	free(k.seen);
	/* each frame id's newest totals, summed over the frame ids (generic
	 * instantiations) of each function */
	for (size_t i = 0; i < p->nframes; i++) {
		const struct prof_frame *fr = &p->frames[i];
		if (!fr->calls_record || fr->function == UINT32_MAX)
			continue;
		struct prof_function *f = &p->functions[fr->function];
		f->hooked = true;
		f->calls += fr->calls;
		f->inclusive_ns += fr->inclusive_ns;
		f->exclusive_ns += fr->exclusive_ns;
	}
}

#define SUSPEND_BUCKETS (PROF_SUSPEND_FINE + PROF_SUSPEND_COARSE + 1)

static size_t suspend_bucket(uint64_t ns)
{
	if (ns < 1000000u)
		return (size_t)(ns / 100u);
	if (ns < 100000000u)
		return PROF_SUSPEND_FINE + (size_t)((ns - 1000000u) / 10000u);
	return SUSPEND_BUCKETS - 1;
}

/* The middle of a bucket, in ns (the last one has no end: its start; the
 * first stands for the ticks that suspended nothing). */
static double suspend_bucket_ns(size_t b)
{
	if (b == 0)
		return 0;
	if (b < PROF_SUSPEND_FINE)
		return (double)b * 100.0 + 50.0;
	if (b < SUSPEND_BUCKETS - 1)
		return 1e6 + (double)(b - PROF_SUSPEND_FINE) * 1e4 + 5e3;
	return 1e8;
}

void prof_suspend_add(struct prof_suspend *s, uint64_t ns)
{
	if (!s->buckets)
		s->buckets = xcalloc(SUSPEND_BUCKETS, sizeof *s->buckets);
	s->buckets[suspend_bucket(ns)]++;
	s->count++;
	s->recent[s->recent_at++ % PROF_SUSPEND_RECENT] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

void prof_suspend_merge(struct prof_suspend *dst, const struct prof_suspend *src)
{
	if (!src->count)
		return;
	if (!dst->buckets)
		dst->buckets = xcalloc(SUSPEND_BUCKETS, sizeof *dst->buckets);
	for (size_t i = 0; i < SUSPEND_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	size_t n = src->recent_at < PROF_SUSPEND_RECENT ? src->recent_at : PROF_SUSPEND_RECENT;
	for (size_t i = 0; i < n; i++)
		dst->recent[dst->recent_at++ % PROF_SUSPEND_RECENT] = src->recent[i];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

double prof_suspend_median_us(const struct prof_process *p)
{
	const struct prof_suspend *s = &p->suspend;
	if (!s->count)
		return 0;
	/* the lower median, as a sorted list's element (count - 1) / 2 */
	uint64_t want = (s->count - 1) / 2, seen = 0;
	for (size_t b = 0; b < SUSPEND_BUCKETS; b++) {
		seen += s->buckets[b];
		if (seen > want)
			return suspend_bucket_ns(b) / 1000.0;
	}
	return 0;
}

double prof_achieved_hz(const struct prof_process *p, bool recent)
{
	if (!recent)
		return p->ticks >= 2 && p->counted_last_us > p->counted_first_us
			       ? (double)(p->ticks - 1) * 1e6 / (double)(p->counted_last_us - p->counted_first_us)
			       : -1;
	const struct cs_status *now = &p->status, *then = &p->status_before;
	if (!p->have_status || !then->time_us || now->time_us <= then->time_us || now->ticks < then->ticks)
		return -1;
	return (double)(now->ticks - then->ticks) * 1e6 / (double)(now->time_us - then->time_us);
}

double prof_suspend_recent_us(const struct prof_process *p)
{
	const struct prof_suspend *s = &p->suspend;
	size_t n = s->recent_at < PROF_SUSPEND_RECENT ? s->recent_at : PROF_SUSPEND_RECENT;
	if (!n)
		return 0;
	uint32_t v[PROF_SUSPEND_RECENT];
	memcpy(v, s->recent, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_u32);
	return v[n / 2] / 1000.0;
}

bool prof_process_log_mtime(const struct prof_process *p, struct timespec *out)
{
	if (!p->reader_open || p->reader.fd < 0)
		return false;
	struct stat st;
	if (fstat(p->reader.fd, &st) != 0)
		return false;
	*out = st.st_mtim;
	return true;
}
