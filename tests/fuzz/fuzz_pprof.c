/* libFuzzer target for the pprof export: whatever session the input makes
 * (as for the reader target, see fuzz_session.h), the Profile it encodes
 * must decode again with protobuf-c into exactly the model's per-thread
 * counts: one sample per thread and stack, leaf first, with the model's
 * function names, values and labels; and its gzip must inflate to the
 * same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_session.h"
#include "profile.pb-c.h"
#include "profile/pprof.h"
#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void mismatch(const char *what)
{
	fprintf(stderr, "pprof round trip: %s\n", what);
	abort();
}

static const char *string_at(const Perftools__Profiles__Profile *pr, int64_t i)
{
	if (i < 0 || (size_t)i >= pr->n_string_table)
		mismatch("a string index outside the table");
	return pr->string_table[i];
}

static const Perftools__Profiles__Function *function_of(const Perftools__Profiles__Profile *pr, uint64_t location)
{
	for (size_t i = 0; i < pr->n_location; i++) {
		if (pr->location[i]->id != location)
			continue;
		if (pr->location[i]->n_line != 1)
			mismatch("a location without exactly one line");
		for (size_t j = 0; j < pr->n_function; j++)
			if (pr->function[j]->id == pr->location[i]->line[0]->function_id)
				return pr->function[j];
		mismatch("a line of no function");
	}
	mismatch("a sample's location is missing");
	return NULL;
}

static int64_t label_num(const Perftools__Profiles__Profile *pr, const Perftools__Profiles__Sample *s, const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (strcmp(string_at(pr, s->label[i]->key), key) == 0)
			return s->label[i]->num;
	return -1;
}

/* Each sample against the model entry it came from, in the same order. */
static void compare(const struct prof_recording *s, const Perftools__Profiles__Profile *pr)
{
	if (pr->n_string_table == 0 || pr->string_table[0][0])
		mismatch("string_table[0] is not \"\"");
	if (pr->n_sample_type != 3 || strcmp(string_at(pr, pr->sample_type[0]->type), "samples") ||
	    strcmp(string_at(pr, pr->sample_type[1]->type), "cpu") ||
	    strcmp(string_at(pr, pr->sample_type[1]->unit), "nanoseconds") ||
	    strcmp(string_at(pr, pr->sample_type[2]->type), "wall") ||
	    strcmp(string_at(pr, pr->default_sample_type), s->time == PROF_TIME_WALL ? "wall" : "cpu"))
		mismatch("the sample types");
	uint32_t path[4096];
	size_t at = 0;
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct prof_process *p = s->procs[i];
		const struct u64map *m = p->thread_stacks;
		for (size_t e = 0; e < m->count; e++) {
			const uint64_t *v = &m->vals[e * m->width];
			if (!v[PROF_VALUE_SAMPLES] && !v[PROF_VALUE_CPU_NS] && !v[PROF_VALUE_WALL_NS])
				continue;
			if (at >= pr->n_sample)
				mismatch("fewer samples than the model has");
			const Perftools__Profiles__Sample *sm = pr->sample[at++];
			if (sm->n_value != 3 || (uint64_t)sm->value[0] != v[PROF_VALUE_SAMPLES] ||
			    (uint64_t)sm->value[1] != v[PROF_VALUE_CPU_NS] || (uint64_t)sm->value[2] != v[PROF_VALUE_WALL_NS])
				mismatch("a sample's values");
			size_t depth = prof_stack_path(p, (uint32_t)m->keys[e], path, 4096);
			if (sm->n_location_id != depth)
				mismatch("a sample's depth");
			for (size_t d = 0; d < depth; d++) {
				const Perftools__Profiles__Function *fn = function_of(pr, sm->location_id[depth - 1 - d]);
				if (strcmp(string_at(pr, fn->name), prof_frame_name(p, path[d])))
					mismatch("a frame's name");
			}
			if (label_num(pr, sm, "pid") != (int64_t)p->pid)
				mismatch("the pid label");
			uint64_t thread = m->keys[e] >> 32;
			if (thread < p->nthreads && p->threads[thread].os_tid &&
			    label_num(pr, sm, "thread_id") != (int64_t)p->threads[thread].os_tid)
				mismatch("the thread_id label");
		}
	}
	if (at != pr->n_sample)
		mismatch("more samples than the model has");
}

static void check_gzip(const struct prof_recording *s, const uint8_t *raw, size_t rawlen)
{
	char *gz = NULL;
	size_t gzlen = 0;
	char err[256];
	FILE *mem = open_memstream(&gz, &gzlen);
	if (!mem || pprof_write(mem, s, 0, err, sizeof err) < 0)
		mismatch("pprof_write failed");
	fclose(mem);
	uint8_t *back = malloc(rawlen + 1);
	z_stream z;
	memset(&z, 0, sizeof z);
	if (!back || inflateInit2(&z, 15 + 16) != Z_OK)
		abort();
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = back;
	z.avail_out = (uInt)rawlen + 1;
	if (inflate(&z, Z_FINISH) != Z_STREAM_END || z.total_out != rawlen || memcmp(back, raw, rawlen))
		mismatch("the gzip does not inflate to the encoded profile");
	inflateEnd(&z);
	free(back);
	free(gz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const char *dir = fuzz_session_write(data[0], data + 1, size - 1);
	struct prof_recording s;
	char err[256];
	if (prof_recording_open(&s, dir, err, sizeof err) != 0)
		abort();
	s.by_thread = true;
	prof_recording_update(&s, false);
	prof_recording_update(&s, true);
	uint8_t *buf;
	size_t len;
	if (pprof_encode(&s, 0, &buf, &len, err, sizeof err) < 0)
		mismatch(err);
	Perftools__Profiles__Profile *pr = perftools__profiles__profile__unpack(NULL, len, buf);
	if (!pr)
		mismatch("protobuf-c cannot decode what the writer encoded");
	compare(&s, pr);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	check_gzip(&s, buf, len);
	free(buf);
	prof_recording_free(&s);
	return 0;
}
