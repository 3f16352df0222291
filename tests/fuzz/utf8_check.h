/* UTF-8 well-formedness as the Unicode standard defines it (table 3-7),
 * written apart from the code under test so that the two can disagree. */
#ifndef CLRSCOPE_UTF8_CHECK_H
#define CLRSCOPE_UTF8_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* The length of the well-formed character at s (n bytes there, n > 0),
 * or 0 when it is not one. */
size_t utf8_char_len(const unsigned char *s, size_t n);

/* Whether the n bytes at s are well-formed UTF-8. */
bool utf8_valid(const char *s, size_t n);

#endif
