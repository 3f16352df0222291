/* Little-endian integers, LEB128 varints and length-prefixed strings:
 * the byte-level vocabulary of the session log (see clrscope-session(5)).
 *
 * Writing goes into a caller-owned fixed buffer (struct cs_out): the agent
 * must never allocate while encoding.  Reading is bounds-checked (struct
 * cs_in): a short or garbled payload sets in->bad and yields zeros, so a
 * decoder can read a whole record and check once at the end. */
#ifndef CLRSCOPE_WIRE_H
#define CLRSCOPE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cs_out {
	uint8_t *buf;
	size_t cap;
	size_t len;
	bool overflow; /* set when a write did not fit; len stops growing */
};

struct cs_in {
	const uint8_t *p;
	const uint8_t *end;
	bool bad; /* set on any read past the end or malformed varint */
};

/* The value of a hexadecimal digit, or -1 (text both halves read: perf
 * maps, GUIDs). */
static inline int cs_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static inline void cs_out_init(struct cs_out *o, void *buf, size_t cap)
{
	o->buf = buf;
	o->cap = cap;
	o->len = 0;
	o->overflow = false;
}

static inline void cs_in_init(struct cs_in *in, const void *p, size_t len)
{
	in->p = p;
	in->end = in->p + len;
	in->bad = false;
}

static inline size_t cs_in_left(const struct cs_in *in)
{
	return (size_t)(in->end - in->p);
}

void cs_put_bytes(struct cs_out *o, const void *p, size_t n);
void cs_put_u8(struct cs_out *o, uint8_t v);
void cs_put_u16(struct cs_out *o, uint16_t v);
void cs_put_u32(struct cs_out *o, uint32_t v);
void cs_put_u64(struct cs_out *o, uint64_t v);
void cs_put_varint(struct cs_out *o, uint64_t v);
/* varint byte length, then the bytes (UTF-8 by convention, no NUL) */
void cs_put_str(struct cs_out *o, const char *s);
void cs_put_strn(struct cs_out *o, const char *s, size_t n);

uint8_t cs_get_u8(struct cs_in *in);
uint16_t cs_get_u16(struct cs_in *in);
uint32_t cs_get_u32(struct cs_in *in);
uint64_t cs_get_u64(struct cs_in *in);
uint64_t cs_get_varint(struct cs_in *in);
/* Points *s at the string bytes inside the input (not NUL-terminated). */
size_t cs_get_str(struct cs_in *in, const char **s);

size_t cs_varint_len(uint64_t v);

static inline void cs_store_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void cs_store_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t cs_load_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t cs_load_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

#endif
