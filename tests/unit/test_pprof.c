/* The pprof export of a log built here, decoded again with protobuf-c:
 * exact values per thread and stack across a rate change (HELLO at
 * 100 Hz, a dials answer at 1000 Hz), labels, leaf-first locations, the
 * profile's time span, and the counts cleared between rotated files. */
#include <stdlib.h>
#include <sys/stat.h>

#include "check.h"
#include "common/newsession.h"
#include "common/session.h"
#include "profile.pb-c.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "testutil.h"

#define START_NS 1700000000000000000ull

static struct cs_str S(const char *s)
{
	return (struct cs_str){s, strlen(s)};
}

/* count ticks dt_us apart, each with one sample of thread 1 in stack 2
 * and, from every other tick, one of thread 2 in stack 1 */
static void put_ticks(struct cs_out *o, int count, uint64_t first_us, uint64_t dt_us)
{
	uint8_t payload[4096];
	struct cs_out p;
	cs_out_init(&p, payload, sizeof payload);
	for (int i = 0; i < count; i++) {
		cs_put_varint(&p, i == 0 ? first_us : dt_us);
		cs_put_varint(&p, 0);
		cs_put_varint(&p, i % 2 ? 1 : 2);
		cs_put_varint(&p, 1);
		cs_put_varint(&p, 2);
		if (i % 2 == 0) {
			cs_put_varint(&p, 2);
			cs_put_varint(&p, 1);
		}
	}
	put_record(o, CS_REC_SAMPLES, p.buf, p.len);
}

