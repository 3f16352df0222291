/* The report's heap snapshots from their object graphs (heapsummary.h):
 * the JSON fields heap, heap_snapshots, heap_suspects and retention
 * (clrscope-session(5)), the text of report --heap and report
 * --retention, and the heap table of the usual text report. */
#ifndef CLRSCOPE_EXPORT_HEAP_H
#define CLRSCOPE_EXPORT_HEAP_H

#include <stddef.h>
#include <stdio.h>

#include "profile/profile.h"

/* ,"heap":[...],"heap_snapshots":[...],"heap_suspects":[...] */
void export_json_heap(FILE *f, struct prof_process *p);
/* ,"retention":{"type":...,"snapshot":N,"paths":[...]} (null fields when
 * the type or the graph is missing, "error" says why). */
void export_json_retention(FILE *f, struct prof_process *p, const char *type);
/* The latest snapshot's types (with retained bytes when it has a graph),
 * the usual report's heap part: top rows. */
void export_text_heap_table(FILE *f, struct prof_process *p, size_t top);
/* report --heap: the latest snapshot against the one before, its largest
 * retained subtrees, the types that grew in every snapshot and the paths
 * that grew most. */
void export_text_heap(FILE *f, struct prof_process *p, size_t top);
/* report --retention TYPE: the paths from the roots to TYPE's objects. */
void export_text_retention(FILE *f, struct prof_process *p, const char *type, size_t top);
/* A sorted copy of types (most bytes, then most objects first; those
 * without a name left out): *out_n of them, the strings shared. */
struct prof_type_count *export_sorted_types(const struct prof_type_count *v, size_t n, size_t *out_n);

#endif
