/* Ages as the user writes them (see age.h). */
#include "util/age.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int age_parse(const char *s, long *seconds)
{
	char *end;
	errno = 0;
	if (!s || *s < '0' || *s > '9')
		return -1;
	long v = strtol(s, &end, 10);
	long unit = 1;
	switch (*end) {
	case 0: case 's': break;
	case 'm': unit = 60; break;
	case 'h': unit = 3600; break;
	case 'd': unit = 86400; break;
	case 'w': unit = 7 * 86400; break;
	default: return -1;
	}
	if (errno || (*end && end[1]) || v > 100L * 365 * 86400 / unit)
		return -1;
	*seconds = v * unit;
	return 0;
}

void age_format(long s, char *out, size_t n)
{
	static const struct {
		long seconds;
		char unit;
	} units[] = {{7 * 86400, 'w'}, {86400, 'd'}, {3600, 'h'}, {60, 'm'}};
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		if (s >= units[i].seconds && s % units[i].seconds == 0) {
			snprintf(out, n, "%ld%c", s / units[i].seconds, units[i].unit);
			return;
		}
	}
	snprintf(out, n, "%lds", s);
}
