#include "check.h"
#include "common/records.h"

static struct cs_str S(const char *s)
{
	return (struct cs_str){s, strlen(s)};
}

static bool str_is(struct cs_str s, const char *want)
{
	return s.len == strlen(want) && memcmp(s.p, want, s.len) == 0;
}

static void hello_round_trip(void)
{
	uint8_t buf[512];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	struct cs_hello h = {4242, 7, 1700000000123456789ull, CS_LOAD_STARTUP, 200, S("0.1.0"), S("CoreCLR 10.0.12"),
			     S("dotnet app.dll --flag"), S("/clrscope.0.4242.0000abcd"), 31,
			     CS_FEATURE_INSTRUMENT | CS_FEATURE_ALLOCATIONS, S("App.*\n*.Parse")};
	cs_hello_encode(&o, &h);
	struct cs_hello d;
	CHECK(cs_hello_decode(buf, o.len, &d));
	CHECK_EQ_U(d.pid, 4242);
	CHECK_EQ_U(d.ppid, 7);
	CHECK_EQ_U(d.start_unix_ns, 1700000000123456789ull);
	CHECK_EQ_U(d.load_mode, CS_LOAD_STARTUP);
	CHECK_EQ_U(d.rate_hz, 200);
	CHECK(str_is(d.runtime_version, "CoreCLR 10.0.12"));
	CHECK(str_is(d.command_line, "dotnet app.dll --flag"));
	CHECK(str_is(d.control, "/clrscope.0.4242.0000abcd"));
	CHECK_EQ_U(d.events, 31);
	CHECK_EQ_U(d.features, CS_FEATURE_INSTRUMENT | CS_FEATURE_ALLOCATIONS);
	CHECK(str_is(d.patterns, "App.*\n*.Parse"));
	/* a 1.0 hello ends after the command line: it decodes, with no control */
	struct cs_hello old = h;
	old.control = S("");
	old.events = 0;
	old.features = 0;
	old.patterns = S("");
	uint8_t buf10[512];
	struct cs_out o10;
	cs_out_init(&o10, buf10, sizeof buf10);
	cs_hello_encode(&o10, &old);
	size_t len10 = o10.len - 4; /* without control, events, features and patterns */
	CHECK(cs_hello_decode(buf10, len10, &d) && d.control.len == 0 && d.events == 0 && d.features == 0);
	/* a 1.1 hello ends after the events: no features */
	size_t len11 = o.len - 1 - 1 - strlen("App.*\n*.Parse");
	CHECK(cs_hello_decode(buf, len11, &d) && d.events == 31 && d.features == 0 && d.patterns.len == 0);
	/* every other shorter prefix is rejected, never read past */
	size_t len10_here = len11 - 1 - 1 - strlen("/clrscope.0.4242.0000abcd"); /* h has a control name */
	for (size_t n = 0; n < o.len; n++)
		if (n != len11 && n != len10_here)
			CHECK(!cs_hello_decode(buf, n, &d));
	/* a longer payload (a newer minor version) still decodes */
	buf[o.len] = 0x99;
	CHECK(cs_hello_decode(buf, o.len + 1, &d));
}

