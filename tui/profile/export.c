#include "profile/export.h"
#include "profile/export_events.h"
#include "profile/export_awaits.h"
#include "profile/export_heap.h"
#include "profile/export_memory.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/dials.h"
#include "profile/lines.h"
#include "profile/natsym.h"
#include "util/json.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define TEXT_TOP_DEFAULT 30
#define TEXT_LINES_PER_METHOD 12
#define TEXT_LINE_METHODS 10
#define PATH_MAX_FRAMES 4096

int export_format_parse(const char *name, enum export_format *out)
{
	static const struct {
		const char *name;
		enum export_format format;
	} formats[] = {{"text", EXPORT_TEXT}, {"collapsed", EXPORT_COLLAPSED}, {"json", EXPORT_JSON},
		{"speedscope", EXPORT_SPEEDSCOPE}};
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
		if (strcmp(name, formats[i].name) == 0) {
			*out = formats[i].format;
			return 0;
		}
	}
	return -1;
}

static const char *load_mode_name(uint8_t mode)
{
	return mode == CS_LOAD_ATTACH ? "attach" : mode == CS_LOAD_STARTUP ? "startup" : "unknown";
}

static const char *end_reason_name(uint8_t reason)
{
	switch (reason) {
	case CS_END_SHUTDOWN: return "runtime shutdown";
	case CS_END_DETACH: return "detached";
	case CS_END_FATAL: return "agent error";
	case CS_END_SIZE_CAP: return "size cap reached";
	default: return "ended";
	}
}

static double duration_ms(const struct prof_process *p)
{
	return (double)p->last_time_us / 1000.0;
}

/* Threads with any sample, running or waiting. */
static size_t thread_count(const struct prof_process *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nthreads; i++) {
		uint64_t all = 0;
		for (int k = 0; k < PROF_STATES; k++)
			all += p->threads[i].states[k];
		n += all > 0 || p->threads[i].samples > 0;
	}
	return n;
}

