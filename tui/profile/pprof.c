#include "profile/pprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/labels.h"
#include "profile.pb-c.h"
#include "profile/lines.h"
#include "util/gzip.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define PATH_FRAMES 4096

/* The sample values, in the order of Profile.sample_type; the count first,
 * as pprof's conventions ask.  Another kind of time is one more row. */
static const struct {
	enum prof_value value;
	const char *type, *unit;
} sample_types[] = {
	{PROF_VALUE_SAMPLES, "samples", "count"},
	{PROF_VALUE_CPU_NS, "cpu", "nanoseconds"},
	{PROF_VALUE_WALL_NS, "wall", "nanoseconds"},
};
#define NTYPES (sizeof sample_types / sizeof *sample_types)

/* Labels every sample carries (Label.key). */
enum { LABEL_THREAD_NAME, LABEL_THREAD_ID, LABEL_PID, NLABELS };
static const char *const label_keys[NLABELS] = {"thread_name", "thread_id", "pid"};

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__ValueType ValueType;

/* Everything a Profile points to, freed together. */
struct builder {
	struct strmap string_index;
	char **strings;
	size_t nstrings, strings_cap;

	struct strmap function_index; /* name NUL module -> function index */
	Function *functions;
	size_t nfunctions, functions_cap;
	int64_t *function_module; /* by function: its module's string (the file until a line names one) */

	struct u64map location_index; /* function id << 32 | line -> location id */
	uint64_t *location_function;  /* by location id - 1 */
	uint32_t *location_line;      /* 0: not known */
	size_t nlocations, locations_cap;

	Sample *samples;
	size_t nsamples, samples_cap;
	/* the samples' arrays, filled first and pointed to once they stop moving */
	uint64_t *location_ids;
	size_t nlocation_ids, location_ids_cap;
	int64_t *values;
	size_t nvalues, values_cap;
	Label *labels;
	size_t nlabels, labels_cap;
	size_t *sample_locations; /* per sample: where its location ids start */
	size_t sample_locations_cap;

	uint64_t first_ns, last_ns; /* Unix time of the first and last tick */
	uint64_t period_ns;
};

static int64_t string_id(struct builder *b, const char *s, size_t len)
{
	uint32_t id;
	if (strmap_get(&b->string_index, s, len, &id))
		return id;
	id = (uint32_t)b->nstrings;
	if (!strmap_add(&b->string_index, s, len, id)) {
		fprintf(stderr, "clrscope: out of memory\n");
		exit(1);
	}
	xgrow(&b->strings, &b->strings_cap, b->nstrings + 1, sizeof *b->strings);
	b->strings[b->nstrings++] = xstrndup(s, len);
	return id;
}

static int64_t cstring_id(struct builder *b, const char *s)
{
	return string_id(b, s, strlen(s));
}

/* The function of a frame; its file is its module's name until a sample
 * places it in a source file. */
static uint64_t function_id(struct builder *b, const struct prof_process *p, uint32_t frame)
{
	const char *name = cs_label(CS_LABEL_UNKNOWN), *module = "";
	if (frame < p->nframes && p->frames[frame].function != UINT32_MAX) {
		const struct prof_function *f = &p->functions[p->frames[frame].function];
		name = f->name;
		module = f->module ? f->module : "";
	}
	size_t nl = strlen(name), ml = strlen(module);
	char *key = xmalloc(nl + ml + 1);
	memcpy(key, name, nl + 1);
	memcpy(key + nl + 1, module, ml);
	uint32_t index;
	if (!strmap_get(&b->function_index, key, nl + ml + 1, &index)) {
		index = (uint32_t)b->nfunctions;
		if (!strmap_add(&b->function_index, key, nl + ml + 1, index)) {
			fprintf(stderr, "clrscope: out of memory\n");
			exit(1);
		}
		size_t cap = b->functions_cap;
		xgrow(&b->functions, &b->functions_cap, b->nfunctions + 1, sizeof *b->functions);
		xgrow(&b->function_module, &cap, b->nfunctions + 1, sizeof *b->function_module);
		Function *fn = &b->functions[b->nfunctions++];
		perftools__profiles__function__init(fn);
		fn->id = index + 1;
		fn->name = fn->system_name = string_id(b, name, nl);
		fn->filename = b->function_module[index] = string_id(b, module, ml);
	}
	free(key);
	return (uint64_t)index + 1;
}

