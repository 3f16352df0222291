/* A map from byte strings (copied; they may hold NULs) to 32-bit values:
 * open addressing, FNV-1a. */
#ifndef CLRSCOPE_STRMAP_H
#define CLRSCOPE_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strmap {
	char **keys;
	size_t *lens;
	uint32_t *vals;
	size_t cap, count;
};

void strmap_init(struct strmap *m);
void strmap_free(struct strmap *m);
bool strmap_get(const struct strmap *m, const char *key, size_t len, uint32_t *val);
/* Adds key (which must not be present); true: running out of memory ends
 * the program through xalloc's fatal path. */
bool strmap_add(struct strmap *m, const char *key, size_t len, uint32_t val);

#endif
