/* Ages as the user writes them, for the config file's prune_after and
 * 'prune --older-than': a number and a unit, s m h d or w. */
#ifndef CLRSCOPE_AGE_H
#define CLRSCOPE_AGE_H

#include <stddef.h>

/* "90s", "30m", "12h", "7d", "2w" (a bare number is seconds): -1 if bad. */
int age_parse(const char *s, long *seconds);

/* The shortest of those for s seconds ("7d"). */
void age_format(long s, char *out, size_t n);

#endif