static int cmp_functions(const void *a, const void *b, void *ctx)
{
	const struct prof_function *fns = ctx;
	const struct prof_function *x = &fns[*(const uint32_t *)a], *y = &fns[*(const uint32_t *)b];
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_functions_total(const void *a, const void *b, void *ctx)
{
	const struct prof_function *fns = ctx;
	const struct prof_function *x = &fns[*(const uint32_t *)a], *y = &fns[*(const uint32_t *)b];
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return cmp_functions(a, b, ctx);
}

/* Functions with samples of the time shown (any_time: of either time) or
 * with instrumentation, most self time first.  JSON lists a function that
 * only waited beside the others, as its wall columns say something. */
static size_t sorted_functions(const struct prof_process *p, bool any_time, uint32_t **out)
{
	uint32_t *idx = xmalloc((p->nfunctions ? p->nfunctions : 1) * sizeof *idx);
	size_t n = 0;
	for (size_t i = 0; i < p->nfunctions; i++) {
		const struct prof_function *fn = &p->functions[i];
		if (fn->total || fn->hooked || (any_time && (fn->total_cpu || fn->total_wall)))
			idx[n++] = (uint32_t)i;
	}
	qsort_r(idx, n, sizeof *idx, cmp_functions, p->functions);
	*out = idx;
	return n;
}

static bool selected(const struct prof_process *p, const struct export_options *o)
{
	return !o->pid || (p->have_hello && p->pid == o->pid);
}

/* What the profiler cost the program, when its STATUS records say. */
static void describe_cost(FILE *f, const struct prof_process *p)
{
	double share = prof_agent_cpu_share(p, false);
	if (share < 0)
		return;
	const struct cs_status *st = &p->status;
	fprintf(f,
		"  cost: %.1f%% of one CPU over the run: the sampler thread %.0f ms of CPU, the log writer %.0f ms, the "
		"signal handler in the program's threads %.0f ms\n",
		100.0 * share, (double)st->sampler_cpu_ns / 1e6, (double)st->writer_cpu_ns / 1e6,
		(double)st->handler_cpu_ns / 1e6);
	/* its tasks, timed as they ran; the rest of its CPU time is mostly its
	 * own sleeps and wake-ups, one per tick */
	uint64_t parts = st->unwind_ns + st->survey_ns + st->signal_ns + st->record_ns + st->suspend_total_ns;
	if (parts)
		fprintf(f,
			"  the sampler's time: unwinding %.0f ms, reading the threads' clocks %.0f ms, signalling %.0f ms, "
			"naming and logging %.0f ms, the runtime suspended %.0f ms; waking up and the rest %.0f ms\n",
			(double)st->unwind_ns / 1e6, (double)st->survey_ns / 1e6, (double)st->signal_ns / 1e6,
			(double)st->record_ns / 1e6, (double)st->suspend_total_ns / 1e6,
			st->sampler_cpu_ns > parts ? (double)(st->sampler_cpu_ns - parts) / 1e6 : 0.0);
	/* the part the agent cannot time: a thread woken for its capture pays
	 * the kernel's switches in and out (bench/sigcost measures it) */
	if (st->signals)
		fprintf(f,
			"  signals: %" PRIu64 " to threads that ran, %" PRIu64 " (%.0f%%) of them found their thread "
			"waiting and woke it (what waking costs a thread is the kernel's, not counted above)\n",
			st->signals, st->signals_waiting, 100.0 * (double)st->signals_waiting / (double)st->signals);
	if (st->kernel_samples || st->kernel_lost)
		fprintf(f,
			"  kernel samples: %" PRIu64 " of running threads, taken by the kernel (no signal); %" PRIu64
			" lost (a full ring)\n",
			st->kernel_samples, st->kernel_lost);
	if (st->beyond_copy)
		fprintf(f,
			"  beyond the copy: %" PRIu64 " captures whose stacks went on past what was copied (a kernel "
			"sample's 32 KiB, a signal's 64 KiB): walked exactly instead, or truncated where that could "
			"not be\n",
			st->beyond_copy);
	if (st->async_resolved || st->async_unresolved)
		fprintf(f,
			"  async stacks: %" PRIu64 " samples in resumed async methods given the methods awaiting them, "
			"%" PRIu64 " not ([await ?]); %.1f ms of the sampler's time\n",
			st->async_resolved, st->async_unresolved, (double)st->async_ns / 1e6);
	/* ... which the threads found waiting as the sampler looked were spared */
	if (st->waiting_read)
		fprintf(f,
			"  read in place: %" PRIu64 " samples of threads that ran and were waiting again as the sampler "
			"looked, their stacks read where they waited (no signal)\n",
			st->waiting_read);
}

static void describe_log(FILE *f, const struct prof_process *p)
{
	const struct cs_reader *r = &p->reader;
	fprintf(f, "  log: %" PRIu64 " records in %u segment%s", r->records, r->segments, r->segments == 1 ? "" : "s");
	if (r->torn_bytes)
		fprintf(f, "; torn tail of %" PRIu64 " bytes (the agent stopped mid-record)", r->torn_bytes);
	if (r->skipped_bytes)
		fprintf(f, "; %" PRIu64 " damaged bytes skipped", r->skipped_bytes);
	if (r->refused_segments)
		fprintf(f, "; %u segment names skipped (%s)", r->refused_segments, r->note);
	if (r->bad_headers)
		fprintf(f, "; %u damaged segment header%s", r->bad_headers, r->bad_headers == 1 ? "" : "s");
	if (p->bad_records)
		fprintf(f, "; %" PRIu64 " undecodable records", p->bad_records);
	/* a log that ended holds every sample its last STATUS counts */
	uint64_t read = p->wall_samples + p->filtered_out;
	if (p->ended && p->have_status && p->status.samples > read)
		fprintf(f, "; %" PRIu64 " of the agent's %" PRIu64 " samples missing (dropped or damaged records)",
			p->status.samples - read, p->status.samples);
	fputc('\n', f);
	if (p->error[0])
		fprintf(f, "  error: %s\n", p->error);
}

static const char *dials_status_name(uint8_t status)
{
	switch (status) {
	case CS_DIALS_APPLIED: return "applied";
	case CS_DIALS_REJECTED: return "rejected";
	case CS_DIALS_PARTIAL: return "partly applied";
	default: return "unknown";
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void write_text_events(FILE *f, const struct prof_process *p)
{
	const struct prof_event_counts *e = &p->events;
	fprintf(f, "  events: %" PRIu64 " GCs, %" PRIu64 " exceptions (%" PRIu64 " caught), %" PRIu64
		   " methods compiled (%.1f ms), %" PRIu64 " modules, %" PRIu64 " assemblies, %" PRIu64
		   " threads started, %" PRIu64 " ended\n",
		e->gcs, e->exceptions, e->catches, e->jits, (double)p->jit_total_us / 1000.0, e->modules, e->assemblies,
		e->threads_created, e->threads_destroyed);
	if (p->ngcs) {
		uint64_t per_gen[3] = {0}, induced = 0;
		uint64_t *pauses = xmalloc(p->ngcs * sizeof *pauses);
		for (size_t i = 0; i < p->ngcs; i++) {
			per_gen[p->gcs[i].generation < 3 ? p->gcs[i].generation : 2]++;
			induced += p->gcs[i].reason == CS_GC_INDUCED;
			pauses[i] = p->gcs[i].pause_us;
		}
		qsort(pauses, p->ngcs, sizeof *pauses, cmp_u64);
		const struct prof_gc *last = &p->gcs[p->ngcs - 1];
		fprintf(f, "  gc: gen0 %" PRIu64 ", gen1 %" PRIu64 ", gen2 %" PRIu64 " (%" PRIu64
			   " induced); pause median %.2f ms, max %.2f ms; heap after the last: %.1f MiB\n",
			per_gen[0], per_gen[1], per_gen[2], induced, (double)pauses[p->ngcs / 2] / 1000.0,
			(double)pauses[p->ngcs - 1] / 1000.0,
			(double)(last->gen_bytes[0] + last->gen_bytes[1] + last->gen_bytes[2] + last->gen_bytes[3] +
				 last->gen_bytes[4]) / 1048576.0);
		free(pauses);
	}
	for (size_t i = 0; i < p->nexception_types; i++) {
		const struct prof_exception_type *t = &p->exception_types[i];
		fprintf(f, "  exception %s: %" PRIu64 " thrown, %" PRIu64 " caught", t->name, t->thrown, t->caught);
		for (uint32_t k = 0; k < t->ncatchers; k++)
			fprintf(f, "%s%s", k ? ", " : " in ", prof_frame_name(p, t->catchers[k]));
		fputc('\n', f);
	}
	for (size_t i = 0; i < p->ndials; i++) {
		const struct prof_dials_ack *d = &p->dials[i];
		fprintf(f, "  dials at %.2f s: generation %" PRIu64 " %s: %s%s%s\n", (double)d->time_us / 1e6, d->generation,
			dials_status_name(d->status), d->effective, d->error[0] ? "; " : "", d->error);
	}
}

struct text_notes {
	FILE *f;
	size_t framework; /* the runtime's own assemblies (shipped without PDBs) */
};

static void text_note(void *ctx, const char *assembly, const char *why)
{
	struct text_notes *tn = ctx;
	if (strstr(assembly, "/shared/Microsoft.")) {
		tn->framework++;
		return;
	}
	const char *slash = strrchr(assembly, '/');
	fprintf(tn->f, "  lines: none in %s, its methods stay whole: %s\n", slash ? slash + 1 : assembly, why);
}

/* Why a report asked for lines has none, if it has none at all. */
static const char *no_lines_reason(const struct prof_process *p)
{
	if (!p->have_lines)
		return "the log holds no IL offsets (an older agent wrote it, or no sample was in managed code)";
	return NULL;
}

static int cmp_row_line(const void *a, const void *b)
{
	const struct prof_line_row *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The hottest lines overall, then the lines of the methods at the top of
 * the table (by total), in line order: where in each the time went. */
static void write_text_lines(FILE *f, struct prof_process *p, const uint32_t *idx, size_t nfunctions, size_t top)
{
	fputc('\n', f);
	const char *none = no_lines_reason(p);
	if (none) {
		fprintf(f, "  lines: %s\n", none);
		return;
	}
	struct prof_lines L;
	prof_lines_init(&L, p);
	struct prof_line_row *rows;
	size_t n = prof_lines_rows(&L, &rows);
	double all = p->samples ? (double)p->samples : 1.0;
	fprintf(f, "   self%%  total%%     self    total  line\n");
	for (size_t i = 0; i < n && i < top && rows[i].self; i++)
		fprintf(f, "  %5.1f%%  %5.1f%%  %7" PRIu64 "  %7" PRIu64 "  %s:%u  %s\n", 100.0 * (double)rows[i].self / all,
			100.0 * (double)rows[i].total / all, rows[i].self, rows[i].total, prof_lines_file_base(&L, rows[i].file),
			rows[i].line, p->functions[rows[i].function].name);
	/* per method, by line */
	struct prof_line_row *mine = xmalloc((n ? n : 1) * sizeof *mine);
	size_t shown = 0;
	for (size_t k = 0; k < nfunctions && shown < TEXT_LINE_METHODS; k++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (rows[i].function == idx[k])
				mine[m++] = rows[i];
		if (!m)
			continue;
		shown++;
		qsort(mine, m, sizeof *mine, cmp_row_line);
		const struct prof_function *fn = &p->functions[idx[k]];
		fprintf(f, "\n  %s  (%s)\n", fn->name, L.files[mine[0].file]);
		/* the busiest lines, still in line order */
		uint64_t floor = 0;
		if (m > TEXT_LINES_PER_METHOD) {
			uint64_t *t = xmalloc(m * sizeof *t);
			for (size_t i = 0; i < m; i++)
				t[i] = mine[i].total;
			for (size_t a = 0; a < TEXT_LINES_PER_METHOD; a++) /* the 12th largest, by selection */
				for (size_t b = a + 1; b < m; b++)
					if (t[b] > t[a]) {
						uint64_t x = t[a];
						t[a] = t[b];
						t[b] = x;
					}
			floor = t[TEXT_LINES_PER_METHOD - 1];
			free(t);
		}
		for (size_t i = 0, listed = 0; i < m && listed < TEXT_LINES_PER_METHOD; i++) {
			if (mine[i].total < floor)
				continue;
			listed++;
			fprintf(f, "  %5.1f%%  %5.1f%%  %7" PRIu64 "  %7" PRIu64 "  %s:%u\n", 100.0 * (double)mine[i].self / all,
				100.0 * (double)mine[i].total / all, mine[i].self, mine[i].total,
				prof_lines_file_base(&L, mine[i].file), mine[i].line);
		}
	}
	free(mine);
	struct text_notes tn = {f, 0};
	prof_lines_notes(&L, text_note, &tn);
	if (tn.framework)
		fprintf(f, "  lines: none in %zu framework assembl%s (the runtime ships them without PDBs)\n", tn.framework,
			tn.framework == 1 ? "y" : "ies");
	free(rows);
	prof_lines_free(&L);
}

static int cmp_threads(const void *a, const void *b, void *ctx)
{
	const struct prof_thread *ts = ctx, *x = &ts[*(const uint32_t *)a], *y = &ts[*(const uint32_t *)b];
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->os_tid < y->os_tid ? -1 : x->os_tid > y->os_tid;
}

/* The threads with samples of the time shown, most first, by name. */
static void write_text_threads(FILE *f, const struct prof_process *p, size_t top)
{
	uint32_t *idx = xmalloc((p->nthreads ? p->nthreads : 1) * sizeof *idx);
	size_t n = 0;
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].samples)
			idx[n++] = (uint32_t)i;
	qsort_r(idx, n, sizeof *idx, cmp_threads, p->threads);
	if (n)
		fprintf(f, "\n   samples  thread\n");
	for (size_t i = 0; i < n && i < top; i++) {
		const struct prof_thread *t = &p->threads[idx[i]];
		fprintf(f, "  %8" PRIu64 "  %s (%u)\n", t->samples, t->name ? t->name : "(no name)", t->os_tid);
	}
	if (n > top)
		fprintf(f, "  and %zu threads more\n", n - top);
	free(idx);
}

/* The process's first line: who it is, or that it never said. */
static void write_text_process(FILE *f, const struct prof_process *p)
{
	if (p->have_hello)
		fprintf(f, "process %" PRIu32 " (parent %" PRIu32 "): %s\n", p->pid, p->ppid, p->command_line);
	else
		fprintf(f, "process directory %s: no hello record (the agent never started writing)\n", p->dir);
}

/* report --heap, --retention and --awaits: the process's line, then that
 * part alone. */
static void write_text_part(FILE *f, struct prof_process *p, const struct export_options *o)
{
	write_text_process(f, p);
	size_t top = o->top ? o->top : TEXT_TOP_DEFAULT;
	if (o->awaits)
		export_text_awaits(f, p, top);
	else if (o->retention)
		export_text_retention(f, p, o->retention, top);
	else
		export_text_heap(f, p, top);
	fputc('\n', f);
}

static void write_text(FILE *f, struct prof_process *p, const struct export_options *o)
{
	if (o->heap || o->retention || o->awaits) {
		write_text_part(f, p, o);
		return;
	}
	write_text_process(f, p);
	if (p->have_hello) {
		char achieved[48] = "";
		double hz = prof_achieved_hz(p, false);
		if (hz >= 0)
			snprintf(achieved, sizeof achieved, ", %.0f achieved", hz);
		fprintf(f, "  runtime %s, agent %s, loaded at %s, %" PRIu32 " Hz requested%s\n", p->runtime_version,
			p->agent_version, load_mode_name(p->load_mode), p->rate_hz, achieved);
	}
	double secs = duration_ms(p) / 1000.0;
	fprintf(f, "  %" PRIu64 " samples in %.1f s from %zu thread%s; runtime suspended %.1f us per sample (median)\n",
		p->wall_samples, secs, thread_count(p), thread_count(p) == 1 ? "" : "s", prof_suspend_median_us(p));
	fprintf(f, "  time: %s: %" PRIu64 " samples %s (%" PRIu64 " on a CPU, %" PRIu64 " waiting)\n",
		prof_time_name(p->time), p->samples,
		p->time == PROF_TIME_CPU ? "of threads running on a CPU; --time wall counts waiting threads too"
					 : "of every thread, running or waiting; --time cpu counts running threads only",
		p->cpu_samples - p->cpu_owed, p->wall_samples - (p->cpu_samples - p->cpu_owed));
	if (p->cpu_owed)
		fprintf(f, "  CPU time: %.0f%% of the on-CPU samples (%" PRIu64 ") are weighted in from the threads' CPU "
			   "clocks: time a thread ran between ticks, which no tick saw, counted in the stack a tick last "
			   "found that thread running in\n",
			100.0 * (double)p->cpu_owed / (double)(p->cpu_samples ? p->cpu_samples : 1), p->cpu_owed);
	if (p->have_status)
		fprintf(f, "  agent: %" PRIu64 " records dropped, %" PRIu64 " write errors\n", p->status.dropped_records,
			p->status.write_errors);
	describe_cost(f, p);
	if (p->have_status && p->status.stack_checks)
		fprintf(f, "  stacks: %" PRIu64 " fast walks checked against the runtime's unwinder, %" PRIu64
			   " differed (%.1f%%)\n",
			p->status.stack_checks, p->status.stack_mismatches,
			100.0 * (double)p->status.stack_mismatches / (double)p->status.stack_checks);
	describe_log(f, p);
	if (p->ended) {
		const char *reason = end_reason_name(p->end_reason);
		bool same = !p->end_text[0] || !strcmp(p->end_text, reason);
		fprintf(f, "  ended: %s%s%s\n", reason, same ? "" : ": ", same ? "" : p->end_text);
	}
	else
		fprintf(f, "  ended: no end record (still running, or killed)\n");
	write_text_events(f, p);
	for (size_t i = 0; i < p->nmessages; i++)
		fprintf(f, "  agent %s: %s\n", p->messages[i].level >= CS_LEVEL_ERROR ? "error" : p->messages[i].level == CS_LEVEL_WARNING ? "warning" : "note",
			p->messages[i].text);

	prof_compute(p);
	uint32_t *idx;
	size_t n = sorted_functions(p, false, &idx);
	size_t top = o->top ? o->top : TEXT_TOP_DEFAULT;
	if (n > top)
		n = top;
	fprintf(f, "\n   self%%  total%%     self    total  function\n");
	double all = p->samples ? (double)p->samples : 1.0;
	for (size_t i = 0; i < n; i++) {
		const struct prof_function *fn = &p->functions[idx[i]];
		fprintf(f, "  %5.1f%%  %5.1f%%  %7" PRIu64 "  %7" PRIu64 "  %s", 100.0 * (double)fn->self / all,
			100.0 * (double)fn->total / all, fn->self, fn->total, fn->name);
		if (fn->module[0])
			fprintf(f, "  [%s]", fn->module);
		fputc('\n', f);
	}
	free(idx);
	/* where each native module's names came from, or why there are none */
	for (size_t i = 0; i < natsym_modules(p->natsym); i++) {
		struct natsym_module_info m;
		char text[2 * 4096];
		natsym_module(p->natsym, i, &m);
		natsym_module_text(&m, text, sizeof text);
		fprintf(f, "  native %s: %s\n", m.path, text);
	}
	write_text_threads(f, p, top);
	if (o->lines) {
		/* methods in the order of their total time */
		size_t nt = sorted_functions(p, false, &idx);
		qsort_r(idx, nt, sizeof *idx, cmp_functions_total, p->functions);
		write_text_lines(f, p, idx, nt, top);
		free(idx);
	}
	export_text_memory(f, p, top);
	export_text_awaits_line(f, p);
	export_text_events(f, p, top);
	fputc('\n', f);
}

/* ---- collapsed ---- */

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct export_folded *)a)->line, ((const struct export_folded *)b)->line);
}

