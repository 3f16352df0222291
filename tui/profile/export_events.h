/* The report's parts for what the runtime's event stream adds: exception
 * messages and lock contention by stack (export.c writes the rest). */
#ifndef CLRSCOPE_EXPORT_EVENTS_H
#define CLRSCOPE_EXPORT_EVENTS_H

#include <stddef.h>
#include <stdio.h>

#include "profile/profile.h"

/* ,"messages":[{"text":...,"count":N}...] of one exception type, most
 * frequent first ("other_messages" counts those past the list). */
void export_json_exception_messages(FILE *f, const struct prof_exception_type *t);
/* ,"contention":{"count":N,"wait_ms":X,"sites":[{"stack":[root..leaf],"count":N,"wait_ms":X}...]},
 *  "waits":{the same},"threadpool":{"workers":N,"workers_max":N,"started":N,"stopped":N,
 *  "adjustments":N,"starvation":N},"allocation_samples":{"count":N,"bytes":N,"sites":[...]},
 *  "allocation_sample_types":[{"type":...,"count":N,"bytes":N}...]; sites by total, largest first. */
void export_json_event_stream(FILE *f, const struct prof_process *p);
/* The most frequent messages of each exception type, the top contention
 * and wait sites with their leaf frames, the thread pool's figures. */
void export_text_events(FILE *f, const struct prof_process *p, size_t top);
/* [root..leaf]: the function names of stack, the outermost frame first
 * ([] for stack 0, a sample with no stack walked). */
void export_json_stack(FILE *f, const struct prof_process *p, uint32_t stack);
/* Sites sorted by wait time, longest first (caller frees). */
struct prof_stack_tally *export_sites_sorted(const struct prof_stack_tallies *c);

#endif
