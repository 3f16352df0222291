#include <stdint.h>

#include "check.h"
#include "common/utf16.h"
#include "common/wire.h"

static void varints_round_trip(void)
{
	static const uint64_t values[] = {0, 1, 127, 128, 16383, 16384, UINT32_MAX, (uint64_t)1 << 63, UINT64_MAX};
	uint8_t buf[256];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
		cs_put_varint(&o, values[i]);
		CHECK_EQ_U(cs_varint_len(values[i]), i == 0 ? 1 : cs_varint_len(values[i]));
	}
	CHECK(!o.overflow);
	struct cs_in in;
	cs_in_init(&in, buf, o.len);
	for (size_t i = 0; i < sizeof values / sizeof *values; i++)
		CHECK_EQ_U(cs_get_varint(&in), values[i]);
	CHECK(!in.bad);
	CHECK_EQ_U(cs_in_left(&in), 0);
	CHECK_EQ_U(cs_varint_len(127), 1);
	CHECK_EQ_U(cs_varint_len(128), 2);
	CHECK_EQ_U(cs_varint_len(UINT64_MAX), 10);
}

static void fixed_and_strings(void)
{
	uint8_t buf[64];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	cs_put_u8(&o, 0xAB);
	cs_put_u16(&o, 0xBEEF);
	cs_put_u32(&o, 0xDEADBEEF);
	cs_put_u64(&o, 0x0123456789ABCDEFull);
	cs_put_str(&o, "héllo");
	cs_put_str(&o, NULL);
	struct cs_in in;
	cs_in_init(&in, buf, o.len);
	CHECK_EQ_U(cs_get_u8(&in), 0xAB);
	CHECK_EQ_U(cs_get_u16(&in), 0xBEEF);
	CHECK_EQ_U(cs_get_u32(&in), 0xDEADBEEF);
	CHECK_EQ_U(cs_get_u64(&in), 0x0123456789ABCDEFull);
	const char *s;
	size_t n = cs_get_str(&in, &s);
	CHECK(n == 6 && memcmp(s, "héllo", 6) == 0);
	CHECK_EQ_U(cs_get_str(&in, &s), 0);
	CHECK(!in.bad);
}

static void overflow_and_short_input(void)
{
	uint8_t buf[3];
	struct cs_out o;
	cs_out_init(&o, buf, sizeof buf);
	cs_put_u16(&o, 1);
	cs_put_u16(&o, 2); /* does not fit */
	CHECK(o.overflow);
	CHECK_EQ_U(o.len, 2);

	static const uint8_t unterminated[] = {0x80, 0x80};
	struct cs_in in;
	cs_in_init(&in, unterminated, sizeof unterminated);
	CHECK_EQ_U(cs_get_varint(&in), 0);
	CHECK(in.bad);

	static const uint8_t too_long[11] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	cs_in_init(&in, too_long, sizeof too_long);
	cs_get_varint(&in);
	CHECK(in.bad);

	static const uint8_t str_past_end[] = {5, 'a', 'b'};
	const char *s;
	cs_in_init(&in, str_past_end, sizeof str_past_end);
	CHECK_EQ_U(cs_get_str(&in, &s), 0);
	CHECK(in.bad);
	CHECK_EQ_U(cs_get_u32(&in), 0); /* stays bad, reads zeros */
}

static void utf16_conversions(void)
{
	const uint16_t wide[] = {'A', 0x00E9, 0x4E2D, 0xD83D, 0xDE00, 0xD800, 'z', 0};
	char out[64];
	size_t n = cs_utf16_to_utf8(wide, 64, out, sizeof out);
	CHECK_STR(out, "A\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80\xEF\xBF\xBDz");
	CHECK_EQ_U(n, strlen(out));

	char tiny[4]; /* never splits a character */
	cs_utf16_to_utf8(wide, 8, tiny, sizeof tiny);
	CHECK_STR(tiny, "A\xC3\xA9");

	uint16_t back[32];
	size_t units = cs_utf8_to_utf16("A\xC3\xA9\xF0\x9F\x98\x80", back, 32);
	CHECK_EQ_U(units, 5);
	CHECK(back[0] == 'A' && back[1] == 0xE9 && back[2] == 0xD83D && back[3] == 0xDE00 && back[4] == 0);
	CHECK_EQ_U(cs_utf8_to_utf16("abc", back, 3), 0); /* no room for the NUL */
	cs_utf8_to_utf16("\xFF", back, 32);
	CHECK_EQ_U(back[0], 0xFFFD);
}

int main(void)
{
	RUN(varints_round_trip);
	RUN(fixed_and_strings);
	RUN(overflow_and_short_input);
	RUN(utf16_conversions);
	return CHECK_DONE();
}
