/* gzip (RFC 1952) output through zlib. */
#ifndef CLRSCOPE_GZIP_H
#define CLRSCOPE_GZIP_H

#include <stddef.h>
#include <stdio.h>

/* Writes data, gzip-compressed, to f; -1 with err on failure. */
int gzip_write(FILE *f, const void *data, size_t len, char *err, size_t errlen);

#endif
