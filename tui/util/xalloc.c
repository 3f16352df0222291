#include "util/xalloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*fatal_restore)(void);
/* CLRSCOPE_FAIL_ALLOC_AT: allocations of this thread until the one that
 * fails (0: none fails). */
static _Thread_local uint64_t fail_countdown;

void xalloc_on_fatal(void (*restore)(void))
{
	fatal_restore = restore;
	const char *at = getenv("CLRSCOPE_FAIL_ALLOC_AT");
	char *end;
	unsigned long long n = at && *at ? strtoull(at, &end, 10) : 0;
	fail_countdown = restore && n && !*end ? n : 0;
}

void xalloc_failed(size_t n)
{
	void (*restore)(void) = fatal_restore;
	fatal_restore = NULL;
	if (restore)
		restore();
	fprintf(stderr, "clrscope: out of memory (asked for %zu bytes)\n", n);
	exit(1);
}

static bool failing(void)
{
	return fail_countdown && --fail_countdown == 0;
}

void *xmalloc(size_t n)
{
	void *p = failing() ? NULL : malloc(n ? n : 1);
	if (!p)
		xalloc_failed(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = failing() ? NULL : calloc(n ? n : 1, size ? size : 1);
	if (!p)
		xalloc_failed(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = failing() ? NULL : realloc(p, n ? n : 1);
	if (!q)
		xalloc_failed(n);
	return q;
}

void xgrow(void *pp, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	void **p = pp;
	*p = xrealloc(*p, ncap * size);
	memset((char *)*p + *cap * size, 0, (ncap - *cap) * size);
	*cap = ncap;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}
