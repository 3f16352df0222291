/* Instrumentation totals, heap snapshots and allocation counts: the records
 * of the memory and instrumentation views, folded into the model. */
#include <stdlib.h>
#include <string.h>

#include "profile/fold.h"
#include "profile/heapanalysis.h"
#include "profile/heapsummary.h"
#include "profile/profile.h"
#include "util/text.h"
#include "util/xalloc.h"

void fold_calls(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_in in;
	cs_in_init(&in, rec->payload, rec->len);
	struct cs_calls_head h;
	if (!cs_calls_head_decode(&in, &h)) {
		p->bad_records++;
		return;
	}
	fold_note_time(p, h.time_us);
	/* entries are totals since the start (a long list spans several
	 * records); a frame listed twice in one record (the runtime mapped a
	 * function twice) adds up within it */
	uint32_t record = ++p->instr.records;
	p->instr.time_us = h.time_us;
	p->instr.recording = h.recording;
	p->instr.hooked = h.hooked;
	p->instr.examined = h.examined;
	p->instr.repaired = h.repaired;
	p->instr.too_deep = h.too_deep;
	struct cs_call_entry e;
	while (cs_next_call_entry(&in, &e)) {
		struct prof_frame *f = fold_id_ok(p, e.frame) ? fold_frame(p, e.frame) : NULL;
		if (!f) {
			p->bad_records++;
			return;
		}
		if (f->calls_record != record) {
			f->calls_record = record;
			f->calls = f->inclusive_ns = f->exclusive_ns = 0;
		}
		f->calls += e.calls;
		f->inclusive_ns += e.inclusive_ns;
		f->exclusive_ns += e.exclusive_ns;
	}
	if (in.bad)
		p->bad_records++;
}

static struct prof_heap *heap_of(struct prof_process *p, const struct cs_heap_head *h)
{
	for (size_t i = p->nheaps; i-- > 0;)
		if (p->heaps[i].seq == h->seq)
			return &p->heaps[i];
	xgrow(&p->heaps, &p->heaps_cap, p->nheaps + 1, sizeof *p->heaps);
	struct prof_heap *s = &p->heaps[p->nheaps++];
	*s = (struct prof_heap){
		.seq = h->seq, .time_us = h->time_us, .pause_us = h->pause_us, .objects = h->objects,
		.bytes = h->bytes, .types = h->types, .parts = h->parts, .walk = h->walk,
	};
	memcpy(s->roots, h->roots, sizeof s->roots);
	return s;
}

void fold_heap(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_in in;
	cs_in_init(&in, rec->payload, rec->len);
	struct cs_heap_head h;
	if (!cs_heap_head_decode(&in, &h) || !fold_id_ok(p, h.parts)) {
		p->bad_records++;
		return;
	}
	fold_note_time(p, h.time_us);
	struct prof_heap *s = heap_of(p, &h);
	if (s->parts_seen >= s->parts)
		return; /* a repeated part */
	s->parts_seen++;
	struct cs_type_count e;
	while (cs_next_heap_entry(&in, &e)) {
		xgrow(&s->entries, &s->entries_cap, s->nentries + 1, sizeof *s->entries);
		s->entries[s->nentries++] =
			(struct prof_type_count){text_sanitize(xstrndup(e.type.p, e.type.len)), e.count, e.bytes};
	}
	if (in.bad)
		p->bad_records++;
}

void fold_heap_graph(struct prof_process *p, const struct cs_record *rec)
{
	if (!hg_store_add(&p->graphs, rec))
		p->bad_records++;
}

