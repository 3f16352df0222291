/* Allocation for clrscope (the program, not the agent): running out of
 * memory is reported and ends the program, so callers need no checks.
 *
 * The end goes through one fatal path: a hook registered by whoever holds
 * the terminal (the terminal UI: it gives the screen back) runs first, so
 * that the message is printed on a terminal in its normal state; this
 * layer knows nothing of curses. */
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

/* Runs restore (once) before the message of a fatal end; NULL: none.  As a
 * testing aid, CLRSCOPE_FAIL_ALLOC_AT=N then makes this thread's Nth
 * allocation from now on fail as if memory had run out. */
void xalloc_on_fatal(void (*restore)(void));
/* Out of memory, asked for n bytes: the hook, the message, exit status 1. */
__attribute__((noreturn)) void xalloc_failed(size_t n);

#endif
