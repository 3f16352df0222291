#include "pdb/pe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pdb/bytes.h"

#define DEBUG_CODEVIEW 2
#define DEBUG_EMBEDDED_PDB 17
#define PORTABLE_PDB_MINOR 0x504D /* "PM": the CodeView entry of a portable PDB */
#define CODEVIEW_SIGNATURE 0x53445352u /* "RSDS" */
#define EMBEDDED_SIGNATURE 0x4244504Du /* "MPDB" */
#define EMBEDDED_PDB_MAX (256u << 20)

struct section {
	uint32_t rva, size, offset, raw_size;
};

struct image {
	const uint8_t *p;
	size_t len;
	const uint8_t *sections; /* the section table */
	uint16_t nsections;
};

/* The file span of size bytes at rva, or false when no section holds it. */
static bool rva_span(const struct image *im, uint32_t rva, uint32_t size, struct md_span *out)
{
	for (uint16_t i = 0; i < im->nsections; i++) {
		struct bytes b = bytes_at(im->sections, (size_t)im->nsections * 40, (size_t)i * 40 + 8);
		struct section s;
		s.size = bytes_u32(&b);
		s.rva = bytes_u32(&b);
		s.raw_size = bytes_u32(&b);
		s.offset = bytes_u32(&b);
		uint32_t extent = s.size > s.raw_size ? s.raw_size : s.size;
		if (rva < s.rva || rva - s.rva >= extent || size > extent - (rva - s.rva))
			continue;
		size_t at = (size_t)s.offset + (rva - s.rva);
		if (at > im->len || size > im->len - at)
			return false;
		out->p = im->p + at;
		out->len = size;
		return true;
	}
	return false;
}

static void read_debug_directory(const struct image *im, struct md_span dir, struct pe_debug *out)
{
	for (size_t at = 0; at + 28 <= dir.len; at += 28) {
		struct bytes b = bytes_at(dir.p, dir.len, at + 4);
		uint32_t stamp = bytes_u32(&b);
		bytes_take(&b, 2); /* MajorVersion */
		uint16_t minor = bytes_u16(&b);
		uint32_t type = bytes_u32(&b), size = bytes_u32(&b);
		bytes_take(&b, 4); /* AddressOfRawData */
		uint32_t pointer = bytes_u32(&b);
		if (pointer > im->len || size > im->len - pointer)
			continue;
		struct bytes d = bytes_at(im->p + pointer, size, 0);
		if (type == DEBUG_CODEVIEW && minor == PORTABLE_PDB_MINOR && bytes_u32(&d) == CODEVIEW_SIGNATURE) {
			if (!bytes_take(&d, 16 + 4)) /* GUID, Age */
				continue;
			memcpy(out->pdb_id, d.p + 4, 16);
			for (int i = 0; i < 4; i++)
				out->pdb_id[16 + i] = (uint8_t)(stamp >> (8 * i));
			size_t n = 0;
			for (uint8_t c; (c = bytes_u8(&d)) != 0 && !d.bad;)
				if (n < sizeof out->pdb_path - 1)
					out->pdb_path[n++] = (char)c;
			out->pdb_path[n] = 0;
			out->has_codeview = true;
		} else if (type == DEBUG_EMBEDDED_PDB && bytes_u32(&d) == EMBEDDED_SIGNATURE) {
			out->embedded.p = im->p + pointer;
			out->embedded.len = size;
		}
	}
}

int pe_read(const uint8_t *p, size_t len, struct pe_debug *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	struct bytes b = bytes_at(p, len, 0);
	if (bytes_u16(&b) != 0x5A4D) { /* "MZ" */
		snprintf(err, errlen, "not a PE file (no MZ header)");
		return -1;
	}
	bytes_seek(&b, 0x3C);
	uint32_t pe = bytes_u32(&b);
	b = bytes_at(p, len, pe);
	if (bytes_u32(&b) != 0x00004550u) { /* "PE\0\0" */
		snprintf(err, errlen, "not a PE file (no PE signature)");
		return -1;
	}
	bytes_take(&b, 2); /* Machine */
	struct image im = {p, len, NULL, bytes_u16(&b)};
	bytes_take(&b, 12);
	uint16_t optional_size = bytes_u16(&b);
	bytes_take(&b, 2);
	size_t optional = b.at;
	uint16_t magic = bytes_u16(&b);
	size_t dirs = optional + (magic == 0x20B ? 112 : 96); /* PE32+ or PE32 */
	bytes_seek(&b, dirs - 4);
	uint32_t ndirs = bytes_u32(&b);
	if (b.bad || (magic != 0x10B && magic != 0x20B) || ndirs <= 14 || dirs + 15 * 8 > optional + optional_size) {
		snprintf(err, errlen, "not a .NET assembly (no CLI header in the PE optional header)");
		return -1;
	}
	bytes_seek(&b, optional + optional_size);
	if (!bytes_take(&b, (size_t)im.nsections * 40)) {
		snprintf(err, errlen, "the PE section table is cut short");
		return -1;
	}
	im.sections = p + optional + optional_size;
	struct bytes d = bytes_at(p, len, dirs + 6 * 8);
	uint32_t debug_rva = bytes_u32(&d), debug_size = bytes_u32(&d);
	bytes_seek(&d, dirs + 14 * 8);
	uint32_t cli_rva = bytes_u32(&d), cli_size = bytes_u32(&d);
	struct md_span cli, span;
	if (d.bad || !cli_size || !rva_span(&im, cli_rva, cli_size < 16 ? cli_size : 16, &cli) || cli.len < 16) {
		snprintf(err, errlen, "not a .NET assembly (its CLI header is missing)");
		return -1;
	}
	struct bytes c = bytes_at(cli.p, cli.len, 8);
	uint32_t md_rva = bytes_u32(&c), md_size = bytes_u32(&c);
	if (!rva_span(&im, md_rva, md_size, &out->metadata)) {
		snprintf(err, errlen, "the assembly's metadata lies outside its sections");
		return -1;
	}
	if (debug_size && rva_span(&im, debug_rva, debug_size, &span))
		read_debug_directory(&im, span, out);
	return 0;
}

int pe_embedded_pdb(const struct pe_debug *d, uint8_t **pdb, size_t *len, char *err, size_t errlen)
{
	struct bytes b = bytes_at(d->embedded.p, d->embedded.len, 4);
	uint32_t size = bytes_u32(&b);
	if (b.bad || size == 0 || size > EMBEDDED_PDB_MAX) {
		snprintf(err, errlen, "the embedded PDB claims %u bytes", size);
		return -1;
	}
	*pdb = malloc(size);
	if (!*pdb) {
		snprintf(err, errlen, "out of memory for a %u-byte embedded PDB", size);
		return -1;
	}
	z_stream z;
	memset(&z, 0, sizeof z);
	z.next_in = (unsigned char *)d->embedded.p + b.at;
	z.avail_in = (uInt)(d->embedded.len - b.at);
	z.next_out = *pdb;
	z.avail_out = size;
	int rc = inflateInit2(&z, -15); /* raw deflate */
	if (rc == Z_OK)
		rc = inflate(&z, Z_FINISH);
	size_t got = z.total_out;
	inflateEnd(&z);
	if (rc != Z_STREAM_END || got != size) {
		snprintf(err, errlen, "the embedded PDB does not inflate to its %u bytes", size);
		free(*pdb);
		*pdb = NULL;
		return -1;
	}
	*len = size;
	return 0;
}
