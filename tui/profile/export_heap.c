#include "profile/export_heap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/heapanalysis.h"
#include "profile/heapsummary.h"
#include "util/json.h"
#include "util/text.h"
#include "util/xalloc.h"

static const char *const root_kinds[CS_ROOT_KINDS] = {"stack", "finalizer", "handle", "other"};

#define PATH_NAMES_MAX 256

/* ---- choosing ---- */

/* A snapshot's entries, most bytes first (the strings are shared). */
static int cmp_bytes(const void *a, const void *b)
{
	const struct prof_type_count *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->type, y->type);
}

struct prof_type_count *export_sorted_types(const struct prof_type_count *v, size_t n, size_t *out_n)
{
	struct prof_type_count *copy = xmalloc((n ? n : 1) * sizeof *copy);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].type)
			copy[k++] = v[i];
	qsort(copy, k, sizeof *copy, cmp_bytes);
	*out_n = k;
	return copy;
}

static struct prof_type_count *sorted_entries(const struct prof_heap *h, size_t *n)
{
	return export_sorted_types(h->entries, h->nentries, n);
}

/* The type called name in a: by its full name, or else by its name
 * without the namespace when only one type has it; HG_NO_TYPE (with why)
 * otherwise. */
static uint32_t find_type(const struct heap_analysis *a, const char *name, char *err, size_t errlen)
{
	uint32_t t = ha_type_named(a, name);
	if (t != HG_NO_TYPE)
		return t;
	uint32_t found = HG_NO_TYPE, matches = 0;
	size_t len = strlen(name);
	for (uint32_t i = 0; i < a->g.ntypes; i++) {
		const char *full = a->g.type_names[i];
		size_t flen = strlen(full);
		if (flen > len && full[flen - len - 1] == '.' && !strcmp(full + flen - len, name)) {
			found = i;
			matches++;
		}
	}
	if (matches == 1)
		return found;
	if (matches > 1)
		text_format(err, errlen, "%u types are called %s: give the full name (report --heap lists them)",
			    matches, name);
	else
		text_format(err, errlen, "no object of type %s in the snapshot", name);
	return HG_NO_TYPE;
}

/* The latest snapshot with an object graph. */
static const struct prof_heap *latest_graph(const struct prof_process *p)
{
	const struct prof_heap **v;
	size_t n = prof_heap_snapshots(p, true, &v);
	const struct prof_heap *h = n ? v[n - 1] : NULL;
	free(v);
	return h;
}

/* ---- JSON ---- */

static void json_u64_or_null(FILE *f, const char *key, bool have, uint64_t v)
{
	if (have)
		fprintf(f, ",\"%s\":%" PRIu64, key, v);
	else
		fprintf(f, ",\"%s\":null", key);
}

/* Entries of h with their retained bytes from s (NULL: none). */
static void json_entries(FILE *f, const struct prof_heap *h, const struct heap_summary *s)
{
	size_t n;
	struct prof_type_count *v = sorted_entries(h, &n);
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{\"type\":" : "{\"type\":", f);
		json_string(f, v[i].type);
		fprintf(f, ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64, v[i].count, v[i].bytes);
		const struct heap_row *r = s ? heap_summary_find(s->types, s->ntypes, v[i].type) : NULL;
		json_u64_or_null(f, "retained", r != NULL, r ? r->retained : 0);
		fputc('}', f);
	}
	fputc(']', f);
	free(v);
}

static void json_snapshot(FILE *f, struct prof_process *p, const struct prof_heap *s)
{
	char err[200];
	const struct heap_summary *sum = prof_heap_has_graph(p, s) ? prof_heap_summary(p, s, err, sizeof err) : NULL;
	fprintf(f, "{\"seq\":%" PRIu64 ",\"time_ms\":%.3f,\"pause_ms\":%.3f,\"objects\":%" PRIu64 ",\"bytes\":%" PRIu64
		   ",\"type_count\":%" PRIu64 ",\"complete\":%s,\"walk\":\"%s\",\"roots\":",
		s->seq, (double)s->time_us / 1000.0, (double)s->pause_us / 1000.0, s->objects, s->bytes, s->types,
		s->parts_seen == s->parts ? "true" : "false",
		s->walk == CS_HEAP_WALK_SUSPENDED ? "suspended"
		: prof_heap_has_graph(p, s)      ? "graph"
						 : "gc");
	if (s->walk == CS_HEAP_WALK_SUSPENDED)
		fputs("null", f);
	else
		for (int k = 0; k < CS_ROOT_KINDS; k++)
			fprintf(f, "%s\"%s\":%" PRIu64 "%s", k ? "," : "{", root_kinds[k], s->roots[k],
				k == CS_ROOT_KINDS - 1 ? "}" : "");
	fputs(",\"graph\":", f);
	if (sum)
		fprintf(f, "{\"references\":%" PRIu64 ",\"roots\":%" PRIu64 ",\"unreported\":%" PRIu64
			   ",\"external_references\":%" PRIu64 ",\"unplaced_roots\":%" PRIu64 "}",
			sum->references, sum->roots, sum->unreported, sum->external_refs, sum->unplaced_roots);
	else
		fputs("null", f);
	if (s->parts_seen == s->parts) {
		fputs(",\"types\":", f);
		json_entries(f, s, sum);
	} else
		fputs(",\"types\":null", f);
	fputc('}', f);
}

