#include "profile/export_memory.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/export_heap.h"
#include "util/json.h"
#include "util/xalloc.h"

void export_json_calls(FILE *f, const struct prof_function *fn)
{
	if (!fn->hooked) {
		fputs(",\"calls\":null,\"inclusive_ns\":null,\"exclusive_ns\":null", f);
		return;
	}
	fprintf(f, ",\"calls\":%" PRIu64 ",\"inclusive_ns\":%" PRIu64 ",\"exclusive_ns\":%" PRIu64, fn->calls,
		fn->inclusive_ns, fn->exclusive_ns);
}

static void json_types(FILE *f, const struct prof_type_count *v, size_t n)
{
	size_t k;
	struct prof_type_count *s = export_sorted_types(v, n, &k);
	fputc('[', f);
	for (size_t i = 0; i < k; i++) {
		fputs(i ? ",{\"type\":" : "{\"type\":", f);
		json_string(f, s[i].type);
		fprintf(f, ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", s[i].count, s[i].bytes);
	}
	fputc(']', f);
	free(s);
}

void export_json_memory(FILE *f, struct prof_process *p)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} features[] = {{CS_FEATURE_INSTRUMENT, "instrument"},
			{CS_FEATURE_ALLOCATIONS, "allocations"},
			{CS_FEATURE_HEAP_SNAPSHOTS, "heap_snapshots"}};
	fputs(",\"features\":[", f);
	for (size_t i = 0, n = 0; i < sizeof features / sizeof *features; i++)
		if (p->features & features[i].bit)
			fprintf(f, "%s\"%s\"", n++ ? "," : "", features[i].name);
	fputc(']', f);
	fputs(",\"instrumentation\":", f);
	if (p->features & CS_FEATURE_INSTRUMENT) {
		fputs("{\"patterns\":[", f);
		const char *at = p->patterns ? p->patterns : "";
		for (int i = 0; *at; i++) {
			const char *nl = strchr(at, '\n');
			size_t len = nl ? (size_t)(nl - at) : strlen(at);
			if (i)
				fputc(',', f);
			json_stringn(f, at, len);
			at += len + (nl ? 1 : 0);
		}
		const struct prof_instrumentation *in = &p->instr;
		fprintf(f, "],\"recording\":%s,\"hooked\":%" PRIu64 ",\"examined\":%" PRIu64 ",\"repaired\":%" PRIu64
			   ",\"too_deep\":%" PRIu64 "}",
			in->records && !in->recording ? "false" : "true", in->hooked, in->examined, in->repaired,
			in->too_deep);
	} else
		fputs("null", f);

	export_json_heap(f, p);
	fputs(",\"allocations\":", f);
	if (p->features & CS_FEATURE_ALLOCATIONS) {
		json_types(f, p->allocs.types, p->allocs.ntypes);
		fprintf(f, ",\"allocations_recording\":%s",
			p->allocs.records && !p->allocs.recording ? "false" : "true");
	} else
		fputs("null", f);
}

static void text_gcs(FILE *f, const struct prof_process *p, size_t top)
{
	if (!p->ngcs)
		return;
	fprintf(f, "\n  garbage collections (%zu%s):\n", p->ngcs, p->ngcs > top ? ", the last ones" : "");
	fprintf(f, "     time s  gen  reason              type        pause ms   took ms    gen0 MiB   gen1 MiB   gen2 MiB    LOH MiB    POH MiB\n");
	size_t from = p->ngcs > top ? p->ngcs - top : 0;
	for (size_t i = from; i < p->ngcs; i++) {
		const struct prof_gc *g = &p->gcs[i];
		fprintf(f, "  %9.3f  %3u  %-18s  %-10s  %9.2f  %8.2f", (double)g->start_us / 1e6, g->generation,
			prof_gc_reason(g), cs_gc_type_name(g->type), (double)g->pause_us / 1000.0,
			(double)g->duration_us / 1000.0);
		for (int k = 0; k < CS_GC_GENERATIONS; k++)
			fprintf(f, "  %9.2f", (double)g->gen_bytes[k] / 1048576.0);
		fputc('\n', f);
	}
}

static int cmp_inclusive(const void *a, const void *b, void *ctx)
{
	const struct prof_function *fns = ctx;
	const struct prof_function *x = &fns[*(const uint32_t *)a], *y = &fns[*(const uint32_t *)b];
	if (x->inclusive_ns != y->inclusive_ns)
		return x->inclusive_ns > y->inclusive_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void text_calls(FILE *f, const struct prof_process *p, size_t top)
{
	if (!(p->features & CS_FEATURE_INSTRUMENT))
		return;
	uint32_t *idx = xmalloc((p->nfunctions ? p->nfunctions : 1) * sizeof *idx);
	size_t n = 0;
	for (size_t i = 0; i < p->nfunctions; i++)
		if (p->functions[i].hooked)
			idx[n++] = (uint32_t)i;
	qsort_r(idx, n, sizeof *idx, cmp_inclusive, p->functions);
	fprintf(f, "\n  instrumented functions: %" PRIu64 " hooked of %" PRIu64 " compiled%s\n", p->instr.hooked,
		p->instr.examined, p->instr.records && !p->instr.recording ? " (recording paused)" : "");
	if (p->instr.repaired || p->instr.too_deep)
		fprintf(f, "  (%" PRIu64 " frames ended without their leave, %" PRIu64 " calls too deep to time)\n",
			p->instr.repaired, p->instr.too_deep);
	fprintf(f, "        calls   inclusive ms   exclusive ms   per call us  function\n");
	for (size_t i = 0; i < n && i < top; i++) {
		const struct prof_function *fn = &p->functions[idx[i]];
		fprintf(f, "  %11" PRIu64 "  %13.3f  %13.3f  %12.3f  %s\n", fn->calls, (double)fn->inclusive_ns / 1e6,
			(double)fn->exclusive_ns / 1e6, fn->calls ? (double)fn->inclusive_ns / 1e3 / (double)fn->calls : 0.0,
			fn->name);
	}
	free(idx);
}

static void text_types(FILE *f, const struct prof_type_count *v, size_t n, size_t top)
{
	size_t k;
	struct prof_type_count *s = export_sorted_types(v, n, &k);
	fprintf(f, "        count          bytes  type\n");
	for (size_t i = 0; i < k && i < top; i++)
		fprintf(f, "  %11" PRIu64 "  %13" PRIu64 "  %s\n", s[i].count, s[i].bytes, s[i].type);
	free(s);
}

void export_text_memory(FILE *f, struct prof_process *p, size_t top)
{
	text_gcs(f, p, top);
	text_calls(f, p, top);
	export_text_heap_table(f, p, top);
	if (p->features & CS_FEATURE_ALLOCATIONS) {
		fprintf(f, "\n  allocations by type (%" PRIu64 " GCs)%s:\n", p->allocs.gcs,
			p->allocs.records && !p->allocs.recording ? " (recording paused)" : "");
		text_types(f, p->allocs.types, p->allocs.ntypes, top);
	}
}
