/* A bounded little-endian reader over bytes that came from a file: every
 * read checks the length, and a read past the end sets bad and yields 0,
 * so a parser checks once at the end instead of at every field. */
#ifndef CLRSCOPE_PDB_BYTES_H
#define CLRSCOPE_PDB_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bytes {
	const uint8_t *p;
	size_t len, at;
	bool bad;
};

static inline struct bytes bytes_at(const uint8_t *p, size_t len, size_t at)
{
	struct bytes b = {p, len, at, at > len};
	return b;
}

static inline bool bytes_take(struct bytes *b, size_t n)
{
	if (b->bad || b->at > b->len || n > b->len - b->at) {
		b->bad = true;
		return false;
	}
	b->at += n;
	return true;
}

/* Moves to at (past the end: every later read fails). */
static inline void bytes_seek(struct bytes *b, size_t at)
{
	b->at = at;
	if (at > b->len)
		b->bad = true;
}

static inline uint8_t bytes_u8(struct bytes *b)
{
	return bytes_take(b, 1) ? b->p[b->at - 1] : 0;
}

static inline uint16_t bytes_u16(struct bytes *b)
{
	if (!bytes_take(b, 2))
		return 0;
	const uint8_t *q = b->p + b->at - 2;
	return (uint16_t)(q[0] | q[1] << 8);
}

static inline uint32_t bytes_u32(struct bytes *b)
{
	if (!bytes_take(b, 4))
		return 0;
	const uint8_t *q = b->p + b->at - 4;
	return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}

/* A 2- or 4-byte field (heap and table indexes). */
static inline uint32_t bytes_index(struct bytes *b, unsigned size)
{
	return size == 4 ? bytes_u32(b) : bytes_u16(b);
}

/* ECMA-335 II.23.2: 1, 2 or 4 bytes, big-endian, the length in the top bits. */
static inline uint32_t bytes_compressed_u(struct bytes *b, unsigned *size)
{
	uint8_t first = bytes_u8(b);
	if (!(first & 0x80)) {
		*size = 1;
		return first;
	}
	if ((first & 0xC0) == 0x80) {
		*size = 2;
		return (uint32_t)(first & 0x3F) << 8 | bytes_u8(b);
	}
	if ((first & 0xE0) == 0xC0) {
		*size = 4;
		uint32_t v = (uint32_t)(first & 0x1F) << 24;
		v |= (uint32_t)bytes_u8(b) << 16;
		v |= (uint32_t)bytes_u8(b) << 8;
		return v | bytes_u8(b);
	}
	b->bad = true; /* 111xxxxx is no length */
	*size = 1;
	return 0;
}

static inline uint32_t bytes_cu(struct bytes *b)
{
	unsigned size;
	return bytes_compressed_u(b, &size);
}

/* The signed form: the sign in bit 0, extended over the width the length
 * gives (6, 13 or 28 bits). */
static inline int32_t bytes_ci(struct bytes *b)
{
	unsigned size;
	uint32_t u = bytes_compressed_u(b, &size);
	int32_t v = (int32_t)(u >> 1);
	if (u & 1)
		v -= size == 1 ? 0x40 : size == 2 ? 0x2000 : 0x10000000;
	return v;
}

#endif
