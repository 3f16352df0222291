/* Several processes of a session seen as one: functions merged by name and
 * module, stacks re-interned by those functions, samples per second lined
 * up on the wall clock, events in time order.  The result is a process of
 * its own (no reader) that the views show like any other. */
#ifndef CLRSCOPE_MERGE_H
#define CLRSCOPE_MERGE_H

#include "profile/profile.h"

/* Builds (or rebuilds, freeing the old one) the merge of every process
 * that said hello. */
struct prof_process *prof_merge(struct prof_recording *s, struct prof_process *old);
void prof_merge_free(struct prof_process *m);

#endif
