/* The Flame view's one entry point beside its ops: how blocks are coloured. */
#ifndef CLRSCOPE_VIEW_FLAME_H
#define CLRSCOPE_VIEW_FLAME_H

#include <stdbool.h>

#include "ui/view.h"

/* by_change: after ':diff', colour frames by how their share moved (the
 * default); false: by namespace, as without a base. */
void view_flame_by_change(struct view *v, bool by_change);

#endif
