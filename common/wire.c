#include "common/wire.h"

#include <string.h>

void cs_put_bytes(struct cs_out *o, const void *p, size_t n)
{
	if (o->overflow || n > o->cap - o->len) {
		o->overflow = true;
		return;
	}
	if (n)
		memcpy(o->buf + o->len, p, n);
	o->len += n;
}

void cs_put_u8(struct cs_out *o, uint8_t v)
{
	cs_put_bytes(o, &v, 1);
}

void cs_put_u16(struct cs_out *o, uint16_t v)
{
	uint8_t b[2];
	cs_store_u16(b, v);
	cs_put_bytes(o, b, 2);
}

void cs_put_u32(struct cs_out *o, uint32_t v)
{
	uint8_t b[4];
	cs_store_u32(b, v);
	cs_put_bytes(o, b, 4);
}

void cs_put_u64(struct cs_out *o, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	cs_put_bytes(o, b, 8);
}

void cs_put_varint(struct cs_out *o, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		b[n++] = byte | (v ? 0x80 : 0);
	} while (v);
	cs_put_bytes(o, b, n);
}

size_t cs_varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >>= 7)
		n++;
	return n;
}

void cs_put_strn(struct cs_out *o, const char *s, size_t n)
{
	cs_put_varint(o, n);
	cs_put_bytes(o, s, n);
}

void cs_put_str(struct cs_out *o, const char *s)
{
	cs_put_strn(o, s ? s : "", s ? strlen(s) : 0);
}

static const uint8_t *take(struct cs_in *in, size_t n)
{
	if (in->bad || cs_in_left(in) < n) {
		in->bad = true;
		return NULL;
	}
	const uint8_t *p = in->p;
	in->p += n;
	return p;
}

uint8_t cs_get_u8(struct cs_in *in)
{
	const uint8_t *p = take(in, 1);
	return p ? p[0] : 0;
}

uint16_t cs_get_u16(struct cs_in *in)
{
	const uint8_t *p = take(in, 2);
	return p ? cs_load_u16(p) : 0;
}

uint32_t cs_get_u32(struct cs_in *in)
{
	const uint8_t *p = take(in, 4);
	return p ? cs_load_u32(p) : 0;
}

uint64_t cs_get_u64(struct cs_in *in)
{
	const uint8_t *p = take(in, 8);
	if (!p)
		return 0;
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

uint64_t cs_get_varint(struct cs_in *in)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (in->bad || in->p >= in->end)
			break;
		uint8_t byte = *in->p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	in->bad = true;
	return 0;
}

size_t cs_get_str(struct cs_in *in, const char **s)
{
	uint64_t n = cs_get_varint(in);
	if (in->bad || n > cs_in_left(in)) {
		in->bad = true;
		*s = "";
		return 0;
	}
	*s = (const char *)in->p;
	in->p += n;
	return (size_t)n;
}
