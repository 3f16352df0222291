/* Allocation for clrscope (the program, not the agent): running out of
 * memory is reported and ends the program, so callers need no checks. */
#ifndef CLRSCOPE_XALLOC_H
#define CLRSCOPE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows *p (of *cap elements of size) to hold at least need elements. */
void xgrow(void *pp, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#endif