/* The location of a function at a line (0: not known): one per pair. */
static uint64_t location_id(struct builder *b, uint64_t function, uint32_t line)
{
	uint64_t *v = u64map_counters(&b->location_index, function << 32 | line);
	if (!*v) {
		size_t cap = b->locations_cap;
		xgrow(&b->location_function, &b->locations_cap, b->nlocations + 1, sizeof *b->location_function);
		xgrow(&b->location_line, &cap, b->nlocations + 1, sizeof *b->location_line);
		b->location_function[b->nlocations] = function;
		b->location_line[b->nlocations] = line;
		*v = ++b->nlocations;
	}
	return *v;
}

static void add_label(struct builder *b, int key, int64_t str, int64_t num)
{
	xgrow(&b->labels, &b->labels_cap, b->nlabels + 1, sizeof *b->labels);
	Label *l = &b->labels[b->nlabels++];
	perftools__profiles__label__init(l);
	l->key = cstring_id(b, label_keys[key]);
	l->str = str;
	l->num = num;
}

static void add_process(struct builder *b, const struct prof_process *p, uint32_t *path, uint32_t *ils)
{
	const struct u64map *m = p->thread_stacks;
	if (!m || !m->count)
		return;
	uint64_t start = p->start_unix_ns + p->window_first_us * 1000u;
	uint64_t end = p->start_unix_ns + p->window_last_us * 1000u;
	if (!b->first_ns || start < b->first_ns)
		b->first_ns = start;
	if (end > b->last_ns)
		b->last_ns = end;
	if (!b->period_ns) {
		uint32_t rate = p->current_rate_hz ? p->current_rate_hz : p->rate_hz;
		b->period_ns = rate ? 1000000000u / rate : 0;
	}
	/* each frame id's function, looked up by name once */
	uint64_t *by_frame = xcalloc(p->nframes ? p->nframes : 1, sizeof *by_frame);
	struct prof_lines lines;
	prof_lines_init(&lines, p);
	for (size_t e = 0; e < m->count; e++) {
		uint64_t thread = m->keys[e] >> 32;
		uint32_t stack = (uint32_t)m->keys[e];
		const uint64_t *v = &m->vals[e * m->width];
		if (!v[PROF_VALUE_SAMPLES] && !v[PROF_VALUE_CPU_NS] && !v[PROF_VALUE_WALL_NS])
			continue;
		xgrow(&b->samples, &b->samples_cap, b->nsamples + 1, sizeof *b->samples);
		xgrow(&b->sample_locations, &b->sample_locations_cap, b->nsamples + 1, sizeof *b->sample_locations);
		Sample *s = &b->samples[b->nsamples];
		b->sample_locations[b->nsamples++] = b->nlocation_ids;
		perftools__profiles__sample__init(s);

		size_t depth = prof_stack_path_at(p, stack, path, ils, PATH_FRAMES);
		xgrow(&b->location_ids, &b->location_ids_cap, b->nlocation_ids + depth, sizeof *b->location_ids);
		for (size_t i = depth; i-- > 0;) { /* pprof lists the leaf first */
			uint32_t frame = path[i];
			uint64_t id = frame < p->nframes ? by_frame[frame] : 0;
			if (!id) {
				id = function_id(b, p, frame);
				if (frame < p->nframes)
					by_frame[frame] = id;
			}
			uint32_t file, line = 0;
			if (prof_lines_locate(&lines, frame, ils[i], &file, &line)) {
				Function *fn = &b->functions[id - 1];
				if (fn->filename == b->function_module[id - 1])
					fn->filename = cstring_id(b, lines.files[file]);
			}
			b->location_ids[b->nlocation_ids++] = location_id(b, id, line);
		}
		s->n_location_id = depth;

		xgrow(&b->values, &b->values_cap, b->nvalues + NTYPES, sizeof *b->values);
		for (size_t t = 0; t < NTYPES; t++)
			b->values[b->nvalues++] = (int64_t)v[sample_types[t].value];
		s->n_value = NTYPES;

		const struct prof_thread *th = thread < p->nthreads ? &p->threads[thread] : NULL;
		size_t nlabels = 0;
		if (th && th->name && th->name[0]) {
			add_label(b, LABEL_THREAD_NAME, cstring_id(b, th->name), 0);
			nlabels++;
		}
		if (th && th->os_tid) {
			add_label(b, LABEL_THREAD_ID, 0, th->os_tid);
			nlabels++;
		}
		add_label(b, LABEL_PID, 0, p->pid);
		s->n_label = nlabels + 1;
	}
	free(by_frame);
	prof_lines_free(&lines);
}