static void lists(void)
{
	uint8_t buf[512];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	struct cs_frame_def f1 = {16, S("Ns.Type.Method"), S("app.dll")}, f2 = {17, S("Ns.Outer+Inner.M"), S("")};
	cs_frame_def_encode(&o, &f1);
	cs_frame_def_encode(&o, &f2);
	struct cs_list l;
	struct cs_frame_def f;
	cs_list_init(&l, buf, o.len);
	CHECK(cs_next_frame_def(&l, &f) && f.id == 16 && str_is(f.name, "Ns.Type.Method") && str_is(f.module, "app.dll"));
	CHECK(cs_next_frame_def(&l, &f) && f.id == 17 && str_is(f.name, "Ns.Outer+Inner.M"));
	CHECK(!cs_next_frame_def(&l, &f));
	CHECK(!cs_list_bad(&l));

	cs_out_init(&o, buf, sizeof buf);
	struct cs_stack_def s1 = {1, 0, 16}, s2 = {2, 1, 17};
	cs_stack_def_encode(&o, &s1);
	cs_stack_def_encode(&o, &s2);
	struct cs_stack_def s;
	cs_list_init(&l, buf, o.len);
	CHECK(cs_next_stack_def(&l, &s) && s.id == 1 && s.parent == 0 && s.frame == 16);
	CHECK(cs_next_stack_def(&l, &s) && s.id == 2 && s.parent == 1 && s.frame == 17);
	CHECK(!cs_next_stack_def(&l, &s));
	/* cut in the middle of an entry: reported bad */
	cs_list_init(&l, buf, o.len - 1);
	CHECK(cs_next_stack_def(&l, &s));
	CHECK(!cs_next_stack_def(&l, &s));
	CHECK(cs_list_bad(&l));
}

/* FRAME_CODE and STACK_IL: the lists for source lines. */
static void line_lists(void)
{
	uint8_t buf[512];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	struct cs_code_path p1 = {1, S("/app/app.dll")}, p2 = {2, S("/app/lib.dll")};
	cs_code_path_encode(&o, &p1);
	cs_code_path_encode(&o, &p2);
	struct cs_list l;
	struct cs_code_path cp;
	cs_list_init(&l, buf, o.len);
	CHECK(cs_next_code_path(&l, &cp) && cp.ref == 1 && str_is(cp.path, "/app/app.dll"));
	CHECK(cs_next_code_path(&l, &cp) && cp.ref == 2 && str_is(cp.path, "/app/lib.dll"));
	CHECK(!cs_next_code_path(&l, &cp) && !cs_list_bad(&l));

	cs_out_init(&o, buf, sizeof buf);
	struct cs_frame_code c1 = {16, 0x06000002, 1}, c2 = {300, 0x06000010, 2};
	cs_frame_code_encode(&o, &c1);
	cs_frame_code_encode(&o, &c2);
	struct cs_frame_code c;
	cs_list_init(&l, buf, o.len);
	CHECK(cs_next_frame_code(&l, &c) && c.frame == 16 && c.token == 0x06000002 && c.path_ref == 1);
	CHECK(cs_next_frame_code(&l, &c) && c.frame == 300 && c.token == 0x06000010 && c.path_ref == 2);
	CHECK(!cs_next_frame_code(&l, &c) && !cs_list_bad(&l));

	cs_out_init(&o, buf, sizeof buf);
	struct cs_stack_il i1 = {2, 0}, i2 = {3, 17}, i3 = {4, CS_IL_EPILOG};
	cs_stack_il_encode(&o, &i1);
	cs_stack_il_encode(&o, &i2);
	cs_stack_il_encode(&o, &i3);
	struct cs_stack_il si;
	cs_list_init(&l, buf, o.len);
	CHECK(cs_next_stack_il(&l, &si) && si.stack == 2 && si.il_offset == 0);
	CHECK(cs_next_stack_il(&l, &si) && si.stack == 3 && si.il_offset == 17);
	CHECK(cs_next_stack_il(&l, &si) && si.stack == 4 && si.il_offset == CS_IL_EPILOG);
	CHECK(!cs_next_stack_il(&l, &si) && !cs_list_bad(&l));
	/* an offset or token past 32 bits is damage */
	cs_out_init(&o, buf, sizeof buf);
	cs_put_varint(&o, 5);
	cs_put_varint(&o, 1ull << 33);
	cs_list_init(&l, buf, o.len);
	CHECK(!cs_next_stack_il(&l, &si) && cs_list_bad(&l));
	cs_list_init(&l, buf, o.len - 1);
	CHECK(!cs_next_stack_il(&l, &si) && cs_list_bad(&l));
}

