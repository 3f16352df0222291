#include "profile/heapsummary.h"

#include <stdlib.h>
#include <string.h>

#include "profile/heapanalysis.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define PATH_TEXT_MAX 4096

static int by_retained(const void *a, const void *b)
{
	const struct heap_row *x = a, *y = b;
	if (x->retained != y->retained)
		return x->retained > y->retained ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void summarise(const struct heap_analysis *a, struct heap_summary *s)
{
	const struct heap_graph *g = &a->g;
	s->seq = g->seq;
	s->objects = a->objects;
	s->bytes = a->bytes;
	s->references = g->references;
	s->roots = g->nroots;
	s->unreported = g->unreported;
	s->external_refs = g->external_refs;
	s->unplaced_roots = g->unplaced_roots;
	s->types = xmalloc((g->ntypes ? g->ntypes : 1) * sizeof *s->types);
	for (uint32_t t = 0; t < g->ntypes; t++) {
		if (!a->types[t].count)
			continue;
		s->types[s->ntypes++] = (struct heap_row){xstrdup(g->type_names[t]), a->types[t].count,
							  a->types[t].bytes, a->types[t].retained};
	}
	qsort(s->types, s->ntypes, sizeof *s->types, by_retained);
	struct ha_path *groups;
	size_t n = ha_paths(a, HG_NO_TYPE, &groups);
	s->paths = xmalloc((n ? n : 1) * sizeof *s->paths);
	char text[PATH_TEXT_MAX];
	for (size_t i = 0; i < n; i++) {
		ha_path_text(a, groups[i].link, text, sizeof text);
		s->paths[s->npaths++] = (struct heap_row){xstrdup(text), groups[i].count, groups[i].bytes,
							  groups[i].retained};
	}
	free(groups);
	struct ha_suspect sus[HEAP_SUSPECTS];
	s->nsuspects = ha_suspects(a, sus, HEAP_SUSPECTS);
	for (size_t i = 0; i < s->nsuspects; i++) {
		ha_path_text(a, a->path[sus[i].node], text, sizeof text);
		s->suspects[i] = (struct heap_suspect){xstrdup(g->type_names[g->type[sus[i].node]]), xstrdup(text),
						       a->retained[sus[i].top], a->retained[sus[i].node]};
	}
}

const struct heap_summary *prof_heap_summary(struct prof_process *p, const struct prof_heap *h, char *err,
					     size_t errlen)
{
	if (h && h->summary)
		return h->summary;
	struct heap_analysis *a = prof_heap_analysis(p, h, err, errlen);
	if (!a)
		return NULL;
	struct heap_summary *s = xcalloc(1, sizeof *s);
	summarise(a, s);
	((struct prof_heap *)h)->summary = s; /* a cache: the snapshot itself is unchanged */
	return s;
}

const struct heap_row *heap_summary_find(const struct heap_row *rows, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

void heap_summary_free(struct heap_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ntypes; i++)
		free(s->types[i].name);
	free(s->types);
	for (size_t i = 0; i < s->npaths; i++)
		free(s->paths[i].name);
	free(s->paths);
	for (size_t i = 0; i < s->nsuspects; i++) {
		free(s->suspects[i].type);
		free(s->suspects[i].path);
	}
	free(s);
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static int by_change(const void *a, const void *b)
{
	const struct heap_change *x = a, *y = b;
	uint64_t dx = distance(x->after.bytes, x->before.bytes), dy = distance(y->after.bytes, y->before.bytes);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	dx = distance(x->after.count, x->before.count), dy = distance(y->after.count, y->before.count);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t heap_changes(const struct heap_row *before, size_t nbefore, const struct heap_row *after, size_t nafter,
		    struct heap_change **out)
{
	struct strmap index;
	strmap_init(&index);
	struct heap_change *v = xmalloc((nbefore + nafter + 1) * sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < nafter; i++) {
		v[n] = (struct heap_change){after[i].name, {0}, after[i]};
		strmap_add(&index, after[i].name, strlen(after[i].name), (uint32_t)n++);
	}
	for (size_t i = 0; i < nbefore; i++) {
		uint32_t at;
		if (strmap_get(&index, before[i].name, strlen(before[i].name), &at)) {
			v[at].before = before[i];
			continue;
		}
		v[n++] = (struct heap_change){before[i].name, before[i], {0}};
	}
	strmap_free(&index);
	qsort(v, n, sizeof *v, by_change);
	*out = v;
	return n;
}

struct grown {
	const char *name;
	uint64_t by;
};

static int by_growth(const void *a, const void *b)
{
	const struct grown *x = a, *y = b;
	if (x->by != y->by)
		return x->by > y->by ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t heap_growing_types(const struct heap_summary *const *s, size_t n, const char ***out)
{
	*out = NULL;
	if (n < 2)
		return 0;
	const struct heap_summary *last = s[n - 1];
	struct grown *g = xmalloc((last->ntypes ? last->ntypes : 1) * sizeof *g);
	size_t k = 0;
	for (size_t t = 0; t < last->ntypes; t++) {
		const char *name = last->types[t].name;
		uint64_t prev = 0, first = 0;
		bool grew = true;
		for (size_t i = 0; i < n && grew; i++) {
			const struct heap_row *r = heap_summary_find(s[i]->types, s[i]->ntypes, name);
			uint64_t c = r ? r->count : 0;
			if (i == 0)
				first = c;
			else if (c <= prev)
				grew = false;
			prev = c;
		}
		if (grew)
			g[k++] = (struct grown){name, prev - first};
	}
	qsort(g, k, sizeof *g, by_growth);
	const char **names = xmalloc((k ? k : 1) * sizeof *names);
	for (size_t i = 0; i < k; i++)
		names[i] = g[i].name;
	free(g);
	*out = names;
	return k;
}
