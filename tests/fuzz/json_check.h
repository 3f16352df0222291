/* A strict JSON checker for the fuzzers: RFC 8259's grammar, UTF-8 text,
 * and two rules the RFC only recommends but readers rely on: the names in
 * an object are unique, and \u escapes never leave half a surrogate pair.
 * Not a parser for clrscope itself; it only says yes or no (and why). */
#ifndef CLRSCOPE_JSON_CHECK_H
#define CLRSCOPE_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the len bytes at text are exactly one JSON text (a value with
 * optional whitespace around it).  If not, *error says what is wrong and
 * *offset where. */
bool json_check(const char *text, size_t len, size_t *offset, const char **error);

/* Decodes the string token at the start of text (len bytes there; the
 * token starts with '"') into out, which has room for len bytes, or only
 * checks it when out is NULL.  Returns the token's length with the decoded
 * length in *outlen, or 0 with *error when it is not a valid string. */
size_t json_decode_string(const char *text, size_t len, char *out, size_t *outlen, const char **error);

#endif