static void samples(void)
{
	uint8_t buf[256];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	/* tick at 1000 us with 2 samples, tick at 1005 us with 1, tick at 1010 with 0 */
	cs_put_varint(&o, 1000), cs_put_varint(&o, 42000), cs_put_varint(&o, 2);
	cs_put_varint(&o, 1), cs_put_varint(&o, 5), cs_put_varint(&o, 2), cs_put_varint(&o, 6);
	cs_put_varint(&o, 5), cs_put_varint(&o, 30000), cs_put_varint(&o, 1);
	cs_put_varint(&o, 1), cs_put_varint(&o, 7);
	cs_put_varint(&o, 5), cs_put_varint(&o, 1000), cs_put_varint(&o, 0);
	struct cs_list l;
	struct cs_tick t;
	uint64_t th, st;
	cs_list_init(&l, buf, o.len);
	CHECK(cs_next_tick(&l, &t) && t.time_us == 1000 && t.suspend_ns == 42000 && t.count == 2);
	CHECK(cs_next_sample(&l, &th, &st) && th == 1 && st == 5);
	/* the second sample is skipped by asking for the next tick */
	CHECK(cs_next_tick(&l, &t) && t.time_us == 1005 && t.count == 1);
	CHECK(cs_next_sample(&l, &th, &st) && th == 1 && st == 7);
	CHECK(!cs_next_sample(&l, &th, &st));
	CHECK(cs_next_tick(&l, &t) && t.time_us == 1010 && t.count == 0);
	CHECK(!cs_next_tick(&l, &t));
	CHECK(!cs_list_bad(&l));

	/* an absurd count is caught before it is trusted */
	cs_out_init(&o, buf, sizeof buf);
	cs_put_varint(&o, 1), cs_put_varint(&o, 1), cs_put_varint(&o, 1000000);
	cs_list_init(&l, buf, o.len);
	CHECK(!cs_next_tick(&l, &t));
	CHECK(cs_list_bad(&l));
}

static void holds(void)
{
	uint8_t buf[256];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	struct cs_hold a = {3, 77, 1000000, 1000, 50}, b = {4, 1, 2000, 10000, CS_HOLD_MAX_COUNT};
	/* at 1 Hz, ticks at random gaps of up to four periods: a mean spacing over a second */
	struct cs_hold slow = {5, 2, 3000000, 1700000, 2}, slowest = {6, 2, 3000000, CS_HOLD_MAX_PERIOD_US, 2};
	cs_hold_encode(&o, &a);
	cs_hold_encode(&o, &b);
	cs_hold_encode(&o, &slow);
	cs_hold_encode(&o, &slowest);
	struct cs_list l;
	struct cs_hold h;
	cs_list_init(&l, buf, o.len);
	CHECK(cs_next_hold(&l, &h) && memcmp(&h, &a, sizeof h) == 0);
	CHECK(cs_next_hold(&l, &h) && memcmp(&h, &b, sizeof h) == 0);
	CHECK(cs_next_hold(&l, &h) && memcmp(&h, &slow, sizeof h) == 0);
	CHECK(cs_next_hold(&l, &h) && memcmp(&h, &slowest, sizeof h) == 0);
	CHECK(!cs_next_hold(&l, &h) && !cs_list_bad(&l));
	/* an empty run, one longer than the agent writes, no period, a
	 * spacing no rate gives: damage */
	static const struct cs_hold bad[] = {{1, 1, 0, 1000, 0},
					     {1, 1, 0, 1000, CS_HOLD_MAX_COUNT + 1},
					     {1, 1, 0, 0, 5},
					     {1, 1, 0, CS_HOLD_MAX_PERIOD_US + 1, 2}};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cs_out_init(&o, buf, sizeof buf);
		cs_hold_encode(&o, &bad[i]);
		cs_list_init(&l, buf, o.len);
		CHECK(!cs_next_hold(&l, &h) && cs_list_bad(&l));
	}
	/* cut short */
	cs_out_init(&o, buf, sizeof buf);
	cs_hold_encode(&o, &a);
	cs_list_init(&l, buf, o.len - 1);
	CHECK(!cs_next_hold(&l, &h) && cs_list_bad(&l));
}