static void append_frame(char **buf, size_t *len, size_t *cap, const char *name)
{
	size_t n = strlen(name);
	xgrow(buf, cap, *len + n + 2, 1);
	if (*len)
		(*buf)[(*len)++] = ';';
	/* ';' separates frames and '\n' ends the line; no other control
	 * character can be shown in a flame graph (or be in its SVG).  A space
	 * stays: readers of the format (flamegraph.pl, speedscope, inferno)
	 * take the count after a line's last space, so frames are spelt as in
	 * every other view ("[JIT compilation]") */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		(*buf)[(*len)++] = c == ';' ? ':' : c < 0x20 || c == 0x7F ? '_' : (char)c;
	}
	(*buf)[*len] = 0;
}

/* A stack's count: the samples of its path of functions, or with lines
 * those of this very stack (frames at their lines). */
static uint64_t stack_count(const struct prof_process *p, uint32_t s, bool lines)
{
	return lines ? p->stacks[s].line_count : p->stacks[s].count;
}

/* " (File.cs:42)" after the frame just appended. */
static void append_line(char **buf, size_t *len, size_t *cap, const char *where)
{
	size_t before = *len;
	append_frame(buf, len, cap, where); /* sanitised, after a ';' */
	(*buf)[before] = ' ';
	size_t n = *len - before;
	xgrow(buf, cap, *len + 3, 1);
	memmove(*buf + before + 2, *buf + before + 1, n - 1);
	(*buf)[before + 1] = '(';
	*len += 1;
	(*buf)[(*len)++] = ')';
	(*buf)[*len] = 0;
}

