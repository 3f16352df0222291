#include "common/utf16.h"

static size_t put_utf8(uint32_t cp, char *out, size_t room)
{
	uint8_t b[4];
	size_t len;
	if (cp < 0x80) {
		b[0] = (uint8_t)cp;
		len = 1;
	} else if (cp < 0x800) {
		b[0] = (uint8_t)(0xC0 | (cp >> 6));
		b[1] = (uint8_t)(0x80 | (cp & 0x3F));
		len = 2;
	} else if (cp < 0x10000) {
		b[0] = (uint8_t)(0xE0 | (cp >> 12));
		b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (uint8_t)(0x80 | (cp & 0x3F));
		len = 3;
	} else {
		b[0] = (uint8_t)(0xF0 | (cp >> 18));
		b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (uint8_t)(0x80 | (cp & 0x3F));
		len = 4;
	}
	if (len > room)
		return 0;
	for (size_t i = 0; i < len; i++)
		out[i] = (char)b[i];
	return len;
}

size_t cs_utf16_to_utf8(const uint16_t *in, size_t n, char *out, size_t cap)
{
	if (cap == 0)
		return 0;
	size_t o = 0;
	for (size_t i = 0; i < n && in[i]; i++) {
		uint32_t cp = in[i];
		if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < n && in[i + 1] >= 0xDC00 && in[i + 1] < 0xE000) {
			cp = 0x10000 + ((cp - 0xD800) << 10) + (in[i + 1] - 0xDC00);
			i++;
		} else if (cp >= 0xD800 && cp < 0xE000) {
			cp = 0xFFFD;
		}
		size_t w = put_utf8(cp, out + o, cap - 1 - o);
		if (!w)
			break;
		o += w;
	}
	out[o] = 0;
	return o;
}

/* Decodes one UTF-8 sequence at s; returns its length (>= 1). */
static size_t get_utf8(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xE0) == 0xC0) {
		len = 2, v = c & 0x1F, min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		len = 3, v = c & 0x0F, min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		*cp = 0xFFFD;
		return 1;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*cp = 0xFFFD;
			return i;
		}
		v = (v << 6) | (s[i] & 0x3F);
	}
	*cp = (v < min || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) ? 0xFFFD : v;
	return len;
}

size_t cs_utf8_to_utf16(const char *in, uint16_t *out, size_t cap)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;
	while (*s) {
		uint32_t cp;
		s += get_utf8(s, &cp);
		size_t need = cp >= 0x10000 ? 2 : 1;
		if (o + need + 1 > cap)
			return 0;
		if (need == 2) {
			cp -= 0x10000;
			out[o++] = (uint16_t)(0xD800 + (cp >> 10));
			out[o++] = (uint16_t)(0xDC00 + (cp & 0x3FF));
		} else {
			out[o++] = (uint16_t)cp;
		}
	}
	if (o + 1 > cap)
		return 0;
	out[o++] = 0;
	return o;
}