/* CPU_OWED entries round trip; none and more than the agent's credit can
 * hold are damage. */
static void cpu_owed(void)
{
	uint8_t buf[256];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	struct cs_cpu_owed a = {3, 77, 1000000, 1}, b = {4, 12, 1000999, CS_CPU_OWED_MAX_COUNT};
	cs_cpu_owed_encode(&o, &a);
	cs_cpu_owed_encode(&o, &b);
	struct cs_list l;
	struct cs_cpu_owed c;
	cs_list_init(&l, buf, o.len);
	CHECK(cs_next_cpu_owed(&l, &c) && memcmp(&c, &a, sizeof c) == 0);
	CHECK(cs_next_cpu_owed(&l, &c) && memcmp(&c, &b, sizeof c) == 0);
	CHECK(!cs_next_cpu_owed(&l, &c) && !cs_list_bad(&l));
	static const struct cs_cpu_owed bad[] = {{1, 1, 0, 0}, {1, 1, 0, CS_CPU_OWED_MAX_COUNT + 1}};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cs_out_init(&o, buf, sizeof buf);
		cs_cpu_owed_encode(&o, &bad[i]);
		cs_list_init(&l, buf, o.len);
		CHECK(!cs_next_cpu_owed(&l, &c) && cs_list_bad(&l));
	}
	/* cut short in its last number */
	cs_out_init(&o, buf, sizeof buf);
	cs_cpu_owed_encode(&o, &b);
	cs_list_init(&l, buf, o.len - 1);
	CHECK(!cs_next_cpu_owed(&l, &c) && cs_list_bad(&l));
}

static void status_and_messages(void)
{
	uint8_t buf[256];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	struct cs_status s = {123, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29};
	cs_status_encode(&o, &s);
	struct cs_status d;
	CHECK(cs_status_decode(buf, o.len, &d));
	CHECK(memcmp(&s, &d, sizeof s) == 0);
	/* older agents' records end before the async stacks' counts, the
	 * captures beyond their copy, the kernel's samples, the waiting
	 * threads read in place,
	 * the signals that found their thread waiting, the cost figures, the
	 * signal counts, the stack checks, or deferred_walks (every value here
	 * is one byte) */
	CHECK(cs_status_decode(buf, o.len - 3, &d) && d.beyond_copy == 26 && d.async_resolved == 0 &&
	      d.async_unresolved == 0 && d.async_ns == 0);
	CHECK(cs_status_decode(buf, o.len - 4, &d) && d.kernel_lost == 25 && d.beyond_copy == 0);
	CHECK(cs_status_decode(buf, o.len - 5, &d) && d.kernel_samples == 24 && d.kernel_lost == 0);
	CHECK(cs_status_decode(buf, o.len - 6, &d) && d.waiting_read == 23 && d.kernel_samples == 0);
	CHECK(cs_status_decode(buf, o.len - 7, &d) && d.signals_waiting == 22 && d.waiting_read == 0);
	CHECK(cs_status_decode(buf, o.len - 8, &d) && d.record_ns == 21 && d.signals_waiting == 0);
	CHECK(cs_status_decode(buf, o.len - 15, &d) && d.parked_kept == 14 && d.sampler_cpu_ns == 0 &&
	      d.record_ns == 0);
	CHECK(cs_status_decode(buf, o.len - 9, &d) && d.signal_ns == 20 && d.record_ns == 0);
	CHECK(cs_status_decode(buf, o.len - 17, &d) && d.stack_mismatches == 12 && d.signals == 0 && d.parked_kept == 0);
	CHECK(cs_status_decode(buf, o.len - 19, &d) && d.deferred_walks == 10 && d.stack_checks == 0 &&
	      d.stack_mismatches == 0);
	CHECK(cs_status_decode(buf, o.len - 20, &d) && d.failed_walks == 9 && d.deferred_walks == 0);
	CHECK(!cs_status_decode(buf, o.len - 21, &d));

	cs_out_init(&o, buf, sizeof buf);
	struct cs_message m = {77, CS_LEVEL_WARNING, S("disk full")};
	cs_message_encode(&o, &m);
	struct cs_message dm;
	CHECK(cs_message_decode(buf, o.len, &dm) && dm.time_us == 77 && dm.level == CS_LEVEL_WARNING &&
	      str_is(dm.text, "disk full"));
}

