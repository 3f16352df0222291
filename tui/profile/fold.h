/* Folding helpers shared by profile.c and the files that fold other
 * record kinds (memory.c): not part of the model's interface. */
#ifndef CLRSCOPE_FOLD_H
#define CLRSCOPE_FOLD_H

#include <stdbool.h>

#include "common/logfmt.h"
#include "profile/profile.h"

/* Ids beyond this are taken as damage, not as data (the agent counts up
 * from small numbers; a real session stays far below). */
#define ID_LIMIT (1u << 24)
/* Each id the agent hands out costs a definition of a few bytes in the log
 * (or in data it dropped), so an id far above the bytes read is damage too:
 * a few forged bytes must not make the model allocate gigabytes. */
#define ID_SLACK (1u << 20)
static inline bool fold_id_ok(const struct prof_process *p, uint64_t id)
{
	return id < ID_LIMIT && id <= 2 * (p->reader.bytes + p->status.dropped_bytes) + ID_SLACK;
}

/* How far a definition's id may run ahead of the ids defined so far: the
 * agent numbers frames and stacks in order and defines each before its
 * first use (one it could not write is written again before the next use),
 * so a jump past this is damage, which must not grow a table to a forged
 * id (tens of megabytes per forged byte, and every update walking them). */
#define ID_GAP 65536u

void fold_note_time(struct prof_process *p, uint64_t t);
/* Frame id's slot, the table grown as needed (id checked with fold_id_ok by
 * the caller); NULL, damage, for an id ID_GAP past the frames so far. */
struct prof_frame *fold_frame(struct prof_process *p, uint64_t id);
void fold_calls(struct prof_process *p, const struct cs_record *rec);
void fold_heap(struct prof_process *p, const struct cs_record *rec);
void fold_allocs(struct prof_process *p, const struct cs_record *rec);
void memory_free(struct prof_process *p);

#endif
