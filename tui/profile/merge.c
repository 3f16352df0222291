#include "profile/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mix64.h"
#include "util/strmap.h"
#include "util/xalloc.h"

/* (parent stack, frame) -> stack, open addressing. */
struct stack_map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, count;
};

static uint32_t *stack_slot(struct stack_map *m, uint64_t key)
{
	if ((m->count + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 1024;
		uint64_t *nk = xcalloc(ncap, sizeof *nk);
		uint32_t *nv = xcalloc(ncap, sizeof *nv);
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = (size_t)cs_mix64(m->keys[i]) & (ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = m->keys[i];
			nv[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = ncap;
	}
	size_t i = (size_t)cs_mix64(key) & (m->cap - 1);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->vals[i] = 0;
		m->count++;
	}
	return &m->vals[i];
}

void prof_merge_free(struct prof_process *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nfunctions; i++) {
		free(m->functions[i].name);
		free(m->functions[i].module);
	}
	for (size_t i = 0; i < m->nthreads; i++)
		free(m->threads[i].name);
	for (size_t i = 0; i < m->nlog; i++)
		free(m->log[i].text);
	if (m->function_index) {
		strmap_free(m->function_index);
		free(m->function_index);
	}
	free(m->functions);
	free(m->frames);
	free(m->stacks);
	free(m->threads);
	free(m->log);
	free(m->per_second);
	free(m->suspend.buckets);
	free(m->command_line);
	free(m->control);
	free(m->dir);
	free(m);
}

static uint32_t merged_function(struct prof_process *m, const struct prof_function *f)
{
	size_t mlen = strlen(f->module), nlen = strlen(f->name);
	char *key = xmalloc(mlen + 1 + nlen);
	memcpy(key, f->module, mlen);
	key[mlen] = 0;
	memcpy(key + mlen + 1, f->name, nlen);
	uint32_t idx;
	if (!strmap_get(m->function_index, key, mlen + 1 + nlen, &idx)) {
		idx = (uint32_t)m->nfunctions;
		xgrow(&m->functions, &m->functions_cap, m->nfunctions + 1, sizeof *m->functions);
		m->functions[m->nfunctions++] = (struct prof_function){xstrdup(f->name), xstrdup(f->module), 0, 0};
		strmap_add(m->function_index, key, mlen + 1 + nlen, idx);
		/* frame idx + 1 stands for function idx */
		size_t cap = m->nframes;
		xgrow(&m->frames, &cap, idx + 2, sizeof *m->frames);
		for (size_t k = m->nframes; k < cap; k++)
			m->frames[k].function = UINT32_MAX;
		m->nframes = cap;
		m->frames[idx + 1].function = idx;
	}
	free(key);
	return idx;
}

struct merge_pass {
	struct prof_process *m;
	const struct prof_process *p;
	struct stack_map *map;
	size_t *nstacks;
};

/* One stack of a source process, re-interned by merged functions. */
static void merge_stack(void *ctx, const uint32_t *functions, size_t depth, uint64_t c)
{
	struct merge_pass *k = ctx;
	struct prof_process *m = k->m;
	uint32_t node = 0;
	for (size_t d = 0; d < depth; d++) {
		uint32_t frame = functions[d] == UINT32_MAX ? 0 : merged_function(m, &k->p->functions[functions[d]]) + 1;
		uint32_t *slot = stack_slot(k->map, ((uint64_t)node << 32) | frame | (1ull << 63));
		if (!*slot) {
			xgrow(&m->stacks, &m->nstacks, *k->nstacks + 1, sizeof *m->stacks);
			m->stacks[*k->nstacks] = (struct prof_stack){node, frame, 0};
			*slot = (uint32_t)(*k->nstacks)++;
		}
		node = *slot;
	}
	if (node)
		m->stacks[node].count += c;
}

static int by_time(const void *a, const void *b)
{
	const struct prof_event *x = a, *y = b;
	return x->time_us < y->time_us ? -1 : x->time_us > y->time_us;
}

struct prof_process *prof_merge(struct prof_recording *s, struct prof_process *old)
{
	prof_merge_free(old);
	struct prof_process *m = xcalloc(1, sizeof *m);
	m->function_index = xcalloc(1, sizeof(struct strmap));
	strmap_init(m->function_index);
	m->dir = xstrdup(s->dir ? s->dir : "");
	m->control = xstrdup("");
	uint64_t start = UINT64_MAX;
	size_t merged = 0;
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i]->have_hello && s->procs[i]->start_unix_ns < start)
			start = s->procs[i]->start_unix_ns;
	struct stack_map map = {0};
	xgrow(&m->stacks, &m->nstacks, 1, sizeof *m->stacks);
	size_t nstacks = 1;
	for (size_t i = 0; i < s->nprocs; i++) {
		struct prof_process *p = s->procs[i];
		if (!p->have_hello)
			continue;
		merged++;
		uint64_t offset_us = (p->start_unix_ns - start) / 1000u;
		struct merge_pass pass = {m, p, &map, &nstacks};
		prof_each_stack(p, merge_stack, &pass);
		m->samples += p->samples;
		m->cpu_samples += p->cpu_samples;
		m->cpu_owed += p->cpu_owed;
		m->wall_samples += p->wall_samples;
		m->time = s->time;
		m->ticks += p->ticks;
		size_t first = (size_t)(offset_us / 1000000u);
		xgrow(&m->per_second, &m->per_second_cap, first + p->nseconds + 1, sizeof *m->per_second);
		if (first + p->nseconds > m->nseconds)
			m->nseconds = first + p->nseconds;
		for (size_t k = 0; k < p->nseconds; k++)
			m->per_second[first + k] += p->per_second[k];
		if (p->last_time_us + offset_us > m->last_time_us)
			m->last_time_us = p->last_time_us + offset_us;
		for (size_t k = 1; k < p->nthreads; k++) {
			if (!p->threads[k].samples && !p->threads[k].runtime_id)
				continue;
			size_t cap2 = m->nthreads;
			xgrow(&m->threads, &cap2, m->nthreads + 2, sizeof *m->threads);
			m->nthreads = m->nthreads ? m->nthreads : 1; /* references start at 1 */
			struct prof_thread *t = &m->threads[m->nthreads++];
			*t = p->threads[k];
			char name[128];
			snprintf(name, sizeof name, "pid %u %s", p->pid, p->threads[k].name ? p->threads[k].name : "");
			t->name = xstrdup(name);
		}
		for (size_t k = 0; k < p->nlog; k++) {
			xgrow(&m->log, &m->log_cap, m->nlog + 1, sizeof *m->log);
			struct prof_event *e = &m->log[m->nlog++];
			*e = p->log[k];
			e->time_us += offset_us;
			e->text = e->text ? xstrdup(e->text) : NULL;
			e->from = p;
		}
		prof_suspend_merge(&m->suspend, &p->suspend);
		m->status.dropped_records += p->status.dropped_records;
		m->status.write_errors += p->status.write_errors;
	}
	m->nstacks = nstacks;
	free(map.keys);
	free(map.vals);
	if (m->nlog)
		qsort(m->log, m->nlog, sizeof *m->log, by_time);
	char command[64];
	snprintf(command, sizeof command, "all %zu processes", merged);
	m->command_line = xstrdup(command);
	m->have_hello = merged > 0;
	m->start_unix_ns = start == UINT64_MAX ? 0 : start;
	m->load_mode = CS_LOAD_STARTUP;
	return m;
}