static void json_suspects(FILE *f, struct prof_process *p)
{
	const struct prof_heap **v;
	size_t n = prof_heap_snapshots(p, true, &v);
	char err[200];
	const struct heap_summary **sums = xmalloc((n ? n : 1) * sizeof *sums);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if ((sums[k] = prof_heap_summary(p, v[i], err, sizeof err)))
			k++;
	if (!k) {
		fputs(",\"heap_suspects\":null", f);
		free(sums);
		free(v);
		return;
	}
	const struct heap_summary *s = sums[k - 1];
	fprintf(f, ",\"heap_suspects\":{\"seq\":%" PRIu64 ",\"largest\":[", s->seq);
	for (size_t i = 0; i < s->nsuspects; i++) {
		fputs(i ? ",{\"type\":" : "{\"type\":", f);
		json_string(f, s->suspects[i].type);
		fputs(",\"path\":", f);
		json_string(f, s->suspects[i].path);
		fprintf(f, ",\"retained\":%" PRIu64 ",\"held\":%" PRIu64 "}", s->suspects[i].retained,
			s->suspects[i].held);
	}
	fputs("],\"growing_types\":", f);
	const char **names;
	size_t ng = heap_growing_types(sums, k, &names);
	if (k < 2)
		fputs("null", f);
	else {
		fputc('[', f);
		for (size_t i = 0; i < ng; i++) {
			if (i)
				fputc(',', f);
			json_string(f, names[i]);
		}
		fputc(']', f);
	}
	fputc('}', f);
	free(names);
	free(sums);
	free(v);
}

void export_json_heap(FILE *f, struct prof_process *p)
{
	const struct prof_heap *h = prof_latest_heap(p, NULL);
	char err[200];
	fputs(",\"heap\":", f);
	if (h)
		json_entries(f, h, prof_heap_has_graph(p, h) ? prof_heap_summary(p, h, err, sizeof err) : NULL);
	else
		fputs("null", f);
	fputs(",\"heap_snapshots\":[", f);
	for (size_t i = 0; i < p->nheaps; i++) {
		if (i)
			fputc(',', f);
		json_snapshot(f, p, &p->heaps[i]);
	}
	fputc(']', f);
	json_suspects(f, p);
}

static void json_path(FILE *f, const struct heap_analysis *a, uint32_t link)
{
	const char *names[PATH_NAMES_MAX];
	bool repeated[PATH_NAMES_MAX];
	size_t n = ha_path_names(a, link, names, repeated, PATH_NAMES_MAX);
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		if (repeated[i]) {
			char *plus = xmalloc(strlen(names[i]) + 2);
			strcpy(plus, names[i]);
			strcat(plus, "+");
			json_string(f, plus);
			free(plus);
		} else
			json_string(f, names[i]);
	}
	fputc(']', f);
}

