/* Command-line numbers for the small benchmark programs. */
#ifndef CLRSCOPE_BENCH_BENCHARGS_H
#define CLRSCOPE_BENCH_BENCHARGS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* text as a whole number from 1 to max, or a usage error (exit 2) naming
 * the program and what the number is. */
static inline unsigned bench_positive(const char *prog, const char *text, const char *what, unsigned long max)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(text, &end, 10);
	if (errno || *end || end == text || v == 0 || v > max) {
		fprintf(stderr, "%s: %s wants a whole number from 1 to %lu, not '%s'\n", prog, what, max, text);
		exit(2);
	}
	return (unsigned)v;
}

#endif