static void collect_folded(struct prof_process *p, bool prefix, bool lines, struct export_folded **out, size_t *nout,
			   size_t *cap)
{
	uint32_t *path = xmalloc(PATH_MAX_FRAMES * sizeof *path), *ils = xmalloc(PATH_MAX_FRAMES * sizeof *ils);
	struct prof_lines L;
	prof_lines_init(&L, p);
	char root[64], label[2048];
	snprintf(root, sizeof root, "pid_%" PRIu32, p->pid);
	for (uint32_t s = 1; s < p->nstacks; s++) {
		uint64_t count = stack_count(p, s, lines);
		if (!count)
			continue;
		size_t depth = prof_stack_path_at(p, s, path, ils, PATH_MAX_FRAMES);
		char *buf = NULL;
		size_t len = 0, bcap = 0;
		xgrow(&buf, &bcap, 64, 1);
		buf[0] = 0;
		if (prefix)
			append_frame(&buf, &len, &bcap, root);
		for (size_t i = 0; i < depth; i++) {
			append_frame(&buf, &len, &bcap, prof_frame_name(p, path[i]));
			uint32_t file, line;
			if (lines && prof_lines_locate(&L, path[i], ils[i], &file, &line)) {
				/* "Name (File.cs:42)", as speedscope's frames are named */
				snprintf(label, sizeof label, "%s:%u", prof_lines_file_base(&L, file), line);
				append_line(&buf, &len, &bcap, label);
			}
		}
		xgrow(out, cap, *nout + 1, sizeof **out);
		(*out)[(*nout)++] = (struct export_folded){buf, count};
	}
	prof_lines_free(&L);
	free(path);
	free(ils);
}