void export_json_retention(FILE *f, struct prof_process *p, const char *type)
{
	const struct prof_heap *h = latest_graph(p);
	char err[300] = "";
	struct heap_analysis *a = h ? prof_heap_analysis(p, h, err, sizeof err) : NULL;
	uint32_t t = a ? find_type(a, type, err, sizeof err) : HG_NO_TYPE;
	if (!h)
		text_format(err, sizeof err, "no heap snapshot with an object graph");
	fputs(",\"retention\":{\"type\":", f);
	json_string(f, t != HG_NO_TYPE ? a->g.type_names[t] : type);
	fputs(",\"seq\":", f);
	if (h)
		fprintf(f, "%" PRIu64, h->seq);
	else
		fputs("null", f);
	if (t == HG_NO_TYPE) {
		fputs(",\"paths\":null,\"error\":", f);
		json_string(f, err);
		fputc('}', f);
		return;
	}
	struct ha_path *groups;
	size_t n = ha_paths(a, t, &groups);
	fprintf(f, ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"retained\":%" PRIu64 ",\"paths\":[",
		a->types[t].count, a->types[t].bytes, a->types[t].retained);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{\"path\":" : "{\"path\":", f);
		json_path(f, a, groups[i].link);
		fprintf(f, ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"retained\":%" PRIu64 "}", groups[i].count,
			groups[i].bytes, groups[i].retained);
	}
	fputs("],\"error\":null}", f);
	free(groups);
}

/* ---- text ---- */

static void snapshot_line(FILE *f, struct prof_process *p, const struct prof_heap *h, const struct heap_summary *s)
{
	fprintf(f, "\n  heap snapshot %" PRIu64 " at %.2f s: %" PRIu64 " objects, %.1f MiB, %" PRIu64 " types", h->seq,
		(double)h->time_us / 1e6, h->objects, (double)h->bytes / 1048576.0, h->types);
	if (h->walk == CS_HEAP_WALK_SUSPENDED) {
		fprintf(f, " (every object in the heap, garbage too, walked in a %.1f ms suspension)\n",
			(double)h->pause_us / 1000.0);
		return;
	}
	if (s)
		fprintf(f, ", %" PRIu64 " references", s->references);
	fprintf(f, "; paused %.1f ms for a full collection; roots: %" PRIu64 " stack, %" PRIu64 " finalizer, %" PRIu64
		   " handle, %" PRIu64 " other%s\n",
		(double)h->pause_us / 1000.0, h->roots[CS_ROOT_STACK], h->roots[CS_ROOT_FINALIZER],
		h->roots[CS_ROOT_HANDLE], h->roots[CS_ROOT_OTHER],
		prof_heap_has_graph(p, h) ? "" : " (no object graph: no retained sizes)");
	if (s && (s->unreported || s->unplaced_roots))
		fprintf(f, "  (%" PRIu64 " objects reached from no reported root, frozen ones such as string literals; %" PRIu64
			   " roots of objects outside the walk)\n",
			s->unreported, s->unplaced_roots);
}

void export_text_heap_table(FILE *f, struct prof_process *p, size_t top)
{
	const struct prof_heap *h = prof_latest_heap(p, NULL);
	if (!h)
		return;
	char err[200];
	const struct heap_summary *s = prof_heap_has_graph(p, h) ? prof_heap_summary(p, h, err, sizeof err) : NULL;
	snapshot_line(f, p, h, s);
	size_t n;
	struct prof_type_count *v = sorted_entries(h, &n);
	fprintf(f, "        count          bytes%s  type\n", s ? "       retained" : "");
	for (size_t i = 0; i < n && i < top; i++) {
		fprintf(f, "  %11" PRIu64 "  %13" PRIu64, v[i].count, v[i].bytes);
		const struct heap_row *r = s ? heap_summary_find(s->types, s->ntypes, v[i].type) : NULL;
		if (s)
			fprintf(f, "  %13" PRIu64, r ? r->retained : 0);
		fprintf(f, "  %s\n", v[i].type);
	}
	free(v);
}

static void signed_delta(FILE *f, int width, uint64_t now, uint64_t before)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%s%" PRIu64, now >= before ? "+" : "-", now >= before ? now - before : before - now);
	fprintf(f, "  %*s", width, buf);
}

static void text_changes(FILE *f, const char *what, const struct heap_row *before, size_t nbefore,
			 const struct heap_row *after, size_t nafter, size_t top)
{
	struct heap_change *c;
	size_t n = heap_changes(before, nbefore, after, nafter, &c);
	size_t shown = 0;
	for (size_t i = 0; i < n && shown < top; i++) {
		if (c[i].before.count == c[i].after.count && c[i].before.bytes == c[i].after.bytes)
			continue;
		if (!shown++)
			fprintf(f, "\n  %s that changed most:\n       +count         +bytes      +retained  %s\n", what,
				strcmp(what, "types") ? "path from a root" : "type");
		signed_delta(f, 11, c[i].after.count, c[i].before.count);
		signed_delta(f, 13, c[i].after.bytes, c[i].before.bytes);
		signed_delta(f, 13, c[i].after.retained, c[i].before.retained);
		fprintf(f, "  %s\n", c[i].name);
	}
	if (!shown)
		fprintf(f, "\n  %s: none changed\n", what);
	free(c);
}

