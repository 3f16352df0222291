#include "util/json.h"

#include <stdint.h>

/* Length of a valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_valid(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp, min;
	if (s[0] < 0xC2)
		return 0;
	if (s[0] < 0xE0)
		len = 2, cp = s[0] & 0x1F, min = 0x80;
	else if (s[0] < 0xF0)
		len = 3, cp = s[0] & 0x0F, min = 0x800;
	else if (s[0] < 0xF5)
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
		return 0;
	return len;
}

void json_stringn(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	putc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\') {
			putc('\\', f);
			putc(c, f);
			i++;
		} else if (c < 0x20) {
			switch (c) {
			case '\n': fputs("\\n", f); break;
			case '\r': fputs("\\r", f); break;
			case '\t': fputs("\\t", f); break;
			default: fprintf(f, "\\u%04x", c); break;
			}
			i++;
		} else if (c < 0x80) {
			putc(c, f);
			i++;
		} else {
			size_t len = utf8_valid(s + i, n - i);
			if (len) {
				fwrite(s + i, 1, len, f);
				i += len;
			} else {
				fputs("\\ufffd", f);
				i++;
			}
		}
	}
	putc('"', f);
}

void json_string(FILE *f, const char *s)
{
	size_t n = 0;
	while (s && s[n])
		n++;
	json_stringn(f, s ? s : "", n);
}

void json_string_or_null(FILE *f, const char *s)
{
	if (s)
		json_string(f, s);
	else
		fputs("null", f);
}
