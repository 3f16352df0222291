#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>

#include <stdbool.h>
#include <string.h>

char *text_trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = 0;
	return s;
}

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid
 * (overlong forms, surrogates and values past U+10FFFF included). */
static size_t utf8_valid(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
	if (!len || c > 0xF4 || c == 0xC0 || c == 0xC1 || n < len)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0) || (c == 0xF0 && s[1] < 0x90) ||
	    (c == 0xF4 && s[1] >= 0x90))
		return 0;
	return len;
}

char *text_sanitize(char *s)
{
	if (!s)
		return s;
	unsigned char *r = (unsigned char *)s, *w = r;
	size_t left = strlen(s);
	while (left) {
		size_t len = *r < 0x80 ? 1 : utf8_valid(r, left);
		/* C0 controls, DEL, C1 controls (U+0080-U+009F) and bad bytes */
		bool bad = len == 0 || (len == 1 && (*r < 0x20 || *r == 0x7F)) || (len == 2 && r[0] == 0xC2 && r[1] < 0xA0);
		if (bad) {
			*w++ = '?';
			len = len ? len : 1;
		} else {
			memmove(w, r, len);
			w += len;
		}
		r += len;
		left -= len;
	}
	*w = 0;
	return s;
}

void text_format(char *out, size_t n, const char *fmt, ...)
{
	if (!out || !n)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out, n, fmt, ap);
	va_end(ap);
}