static void write_collapsed(FILE *f, struct prof_recording *s, const struct export_options *o)
{
	size_t nsel = 0;
	for (size_t i = 0; i < s->nprocs; i++)
		nsel += selected(s->procs[i], o);
	struct export_folded *lines = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < s->nprocs; i++)
		if (selected(s->procs[i], o))
			collect_folded(s->procs[i], nsel > 1, o->lines, &lines, &n, &cap);
	if (n)
		qsort(lines, n, sizeof *lines, cmp_folded);
	for (size_t i = 0; i < n;) {
		uint64_t count = lines[i].count;
		size_t j = i + 1;
		while (j < n && strcmp(lines[j].line, lines[i].line) == 0)
			count += lines[j++].count;
		fprintf(f, "%s %" PRIu64 "\n", lines[i].line, count);
		for (; i < j; i++)
			free(lines[i].line);
	}
	free(lines);
}

size_t export_folded_lines(struct prof_process *p, struct export_folded **out)
{
	struct export_folded *lines = NULL;
	size_t n = 0, cap = 0, kept = 0;
	collect_folded(p, false, false, &lines, &n, &cap);
	if (n)
		qsort(lines, n, sizeof *lines, cmp_folded);
	for (size_t i = 0; i < n; i++) {
		if (kept && strcmp(lines[kept - 1].line, lines[i].line) == 0) {
			lines[kept - 1].count += lines[i].count;
			free(lines[i].line);
		} else {
			lines[kept++] = lines[i];
		}
	}
	*out = lines;
	return kept;
}

/* ---- json ---- */

static void write_json_events(FILE *f, const struct prof_process *p)
{
	const struct prof_event_counts *e = &p->events;
	fprintf(f, ",\"events\":{\"gc\":%" PRIu64 ",\"exceptions\":%" PRIu64 ",\"catches\":%" PRIu64 ",\"jit\":%" PRIu64
		   ",\"modules\":%" PRIu64 ",\"assemblies\":%" PRIu64 ",\"threads_created\":%" PRIu64
		   ",\"threads_destroyed\":%" PRIu64 ",\"contention\":%" PRIu64 ",\"waits\":%" PRIu64
		   ",\"threadpool\":%" PRIu64 ",\"alloc_samples\":%" PRIu64 "}",
		e->gcs, e->exceptions, e->catches, e->jits, e->modules, e->assemblies, e->threads_created,
		e->threads_destroyed, e->contentions, e->waits, e->threadpool, e->alloc_samples);
	fputs(",\"gcs\":[", f);
	for (size_t i = 0; i < p->ngcs; i++) {
		const struct prof_gc *g = &p->gcs[i];
		fprintf(f, "%s{\"gen\":%u,\"reason\":\"%s\",\"type\":", i ? "," : "", g->generation, prof_gc_reason(g));
		if (g->type)
			fprintf(f, "\"%s\"", cs_gc_type_name(g->type));
		else
			fputs("null", f);
		fprintf(f, ",\"promoted_bytes\":");
		if (g->cause)
			fprintf(f, "%" PRIu64 ",\"pinned_objects\":%" PRIu64, g->promoted_bytes, g->pinned_objects);
		else
			fputs("null,\"pinned_objects\":null", f);
		fprintf(f, ",\"pause_ms\":%.3f,\"start_ms\":%.3f,\"duration_ms\":%.3f,\"heap_bytes\":[",
			(double)g->pause_us / 1000.0, (double)g->start_us / 1000.0, (double)g->duration_us / 1000.0);
		for (int k = 0; k < CS_GC_GENERATIONS; k++)
			fprintf(f, "%s%" PRIu64, k ? "," : "", g->gen_bytes[k]);
		fputs("]}", f);
	}
	fputs("],\"exceptions\":[", f);
	for (size_t i = 0; i < p->nexception_types; i++) {
		fputs(i ? ",{\"type\":" : "{\"type\":", f);
		json_string(f, p->exception_types[i].name);
		fprintf(f, ",\"count\":%" PRIu64 ",\"caught\":%" PRIu64 ",\"caught_in\":[", p->exception_types[i].thrown,
			p->exception_types[i].caught);
		for (uint32_t k = 0; k < p->exception_types[i].ncatchers; k++) {
			if (k)
				fputc(',', f);
			json_string(f, prof_frame_name(p, p->exception_types[i].catchers[k]));
		}
		fputc(']', f);
		export_json_exception_messages(f, &p->exception_types[i]);
		fputc('}', f);
	}
	fputc(']', f);
	export_json_event_stream(f, p);
	fputs(",\"threads\":[", f);
	for (size_t i = 0, n = 0; i < p->nthreads; i++) {
		const struct prof_thread *t = &p->threads[i];
		if (!t->runtime_id && !t->samples)
			continue;
		fprintf(f, "%s{\"ref\":%zu,\"os_tid\":%u,\"name\":", n++ ? "," : "", i, t->os_tid);
		json_string(f, t->name ? t->name : "");
		fprintf(f, ",\"samples\":%" PRIu64 ",\"cpu_ms\":", t->samples);
		if (t->cpu_us_at)
			fprintf(f, "%.3f", (double)t->cpu_ns / 1e6);
		else
			fputs("null", f);
		fputs(",\"state_samples\":{", f);
		for (int k = 0; k < PROF_STATES; k++)
			fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", prof_state_name((enum prof_state)k), t->states[k]);
		fputs("},\"managed_name\":", f);
		json_string_or_null(f, t->managed_name);
		fputs(",\"os_name\":", f);
		json_string_or_null(f, t->os_name);
		fputc('}', f);
	}
	fprintf(f, "],\"jit\":{\"methods\":%" PRIu64 ",\"total_ms\":%.3f}", e->jits, (double)p->jit_total_us / 1000.0);
	fputs(",\"modules\":[", f);
	for (size_t i = 0; i < p->nmodules; i++) {
		fprintf(f, "%s{\"kind\":\"%s\",\"time_ms\":%.3f,\"name\":", i ? "," : "",
			p->modules[i].kind == CS_ASSEMBLY ? "assembly" : "module", (double)p->modules[i].time_us / 1000.0);
		json_string(f, p->modules[i].name);
		fputc('}', f);
	}
	fputs("],\"dials\":[", f);
	for (size_t i = 0; i < p->ndials; i++) {
		const struct prof_dials_ack *d = &p->dials[i];
		fprintf(f, "%s{\"time_ms\":%.3f,\"generation\":%" PRIu64 ",\"status\":\"%s\",\"effective\":", i ? "," : "",
			(double)d->time_us / 1000.0, d->generation, dials_status_name(d->status));
		json_string(f, d->effective);
		fputs(",\"error\":", f);
		json_string(f, d->error);
		fputc('}', f);
	}
	fputs("]", f);
	char names[128];
	cs_events_format(p->hello_events, names, sizeof names);
	fputs(",\"control\":", f);
	json_string(f, p->control);
	fputs(",\"events_at_start\":", f);
	json_string(f, names);
}

