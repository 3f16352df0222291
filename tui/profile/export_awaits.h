/* The report's awaits snapshots: the JSON fields awaits and
 * awaits_snapshots (clrscope-session(5)), the text of report --awaits and
 * the usual text report's line about them. */
#ifndef CLRSCOPE_EXPORT_AWAITS_H
#define CLRSCOPE_EXPORT_AWAITS_H

#include <stddef.h>
#include <stdio.h>

#include "profile/profile.h"

/* ,"awaits":[{"stack":[outermost..innermost],"count":N}...] (the latest
 * snapshot's groups, biggest count first; null without a snapshot)
 * ,"awaits_snapshots":[{"seq":N,"time_ms":X,...,"groups":[...]}...] */
void export_json_awaits(FILE *f, const struct prof_process *p);
/* report --awaits: the latest snapshot's chains, each group's count and
 * its frames outermost first, top groups; says how to take one when the
 * process has none. */
void export_text_awaits(FILE *f, const struct prof_process *p, size_t top);
/* The usual text report: one line on the latest snapshot, nothing
 * without one. */
void export_text_awaits_line(FILE *f, const struct prof_process *p);

#endif
