/* Folding helpers shared by profile.c and the files that read the newer
 * record types (memory.c): not part of the model's interface. */
#ifndef CLRSCOPE_FOLD_H
#define CLRSCOPE_FOLD_H

#include <stdbool.h>

#include "logfmt.h"
#include "profile.h"

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

void fold_note_time(struct prof_process *p, uint64_t t);
/* Frame id's slot, the table grown as needed (id checked by the caller). */
struct prof_frame *fold_frame(struct prof_process *p, uint64_t id);
void fold_calls(struct prof_process *p, const struct cs_record *rec);
void fold_heap(struct prof_process *p, const struct cs_record *rec);
void fold_allocs(struct prof_process *p, const struct cs_record *rec);
void memory_free(struct prof_process *p);

#endif
