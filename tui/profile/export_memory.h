/* The report's parts for instrumentation, heap snapshots, allocations and
 * garbage collections (export.c writes the rest). */
#ifndef CLRSCOPE_EXPORT_MEMORY_H
#define CLRSCOPE_EXPORT_MEMORY_H

#include <stddef.h>
#include <stdio.h>

#include "profile/profile.h"

/* ,"features":[...],"instrumentation":...,"heap":[...],"heap_snapshots":[...],"allocations":[...] */
void export_json_memory(FILE *f, struct prof_process *p);
/* Per function: ,"calls":N,"inclusive_ns":N,"exclusive_ns":N (null when not hooked). */
void export_json_calls(FILE *f, const struct prof_function *fn);
/* The GC table and the instrumentation, heap and allocation tables (top rows each). */
void export_text_memory(FILE *f, struct prof_process *p, size_t top);

#endif
