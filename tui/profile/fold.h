/* The folding that the model's two files share, not part of its interface:
 * profile.c reads each record and folds most kinds; memory.c folds the
 * instrumentation, heap and allocation records with profile.c's helpers,
 * awaits.c the awaits snapshots.
 * The model's types are only named here, so that profile.c includes this
 * header without it including profile.h back. */
#ifndef CLRSCOPE_FOLD_H
#define CLRSCOPE_FOLD_H

#include <stdbool.h>
#include <stdint.h>

struct cs_record;
struct prof_frame;
struct prof_process;

/* How far a definition's id may run ahead of the ids defined so far: the
 * agent numbers frames and stacks in order and defines each before its
 * first use (one it could not write is written again before the next use),
 * so a jump past this is damage, which must not grow a table to a forged
 * id (tens of megabytes per forged byte, and every update walking them). */
#define ID_GAP 65536u

/* profile.c's: whether id can be data and not damage (see ID_LIMIT). */
bool fold_id_ok(const struct prof_process *p, uint64_t id);
void fold_note_time(struct prof_process *p, uint64_t t);
/* Frame id's slot, the table grown as needed (id checked with fold_id_ok by
 * the caller); NULL, damage, for an id ID_GAP past the frames so far. */
struct prof_frame *fold_frame(struct prof_process *p, uint64_t id);

/* memory.c's. */
void fold_calls(struct prof_process *p, const struct cs_record *rec);
void fold_heap(struct prof_process *p, const struct cs_record *rec);
void fold_heap_graph(struct prof_process *p, const struct cs_record *rec);
void fold_allocs(struct prof_process *p, const struct cs_record *rec);
void memory_free(struct prof_process *p);

/* awaits.c's. */
void fold_awaits(struct prof_process *p, const struct cs_record *rec);
void awaits_free(struct prof_process *p);

#endif
