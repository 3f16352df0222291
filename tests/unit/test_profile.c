#include <stdlib.h>
#include <sys/stat.h>

#include "check.h"
#include "common/newsession.h"
#include "common/session.h"
#include "profile/export.h"
#include "profile/lines.h"
#include "profile/profile.h"
#include "testutil.h"

static struct cs_str S(const char *s)
{
	return (struct cs_str){s, strlen(s)};
}

/* A new session under a new temporary directory (returned, for
 * remove_tree) with the directory of process pid in it. */
static char *make_process_dir(char session[512], char proc[512], uint32_t pid)
{
	char *base = make_temp_dir();
	char err[512];
	snprintf(session, 512, "%s/s", base);
	CHECK(cs_session_create(session, "app", "dotnet app.dll", session, 512, err, sizeof err) == 0);
	CHECK(cs_proc_dir_create(session, pid, proc, 512, err, sizeof err) == 0);
	return base;
}

/* A HELLO record of process pid sampled at rate_hz. */
static void put_hello(struct cs_out *o, uint32_t pid, uint32_t rate_hz)
{
	uint8_t payload[256];
	struct cs_out p;
	cs_out_init(&p, payload, sizeof payload);
	struct cs_hello h = {pid, 1, 0, CS_LOAD_STARTUP, rate_hz, S("0.1.0"), S("CoreCLR 10.0.0"), S("dotnet app.dll")};
	cs_hello_encode(&p, &h);
	put_record(o, CS_REC_HELLO, p.buf, p.len);
}

/* A process log as the agent would write it: Main calls Heavy and Light,
 * both call Burn; Burn recursed once. */
static size_t build_log(uint8_t *buf, size_t cap)
{
	struct cs_out o, p;
	uint8_t payload[4096];
	cs_out_init(&o, buf, cap);

	put_hello(&o, 4242, 100);

	cs_out_init(&p, payload, sizeof payload);
	const char *names[] = {"App.Program.Main", "App.Program+Worker.Heavy", "App.Program+Worker.Light",
			       "App.Program+Worker.Burn"};
	for (int i = 0; i < 4; i++) {
		struct cs_frame_def f = {16 + i, S(names[i]), S("app.dll")};
		cs_frame_def_encode(&p, &f);
	}
	put_record(&o, CS_REC_FRAMES, p.buf, p.len);

	cs_out_init(&p, payload, sizeof payload);
	struct cs_stack_def stacks[] = {{1, 0, 16}, {2, 1, 17}, {3, 2, 19}, {4, 1, 18}, {5, 4, 19}, {6, 3, 19}};
	for (int i = 0; i < 6; i++)
		cs_stack_def_encode(&p, &stacks[i]);
	put_record(&o, CS_REC_STACKS, p.buf, p.len);

	/* 46 ticks of one sample each, 10 ms apart: 30 in Heavy;Burn,
	 * 10 in Light;Burn, 5 in Heavy, 1 in Heavy;Burn;Burn */
	cs_out_init(&p, payload, sizeof payload);
	for (int i = 0; i < 46; i++) {
		uint64_t stack = i < 30 ? 3 : i < 40 ? 5 : i < 45 ? 2 : 6;
		cs_put_varint(&p, i == 0 ? 5000 : 10000);
		cs_put_varint(&p, 20000 + 1000 * (uint64_t)i);
		cs_put_varint(&p, 1);
		cs_put_varint(&p, 1);
		cs_put_varint(&p, stack);
	}
	put_record(&o, CS_REC_SAMPLES, p.buf, p.len);

	cs_out_init(&p, payload, sizeof payload);
	struct cs_thread t = {1, 0xabc, 4243, S("")};
	cs_thread_encode(&p, &t);
	put_record(&o, CS_REC_THREAD, p.buf, p.len);

	cs_out_init(&p, payload, sizeof payload);
	struct cs_status st = {.time_us = 460000, .dropped_records = 3};
	cs_status_encode(&p, &st);
	put_record(&o, CS_REC_STATUS, p.buf, p.len);
	return o.len;
}

static struct prof_function *find_function(struct prof_process *p, const char *name)
{
	for (size_t i = 0; i < p->nfunctions; i++)
		if (!strcmp(p->functions[i].name, name))
			return &p->functions[i];
	return NULL;
}

static void note_of(void *ctx, const char *assembly, const char *why)
{
	snprintf(ctx, 600, "%s: %s", assembly, why);
}

static char *capture_options(struct prof_recording *s, const struct export_options *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	export_session(f, s, o);
	fclose(f);
	return text;
}

static char *capture(struct prof_recording *s, enum export_format fmt)
{
	return capture_options(s, &(struct export_options){.format = fmt});
}

/* Stacks that differ only in an IL offset: one path of functions for
 * everything by function, two stacks for lines. */