static void builder_free(struct builder *b)
{
	for (size_t i = 0; i < b->nstrings; i++)
		free(b->strings[i]);
	free(b->strings);
	strmap_free(&b->string_index);
	strmap_free(&b->function_index);
	free(b->functions);
	free(b->function_module);
	u64map_free(&b->location_index);
	free(b->location_function);
	free(b->location_line);
	free(b->samples);
	free(b->location_ids);
	free(b->values);
	free(b->labels);
	free(b->sample_locations);
}

int pprof_encode(const struct prof_recording *s, uint32_t pid, uint8_t **out, size_t *len, char *err, size_t errlen)
{
	struct builder b;
	memset(&b, 0, sizeof b);
	strmap_init(&b.string_index);
	strmap_init(&b.function_index);
	u64map_init(&b.location_index, 1);
	cstring_id(&b, ""); /* string_table[0] must be "" */

	int processes = 0;
	uint32_t *path = xmalloc(PATH_FRAMES * sizeof *path), *ils = xmalloc(PATH_FRAMES * sizeof *ils);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct prof_process *p = s->procs[i];
		if (pid && p->pid != pid)
			continue;
		if (!p->thread_stacks) {
			snprintf(err, errlen, "the session was read without per-thread counts (a bug: set by_thread)");
			free(path);
			free(ils);
			builder_free(&b);
			return -1;
		}
		add_process(&b, p, path, ils);
		processes++;
	}
	free(path);
	free(ils);

	/* the arrays stopped moving: point into them */
	Sample **samples = xcalloc(b.nsamples ? b.nsamples : 1, sizeof *samples);
	Label **labels = xcalloc(b.nlabels ? b.nlabels : 1, sizeof *labels);
	for (size_t i = 0; i < b.nlabels; i++)
		labels[i] = &b.labels[i];
	for (size_t i = 0, value = 0, label = 0; i < b.nsamples; i++) {
		Sample *sm = &b.samples[i];
		samples[i] = sm;
		/* (a stack not defined yet has no locations, and the array may not exist) */
		sm->location_id = sm->n_location_id ? b.location_ids + b.sample_locations[i] : NULL;
		sm->value = b.values + value;
		value += sm->n_value;
		sm->label = labels + label; /* (every sample has its pid label) */
		label += sm->n_label;
	}
	size_t nloc = b.nlocations ? b.nlocations : 1, nfn = b.nfunctions ? b.nfunctions : 1;
	Location *locations = xcalloc(nloc, sizeof *locations);
	Location **location_ptrs = xcalloc(nloc, sizeof *location_ptrs);
	Line *lines = xcalloc(nloc, sizeof *lines);
	Line **line_ptrs = xcalloc(nloc, sizeof *line_ptrs);
	Function **function_ptrs = xcalloc(nfn, sizeof *function_ptrs);
	for (size_t i = 0; i < b.nlocations; i++) {
		perftools__profiles__line__init(&lines[i]);
		lines[i].function_id = b.location_function[i];
		lines[i].line = b.location_line[i];
		line_ptrs[i] = &lines[i];
		perftools__profiles__location__init(&locations[i]);
		locations[i].id = i + 1;
		locations[i].mapping_id = 1;
		locations[i].n_line = 1;
		locations[i].line = &line_ptrs[i];
		location_ptrs[i] = &locations[i];
	}
	for (size_t i = 0; i < b.nfunctions; i++)
		function_ptrs[i] = &b.functions[i];

	ValueType types[NTYPES], *type_ptrs[NTYPES], period_type;
	for (size_t t = 0; t < NTYPES; t++) {
		perftools__profiles__value_type__init(&types[t]);
		types[t].type = cstring_id(&b, sample_types[t].type);
		types[t].unit = cstring_id(&b, sample_types[t].unit);
		type_ptrs[t] = &types[t];
	}
	perftools__profiles__value_type__init(&period_type);
	period_type.type = cstring_id(&b, "cpu");
	period_type.unit = cstring_id(&b, "nanoseconds");
	int64_t comment = cstring_id(&b, "clrscope " CLRSCOPE_VERSION);
	/* what go tool pprof shows unless told: the time the report asked for */
	int64_t default_type = cstring_id(&b, s->time == PROF_TIME_WALL ? "wall" : "cpu");

	/* One mapping that says the names are final: consumers then do not try
	 * to symbolize addresses (there are none) from a binary. */
	Perftools__Profiles__Mapping mapping, *mapping_ptr = &mapping;
	perftools__profiles__mapping__init(&mapping);
	mapping.id = 1;
	mapping.has_functions = true;

	Profile prof;
	perftools__profiles__profile__init(&prof);
	prof.n_mapping = 1;
	prof.mapping = &mapping_ptr;
	prof.n_sample_type = NTYPES;
	prof.sample_type = type_ptrs;
	prof.n_sample = b.nsamples;
	prof.sample = samples;
	prof.n_location = b.nlocations;
	prof.location = location_ptrs;
	prof.n_function = b.nfunctions;
	prof.function = function_ptrs;
	prof.n_string_table = b.nstrings;
	prof.string_table = b.strings;
	prof.time_nanos = (int64_t)b.first_ns;
	/* the last tick stands for one period too */
	prof.duration_nanos = b.first_ns ? (int64_t)(b.last_ns - b.first_ns + b.period_ns) : 0;
	prof.period_type = &period_type;
	prof.period = (int64_t)b.period_ns;
	prof.n_comment = 1;
	prof.comment = &comment;
	prof.default_sample_type = default_type;

	*len = perftools__profiles__profile__get_packed_size(&prof);
	*out = xmalloc(*len ? *len : 1);
	size_t packed = perftools__profiles__profile__pack(&prof, *out);
	free(samples);
	free(labels);
	free(locations);
	free(location_ptrs);
	free(lines);
	free(line_ptrs);
	free(function_ptrs);
	builder_free(&b);
	if (packed != *len) {
		free(*out);
		*out = NULL;
		snprintf(err, errlen, "the pprof encoder wrote %zu bytes of %zu", packed, *len);
		return -1;
	}
	return processes;
}

