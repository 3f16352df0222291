/* The report's parts for what the runtime's event stream adds: exception
 * messages and lock contention by stack (export.c writes the rest). */
#ifndef CLRSCOPE_EXPORT_EVENTS_H
#define CLRSCOPE_EXPORT_EVENTS_H

#include <stddef.h>
#include <stdio.h>

#include "profile.h"

/* ,"messages":[{"text":...,"count":N}...] of one exception type, most
 * frequent first ("other_messages" counts those past the list). */
void export_json_exception_messages(FILE *f, const struct prof_exception_type *t);
/* ,"contention":{"count":N,"wait_ms":X,"sites":[{"stack":[root..leaf],"count":N,"wait_ms":X}...]}
 * sites by wait time, longest first. */
void export_json_contention(FILE *f, const struct prof_process *p);
/* The most frequent messages of each exception type and the top
 * contention sites with their leaf frames. */
void export_text_events(FILE *f, const struct prof_process *p, size_t top);
/* Contention sites sorted by wait time, longest first (caller frees). */
struct prof_contention_site *export_contention_sorted(const struct prof_process *p);

#endif