static void line_offsets(void)
{
	char session[512], proc[512], err[512];
	char *base = make_process_dir(session, proc, 4242);
	uint8_t buf[4096], payload[1024];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	put_hello(&o, 4242, 100);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_frame_def f1 = {16, S("App.Main"), S("app.dll")}, f2 = {17, S("App.Burn"), S("app.dll")};
	cs_frame_def_encode(&p, &f1);
	cs_frame_def_encode(&p, &f2);
	put_record(&o, CS_REC_FRAMES, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_code_path cp = {1, S("/nonexistent/app.dll")};
	cs_code_path_encode(&p, &cp);
	put_record(&o, CS_REC_CODE_PATH, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_frame_code c = {17, 0x06000003, 1};
	cs_frame_code_encode(&p, &c);
	put_record(&o, CS_REC_FRAME_CODE, p.buf, p.len);
	/* Main at offset 5 calls Burn, which was at offset 4 or 9; then
	 * Main at offset 12 calls Burn at 4 */
	cs_out_init(&p, payload, sizeof payload);
	struct cs_stack_def st[] = {{1, 0, 16}, {2, 1, 17}, {3, 1, 17}, {4, 0, 16}, {5, 4, 17}};
	for (int i = 0; i < 5; i++)
		cs_stack_def_encode(&p, &st[i]);
	put_record(&o, CS_REC_STACKS, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_stack_il il[] = {{1, 5}, {2, 4}, {3, 9}, {4, 12}, {5, 4}};
	for (int i = 0; i < 5; i++)
		cs_stack_il_encode(&p, &il[i]);
	put_record(&o, CS_REC_STACK_IL, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	uint64_t ticks[] = {2, 2, 2, 3, 3, 5}; /* 3 at (5, 4), 2 at (5, 9), 1 at (12, 4) */
	for (int i = 0; i < 6; i++) {
		cs_put_varint(&p, 10000);
		cs_put_varint(&p, 0);
		cs_put_varint(&p, 1);
		cs_put_varint(&p, 1);
		cs_put_varint(&p, ticks[i]);
	}
	put_record(&o, CS_REC_SAMPLES, p.buf, p.len);
	write_segment(proc, 1, buf, o.len);

	struct prof_recording s;
	CHECK(prof_recording_open(&s, session, err, sizeof err) == 0);
	prof_recording_update(&s, true);
	struct prof_process *pr = s.procs[0];
	CHECK(pr->have_lines);
	CHECK_EQ_U(pr->bad_records, 0);
	CHECK_EQ_U(pr->stacks[2].count, 6); /* every Main;Burn sample in the first such stack */
	CHECK_EQ_U(pr->stacks[3].count + pr->stacks[5].count, 0);
	CHECK_EQ_U(pr->stacks[2].line_count, 3);
	CHECK_EQ_U(pr->stacks[3].line_count, 2);
	CHECK_EQ_U(pr->stacks[5].line_count, 1);
	CHECK_EQ_U(pr->stacks[3].il_plus1, 10);
	CHECK_EQ_U(pr->frames[17].token, 0x06000003);
	CHECK(pr->frames[17].code_path == 1 && !strcmp(pr->code_paths[0], "/nonexistent/app.dll"));
	uint32_t frames[8], ils[8];
	CHECK_EQ_U(prof_stack_path_at(pr, 5, frames, ils, 8), 2);
	CHECK(frames[0] == 16 && ils[0] == 13 && frames[1] == 17 && ils[1] == 5);
	prof_compute(pr);
	struct prof_function *burn = find_function(pr, "App.Burn");
	CHECK(burn && burn->self == 6 && burn->total == 6);
	char *collapsed = capture(&s, EXPORT_COLLAPSED);
	CHECK_STR(collapsed, "App.Main;App.Burn 6\n"); /* one line: offsets do not split functions */
	free(collapsed);
	/* no PDB for the assembly: no line, and a note says why */
	struct prof_lines L;
	prof_lines_init(&L, pr);
	struct prof_line_row *rows;
	CHECK_EQ_U(prof_lines_rows(&L, &rows), 0);
	free(rows);
	char note[600] = "";
	prof_lines_notes(&L, note_of, note);
	CHECK(strstr(note, "/nonexistent/app.dll") != NULL);
	prof_lines_free(&L);
	prof_recording_free(&s);
	remove_tree(base);
}

/* TICKS: samples on and off the CPU; HOLDS are off it; CPU_OWED are on it
 * and in no tick's moment; the wait kind told by the innermost frames;
 * both times kept, either shown; THREAD_CPU. */
static void cpu_and_wall(void)
{
	char session[512], proc[512], err[512];
	char *base = make_process_dir(session, proc, 4242);
	uint8_t buf[4096], payload[1024];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	put_hello(&o, 4242, 100);
	cs_out_init(&p, payload, sizeof payload);
	const char *names[] = {"App.Main", "App.Burn", "System.Threading.Monitor.Enter", "System.Threading.Thread.Sleep",
			       "System.Threading.WaitHandle.WaitOneNoCheck"};
	for (int i = 0; i < 5; i++) {
		struct cs_frame_def f = {16 + i, S(names[i]), S("app.dll")};
		cs_frame_def_encode(&p, &f);
	}
	struct cs_frame_def native = {CS_FRAME_NATIVE, S("[native]"), S("")};
	cs_frame_def_encode(&p, &native);
	put_record(&o, CS_REC_FRAMES, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	/* 2 Main;Burn  3 Main;Monitor.Enter;[native]  4 Main;Sleep  5 Main;WaitOne */
	struct cs_stack_def st[] = {{1, 0, 16}, {2, 1, 17}, {3, 1, 18}, {6, 3, CS_FRAME_NATIVE}, {4, 1, 19}, {5, 1, 20}};
	for (int i = 0; i < 6; i++)
		cs_stack_def_encode(&p, &st[i]);
	put_record(&o, CS_REC_STACKS, p.buf, p.len);
	for (int i = 1; i <= 3; i++) {
		cs_out_init(&p, payload, sizeof payload);
		struct cs_thread t = {(uint64_t)i, 0x100u + (uint64_t)i, 5000u + (uint32_t)i, S("")};
		cs_thread_encode(&p, &t);
		put_record(&o, CS_REC_THREAD, p.buf, p.len);
	}
	/* 3 ticks: thread 1 running in Burn; thread 2 blocked in Monitor.Enter twice, then in Sleep */
	cs_out_init(&p, payload, sizeof payload);
	for (int i = 0; i < 3; i++) {
		cs_put_varint(&p, 10000);
		cs_put_varint(&p, 0);
		cs_put_varint(&p, 2);
		cs_put_varint(&p, 1);
		cs_put_varint(&p, cs_tick_stack_state(2, false));
		cs_put_varint(&p, 2);
		cs_put_varint(&p, cs_tick_stack_state(i < 2 ? 6 : 4, true));
	}
	put_record(&o, CS_REC_TICKS, p.buf, p.len);
	/* thread 3 kept its stack in WaitOne for 5 ticks */
	cs_out_init(&p, payload, sizeof payload);
	struct cs_hold hold = {3, 5, 10000, 10000, 5};
	cs_hold_encode(&p, &hold);
	put_record(&o, CS_REC_HOLDS, p.buf, p.len);
	/* thread 1's third tick in Burn stands for 4 more periods of its CPU */
	cs_out_init(&p, payload, sizeof payload);
	struct cs_cpu_owed owed = {1, 2, 30000, 4};
	cs_cpu_owed_encode(&p, &owed);
	put_record(&o, CS_REC_CPU_OWED, p.buf, p.len);
	/* thread 1's clock: 850 ms of CPU in the second before 2 s (CPU %
	 * is taken over a second) */
	for (int i = 0; i < 3; i++) {
		cs_out_init(&p, payload, sizeof payload);
		cs_thread_cpu_head_encode(&p, i == 0 ? 1000000 : i == 1 ? 1500000 : 2000000);
		struct cs_thread_cpu c = {1, i == 0 ? 5000000u : i == 1 ? 400000000u : 855000000u};
		cs_thread_cpu_encode(&p, &c);
		put_record(&o, CS_REC_THREAD_CPU, p.buf, p.len);
	}
	write_segment(proc, 1, buf, o.len);

	struct prof_recording s;
	CHECK(prof_recording_open(&s, session, err, sizeof err) == 0);
	prof_recording_update(&s, true);
	struct prof_process *pr = s.procs[0];
	CHECK_EQ_U(pr->bad_records, 0);
	CHECK_EQ_U(pr->samples, 7); /* cpu time, the default: thread 1's */
	CHECK_EQ_U(pr->cpu_samples, 7);
	CHECK_EQ_U(pr->cpu_owed, 4);
	CHECK_EQ_U(pr->wall_samples, 11);
	CHECK_EQ_U(pr->threads[1].samples, 7);
	prof_compute(pr);
	struct prof_function *burn = find_function(pr, "App.Burn"), *enter = find_function(pr, names[2]);
	CHECK(burn && burn->self == 7 && burn->self_cpu == 7 && burn->self_wall == 3);
	CHECK(enter && enter->total == 0 && enter->total_cpu == 0 && enter->total_wall == 2);
	/* the JSON in CPU time lists the lock's frame too: it is in samples,
	 * wall ones, and its entry carries them */
	char *cpu_json = capture(&s, EXPORT_JSON);
	CHECK(strstr(cpu_json, "\"name\":\"System.Threading.Monitor.Enter\",\"module\":\"app.dll\",\"self\":0,\"total\":0,"
			       "\"self_cpu\":0,\"total_cpu\":0,\"self_wall\":0,\"total_wall\":2,") != NULL);
	free(cpu_json);
	CHECK_EQ_U(pr->threads[1].states[PROF_STATE_RUNNING], 3);
	CHECK_EQ_U(pr->threads[2].states[PROF_STATE_LOCK], 2);
	CHECK_EQ_U(pr->threads[2].states[PROF_STATE_SLEEP], 1);
	CHECK_EQ_U(pr->threads[3].states[PROF_STATE_WAIT], 5);
	CHECK_EQ_U(pr->threads[2].last_state, PROF_STATE_SLEEP);
	CHECK_EQ_U(pr->threads[1].cpu_ns, 855000000u);
	CHECK(prof_thread_cpu_percent(&pr->threads[1]) > 84.9 && prof_thread_cpu_percent(&pr->threads[1]) < 85.1);
	prof_recording_set_time(&s, PROF_TIME_WALL);
	CHECK_EQ_U(pr->samples, 11);
	CHECK_EQ_U(pr->threads[3].samples, 5);
	prof_compute(pr);
	CHECK(enter && enter->total == 2);
	char *json = capture(&s, EXPORT_JSON);
	CHECK(strstr(json, "\"time\":\"wall\"") != NULL);
	CHECK(strstr(json, "\"os_tid\":5002,\"name\":\"\",\"samples\":3,\"cpu_ms\":null,\"state_samples\":{\"running\":0,"
			   "\"lock\":2,\"wait\":0,\"sleep\":1,") != NULL);
	CHECK(strstr(json, "\"os_tid\":5001,\"name\":\"\",\"samples\":3,\"cpu_ms\":855.000,") != NULL);
	CHECK(strstr(json, "\"cpu_samples\":7,\"cpu_owed_samples\":4,\"wall_samples\":11,") != NULL);
	free(json);
	prof_recording_set_time(&s, PROF_TIME_CPU);
	CHECK_EQ_U(pr->threads[1].samples, 7);
	prof_recording_free(&s);
	/* the thread filter and the time window keep them out as they do the
	 * ticks they come with, and they are not samples the agent counts */
	static const struct prof_filter filters[] = {{5002, 0, 0}, {0, 0, 25000}, {0, 35000, 0}};
	for (size_t i = 0; i < sizeof filters / sizeof *filters; i++) {
		struct prof_recording f;
		CHECK(prof_recording_open(&f, session, err, sizeof err) == 0);
		f.filter = filters[i];
		prof_recording_update(&f, true);
		CHECK_EQ_U(f.procs[0]->cpu_owed, 0);
		CHECK_EQ_U(f.procs[0]->cpu_samples, i == 1 ? 2 : 0);
		prof_recording_free(&f);
	}
	remove_tree(base);
}

static void aggregates(void)
{
	char session[512], proc[512], err[512];
	char *base = make_process_dir(session, proc, 4242);
	uint8_t buf[16384];
	size_t len = build_log(buf, sizeof buf);
	write_segment(proc, 1, buf, len - 7); /* and a torn tail */

	struct prof_recording s;
	CHECK(prof_recording_open(&s, session, err, sizeof err) == 0);
	prof_recording_update(&s, true);
	CHECK_EQ_U(s.nprocs, 1);
	struct prof_process *p = s.procs[0];
	CHECK(p->have_hello);
	CHECK_EQ_U(p->pid, 4242);
	CHECK_EQ_U(p->samples, 46);
	CHECK_EQ_U(p->ticks, 46);
	/* the STATUS record (12 + 8 + 29 bytes) lost its last 7 */
	uint64_t torn = p->reader.torn_bytes;
	CHECK_EQ_U(torn, 49 - 7);
	CHECK(!p->have_status); /* the status record was the torn one */
	prof_compute(p);
	struct prof_function *burn = find_function(p, "App.Program+Worker.Burn");
	struct prof_function *heavy = find_function(p, "App.Program+Worker.Heavy");
	struct prof_function *main_fn = find_function(p, "App.Program.Main");
	CHECK(burn && heavy && main_fn);
	if (burn && heavy && main_fn) {
		CHECK_EQ_U(burn->self, 41);
		CHECK_EQ_U(burn->total, 41); /* recursion counted once */
		CHECK_EQ_U(heavy->self, 5);
		CHECK_EQ_U(heavy->total, 36);
		CHECK_EQ_U(main_fn->self, 0);
		CHECK_EQ_U(main_fn->total, 46);
	}
	/* ticks at 5 ms + 10 ms steps: 100 in the first second would need 1 s;
	 * 46 ticks end at 455 ms, all in second 0 */
	CHECK_EQ_U(p->nseconds, 1);
	CHECK_EQ_U(p->per_second[0], 46);
	CHECK(prof_suspend_median_us(p) > 42.0 && prof_suspend_median_us(p) < 43.0);

	char *collapsed = capture(&s, EXPORT_COLLAPSED);
	CHECK_STR(collapsed, "App.Program.Main;App.Program+Worker.Heavy 5\n"
			     "App.Program.Main;App.Program+Worker.Heavy;App.Program+Worker.Burn 30\n"
			     "App.Program.Main;App.Program+Worker.Heavy;App.Program+Worker.Burn;App.Program+Worker.Burn 1\n"
			     "App.Program.Main;App.Program+Worker.Light;App.Program+Worker.Burn 10\n");
	free(collapsed);

	char *json = capture(&s, EXPORT_JSON);
	CHECK(strstr(json, "\"format\":\"clrscope-report\",\"version\":1") != NULL);
	CHECK(strstr(json, "\"samples\":46") != NULL);
	CHECK(strstr(json, "\"samples_per_second\":[46]") != NULL);
	CHECK(strstr(json, "{\"name\":\"App.Program+Worker.Burn\",\"module\":\"app.dll\",\"self\":41,\"total\":41,"
			   "\"self_cpu\":41,\"total_cpu\":41,\"self_wall\":41,\"total_wall\":41,"
			   "\"calls\":null,\"inclusive_ns\":null,\"exclusive_ns\":null}") != NULL);
	CHECK(strstr(json, "\"time\":\"cpu\"") != NULL);
	CHECK(strstr(json, "\"samples\":46,\"cpu_samples\":46,\"cpu_owed_samples\":0,\"wall_samples\":46") != NULL);
	char want[64];
	snprintf(want, sizeof want, "\"torn_bytes\":%" PRIu64 ",", torn);
	CHECK(strstr(json, want) != NULL);
	free(json);

	char *text = capture(&s, EXPORT_TEXT);
	snprintf(want, sizeof want, "torn tail of %" PRIu64 " bytes", torn);
	CHECK(strstr(text, want) != NULL);
	CHECK(strstr(text, "App.Program+Worker.Burn") != NULL);
	free(text);
	prof_recording_free(&s);

	/* the full log, read by a live reader in two steps */
	write_segment(proc, 1, buf, len / 2);
	CHECK(prof_recording_open(&s, proc, err, sizeof err) == 0);
	prof_recording_update(&s, false);
	write_segment(proc, 1, buf, len);
	prof_recording_update(&s, false);
	CHECK_EQ_U(s.procs[0]->samples, 46);
	CHECK(s.procs[0]->have_status && s.procs[0]->status.dropped_records == 3);
	CHECK_EQ_U(s.procs[0]->reader.torn_bytes, 0);
	prof_recording_free(&s);

	CHECK(prof_recording_open(&s, base, err, sizeof err) == -1);
	CHECK(strstr(err, "not a clrscope session") != NULL);
	remove_tree(base);
}

/* CALLS, HEAP (in two parts, twice) and ALLOCS records as the agent writes them. */
static size_t build_memory_log(uint8_t *buf, size_t cap)
{
	struct cs_out o, p;
	uint8_t payload[4096];
	cs_out_init(&o, buf, cap);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_hello h = {4343, 1, 0, CS_LOAD_STARTUP, 100, S("0.1.0"), S("CoreCLR 10.0.0"), S("dotnet app.dll"),
			     S(""), 0, CS_FEATURE_INSTRUMENT | CS_FEATURE_ALLOCATIONS, S("App.*")};
	cs_hello_encode(&p, &h);
	put_record(&o, CS_REC_HELLO, p.buf, p.len);

	cs_out_init(&p, payload, sizeof payload);
	struct cs_frame_def f1 = {16, S("App.Work"), S("app.dll")}, f2 = {17, S("App.List`1.Add"), S("app.dll")},
			    f3 = {18, S("App.List`1.Add"), S("app.dll")};
	cs_frame_def_encode(&p, &f1);
	cs_frame_def_encode(&p, &f2);
	cs_frame_def_encode(&p, &f3);
	put_record(&o, CS_REC_FRAMES, p.buf, p.len);

	/* two CALLS records: the second's totals replace the first's; the
	 * generic method has two frame ids (instantiations) that add up */
	for (int round = 1; round <= 2; round++) {
		cs_out_init(&p, payload, sizeof payload);
		struct cs_calls_head ch = {1000u * (uint64_t)round, 1, 3, 500, 0, 0};
		cs_calls_head_encode(&p, &ch);
		struct cs_call_entry e1 = {16, 100u * (uint64_t)round, 9000, 4000}, e2 = {17, 7, 700, 700},
				     e3 = {18, 3, 300, 300};
		cs_call_entry_encode(&p, &e1);
		cs_call_entry_encode(&p, &e2);
		cs_call_entry_encode(&p, &e3);
		put_record(&o, CS_REC_CALLS, p.buf, p.len);
	}

	/* snapshot 1 complete in two parts; snapshot 2 missing its second part */
	for (uint64_t seq = 1; seq <= 2; seq++) {
		for (uint64_t part = 0; part < (seq == 1 ? 2 : 1); part++) {
			cs_out_init(&p, payload, sizeof payload);
			struct cs_heap_head hh = {.time_us = 2000 * seq, .seq = seq, .part = part, .parts = 2,
						  .pause_us = 800, .objects = 110, .bytes = 3520, .types = 2,
						  .roots = {5, 0, 3, 1}};
			cs_heap_head_encode(&p, &hh);
			struct cs_type_count t = {0, part ? S("App.Node") : S("System.String"), part ? 100 : 10,
						  part ? 3200 : 320};
			cs_heap_entry_encode(&p, &t);
			put_record(&o, CS_REC_HEAP, p.buf, p.len);
		}
	}

	cs_out_init(&p, payload, sizeof payload);
	struct cs_allocs_head ah = {3000, 4, 1};
	cs_allocs_head_encode(&p, &ah);
	struct cs_type_count a1 = {1, S("App.Node"), 1000, 32000}, a2 = {2, S("System.String"), 50, 2000};
	cs_alloc_entry_encode(&p, &a1);
	cs_alloc_entry_encode(&p, &a2);
	put_record(&o, CS_REC_ALLOCS, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	ah.gcs = 5;
	ah.recording = 0;
	cs_allocs_head_encode(&p, &ah);
	a1.count = 1500;
	cs_alloc_entry_encode(&p, &a1);
	put_record(&o, CS_REC_ALLOCS, p.buf, p.len);
	return o.len;
}

static void memory_records(void)
{
	char session[512], proc[512], err[512];
	char *base = make_process_dir(session, proc, 4343);
	uint8_t buf[16384];
	write_segment(proc, 1, buf, build_memory_log(buf, sizeof buf));

	struct prof_recording s;
	CHECK(prof_recording_open(&s, session, err, sizeof err) == 0);
	prof_recording_update(&s, true);
	struct prof_process *p = s.procs[0];
	CHECK_EQ_U(p->features, CS_FEATURE_INSTRUMENT | CS_FEATURE_ALLOCATIONS);
	CHECK_STR(p->patterns, "App.*");
	prof_compute(p);
	struct prof_function *work = find_function(p, "App.Work"), *add = find_function(p, "App.List`1.Add");
	CHECK(work && work->hooked && work->calls == 200 && work->inclusive_ns == 9000 && work->exclusive_ns == 4000);
	CHECK(add && add->hooked && add->calls == 10 && add->inclusive_ns == 1000);
	CHECK_EQ_U(p->instr.hooked, 3);

	const struct prof_heap *prev;
	const struct prof_heap *h = prof_latest_heap(p, &prev);
	CHECK(h && h->seq == 1 && h->nentries == 2 && prev == NULL); /* snapshot 2 is incomplete */
	const struct prof_type_count *node = prof_heap_find(h, "App.Node");
	CHECK(node && node->count == 100 && node->bytes == 3200);
	CHECK_EQ_U(p->allocs.gcs, 5);
	CHECK(!p->allocs.recording);
	CHECK(p->allocs.ntypes > 2 && p->allocs.types[1].count == 1500 && p->allocs.types[2].count == 50);

	char *json = capture(&s, EXPORT_JSON);
	CHECK(strstr(json, "\"name\":\"App.Work\",\"module\":\"app.dll\",\"self\":0,\"total\":0,\"self_cpu\":0,"
			   "\"total_cpu\":0,\"self_wall\":0,\"total_wall\":0,\"calls\":200,"
			   "\"inclusive_ns\":9000,\"exclusive_ns\":4000}") != NULL);
	CHECK(strstr(json, "\"instrumentation\":{\"patterns\":[\"App.*\"],\"recording\":true,\"hooked\":3,") != NULL);
	CHECK(strstr(json, "\"heap\":[{\"type\":\"App.Node\",\"count\":100,\"bytes\":3200,\"retained\":null},"
			   "{\"type\":\"System.String\",\"count\":10,\"bytes\":320,\"retained\":null}]") != NULL);
	CHECK(strstr(json, "\"complete\":false") != NULL);
	CHECK(strstr(json, "\"roots\":{\"stack\":5,\"finalizer\":0,\"handle\":3,\"other\":1}") != NULL);
	CHECK(strstr(json, "\"allocations\":[{\"type\":\"App.Node\",\"count\":1500,\"bytes\":32000},") != NULL);
	CHECK(strstr(json, "\"allocations_recording\":false") != NULL);
	CHECK(strstr(json, ",\"awaits\":null,\"awaits_snapshots\":[],") != NULL);
	free(json);
	char *text = capture(&s, EXPORT_TEXT);
	CHECK(strstr(text, "instrumented functions: 3 hooked of 500 compiled") != NULL);
	CHECK(strstr(text, "heap snapshot 1 at") != NULL);
	CHECK(strstr(text, "allocations by type (5 GCs) (recording paused)") != NULL);
	CHECK(strstr(text, "awaits snapshot") == NULL);
	free(text);
	struct export_options awaits = {.format = EXPORT_TEXT, .awaits = true};
	text = capture_options(&s, &awaits);
	CHECK(strstr(text, "\n  no awaits snapshot (take one with: clrscope dial DIR snapshot=awaits, or A in the UI)\n") !=
	      NULL);
	free(text);
	prof_recording_free(&s);
	remove_tree(base);
}

/* What the profiler cost: two STATUS records a second apart, the agent's
 * threads and its handler at 40 ms and then 80 ms in all... */
static void agent_cost(void)
{
	char session[512], proc[512], err[512];
	char *base = make_process_dir(session, proc, 4444);
	uint8_t buf[4096], payload[512];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	put_hello(&o, 4444, 1000);
	struct cs_status first = {.time_us = 1000000, .sampler_cpu_ns = 30000000, .writer_cpu_ns = 5000000,
				  .handler_cpu_ns = 5000000};
	struct cs_status second = {.time_us = 2000000, .sampler_cpu_ns = 60000000, .writer_cpu_ns = 10000000,
				   .handler_cpu_ns = 10000000, .unwind_ns = 20000000, .survey_ns = 10000000,
				   .signal_ns = 5000000, .record_ns = 5000000, .signals = 800, .signals_waiting = 200,
				   .waiting_read = 300, .kernel_samples = 400, .kernel_lost = 2,
				   .beyond_copy = 7};
	cs_out_init(&p, payload, sizeof payload);
	cs_status_encode(&p, &first);
	put_record(&o, CS_REC_STATUS, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_status_encode(&p, &second);
	put_record(&o, CS_REC_STATUS, p.buf, p.len);
	write_segment(proc, 1, buf, o.len);

	struct prof_recording s;
	CHECK(prof_recording_open(&s, session, err, sizeof err) == 0);
	prof_recording_update(&s, true);
	struct prof_process *pr = s.procs[0];
	/* ... 80 ms over the 2 s: 4 %; over the last second 40 ms: 4 % too, from
	 * the difference of the two records */
	double all = prof_agent_cpu_share(pr, false), recent = prof_agent_cpu_share(pr, true);
	CHECK(all > 0.0399 && all < 0.0401);
	CHECK(recent > 0.0399 && recent < 0.0401);
	pr->status_before.handler_cpu_ns = 0; /* (had the first said 35 ms: 45 ms in the last second) */
	pr->status_before.writer_cpu_ns = 0;
	recent = prof_agent_cpu_share(pr, true);
	CHECK(recent > 0.0499 && recent < 0.0501);
	char *text = capture(&s, EXPORT_TEXT);
	CHECK(strstr(text, "cost: 4.0% of one CPU over the run: the sampler thread 60 ms of CPU, the log writer 10 ms, "
			   "the signal handler in the program's threads 10 ms") != NULL);
	CHECK(strstr(text, "the sampler's time: unwinding 20 ms, reading the threads' clocks 10 ms, signalling 5 ms, "
			   "naming and logging 5 ms, the runtime suspended 0 ms; waking up and the rest 20 ms") != NULL);
	CHECK(strstr(text, "signals: 800 to threads that ran, 200 (25%) of them found their thread waiting and woke "
			   "it") != NULL);
	CHECK(strstr(text, "kernel samples: 400 of running threads, taken by the kernel (no signal); 2 lost (a full "
			   "ring)") != NULL);
	CHECK(strstr(text, "beyond the copy: 7 captures whose stacks went on past what was copied (a kernel sample's "
			   "32 KiB, a signal's 64 KiB): walked exactly instead, or truncated where that could not be") !=
	      NULL);
	CHECK(strstr(text, "read in place: 300 samples of threads that ran and were waiting again as the sampler "
			   "looked, their stacks read where they waited (no signal)") != NULL);
	free(text);
	char *json = capture(&s, EXPORT_JSON);
	CHECK(strstr(json, "\"signals\":800,\"signals_waiting\":200,\"waiting_read\":300,\"kernel_samples\":400,"
			   "\"kernel_lost\":2,\"beyond_copy\":7,") != NULL);
	CHECK(strstr(json, "\"sampler_cpu_ms\":60.0,\"writer_cpu_ms\":10.0,\"handler_cpu_ms\":10.0,\"sampler_ms\":"
			   "{\"unwind\":20.0,\"survey\":10.0,\"signal\":5.0,\"record\":5.0},\"cpu_share\":0.0400}") != NULL);
	free(json);
	prof_recording_free(&s);

	/* an older agent says nothing of its cost */
	struct prof_process old = {.have_status = true, .status = {.time_us = 1000000}};
	CHECK(prof_agent_cpu_share(&old, false) < 0 && prof_agent_cpu_share(&old, true) < 0);
	remove_tree(base);
}

/* The start of a 1 Hz log of process pid with one thread (ref 1) and one
 * stack (id 1: App.Wait). */
static void put_waiting_thread(struct cs_out *o, uint32_t pid)
{
	uint8_t payload[512];
	struct cs_out p;
	put_hello(o, pid, 1);
	cs_out_init(&p, payload, sizeof payload);
	cs_frame_def_encode(&p, &(struct cs_frame_def){16, S("App.Wait"), S("app.dll")});
	put_record(o, CS_REC_FRAMES, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_stack_def_encode(&p, &(struct cs_stack_def){1, 0, 16});
	put_record(o, CS_REC_STACKS, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_thread_encode(&p, &(struct cs_thread){1, 0x101, 5001, S("")});
	put_record(o, CS_REC_THREAD, p.buf, p.len);
}

/* At 1 Hz a run of held samples may be spaced more than a second (ticks
 * come up to four periods apart): read whole.  A log that ended holds as
 * many samples as its last STATUS counts, else the report says how many
 * are missing. */
static void samples_accounted(void)
{
	char session[512], proc[512], err[512];
	char *base = make_process_dir(session, proc, 4545);
	uint8_t buf[2048], payload[512];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	put_waiting_thread(&o, 4545);
	cs_out_init(&p, payload, sizeof payload);
	cs_hold_encode(&p, &(struct cs_hold){1, 1, 1000000, 1700000, 3});
	cs_hold_encode(&p, &(struct cs_hold){1, 1, 6100000, 1000000, 1});
	put_record(&o, CS_REC_HOLDS, p.buf, p.len);
	for (int last = 0; last < 2; last++) {
		size_t at = o.len;
		cs_out_init(&p, payload, sizeof payload);
		cs_status_encode(&p, &(struct cs_status){.time_us = 7000000, .ticks = 5, .samples = last ? 6 : 4});
		put_record(&o, CS_REC_STATUS, p.buf, p.len);
		cs_out_init(&p, payload, sizeof payload);
		cs_message_encode(&p, &(struct cs_message){.time_us = 7000000, .level = CS_END_SHUTDOWN, .text = S("")});
		put_record(&o, CS_REC_END, p.buf, p.len);
		write_segment(proc, 1, buf, o.len);
		struct prof_recording s;
		CHECK(prof_recording_open(&s, session, err, sizeof err) == 0);
		prof_recording_update(&s, true);
		struct prof_process *pr = s.procs[0];
		CHECK_EQ_U(pr->bad_records, 0);
		CHECK_EQ_U(pr->wall_samples, 4);
		char *text = capture(&s, EXPORT_TEXT), *json = capture(&s, EXPORT_JSON);
		if (last) {
			CHECK(strstr(text, "; 2 of the agent's 6 samples missing (dropped or damaged records)") != NULL);
			CHECK(strstr(json, "\"samples\":6,") != NULL);
		} else {
			CHECK(strstr(text, "samples missing") == NULL);
		}
		free(text);
		free(json);
		prof_recording_free(&s);
		o.len = at;
	}
	remove_tree(base);
}

/* Forged runs of held samples, a few seconds apart and each as long as a
 * run may be, chained end to start: every sample is counted, but the chart
 * by second stops a few seconds past the last tick (grown a second at a
 * time to half a year, it took minutes to build). */
static void forged_runs(void)
{
	char session[512], proc[512], err[512];
	char *base = make_process_dir(session, proc, 4646);
	uint8_t buf[8192], payload[4096];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	put_waiting_thread(&o, 4646);
	cs_out_init(&p, payload, sizeof payload); /* one tick at 2 s, with no sample */
	cs_put_varint(&p, 2000000);
	cs_put_varint(&p, 0);
	cs_put_varint(&p, 0);
	put_record(&o, CS_REC_TICKS, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	uint64_t first = 1000000;
	for (int i = 0; i < 60; i++) {
		cs_hold_encode(&p, &(struct cs_hold){1, 1, first, CS_HOLD_MAX_PERIOD_US, CS_HOLD_MAX_COUNT});
		first += (uint64_t)CS_HOLD_MAX_PERIOD_US * CS_HOLD_MAX_COUNT;
	}
	put_record(&o, CS_REC_HOLDS, p.buf, p.len);
	write_segment(proc, 1, buf, o.len);
	struct prof_recording s;
	CHECK(prof_recording_open(&s, session, err, sizeof err) == 0);
	prof_recording_update(&s, true);
	struct prof_process *pr = s.procs[0];
	CHECK_EQ_U(pr->bad_records, 0);
	CHECK_EQ_U(pr->wall_samples, 60ull * CS_HOLD_MAX_COUNT);
	CHECK(pr->nseconds <= 2 + CS_HOLD_MAX_PERIOD_US / 1000000u + 2);
	prof_recording_free(&s);
	remove_tree(base);
}

/* The dials answers: the model keeps the dials each answer holds as
 * fields, and those an older agent's answer gives only as its line; the
 * sampling rate follows them. */
static void dials_answers(void)
{
	char session[512], proc[512], err[512];
	char *base = make_process_dir(session, proc, 4545);
	uint8_t buf[4096], payload[512];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	put_hello(&o, 4545, 100);
	struct cs_dials d = {.sampling = false, .sampler = CS_SAMPLER_KERNEL, .rate_hz = 400,
			     .events = CS_EV_GC | CS_EV_THREADS, .flush_ms = 50, .validate = 10};
	cs_out_init(&p, payload, sizeof payload);
	cs_dials_ack_encode(&p, &(struct cs_dials_ack){1000, 1, CS_DIALS_APPLIED, S("sampling=off rate=400"), S(""),
						       true, d});
	put_record(&o, CS_REC_DIALS, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_dials_ack_encode(&p, &(struct cs_dials_ack){2000, 2, CS_DIALS_APPLIED,
						       S("sampling=on rate=800 events=jit flush_ms=100"), S("")});
	put_record(&o, CS_REC_DIALS, p.buf, p.len);
	write_segment(proc, 1, buf, o.len);

	struct prof_recording s;
	CHECK(prof_recording_open(&s, session, err, sizeof err) == 0);
	prof_recording_update(&s, true);
	struct prof_process *pp = s.procs[0];
	CHECK_EQ_U(pp->ndials, 2);
	if (pp->ndials == 2) {
		const struct cs_dials *a = &pp->dials[0].dials, *b = &pp->dials[1].dials;
		CHECK(!a->sampling && a->sampler == CS_SAMPLER_KERNEL && a->rate_hz == 400 &&
		      a->events == (CS_EV_GC | CS_EV_THREADS) && a->flush_ms == 50 && a->validate == 10 &&
		      a->generation == 1);
		CHECK(b->sampling && b->rate_hz == 800 && b->events == CS_EV_JIT && b->flush_ms == 100 &&
		      b->generation == 2);
		CHECK_STR(pp->dials[0].effective, "sampling=off rate=400");
	}
	CHECK_EQ_U(pp->current_rate_hz, 800);
	prof_recording_free(&s);
	remove_tree(base);
}

/* The reader's labels: a native run at a stack's root is [thread start],
 * whatever its module; between managed frames it is its module's label;
 * the profiler's own code is [clrscope], the JIT's [JIT compilation],
 * each one row (no module).  Threads are named by their managed name,
 * else main (the process's own), else the kernel's.  The achieved rate is
 * the ticks over their time. */
static void labels_and_names(void)
{
	char session[512], proc[512], err[512];
	char *base = make_process_dir(session, proc, 4242);
	uint8_t buf[8192], payload[2048];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	put_hello(&o, 4242, 1000);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_frame_def f[] = {
		{16, S("[native]"), S("libcoreclr.so")}, {17, S("[native]"), S("libc.so.6")},
		{18, S("App.Main"), S("app.dll")},       {19, S("[native]"), S("libc.so.6")},
		{20, S("App.Compare"), S("app.dll")},    {21, S("[native]"), S("libclrscope-agent-0.1.0.so")},
		{22, S("[native]"), S("libclrjit.so")},  {CS_FRAME_JIT, S("[JIT compilation]"), S("")},
	};
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		cs_frame_def_encode(&p, &f[i]);
	put_record(&o, CS_REC_FRAMES, p.buf, p.len);
	/* 1 [coreclr];Main  2 ...;[libc];Compare  3 [libc];Main  4 Main;agent  5 Main;clrjit  6 Main;JIT */
	struct cs_stack_def st[] = {{1, 0, 16}, {2, 1, 18}, {3, 2, 19}, {4, 3, 20}, {5, 0, 17}, {6, 5, 18},
				    {7, 2, 21}, {8, 2, 22}, {9, 2, CS_FRAME_JIT}};
	cs_out_init(&p, payload, sizeof payload);
	for (size_t i = 0; i < sizeof st / sizeof *st; i++)
		cs_stack_def_encode(&p, &st[i]);
	put_record(&o, CS_REC_STACKS, p.buf, p.len);
	struct cs_thread th[] = {{1, 0x101, 4242, S(""), S("dotnet")},
				 {2, 0x102, 4250, S("worker"), S("worker")},
				 {3, 0x103, 4251, S(""), S(".NET TP Worker")},
				 {4, 0x104, 4252, S(""), S("")}};
	for (size_t i = 0; i < sizeof th / sizeof *th; i++) {
		cs_out_init(&p, payload, sizeof payload);
		cs_thread_encode(&p, &th[i]);
		put_record(&o, CS_REC_THREAD, p.buf, p.len);
	}
	/* 101 ticks, 1.25 ms apart: thread 1 in each stack in turn, 2 to 4 once */
	cs_out_init(&p, payload, sizeof payload);
	const uint64_t leaves[] = {4, 6, 7, 8, 9};
	for (int i = 0; i < 101; i++) {
		cs_put_varint(&p, 1250);
		cs_put_varint(&p, 0);
		cs_put_varint(&p, i < 3 ? 2 : 1);
		cs_put_varint(&p, 1);
		cs_put_varint(&p, cs_tick_stack_state(leaves[i % 5], false));
		if (i < 3) {
			cs_put_varint(&p, 2 + (uint64_t)i);
			cs_put_varint(&p, cs_tick_stack_state(2, true));
		}
	}
	put_record(&o, CS_REC_TICKS, p.buf, p.len);
	write_segment(proc, 1, buf, o.len);

	struct prof_recording s;
	CHECK(prof_recording_open(&s, session, err, sizeof err) == 0);
	prof_recording_update(&s, true);
	CHECK_EQ_U(s.nprocs, 1);
	if (s.nprocs != 1)
		return;
	struct prof_process *pr = s.procs[0];
	prof_compute(pr);
	char *folded = capture(&s, EXPORT_COLLAPSED);
	CHECK(strstr(folded, "[thread start];App.Main;[libc.so.6];App.Compare 21\n") != NULL);
	CHECK(strstr(folded, "[thread start];App.Main;[clrscope] 20\n") != NULL);
	CHECK(strstr(folded, "[thread start];App.Main;[JIT compilation] 40\n") != NULL);
	CHECK(strstr(folded, "[native]") == NULL && strstr(folded, "_") == NULL);
	free(folded);
	struct prof_function *start = find_function(pr, "[thread start]"), *jit = find_function(pr, "[JIT compilation]");
	CHECK(start && start->total == 101 && !start->module[0]); /* both roots, one row */
	CHECK(jit && jit->self == 40 && !jit->module[0]);         /* the JIT's code and its pseudo-frame, one row */
	CHECK(!find_function(pr, "[native]"));
	CHECK_STR(pr->threads[1].name, "main");
	CHECK_STR(pr->threads[2].name, "worker");
	CHECK_STR(pr->threads[3].name, ".NET TP Worker");
	CHECK(pr->threads[4].name == NULL);
	/* 101 ticks over 125 ms */
	CHECK(prof_achieved_hz(pr, false) > 799.9 && prof_achieved_hz(pr, false) < 800.1);
	char *text = capture(&s, EXPORT_TEXT);
	CHECK(strstr(text, "1000 Hz requested, 800 achieved\n") != NULL);
	CHECK(strstr(text, "       101  main (4242)\n") != NULL);
	free(text);
	prof_recording_free(&s);
	remove_tree(base);
}

/* Async methods waiting at an await: Outer -> Middle -> Inner, Both ->
 * [WhenAll] -> Inner, Delay alone, and Inner under [await ?]. */
#define NS "App.P+<"
static const char *const outer[] = {NS "OuterAsync>d__1.MoveNext", NS "MiddleAsync>d__2.MoveNext",
				     NS "InnerAsync>d__3.MoveNext"};

static void put_awaits(struct cs_out *o, const struct cs_awaits_head *h, const struct cs_await_group *g, size_t n,
		       size_t cut)
{
	uint8_t payload[512];
	struct cs_out p;
	cs_out_init(&p, payload, sizeof payload);
	cs_awaits_head_encode(&p, h);
	for (size_t i = 0; i < n; i++)
		cs_await_group_encode(&p, &g[i]);
	put_record(o, CS_REC_AWAITS, p.buf, p.len - cut);
}

static size_t build_awaits_log(uint8_t *buf, size_t cap)
{
	struct cs_out o, p;
	uint8_t payload[2048];
	cs_out_init(&o, buf, cap);
	put_hello(&o, 4545, 100);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_frame_def f[] = {
		{16, S(outer[0]), S("app.dll")}, {17, S(outer[1]), S("app.dll")},
		{18, S(outer[2]), S("app.dll")}, {19, S(NS "BothAsync>d__4.MoveNext"), S("app.dll")},
		{20, S(NS "DelayAsync>d__5.MoveNext"), S("app.dll")}, {CS_FRAME_WHEN_ALL, S("[WhenAll]"), S("")},
		{CS_FRAME_AWAIT_UNRESOLVED, S("[await ?]"), S("")},
	};
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		cs_frame_def_encode(&p, &f[i]);
	put_record(&o, CS_REC_FRAMES, p.buf, p.len);
	/* 3 Outer;Middle;Inner  6 Both;[WhenAll];Inner  7 Delay  9 [await ?];Inner */
	struct cs_stack_def st[] = {{1, 0, 16}, {2, 1, 17}, {3, 2, 18}, {4, 0, 19}, {5, 4, CS_FRAME_WHEN_ALL},
				    {6, 5, 18}, {7, 0, 20}, {8, 0, CS_FRAME_AWAIT_UNRESOLVED}, {9, 8, 18}};
	cs_out_init(&p, payload, sizeof payload);
	for (size_t i = 0; i < sizeof st / sizeof *st; i++)
		cs_stack_def_encode(&p, &st[i]);
	put_record(&o, CS_REC_STACKS, p.buf, p.len);

	/* 1: 120 chains, Both's listed in two entries; written twice (the
	 * second, different, is a repeat: ignored) */
	struct cs_await_group g1[] = {{7, 10}, {3, 100}, {6, 4}, {6, 6}};
	put_awaits(&o, &(struct cs_awaits_head){5000, 1, 900, 325, 120, 0, 0, CS_HEAP_WALK_GC}, g1, 4, 0);
	put_awaits(&o, &(struct cs_awaits_head){5000, 1, 900, 1, 1, 0, 0, CS_HEAP_WALK_GC}, g1 + 1, 1, 0);
	/* 3 before 2: the latest is the highest number */
	struct cs_await_group g3[] = {{9, 2}, {3, 50}};
	put_awaits(&o, &(struct cs_awaits_head){9000, 3, 1200, 160, 52, 2, 1, CS_HEAP_WALK_SUSPENDED}, g3, 2, 0);
	struct cs_await_group g2[] = {{7, 1}};
	put_awaits(&o, &(struct cs_awaits_head){7000, 2, 800, 1, 1, 0, 0, CS_HEAP_WALK_GC}, g2, 1, 0);
	/* damage: a stack never defined, a chain counted 0 times, a count cut
	 * short, a head cut short */
	struct cs_await_group bad[] = {{99, 1}, {3, 0}, {3, 300}};
	put_awaits(&o, &(struct cs_awaits_head){10000, 4, 1, 1, 1, 0, 0, 0}, bad, 1, 0);
	put_awaits(&o, &(struct cs_awaits_head){10000, 5, 1, 1, 1, 0, 0, 0}, bad + 1, 1, 0);
	put_awaits(&o, &(struct cs_awaits_head){10000, 6, 1, 1, 300, 0, 0, 0}, bad + 2, 1, 1);
	put_awaits(&o, &(struct cs_awaits_head){10000, 7, 1, 1, 1, 0, 0, 0}, NULL, 0, 10);
	return o.len;
}

static void awaits_snapshots(void)
{
	char session[512], proc[512], err[512];
	char *base = make_process_dir(session, proc, 4545);
	uint8_t buf[8192];
	write_segment(proc, 1, buf, build_awaits_log(buf, sizeof buf));
	struct prof_recording s;
	CHECK(prof_recording_open(&s, session, err, sizeof err) == 0);
	prof_recording_update(&s, true);
	struct prof_process *p = s.procs[0];
	CHECK_EQ_U(p->bad_records, 4);
	CHECK_EQ_U(p->nawaits, 3);
	for (size_t i = 0; i < p->nawaits; i++)
		CHECK_EQ_U(p->awaits[i].seq, i + 1);
	const struct prof_awaits *a = prof_latest_awaits(p);
	CHECK(a && a->seq == 3 && a->chains == 52 && a->unresolved == 2 && a->lost == 1 && a->pause_us == 1200);
	CHECK(a && a->ngroups == 2 && a->groups[0].stack == 3 && a->groups[0].count == 50 && a->groups[1].stack == 9);
	/* biggest first, Both's two entries one group, a tie by stack id */
	const struct prof_awaits *first = &p->awaits[0];
	CHECK_EQ_U(first->ngroups, 3);
	CHECK(first->groups[0].stack == 3 && first->groups[0].count == 100);
	CHECK(first->groups[1].stack == 6 && first->groups[1].count == 10);
	CHECK(first->groups[2].stack == 7 && first->groups[2].count == 10);
	CHECK_EQ_U(first->suspended, 325);

	char *json = capture(&s, EXPORT_JSON);
	CHECK(strstr(json, ",\"awaits\":[{\"stack\":[\"" NS "OuterAsync>d__1.MoveNext\",\"" NS "MiddleAsync>d__2.MoveNext\",\""
			   NS "InnerAsync>d__3.MoveNext\"],\"count\":50},{\"stack\":[\"[await ?]\",\""
			   NS "InnerAsync>d__3.MoveNext\"],\"count\":2}],\"awaits_snapshots\":[{\"seq\":1,") != NULL);
	CHECK(strstr(json, "{\"seq\":1,\"time_ms\":5.000,\"pause_ms\":0.900,\"suspended\":325,\"chains\":120,"
			   "\"unresolved\":0,\"lost\":0,\"walk\":\"gc\",\"groups\":[{\"stack\":[\"" NS
			   "OuterAsync>d__1.MoveNext\",\"" NS "MiddleAsync>d__2.MoveNext\",\"" NS
			   "InnerAsync>d__3.MoveNext\"],\"count\":100},{\"stack\":[\"" NS
			   "BothAsync>d__4.MoveNext\",\"[WhenAll]\",\"" NS "InnerAsync>d__3.MoveNext\"],\"count\":10},"
			   "{\"stack\":[\"" NS "DelayAsync>d__5.MoveNext\"],\"count\":10}]},{\"seq\":2,") != NULL);
	CHECK(strstr(json, "{\"seq\":3,\"time_ms\":9.000,\"pause_ms\":1.200,\"suspended\":160,\"chains\":52,"
			   "\"unresolved\":2,\"lost\":1,\"walk\":\"suspended\",") != NULL);
	CHECK(strstr(json, "\"bad_records\":4,") != NULL);
	free(json);

	struct export_options o = {.format = EXPORT_TEXT, .awaits = true};
	char *text = capture_options(&s, &o);
	CHECK(strstr(text, "  awaits snapshot 3 at 0.01 s: 52 chains pending in 2 groups, 160 async methods suspended, "
			   "2 unresolved, 1 not counted (no room); paused 1.2 ms (every object walked: chains no longer "
			   "reachable count too)\n") != NULL);
	CHECK(strstr(text, "      chains  the chain, outermost method first\n"
			   "          50  " NS "OuterAsync>d__1.MoveNext\n"
			   "              " NS "MiddleAsync>d__2.MoveNext\n"
			   "              " NS "InnerAsync>d__3.MoveNext\n"
			   "           2  [await ?]\n"
			   "              " NS "InnerAsync>d__3.MoveNext\n") != NULL);
	CHECK(strstr(text, "self%") == NULL); /* the chains alone */
	free(text);
	o.top = 1;
	text = capture_options(&s, &o);
	CHECK(strstr(text, "  (1 more groups; --top N shows more)\n") != NULL && strstr(text, "[await ?]") == NULL);
	free(text);
	text = capture(&s, EXPORT_TEXT);
	CHECK(strstr(text, "\n  awaits snapshot 3 at 0.01 s: 52 chains pending in 2 groups,") != NULL);
	CHECK(strstr(text, "  (report --awaits lists the chains)\n") != NULL);
	free(text);
	prof_recording_free(&s);
	remove_tree(base);
}
#undef NS

int main(void)
{
	RUN(aggregates);
	RUN(agent_cost);
	RUN(samples_accounted);
	RUN(forged_runs);
	RUN(line_offsets);
	RUN(cpu_and_wall);
	RUN(memory_records);
	RUN(dials_answers);
	RUN(labels_and_names);
	RUN(awaits_snapshots);
	return CHECK_DONE();
}
