/* Writing JSON text to a stdio stream: strings escaped per RFC 8259, and
 * invalid UTF-8 replaced so that the output always parses. */
#ifndef CLRSCOPE_JSON_H
#define CLRSCOPE_JSON_H

#include <stddef.h>
#include <stdio.h>

void json_string(FILE *f, const char *s);
void json_stringn(FILE *f, const char *s, size_t n);
/* The string, or null for NULL. */
void json_string_or_null(FILE *f, const char *s);

#endif