static void calls_heap_allocs(void)
{
	uint8_t buf[512];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	struct cs_calls_head ch = {1234, 1, 2, 600, 3, 4};
	cs_calls_head_encode(&o, &ch);
	struct cs_call_entry ce = {17, 100000, 5000000, 4000000};
	cs_call_entry_encode(&o, &ce);
	ce.frame = 18;
	cs_call_entry_encode(&o, &ce);
	struct cs_in in;
	cs_in_init(&in, buf, o.len);
	struct cs_calls_head dh;
	CHECK(cs_calls_head_decode(&in, &dh) && dh.time_us == 1234 && dh.recording == 1 && dh.hooked == 2 &&
	      dh.examined == 600 && dh.repaired == 3 && dh.too_deep == 4);
	struct cs_call_entry de;
	CHECK(cs_next_call_entry(&in, &de) && de.frame == 17 && de.calls == 100000 && de.inclusive_ns == 5000000 &&
	      de.exclusive_ns == 4000000);
	CHECK(cs_next_call_entry(&in, &de) && de.frame == 18);
	CHECK(!cs_next_call_entry(&in, &de));
	/* a torn entry is bad, not a short read */
	cs_in_init(&in, buf, o.len - 1);
	CHECK(cs_calls_head_decode(&in, &dh) && cs_next_call_entry(&in, &de) && !cs_next_call_entry(&in, &de) && in.bad);

	cs_out_init(&o, buf, sizeof buf);
	struct cs_heap_head hh = {.time_us = 9, .seq = 2, .part = 1, .parts = 3, .pause_us = 700, .objects = 5000,
				  .bytes = 160000, .types = 40, .roots = {17, 1, 14, 2}};
	cs_heap_head_encode(&o, &hh);
	struct cs_type_count tc = {0, S("App.Retained"), 1234, 39488};
	cs_heap_entry_encode(&o, &tc);
	cs_in_init(&in, buf, o.len);
	struct cs_heap_head dhh;
	CHECK(cs_heap_head_decode(&in, &dhh) && dhh.seq == 2 && dhh.part == 1 && dhh.parts == 3 && dhh.types == 40 &&
	      dhh.roots[CS_ROOT_HANDLE] == 14 && dhh.roots[CS_ROOT_OTHER] == 2);
	struct cs_type_count dt;
	CHECK(cs_next_heap_entry(&in, &dt) && str_is(dt.type, "App.Retained") && dt.count == 1234 && dt.bytes == 39488);
	CHECK(!cs_next_heap_entry(&in, &dt));
	/* a part number past the parts is damage */
	hh.part = 3;
	cs_out_init(&o, buf, sizeof buf);
	cs_heap_head_encode(&o, &hh);
	cs_in_init(&in, buf, o.len);
	CHECK(!cs_heap_head_decode(&in, &dhh));

	cs_out_init(&o, buf, sizeof buf);
	struct cs_allocs_head ah = {55, 3, 0};
	cs_allocs_head_encode(&o, &ah);
	tc.type_id = 7;
	cs_alloc_entry_encode(&o, &tc);
	cs_in_init(&in, buf, o.len);
	struct cs_allocs_head dah;
	CHECK(cs_allocs_head_decode(&in, &dah) && dah.time_us == 55 && dah.gcs == 3 && dah.recording == 0);
	CHECK(cs_next_alloc_entry(&in, &dt) && dt.type_id == 7 && str_is(dt.type, "App.Retained") && dt.count == 1234);
	CHECK(!cs_next_alloc_entry(&in, &dt));
}