static size_t build_log(uint8_t *buf, size_t cap)
{
	struct cs_out o, p;
	uint8_t payload[4096];
	cs_out_init(&o, buf, cap);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_hello h = {4242, 1, START_NS, CS_LOAD_STARTUP, 100, S("0.1.0"), S("CoreCLR 10.0.0"), S("dotnet app.dll")};
	cs_hello_encode(&p, &h);
	put_record(&o, CS_REC_HELLO, p.buf, p.len);

	cs_out_init(&p, payload, sizeof payload);
	struct cs_frame_def main_fn = {16, S("App.Program.Main"), S("app.dll")};
	struct cs_frame_def burn = {17, S("App.Program.Burn"), S("app.dll")};
	cs_frame_def_encode(&p, &main_fn);
	cs_frame_def_encode(&p, &burn);
	put_record(&o, CS_REC_FRAMES, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_stack_def stacks[] = {{1, 0, 16}, {2, 1, 17}};
	cs_stack_def_encode(&p, &stacks[0]);
	cs_stack_def_encode(&p, &stacks[1]);
	put_record(&o, CS_REC_STACKS, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_thread t1 = {1, 0x10, 4242, S("")}, t2 = {2, 0x20, 4250, S("worker")};
	cs_thread_encode(&p, &t1);
	put_record(&o, CS_REC_THREAD, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_thread_encode(&p, &t2);
	put_record(&o, CS_REC_THREAD, p.buf, p.len);

	put_ticks(&o, 10, 1000, 10000); /* 100 Hz: ticks at 1 ms ... 91 ms */
	cs_out_init(&p, payload, sizeof payload);
	struct cs_dials_ack a = {100000, 2, 0, S("sampling=on sampler=mixed rate=1000 events=all flush_ms=100"), S("")};
	cs_dials_ack_encode(&p, &a);
	put_record(&o, CS_REC_DIALS, p.buf, p.len);
	put_ticks(&o, 20, 200000, 1000); /* 1000 Hz: ticks at 200 ms ... 219 ms */
	return o.len;
}

static const char *str(const Perftools__Profiles__Profile *pr, int64_t i)
{
	return i >= 0 && (size_t)i < pr->n_string_table ? pr->string_table[i] : "(bad index)";
}

static const char *function_name(const Perftools__Profiles__Profile *pr, uint64_t location)
{
	for (size_t i = 0; i < pr->n_location; i++)
		if (pr->location[i]->id == location && pr->location[i]->n_line == 1)
			for (size_t j = 0; j < pr->n_function; j++)
				if (pr->function[j]->id == pr->location[i]->line[0]->function_id)
					return str(pr, pr->function[j]->name);
	return "(missing)";
}

static int64_t label(const Perftools__Profiles__Profile *pr, const Perftools__Profiles__Sample *s, const char *key,
		     const char **text)
{
	for (size_t i = 0; i < s->n_label; i++) {
		if (strcmp(str(pr, s->label[i]->key), key) == 0) {
			if (text)
				*text = str(pr, s->label[i]->str);
			return s->label[i]->num;
		}
	}
	return -1;
}

static Perftools__Profiles__Profile *encode(struct prof_recording *s)
{
	uint8_t *buf;
	size_t len;
	char err[256];
	CHECK(pprof_encode(s, 0, &buf, &len, err, sizeof err) == 1);
	Perftools__Profiles__Profile *pr = perftools__profiles__profile__unpack(NULL, len, buf);
	free(buf);
	return pr;
}

static void values_labels_and_rotation(void)
{
	char *base = make_temp_dir();
	char session[512], proc[512], err[512];
	snprintf(session, sizeof session, "%s/s", base);
	CHECK(cs_session_create(session, "app", "dotnet app.dll", session, sizeof session, err, sizeof err) == 0);
	CHECK(cs_proc_dir_create(session, 4242, proc, sizeof proc, err, sizeof err) == 0);
	uint8_t buf[16384];
	write_segment(proc, 1, buf, build_log(buf, sizeof buf));

	struct prof_recording s;
	CHECK(prof_recording_open(&s, session, err, sizeof err) == 0);
	s.by_thread = true;
	prof_recording_update(&s, true);
	Perftools__Profiles__Profile *pr = encode(&s);
	CHECK(pr != NULL);
	if (!pr)
		return;
	CHECK_EQ_U(pr->n_sample_type, 3);
	CHECK_STR(str(pr, pr->sample_type[0]->type), "samples");
	CHECK_STR(str(pr, pr->sample_type[1]->type), "cpu");
	CHECK_STR(str(pr, pr->sample_type[1]->unit), "nanoseconds");
	CHECK_STR(str(pr, pr->sample_type[2]->type), "wall");
	CHECK_STR(str(pr, pr->default_sample_type), "cpu");
	CHECK_EQ_U(pr->n_sample, 2); /* (thread 1, Main;Burn) and (thread 2, Main) */
	for (size_t i = 0; i < pr->n_sample; i++) {
		const Perftools__Profiles__Sample *sm = pr->sample[i];
		const char *name = NULL;
		CHECK_EQ_U(label(pr, sm, "pid", NULL), 4242);
		if (label(pr, sm, "thread_id", NULL) == 4242) {
			/* every tick: 10 at 10 ms, 20 at 1 ms */
			CHECK_EQ_U(sm->value[0], 30);
			CHECK_EQ_U(sm->value[1], 10 * 10000000ull + 20 * 1000000ull);
			CHECK_EQ_U(sm->value[2], sm->value[1]); /* SAMPLES records: on a CPU */
			CHECK(sm->n_location_id == 2);
			CHECK_STR(function_name(pr, sm->location_id[0]), "App.Program.Burn"); /* leaf first */
			CHECK_STR(function_name(pr, sm->location_id[1]), "App.Program.Main");
			/* the process's own thread, named by nothing else */
			CHECK(label(pr, sm, "thread_name", &name) == 0 && name && strcmp(name, "main") == 0);
		} else {
			CHECK_EQ_U(label(pr, sm, "thread_id", NULL), 4250);
			CHECK(label(pr, sm, "thread_name", &name) == 0 && name && strcmp(name, "worker") == 0);
			/* every other tick: 5 at 10 ms, 10 at 1 ms */
			CHECK_EQ_U(sm->value[0], 15);
			CHECK_EQ_U(sm->value[1], 5 * 10000000ull + 10 * 1000000ull);
			CHECK(sm->n_location_id == 1);
			CHECK_STR(function_name(pr, sm->location_id[0]), "App.Program.Main");
		}
	}
	CHECK_STR(str(pr, pr->function[0]->filename), "app.dll");
	CHECK(pr->n_mapping == 1 && pr->mapping[0]->id == 1 && pr->mapping[0]->has_functions);
	for (size_t i = 0; i < pr->n_location; i++)
		CHECK_EQ_U(pr->location[i]->mapping_id, 1);
	/* from the first tick (1 ms) to the last (219 ms) and one period */
	CHECK_EQ_U(pr->time_nanos, START_NS + 1000000ull);
	CHECK_EQ_U(pr->duration_nanos, 218000000ull + 1000000ull);
	CHECK_EQ_U(pr->period, 1000000);
	perftools__profiles__profile__free_unpacked(pr, NULL);

	/* what a rotated file holds after the last one: nothing new yet */
	prof_thread_stacks_clear(&s);
	pr = encode(&s);
	CHECK(pr && pr->n_sample == 0 && pr->time_nanos == 0);
	if (pr)
		perftools__profiles__profile__free_unpacked(pr, NULL);

	/* written to a file whole, 0600, gzip */
	char path[600];
	snprintf(path, sizeof path, "%s/p.pb.gz", base);
	CHECK(pprof_write_file(path, &s, 0, err, sizeof err) == 1);
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	FILE *f = fopen(path, "rb");
	unsigned char magic[2] = {0, 0};
	CHECK(f && fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b);
	if (f)
		fclose(f);
	prof_recording_free(&s);
	remove_tree(base);
}

int main(void)
{
	RUN(values_labels_and_rotation);
	return CHECK_DONE();
}