void export_text_heap(FILE *f, struct prof_process *p, size_t top)
{
	const struct prof_heap **v;
	size_t n = prof_heap_snapshots(p, false, &v);
	if (!n) {
		fprintf(f, "\n  no heap snapshot (clrscope dial DIR snapshot=heap, or h in the UI, takes one)\n");
		free(v);
		return;
	}
	const struct prof_heap *h = v[n - 1];
	char err[300] = "";
	const struct heap_summary *s = prof_heap_summary(p, h, err, sizeof err);
	snapshot_line(f, p, h, s);
	if (!s) {
		fprintf(f, "  no retained sizes: %s\n", err);
		export_text_heap_table(f, p, top);
		free(v);
		return;
	}
	fprintf(f, "     objects          bytes       retained  type\n");
	for (size_t i = 0; i < s->ntypes && i < top; i++)
		fprintf(f, "  %10" PRIu64 "  %13" PRIu64 "  %13" PRIu64 "  %s\n", s->types[i].count, s->types[i].bytes,
			s->types[i].retained, s->types[i].name);
	fprintf(f, "\n  largest retained subtrees (where they accumulate):\n      retained           held  type, and its path from a root\n");
	for (size_t i = 0; i < s->nsuspects && i < top; i++)
		fprintf(f, "  %12" PRIu64 "  %13" PRIu64 "  %s\n  %27s  %s\n", s->suspects[i].retained, s->suspects[i].held,
			s->suspects[i].type, "", s->suspects[i].path);
	/* the snapshots with graphs, for growth */
	const struct heap_summary **sums = xmalloc(n * sizeof *sums);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (prof_heap_has_graph(p, v[i]) && (sums[k] = prof_heap_summary(p, v[i], err, sizeof err)))
			k++;
	if (k >= 2 && sums[k - 1] == s) {
		const struct heap_summary *b = sums[k - 2];
		fprintf(f, "\n  against snapshot %" PRIu64 ":\n", b->seq);
		text_changes(f, "types", b->types, b->ntypes, s->types, s->ntypes, top);
		text_changes(f, "paths", b->paths, b->npaths, s->paths, s->npaths, top);
		const char **names;
		size_t ng = heap_growing_types(sums, k, &names);
		fprintf(f, "\n  types whose count grew in each of the %zu snapshots: %s", k, ng ? "" : "none\n");
		for (size_t i = 0; i < ng && i < top; i++)
			fprintf(f, "%s%s", names[i], i + 1 < ng && i + 1 < top ? ", " : "\n");
		free(names);
	}
	free(sums);
	free(v);
}

void export_text_retention(FILE *f, struct prof_process *p, const char *type, size_t top)
{
	const struct prof_heap *h = latest_graph(p);
	char err[300] = "";
	struct heap_analysis *a = h ? prof_heap_analysis(p, h, err, sizeof err) : NULL;
	if (!a) {
		fprintf(f, "\n  no paths to %s: %s\n", type, h ? err : "no heap snapshot with an object graph");
		return;
	}
	uint32_t t = find_type(a, type, err, sizeof err);
	if (t == HG_NO_TYPE) {
		fprintf(f, "\n  no paths to %s in heap snapshot %" PRIu64 ": %s\n", type, h->seq, err);
		return;
	}
	const struct ha_type *ty = &a->types[t];
	fprintf(f, "\n  %s in heap snapshot %" PRIu64 ": %" PRIu64 " objects, %" PRIu64 " bytes, retaining %" PRIu64
		   " bytes\n",
		a->g.type_names[t], h->seq, ty->count, ty->bytes, ty->retained);
	struct ha_path *groups;
	size_t n = ha_paths(a, t, &groups);
	fprintf(f, "        count          bytes       retained  path from a root (shortest)\n");
	char text[4096];
	for (size_t i = 0; i < n && i < top; i++) {
		ha_path_text(a, groups[i].link, text, sizeof text);
		fprintf(f, "  %11" PRIu64 "  %13" PRIu64 "  %13" PRIu64 "  %s\n", groups[i].count, groups[i].bytes,
			groups[i].retained, text);
	}
	if (n > top)
		fprintf(f, "  (%zu more paths; --top N shows more)\n", n - top);
	free(groups);
}