static void gc_and_events(void)
{
	uint8_t buf[256];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	struct cs_gc g = {.start_us = 10, .duration_us = 2, .pause_us = 3, .generation = 2, .reason = CS_GC_INDUCED,
			  .ngens = CS_GC_GENERATIONS, .gen_bytes = {1, 2, 3, 4, 5}, .cause = 11, .type = CS_GC_BLOCKING,
			  .promoted_bytes = 4096, .pinned_objects = 7};
	cs_gc_encode(&o, &g);
	struct cs_gc d;
	CHECK(cs_gc_decode(buf, o.len, &d) && d.cause == 11 && d.type == CS_GC_BLOCKING && d.promoted_bytes == 4096 &&
	      d.pinned_objects == 7 && d.gen_bytes[4] == 5);
	CHECK_STR(cs_gc_reason_name(d.reason, d.cause), "induced_compacting");
	CHECK_STR(cs_gc_type_name(d.type), "blocking");
	/* an older agent's record ends after the sizes: reason from the callbacks */
	CHECK(cs_gc_decode(buf, o.len - 5, &d) && d.cause == 0 && d.type == 0 && d.promoted_bytes == 0);
	CHECK_STR(cs_gc_reason_name(d.reason, d.cause), "induced");
	CHECK_STR(cs_gc_reason_name(CS_GC_OTHER, 1), "alloc_small");
	CHECK_STR(cs_gc_reason_name(CS_GC_OTHER, 200), "unknown");

	struct cs_event e = {.time_us = 5, .thread_ref = 2, .id = 9, .text = {"T", 1}, .message = {"boom 1", 6}};
	cs_out_init(&o, buf, sizeof buf);
	cs_event_encode(&o, CS_REC_EXCEPTION, &e);
	struct cs_event de;
	CHECK(cs_event_decode(CS_REC_EXCEPTION, buf, o.len, &de) && de.message.len == 6 &&
	      !memcmp(de.message.p, "boom 1", 6));
	CHECK(cs_event_decode(CS_REC_EXCEPTION, buf, o.len - 7, &de) && de.message.len == 0 && de.text.len == 1);
	e = (struct cs_event){.time_us = 6, .thread_ref = 3, .id = 12, .wait_ns = 25000000};
	cs_out_init(&o, buf, sizeof buf);
	cs_event_encode(&o, CS_REC_CONTENTION, &e);
	CHECK(cs_event_decode(CS_REC_CONTENTION, buf, o.len, &de) && de.thread_ref == 3 && de.id == 12 &&
	      de.wait_ns == 25000000);
	CHECK(!cs_event_decode(CS_REC_CONTENTION, buf, o.len - 1, &de));
	e.kind = 1;
	cs_out_init(&o, buf, sizeof buf);
	cs_event_encode(&o, CS_REC_WAIT, &e);
	CHECK(cs_event_decode(CS_REC_WAIT, buf, o.len, &de) && de.kind == 1 && de.wait_ns == 25000000);
	e = (struct cs_event){.time_us = 7, .kind = CS_POOL_ADJUSTED, .workers = 5, .reason = CS_POOL_STARVATION};
	cs_out_init(&o, buf, sizeof buf);
	cs_event_encode(&o, CS_REC_THREADPOOL, &e);
	CHECK(cs_event_decode(CS_REC_THREADPOOL, buf, o.len, &de) && de.kind == CS_POOL_ADJUSTED && de.workers == 5 &&
	      de.reason == CS_POOL_STARVATION);
	CHECK_STR(cs_pool_reason_name(de.reason), "starvation");
}

int main(void)
{
	RUN(gc_and_events);
	RUN(hello_round_trip);
	RUN(calls_heap_allocs);
	RUN(lists);
	RUN(line_lists);
	RUN(samples);
	RUN(status_and_messages);
	RUN(holds);
	RUN(cpu_owed);
	return CHECK_DONE();
}
