/* Small text helpers shared by the parsers (config, app lists, IPC). */
#ifndef CLRSCOPE_TEXT_H
#define CLRSCOPE_TEXT_H

#include <stddef.h>

/* Strips blanks (and a line's \r\n) from both ends, in place. */
char *text_trim(char *s);

/* Makes text from another process safe to print, in place: control
 * characters (C0, DEL, C1) and bytes that are not UTF-8 become '?', so
 * nothing received can move the cursor or change the terminal.  Returns s. */
char *text_sanitize(char *s);

/* snprintf into an (err, errlen) pair, which may be NULL or empty. */
void text_format(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
