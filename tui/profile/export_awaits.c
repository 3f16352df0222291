#include "profile/export_awaits.h"

#include <inttypes.h>
#include <stdlib.h>

#include "profile/export_events.h"
#include "util/xalloc.h"

#define PATH_MAX_FRAMES 4096

static const char *walk_name(uint8_t walk)
{
	return walk == CS_HEAP_WALK_SUSPENDED ? "suspended" : "gc";
}

static void json_groups(FILE *f, const struct prof_process *p, const struct prof_awaits *a)
{
	fputc('[', f);
	for (size_t i = 0; i < a->ngroups; i++) {
		fputs(i ? ",{\"stack\":" : "{\"stack\":", f);
		export_json_stack(f, p, a->groups[i].stack);
		fprintf(f, ",\"count\":%" PRIu64 "}", a->groups[i].count);
	}
	fputc(']', f);
}

void export_json_awaits(FILE *f, const struct prof_process *p)
{
	const struct prof_awaits *latest = prof_latest_awaits(p);
	fputs(",\"awaits\":", f);
	if (latest)
		json_groups(f, p, latest);
	else
		fputs("null", f);
	fputs(",\"awaits_snapshots\":[", f);
	for (size_t i = 0; i < p->nawaits; i++) {
		const struct prof_awaits *a = &p->awaits[i];
		fprintf(f, "%s{\"seq\":%" PRIu64 ",\"time_ms\":%.3f,\"pause_ms\":%.3f,\"suspended\":%" PRIu64
			   ",\"chains\":%" PRIu64 ",\"unresolved\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"walk\":\"%s\",\"groups\":",
			i ? "," : "", a->seq, (double)a->time_us / 1000.0, (double)a->pause_us / 1000.0, a->suspended,
			a->chains, a->unresolved, a->lost, walk_name(a->walk));
		json_groups(f, p, a);
		fputc('}', f);
	}
	fputc(']', f);
}

static void snapshot_text(FILE *f, const struct prof_awaits *a)
{
	char text[400];
	prof_awaits_text(a, text, sizeof text);
	fprintf(f, "\n  %s\n", text);
}

void export_text_awaits(FILE *f, const struct prof_process *p, size_t top)
{
	const struct prof_awaits *a = prof_latest_awaits(p);
	if (!a) {
		fprintf(f, "\n  no awaits snapshot (take one with: clrscope dial DIR snapshot=awaits, or A in the UI)\n");
		return;
	}
	snapshot_text(f, a);
	if (!a->ngroups) {
		fprintf(f, "  no async method was waiting\n");
		return;
	}
	fprintf(f, "      chains  the chain, outermost method first\n");
	uint32_t *path = xmalloc(PATH_MAX_FRAMES * sizeof *path);
	for (size_t i = 0; i < a->ngroups && i < top; i++) {
		size_t depth = prof_stack_path(p, a->groups[i].stack, path, PATH_MAX_FRAMES);
		fprintf(f, "  %10" PRIu64, a->groups[i].count);
		if (!depth)
			fputc('\n', f);
		for (size_t k = 0; k < depth; k++)
			fprintf(f, "%*s%s\n", k ? 14 : 2, "", prof_frame_name(p, path[k]));
	}
	if (a->ngroups > top)
		fprintf(f, "  (%zu more groups; --top N shows more)\n", a->ngroups - top);
	free(path);
}

void export_text_awaits_line(FILE *f, const struct prof_process *p)
{
	const struct prof_awaits *a = prof_latest_awaits(p);
	if (!a)
		return;
	snapshot_text(f, a);
	fprintf(f, "  (report --awaits lists the chains)\n");
}