static int cmp_row_function(const void *a, const void *b)
{
	const struct prof_line_row *x = a, *y = b;
	if (x->function != y->function)
		return x->function < y->function ? -1 : 1;
	return cmp_row_line(a, b);
}

struct json_notes {
	FILE *f;
	bool first;
};

static void json_note(void *ctx, const char *assembly, const char *why)
{
	struct json_notes *jn = ctx;
	fputs(jn->first ? "{\"assembly\":" : ",{\"assembly\":", jn->f);
	json_string(jn->f, assembly);
	fputs(",\"why\":", jn->f);
	json_string(jn->f, why);
	fputc('}', jn->f);
	jn->first = false;
}

static void write_json_process(FILE *f, struct prof_process *p, const struct export_options *o)
{
	fprintf(f, "{\"pid\":%" PRIu32 ",\"ppid\":%" PRIu32 ",\"command\":", p->pid, p->ppid);
	json_string(f, p->command_line);
	fputs(",\"runtime\":", f);
	json_string(f, p->runtime_version);
	fputs(",\"agent_version\":", f);
	json_string(f, p->agent_version);
	fprintf(f, ",\"loaded\":\"%s\",\"rate_hz\":%" PRIu32 ",\"achieved_hz\":", load_mode_name(p->load_mode),
		p->rate_hz);
	double hz = prof_achieved_hz(p, false);
	if (hz >= 0)
		fprintf(f, "%.1f", hz);
	else
		fputs("null", f);
	fprintf(f, ",\"start_unix_ms\":%" PRIu64, p->start_unix_ns / 1000000u);
	/* "sampled_threads": "threads" is the list of threads further on */
	fprintf(f, ",\"samples\":%" PRIu64 ",\"cpu_samples\":%" PRIu64 ",\"cpu_owed_samples\":%" PRIu64
		   ",\"wall_samples\":%" PRIu64 ",\"ticks\":%" PRIu64 ",\"sampled_threads\":%zu,\"duration_ms\":%.0f",
		p->samples, p->cpu_samples, p->cpu_owed, p->wall_samples, p->ticks, thread_count(p), duration_ms(p));
	fputs(",\"samples_per_second\":[", f);
	for (size_t i = 0; i < p->nseconds; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", p->per_second[i]);
	fputs("],\"functions\":[", f);
	prof_compute(p);
	uint32_t *idx;
	size_t n = sorted_functions(p, true, &idx);
	if (o->top && n > o->top)
		n = o->top;
	struct prof_lines L;
	struct prof_line_row *rows = NULL;
	size_t nrows = 0, *first_row = NULL;
	if (o->lines) {
		prof_lines_init(&L, p);
		nrows = prof_lines_rows(&L, &rows);
		if (nrows)
			qsort(rows, nrows, sizeof *rows, cmp_row_function);
		/* by function: where its rows start (nrows: none) */
		first_row = xmalloc((p->nfunctions + 1) * sizeof *first_row);
		for (size_t i = 0; i <= p->nfunctions; i++)
			first_row[i] = nrows;
		for (size_t i = nrows; i-- > 0;)
			first_row[rows[i].function] = i;
	}
	for (size_t i = 0; i < n; i++) {
		const struct prof_function *fn = &p->functions[idx[i]];
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		json_string(f, fn->name);
		fputs(",\"module\":", f);
		json_string(f, fn->module);
		fprintf(f, ",\"self\":%" PRIu64 ",\"total\":%" PRIu64 ",\"self_cpu\":%" PRIu64 ",\"total_cpu\":%" PRIu64
			   ",\"self_wall\":%" PRIu64 ",\"total_wall\":%" PRIu64,
			fn->self, fn->total, fn->self_cpu, fn->total_cpu, fn->self_wall, fn->total_wall);
		export_json_calls(f, fn);
		if (o->lines) {
			fputs(",\"lines\":[", f);
			for (size_t r = first_row[idx[i]]; r < nrows && rows[r].function == idx[i]; r++) {
				fputs(r == first_row[idx[i]] ? "{\"file\":" : ",{\"file\":", f);
				json_string(f, L.files[rows[r].file]);
				fprintf(f, ",\"line\":%u,\"self\":%" PRIu64 ",\"total\":%" PRIu64 "}", rows[r].line,
					rows[r].self, rows[r].total);
			}
			fputc(']', f);
		}
		fputc('}', f);
	}
	free(idx);
	if (o->lines) {
		fputs("],\"lines_notes\":[", f);
		const char *none = no_lines_reason(p);
		bool first = true;
		if (none) {
			fputs("{\"assembly\":null,\"why\":", f);
			json_string(f, none);
			fputc('}', f);
			first = false;
		}
		struct json_notes jn = {f, first};
		prof_lines_notes(&L, json_note, &jn);
		free(rows);
		free(first_row);
		prof_lines_free(&L);
	}
	const struct cs_status *st = &p->status;
	fprintf(f, "],\"agent\":{\"dropped\":%" PRIu64 ",\"dropped_bytes\":%" PRIu64 ",\"write_errors\":%" PRIu64
		   ",\"suspend_us_median\":%.1f,\"suspend_us_max\":%.1f,\"suspend_ms_total\":%.1f"
		   ",\"failed_walks\":%" PRIu64 ",\"truncated_stacks\":%" PRIu64 ",\"deferred_walks\":%" PRIu64
		   ",\"stack_checks\":%" PRIu64 ",\"stack_mismatches\":%" PRIu64 ",\"signals\":%" PRIu64
		   ",\"signals_waiting\":%" PRIu64 ",\"waiting_read\":%" PRIu64 ",\"kernel_samples\":%" PRIu64
		   ",\"kernel_lost\":%" PRIu64 ",\"beyond_copy\":%" PRIu64 ",\"parked_kept\":%" PRIu64
		   ",\"async_resolved\":%" PRIu64 ",\"async_unresolved\":%" PRIu64 ",\"async_ms\":%.1f"
		   ",\"samples\":%" PRIu64 ",\"ticks\":%" PRIu64 ",\"status_ms\":%.1f"
		   ",\"sampler_cpu_ms\":%.1f,\"writer_cpu_ms\":%.1f,\"handler_cpu_ms\":%.1f"
		   ",\"sampler_ms\":{\"unwind\":%.1f,\"survey\":%.1f,\"signal\":%.1f,\"record\":%.1f},\"cpu_share\":",
		st->dropped_records, st->dropped_bytes, st->write_errors, prof_suspend_median_us(p),
		(double)st->suspend_max_ns / 1000.0, (double)st->suspend_total_ns / 1e6, st->failed_walks,
		st->truncated_stacks, st->deferred_walks, st->stack_checks, st->stack_mismatches, st->signals,
		st->signals_waiting, st->waiting_read, st->kernel_samples, st->kernel_lost, st->beyond_copy, st->parked_kept,
		st->async_resolved, st->async_unresolved, (double)st->async_ns / 1e6, st->samples, st->ticks,
		(double)st->time_us / 1000.0, (double)st->sampler_cpu_ns / 1e6,
		(double)st->writer_cpu_ns / 1e6,
		(double)st->handler_cpu_ns / 1e6, (double)st->unwind_ns / 1e6, (double)st->survey_ns / 1e6,
		(double)st->signal_ns / 1e6, (double)st->record_ns / 1e6);
	double share = prof_agent_cpu_share(p, false);
	if (share < 0)
		fputs("null}", f);
	else
		fprintf(f, "%.4f}", share);
	fputs(",\"native_modules\":[", f);
	for (size_t i = 0; i < natsym_modules(p->natsym); i++) {
		struct natsym_module_info m;
		char text[2 * 4096];
		natsym_module(p->natsym, i, &m);
		natsym_module_text(&m, text, sizeof text);
		fputs(i ? ",{\"path\":" : "{\"path\":", f);
		json_string(f, m.path);
		fprintf(f, ",\"names\":\"%s\",\"source\":", natsym_state_name(m.state));
		json_string_or_null(f, natsym_source_name(m.source));
		fputs(",\"debug_file\":", f);
		json_string_or_null(f, m.debug_file[0] ? m.debug_file : NULL);
		fputs(",\"debug_link\":", f);
		json_string_or_null(f, m.debug_link[0] ? m.debug_link : NULL);
		fputs(",\"build_id\":", f);
		json_string_or_null(f, m.build_id[0] ? m.build_id : NULL);
		fputs(",\"why\":", f);
		json_string(f, text);
		fputc('}', f);
	}
	fputc(']', f);
	const struct cs_reader *r = &p->reader;
	fprintf(f, ",\"log\":{\"records\":%" PRIu64 ",\"segments\":%u,\"torn_bytes\":%" PRIu64
		   ",\"skipped_bytes\":%" PRIu64 ",\"bad_records\":%" PRIu64 ",\"error\":",
		r->records, r->segments, r->torn_bytes, r->skipped_bytes, p->bad_records);
	if (p->error[0])
		json_string(f, p->error);
	else
		fputs("null", f);
	fprintf(f, "},\"ended\":%s,\"end\":", p->ended ? "true" : "false");
	if (p->ended)
		json_string(f, end_reason_name(p->end_reason));
	else
		fputs("null", f);
	fprintf(f, ",\"detached\":%s", p->ended && p->end_reason == CS_END_DETACH ? "true" : "false");
	write_json_events(f, p);
	export_json_memory(f, p);
	if (o->retention)
		export_json_retention(f, p, o->retention);
	export_json_awaits(f, p);
	fputs(",\"messages\":[", f);
	for (size_t i = 0; i < p->nmessages; i++) {
		fprintf(f, "%s{\"time_ms\":%.1f,\"level\":%u,\"text\":", i ? "," : "", (double)p->messages[i].time_us / 1000.0,
			p->messages[i].level);
		json_string(f, p->messages[i].text);
		fputc('}', f);
	}
	fputs("]}", f);
}

/* ---- speedscope (https://www.speedscope.app/file-format-schema.json) ---- */

/* One sampled profile per process; frames shared by name across them.
 * With lines a frame is a function at a line ("Name (File.cs:42)", with
 * speedscope's file and line fields). */
struct ss_frame {
	char *name; /* owned */
	const char *file;
	uint32_t line;
};

/* The frame table index of a stack's frame (added on first sight). */
static uint32_t ss_frame_of(struct strmap *names, struct ss_frame **frames, size_t *n, size_t *cap,
			    struct prof_lines *L, const struct prof_process *p, uint32_t frame, uint32_t il_plus1)
{
	char label[2048];
	const char *name = prof_frame_name(p, frame);
	uint32_t file = 0, line = 0;
	bool located = L && prof_lines_locate(L, frame, il_plus1, &file, &line);
	if (located) {
		snprintf(label, sizeof label, "%s (%s:%u)", name, prof_lines_file_base(L, file), line);
		name = label;
	}
	uint32_t idx;
	if (strmap_get(names, name, strlen(name), &idx))
		return idx;
	xgrow(frames, cap, *n + 1, sizeof **frames);
	(*frames)[*n] = (struct ss_frame){xstrdup(name), located ? L->files[file] : NULL, line};
	if (!strmap_add(names, name, strlen(name), (uint32_t)*n)) {
		fprintf(stderr, "clrscope: out of memory\n");
		exit(1);
	}
	return (uint32_t)(*n)++;
}

static void write_speedscope(FILE *f, struct prof_recording *s, const struct export_options *o)
{
	struct strmap names;
	strmap_init(&names);
	struct ss_frame *frames = NULL;
	size_t nframes = 0, frames_cap = 0;
	uint32_t *path = xmalloc(PATH_MAX_FRAMES * sizeof *path), *ils = xmalloc(PATH_MAX_FRAMES * sizeof *ils);
	struct prof_lines *lines = o->lines ? xcalloc(s->nprocs ? s->nprocs : 1, sizeof *lines) : NULL;
	/* a first pass names every frame used, so the table comes first */
	for (size_t i = 0; i < s->nprocs; i++) {
		struct prof_process *p = s->procs[i];
		if (!selected(p, o))
			continue;
		if (lines)
			prof_lines_init(&lines[i], p);
		for (uint32_t st = 1; st < p->nstacks; st++) {
			if (!stack_count(p, st, o->lines))
				continue;
			size_t depth = prof_stack_path_at(p, st, path, ils, PATH_MAX_FRAMES);
			for (size_t d = 0; d < depth; d++)
				ss_frame_of(&names, &frames, &nframes, &frames_cap, lines ? &lines[i] : NULL, p, path[d], ils[d]);
		}
	}
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"clrscope " CLRSCOPE_VERSION
	      "\",\"name\":", f);
	json_string(f, s->dir);
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", f);
	for (size_t i = 0; i < nframes; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		json_string(f, frames[i].name);
		if (frames[i].file) {
			fputs(",\"file\":", f);
			json_string(f, frames[i].file);
			fprintf(f, ",\"line\":%u", frames[i].line);
		}
		fputc('}', f);
	}
	fputs("]},\"profiles\":[", f);
	size_t written = 0;
	for (size_t i = 0; i < s->nprocs; i++) {
		struct prof_process *p = s->procs[i];
		if (!selected(p, o))
			continue;
		char title[600];
		snprintf(title, sizeof title, "pid %" PRIu32 ": %s", p->pid, p->command_line ? p->command_line : p->dir);
		fputs(written++ ? ",{\"type\":\"sampled\",\"name\":" : "{\"type\":\"sampled\",\"name\":", f);
		json_string(f, title);
		fprintf(f, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[", p->samples);
		bool first = true;
		for (uint32_t st = 1; st < p->nstacks; st++) {
			if (!stack_count(p, st, o->lines))
				continue;
			size_t depth = prof_stack_path_at(p, st, path, ils, PATH_MAX_FRAMES);
			fputs(first ? "[" : ",[", f);
			for (size_t d = 0; d < depth; d++)
				fprintf(f, "%s%u", d ? "," : "",
					ss_frame_of(&names, &frames, &nframes, &frames_cap, lines ? &lines[i] : NULL, p,
						    path[d], ils[d]));
			fputc(']', f);
			first = false;
		}
		fputs("],\"weights\":[", f);
		first = true;
		for (uint32_t st = 1; st < p->nstacks; st++) {
			uint64_t c = stack_count(p, st, o->lines);
			if (!c)
				continue;
			fprintf(f, "%s%" PRIu64, first ? "" : ",", c);
			first = false;
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	for (size_t i = 0; lines && i < s->nprocs; i++)
		if (selected(s->procs[i], o))
			prof_lines_free(&lines[i]);
	free(lines);
	free(path);
	free(ils);
	for (size_t i = 0; i < nframes; i++)
		free(frames[i].name);
	free(frames);
	strmap_free(&names);
}

/* The text report goes to terminals: no control character from the log may
 * reach one (an escape sequence can retitle the window, clear the screen or
 * worse).  Written into memory first, then every C0 and C1 control but the
 * newline and the tab becomes '?'. */
static void write_text_clean(FILE *f, struct prof_process *p, const struct export_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		fprintf(stderr, "clrscope: out of memory\n");
		exit(1);
	}
	write_text(m, p, o);
	fclose(m);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			buf[i] = '?';
		else if (c == 0xc2 && i + 1 < len && (unsigned char)buf[i + 1] >= 0x80 && (unsigned char)buf[i + 1] <= 0x9f)
			buf[i] = buf[i + 1] = '?'; /* U+0080..U+009F, CSI among them */
	}
	fwrite(buf, 1, len, f);
	free(buf);
}

size_t export_session(FILE *f, struct prof_recording *s, const struct export_options *o)
{
	size_t written = 0;
	switch (o->format) {
	case EXPORT_TEXT:
		for (size_t i = 0; i < s->nprocs; i++) {
			if (!selected(s->procs[i], o))
				continue;
			write_text_clean(f, s->procs[i], o);
			written++;
		}
		break;
	case EXPORT_COLLAPSED:
		for (size_t i = 0; i < s->nprocs; i++)
			written += selected(s->procs[i], o);
		write_collapsed(f, s, o);
		break;
	case EXPORT_SPEEDSCOPE:
		for (size_t i = 0; i < s->nprocs; i++)
			written += selected(s->procs[i], o);
		write_speedscope(f, s, o);
		break;
	case EXPORT_JSON:
		fputs("{\"format\":\"clrscope-report\",\"version\":1,\"session\":", f);
		json_string(f, s->dir);
		fprintf(f, ",\"time\":\"%s\"", prof_time_name(s->time));
		fputs(",\"processes\":[", f);
		for (size_t i = 0; i < s->nprocs; i++) {
			if (!selected(s->procs[i], o))
				continue;
			if (written++)
				fputc(',', f);
			write_json_process(f, s->procs[i], o);
		}
		fputs("]}\n", f);
		break;
	}
	return written;
}
