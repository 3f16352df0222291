#include "profile/export_events.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/xalloc.h"

#define PATH_MAX_FRAMES 4096

static int cmp_count(const void *a, const void *b)
{
	const struct prof_text_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

static struct prof_text_count *messages_sorted(const struct prof_exception_type *t)
{
	struct prof_text_count *m = xmalloc((t->nmessages + 1) * sizeof *m);
	if (t->nmessages)
		memcpy(m, t->messages, t->nmessages * sizeof *m);
	qsort(m, t->nmessages, sizeof *m, cmp_count);
	return m;
}

void export_json_exception_messages(FILE *f, const struct prof_exception_type *t)
{
	struct prof_text_count *m = messages_sorted(t);
	fputs(",\"messages\":[", f);
	for (size_t i = 0; i < t->nmessages; i++) {
		fputs(i ? ",{\"text\":" : "{\"text\":", f);
		json_string(f, m[i].text);
		fprintf(f, ",\"count\":%" PRIu64 "}", m[i].count);
	}
	fprintf(f, "],\"other_messages\":%" PRIu64, t->other_messages);
	free(m);
}

static int cmp_type_bytes(const void *a, const void *b)
{
	const struct prof_type_count *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->type, y->type);
}

static int cmp_wait(const void *a, const void *b)
{
	const struct prof_stack_tally *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

struct prof_stack_tally *export_sites_sorted(const struct prof_stack_tallies *c)
{
	struct prof_stack_tally *s = xmalloc((c->nsites + 1) * sizeof *s);
	if (c->nsites)
		memcpy(s, c->sites, c->nsites * sizeof *s);
	qsort(s, c->nsites, sizeof *s, cmp_wait);
	return s;
}

static void put_total(FILE *f, uint64_t total, bool bytes)
{
	if (bytes)
		fprintf(f, "%" PRIu64, total);
	else
		fprintf(f, "%.3f", (double)total / 1e6);
}

void export_json_stack(FILE *f, const struct prof_process *p, uint32_t stack)
{
	uint32_t *path = xmalloc(PATH_MAX_FRAMES * sizeof *path);
	size_t depth = stack ? prof_stack_path(p, stack, path, PATH_MAX_FRAMES) : 0;
	fputc('[', f);
	for (size_t k = 0; k < depth; k++) {
		if (k)
			fputc(',', f);
		json_string(f, prof_frame_name(p, path[k]));
	}
	fputc(']', f);
	free(path);
}

/* ,"KEY":{"count":N,"UNIT":X,"sites":[...]}: totals in ns shown as ms, or bytes as they are. */
static void json_sites(FILE *f, const struct prof_process *p, const char *key, const struct prof_stack_tallies *c,
		       bool bytes)
{
	const char *unit = bytes ? "bytes" : "wait_ms";

	struct prof_stack_tally *s = export_sites_sorted(c);
	fprintf(f, ",\"%s\":{\"count\":%" PRIu64 ",\"%s\":", key, c->count, unit);
	put_total(f, c->total, bytes);
	fputs(",\"sites\":[", f);
	for (size_t i = 0; i < c->nsites; i++) {
		fputs(i ? ",{\"stack\":" : "{\"stack\":", f);
		export_json_stack(f, p, s[i].stack);
		fprintf(f, ",\"count\":%" PRIu64 ",\"%s\":", s[i].count, unit);
		put_total(f, s[i].total, bytes);
		fputc('}', f);
	}
	fputs("]}", f);
	free(s);
}

void export_json_event_stream(FILE *f, const struct prof_process *p)
{
	json_sites(f, p, "contention", &p->contention, false);
	json_sites(f, p, "waits", &p->waits, false);
	json_sites(f, p, "allocation_samples", &p->alloc_sites, true);
	/* ... with the sampled types, most bytes first */
	struct prof_type_count *types = xmalloc((p->nalloc_types + 1) * sizeof *types);
	if (p->nalloc_types)
		memcpy(types, p->alloc_types, p->nalloc_types * sizeof *types);
	qsort(types, p->nalloc_types, sizeof *types, cmp_type_bytes);
	fputs(",\"allocation_sample_types\":[", f);
	for (size_t i = 0; i < p->nalloc_types; i++) {
		fputs(i ? ",{\"type\":" : "{\"type\":", f);
		json_string(f, types[i].type);
		fprintf(f, ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", types[i].count, types[i].bytes);
	}
	fputc(']', f);
	free(types);
	const struct prof_threadpool *t = &p->pool;
	fprintf(f,
		",\"threadpool\":{\"workers\":%" PRIu64 ",\"workers_max\":%" PRIu64 ",\"started\":%" PRIu64
		",\"stopped\":%" PRIu64 ",\"adjustments\":%" PRIu64 ",\"starvation\":%" PRIu64 "}",
		t->workers, t->workers_max, t->started, t->stopped, t->adjustments, t->starvation);
}

static void text_sites(FILE *f, const struct prof_process *p, const char *what, const struct prof_stack_tallies *c,
		       size_t top)
{
	if (!c->count)
		return;
	fprintf(f, "\n  %s: %" PRIu64 " waits, %.2f ms in all; by waiting stack:\n", what, c->count,
		(double)c->total / 1e6);
	fprintf(f, "     wait ms   count  where (innermost frames)\n");
	struct prof_stack_tally *s = export_sites_sorted(c);
	uint32_t *path = xmalloc(PATH_MAX_FRAMES * sizeof *path);
	for (size_t i = 0; i < c->nsites && i < top; i++) {
		size_t depth = s[i].stack ? prof_stack_path(p, s[i].stack, path, PATH_MAX_FRAMES) : 0;
		fprintf(f, "  %10.2f  %6" PRIu64 "  ", (double)s[i].total / 1e6, s[i].count);
		for (size_t k = 0; k < 3 && k < depth; k++)
			fprintf(f, "%s%s", k ? " <- " : "", prof_frame_name(p, path[depth - 1 - k]));
		fputc('\n', f);
	}
	free(path);
	free(s);
}

void export_text_events(FILE *f, const struct prof_process *p, size_t top)
{
	for (size_t i = 0; i < p->nexception_types; i++) {
		const struct prof_exception_type *t = &p->exception_types[i];
		if (!t->nmessages)
			continue;
		struct prof_text_count *m = messages_sorted(t);
		fprintf(f, "  messages of %s (%zu distinct%s):\n", t->name, t->nmessages,
			t->other_messages ? ", more not kept" : "");
		for (size_t k = 0; k < t->nmessages && k < 3; k++)
			fprintf(f, "    %6" PRIu64 "  %s\n", m[k].count, m[k].text);
		free(m);
	}
	text_sites(f, p, "lock contention", &p->contention, top);
	text_sites(f, p, "blocking waits", &p->waits, top);
	if (p->alloc_sites.count)
		fprintf(f, "\n  sampled allocations: %" PRIu64 " samples standing for %.1f MiB\n", p->alloc_sites.count,
			(double)p->alloc_sites.total / 1048576.0);
	const struct prof_threadpool *t = &p->pool;
	if (t->started || t->adjustments)
		fprintf(f, "\n  thread pool: %" PRIu64 " workers at most, %" PRIu64 " adjustments (%" PRIu64
			   " for starvation)\n",
			t->workers_max, t->adjustments, t->starvation);
}
