/* UTF-16 (the runtime's WCHAR strings and the diagnostics IPC) to and from
 * UTF-8.  Unpaired surrogates become U+FFFD. */
#ifndef CLRSCOPE_UTF16_H
#define CLRSCOPE_UTF16_H

#include <stddef.h>
#include <stdint.h>

/* Converts up to n units (stops early at a NUL) into out, always
 * NUL-terminated when cap > 0 and never splitting a character; returns the
 * bytes written without the NUL. */
size_t cs_utf16_to_utf8(const uint16_t *in, size_t n, char *out, size_t cap);

/* Converts a NUL-terminated UTF-8 string into out (cap units, NUL included);
 * returns the units written including the NUL, or 0 if it does not fit.
 * Invalid UTF-8 bytes become U+FFFD. */
size_t cs_utf8_to_utf16(const char *in, uint16_t *out, size_t cap);

#endif
