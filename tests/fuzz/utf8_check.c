#include "utf8_check.h"

static bool in(unsigned char c, unsigned char lo, unsigned char hi)
{
	return c >= lo && c <= hi;
}

size_t utf8_char_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	if (c <= 0x7F)
		return 1;
	/* the lead byte fixes the length and the range of the second byte,
	 * which is what rules out overlong forms, surrogates and > U+10FFFF */
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF;
	if (in(c, 0xC2, 0xDF))
		len = 2;
	else if (c == 0xE0)
		len = 3, lo = 0xA0;
	else if (in(c, 0xE1, 0xEC) || in(c, 0xEE, 0xEF))
		len = 3;
	else if (c == 0xED)
		len = 3, hi = 0x9F;
	else if (c == 0xF0)
		len = 4, lo = 0x90;
	else if (in(c, 0xF1, 0xF3))
		len = 4;
	else if (c == 0xF4)
		len = 4, hi = 0x8F;
	else
		return 0;
	if (n < len || !in(s[1], lo, hi))
		return 0;
	for (size_t i = 2; i < len; i++)
		if (!in(s[i], 0x80, 0xBF))
			return 0;
	return len;
}

bool utf8_valid(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_char_len(s + i, n - i);
		if (!len)
			return false;
		i += len;
	}
	return true;
}
