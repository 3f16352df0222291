#include "check.h"
#include "records.h"

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
			     S("dotnet app.dll --flag"), S("/clrscope.0.4242.0000abcd"), 31};
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
	/* a 1.0 hello ends after the command line: it decodes, with no control */
	struct cs_hello old = h;
	old.control = S("");
	uint8_t buf10[512];
	struct cs_out o10;
	cs_out_init(&o10, buf10, sizeof buf10);
	cs_hello_encode(&o10, &old);
	size_t len10 = o10.len - 2; /* without the empty control string and the events */
	CHECK(cs_hello_decode(buf10, len10, &d) && d.control.len == 0 && d.events == 0);
	/* every other shorter prefix is rejected, never read past */
	for (size_t n = 0; n < o.len; n++)
		if (n != len10)
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

static void status_and_messages(void)
{
	uint8_t buf[256];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	struct cs_status s = {123, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	cs_status_encode(&o, &s);
	struct cs_status d;
	CHECK(cs_status_decode(buf, o.len, &d));
	CHECK(memcmp(&s, &d, sizeof s) == 0);
	CHECK(!cs_status_decode(buf, o.len - 1, &d));

	cs_out_init(&o, buf, sizeof buf);
	struct cs_message m = {77, CS_LEVEL_WARNING, S("disk full")};
	cs_message_encode(&o, &m);
	struct cs_message dm;
	CHECK(cs_message_decode(buf, o.len, &dm) && dm.time_us == 77 && dm.level == CS_LEVEL_WARNING &&
	      str_is(dm.text, "disk full"));
}

int main(void)
{
	RUN(hello_round_trip);
	RUN(lists);
	RUN(samples);
	RUN(status_and_messages);
	return CHECK_DONE();
}
