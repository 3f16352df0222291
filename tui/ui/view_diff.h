/* The Diff view's one entry point beside its ops: what to compare with. */
#ifndef CLRSCOPE_VIEW_DIFF_H
#define CLRSCOPE_VIEW_DIFF_H

#include <stddef.h>

#include "ui/view.h"

struct session_screen;

/* Reads the session in dir as the base the shown process is compared
 * with; -1 and err when it cannot be read or has no process. */
int view_diff_compare(struct view *v, struct session_screen *s, const char *dir, char *err, size_t errlen);

/* The process compared with (the base's processes merged when several)
 * and its directory; NULL before ':diff'. */
struct prof_process *view_diff_base(struct view *v, const char **dir);

#endif