int pprof_write(FILE *f, const struct prof_recording *s, uint32_t pid, char *err, size_t errlen)
{
	uint8_t *data;
	size_t len;
	int processes = pprof_encode(s, pid, &data, &len, err, errlen);
	if (processes < 0)
		return -1;
	int rc = gzip_write(f, data, len, err, errlen);
	free(data);
	return rc < 0 ? -1 : processes;
}

int pprof_write_file(const char *path, const struct prof_recording *s, uint32_t pid, char *err, size_t errlen)
{
	size_t n = strlen(path);
	char *tmp = xmalloc(n + 8);
	snprintf(tmp, n + 8, "%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC); /* 0600 */
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a file beside %s: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	char why[512];
	int processes = pprof_write(f, s, pid, why, sizeof why);
	bool flushed = fflush(f) == 0 && fsync(fd) == 0;
	int saved = errno;
	if (fclose(f) != 0 || !flushed) {
		if (processes >= 0)
			snprintf(why, sizeof why, "cannot write: %s", strerror(flushed ? errno : saved));
		processes = -1;
	}
	if (processes >= 0 && rename(tmp, path) != 0) {
		snprintf(why, sizeof why, "cannot rename into place: %s", strerror(errno));
		processes = -1;
	}
	if (processes < 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		unlink(tmp);
	}
	free(tmp);
	return processes;
}