void fold_allocs(struct prof_process *p, const struct cs_record *rec)
{
	struct cs_in in;
	cs_in_init(&in, rec->payload, rec->len);
	struct cs_allocs_head h;
	if (!cs_allocs_head_decode(&in, &h)) {
		p->bad_records++;
		return;
	}
	fold_note_time(p, h.time_us);
	struct prof_allocations *a = &p->allocs;
	a->records++;
	a->time_us = h.time_us;
	a->gcs = h.gcs;
	a->recording = h.recording;
	struct cs_type_count e;
	while (cs_next_alloc_entry(&in, &e)) {
		if (e.type_id == 0 || !fold_id_ok(p, e.type_id)) {
			p->bad_records++;
			return;
		}
		size_t cap = a->ntypes;
		xgrow(&a->types, &cap, e.type_id + 1, sizeof *a->types);
		for (size_t i = a->ntypes; i < cap; i++)
			a->types[i] = (struct prof_type_count){NULL, 0, 0};
		a->ntypes = cap;
		struct prof_type_count *t = &a->types[e.type_id];
		if (!t->type || strlen(t->type) != e.type.len || memcmp(t->type, e.type.p, e.type.len)) {
			free(t->type); /* (a masked name is made again each time: rare, and still right) */
			t->type = text_sanitize(xstrndup(e.type.p, e.type.len)); /* the program's to choose */
		}
		t->count = e.count;
		t->bytes = e.bytes;
	}
	if (in.bad)
		p->bad_records++;
}

const struct prof_heap *prof_latest_heap(const struct prof_process *p, const struct prof_heap **previous)
{
	const struct prof_heap *latest = NULL;
	if (previous)
		*previous = NULL;
	for (size_t i = 0; i < p->nheaps; i++) {
		const struct prof_heap *h = &p->heaps[i];
		if (h->parts_seen != h->parts)
			continue;
		if (!latest || h->seq > latest->seq) {
			if (previous)
				*previous = latest;
			latest = h;
		} else if (previous && (!*previous || h->seq > (*previous)->seq))
			*previous = h;
	}
	return latest;
}

const struct prof_type_count *prof_heap_find(const struct prof_heap *h, const char *type)
{
	for (size_t i = 0; h && i < h->nentries; i++)
		if (!strcmp(h->entries[i].type, type))
			return &h->entries[i];
	return NULL;
}

bool prof_heap_has_graph(const struct prof_process *p, const struct prof_heap *h)
{
	return h && hg_records_whole(hg_store_find(&p->graphs, h->seq));
}

struct heap_analysis *prof_heap_analysis(struct prof_process *p, const struct prof_heap *h, char *err, size_t errlen)
{
	if (p->analysis && h && p->analysis_seq == h->seq)
		return p->analysis;
	if (!prof_heap_has_graph(p, h)) {
		text_format(err, errlen, "%s", !h ? "no heap snapshot"
						  : hg_store_find(&p->graphs, h->seq)
						  ? "its object graph is incomplete (records were lost)"
						  : "it has no object graph (a walk that counts objects only)");
		return NULL;
	}
	if (p->analysis)
		ha_free(p->analysis);
	else
		p->analysis = xmalloc(sizeof *p->analysis);
	if (ha_analyse(hg_store_find(&p->graphs, h->seq), p->analysis, err, errlen) < 0) {
		free(p->analysis);
		p->analysis = NULL;
		return NULL;
	}
	p->analysis_seq = h->seq;
	return p->analysis;
}

size_t prof_heap_snapshots(const struct prof_process *p, bool graphs, const struct prof_heap ***out)
{
	const struct prof_heap **v = xmalloc((p->nheaps ? p->nheaps : 1) * sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < p->nheaps; i++) {
		const struct prof_heap *h = &p->heaps[i];
		if (h->parts_seen == h->parts && (!graphs || prof_heap_has_graph(p, h)))
			v[n++] = h;
	}
	for (size_t i = 1; i < n; i++) /* by seq (they arrive in order; a repeat may not) */
		for (size_t k = i; k > 0 && v[k - 1]->seq > v[k]->seq; k--) {
			const struct prof_heap *t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	*out = v;
	return n;
}

void memory_free(struct prof_process *p)
{
	if (p->analysis) {
		ha_free(p->analysis);
		free(p->analysis);
		p->analysis = NULL;
	}
	hg_store_free(&p->graphs);
	for (size_t i = 0; i < p->nheaps; i++) {
		heap_summary_free(p->heaps[i].summary);
		for (size_t j = 0; j < p->heaps[i].nentries; j++)
			free(p->heaps[i].entries[j].type);
		free(p->heaps[i].entries);
	}
	free(p->heaps);
	for (size_t i = 0; i < p->allocs.ntypes; i++)
		free(p->allocs.types[i].type);
	free(p->allocs.types);
	free(p->patterns);
}
