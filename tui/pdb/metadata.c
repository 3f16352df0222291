#include "pdb/metadata.h"

#include <stdio.h>
#include <string.h>

#include "pdb/bytes.h"

#define MD_SIGNATURE 0x424A5342u /* "BSJB" */

unsigned md_string_size(const struct metadata *m)
{
	return m->heap_sizes & 0x01 ? 4 : 2;
}

unsigned md_guid_size(const struct metadata *m)
{
	return m->heap_sizes & 0x02 ? 4 : 2;
}

unsigned md_blob_size(const struct metadata *m)
{
	return m->heap_sizes & 0x04 ? 4 : 2;
}

unsigned md_index_size(const struct metadata *m, unsigned table)
{
	return m->rows[table] > 0xFFFF ? 4 : 2;
}

/* A coded index over tables (II.24.2.6): 2 bytes while every one of them
 * fits in the bits the tag leaves. */
static unsigned coded_size(const struct metadata *m, unsigned tag_bits, const unsigned *tables, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m->rows[tables[i]] >= 1u << (16 - tag_bits))
			return 4;
	return 2;
}

/* Row sizes of the tables this reader knows (II.22), 0 for the others. */
static unsigned row_size(const struct metadata *m, unsigned table)
{
	static const unsigned resolution_scope[] = {MD_MODULE, MD_MODULEREF, MD_ASSEMBLYREF, MD_TYPEREF};
	static const unsigned type_def_or_ref[] = {MD_TYPEDEF, MD_TYPEREF, MD_TYPESPEC};
	unsigned s = md_string_size(m), g = md_guid_size(m), b = md_blob_size(m);
	switch (table) {
	case MD_MODULE: /* Generation, Name, Mvid, EncId, EncBaseId */
		return 2 + s + 3 * g;
	case MD_TYPEREF: /* ResolutionScope, TypeName, TypeNamespace */
		return coded_size(m, 2, resolution_scope, 4) + 2 * s;
	case MD_TYPEDEF: /* Flags, TypeName, TypeNamespace, Extends, FieldList, MethodList */
		return 4 + 2 * s + coded_size(m, 2, type_def_or_ref, 3) + md_index_size(m, MD_FIELD) +
		       md_index_size(m, MD_METHODDEF);
	case MD_FIELDPTR:
		return md_index_size(m, MD_FIELD);
	case MD_FIELD: /* Flags, Name, Signature */
		return 2 + s + b;
	case MD_METHODPTR:
		return md_index_size(m, MD_METHODDEF);
	case MD_METHODDEF: /* RVA, ImplFlags, Flags, Name, Signature, ParamList */
		return 4 + 2 + 2 + s + b + md_index_size(m, MD_PARAM);
	case MD_DOCUMENT: /* Name (blob), HashAlgorithm (guid), Hash (blob), Language (guid) */
		return 2 * b + 2 * g;
	case MD_METHODDEBUGINFO: /* Document, SequencePoints (blob) */
		return md_index_size(m, MD_DOCUMENT) + b;
	default:
		return 0;
	}
}

/* The #Pdb stream (portable PDB format, "#Pdb stream"): the id, the entry
 * point, then the row counts of the assembly's tables it refers to. */
static int read_pdb_stream(struct metadata *m, char *err, size_t errlen)
{
	struct bytes b = bytes_at(m->pdb.p, m->pdb.len, 20 + 4);
	uint64_t referenced = bytes_u32(&b);
	referenced |= (uint64_t)bytes_u32(&b) << 32;
	/* only the type system's tables, and none the PDB holds itself */
	if (referenced >> MD_DOCUMENT || (referenced & m->valid)) {
		snprintf(err, errlen, "the #Pdb stream refers to tables it may not (0x%016llx)",
			 (unsigned long long)referenced);
		return -1;
	}
	for (unsigned t = 0; t < MD_TABLES; t++)
		if (referenced >> t & 1)
			m->rows[t] = bytes_u32(&b);
	if (b.bad) {
		snprintf(err, errlen, "the #Pdb stream is cut short");
		return -1;
	}
	return 0;
}

static int read_table_header(struct metadata *m, char *err, size_t errlen)
{
	struct bytes b = bytes_at(m->tables.p, m->tables.len, 0);
	bytes_take(&b, 4 + 1 + 1); /* Reserved, MajorVersion, MinorVersion */
	m->heap_sizes = bytes_u8(&b);
	bytes_take(&b, 1);
	m->valid = bytes_u32(&b);
	m->valid |= (uint64_t)bytes_u32(&b) << 32;
	bytes_take(&b, 8); /* Sorted */
	for (unsigned t = 0; t < MD_TABLES; t++)
		if (m->valid >> t & 1)
			m->rows[t] = bytes_u32(&b);
	if (m->heap_sizes & 0x40)
		bytes_take(&b, 4); /* extra data after the row counts */
	if (b.bad) {
		snprintf(err, errlen, "the table stream's header is cut short");
		return -1;
	}
	m->rows_at = b.at;
	return 0;
}

/* Where each table starts: rows lie table after table, so a table can be
 * found while every present table before it has a size this reader
 * knows.  After every row count is known (a PDB's from #Pdb too), since
 * row sizes depend on them. */
static int lay_out_tables(struct metadata *m, char *err, size_t errlen)
{
	size_t at = m->rows_at;
	for (unsigned t = 0; t < MD_TABLES; t++) {
		if (!(m->valid >> t & 1))
			continue;
		unsigned size = row_size(m, t);
		if (!size)
			break;
		if (m->rows[t] > (m->tables.len - at) / size) {
			snprintf(err, errlen, "table 0x%02x (%u rows of %u bytes) runs past the table stream", t,
				 m->rows[t], size);
			return -1;
		}
		m->table_offset[t] = at;
		m->row_size[t] = size;
		at += (size_t)m->rows[t] * size;
	}
	return 0;
}

int md_open(struct metadata *m, const uint8_t *p, size_t len, char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	struct bytes b = bytes_at(p, len, 0);
	if (bytes_u32(&b) != MD_SIGNATURE) {
		snprintf(err, errlen, "no metadata signature (BSJB)");
		return -1;
	}
	bytes_take(&b, 2 + 2 + 4); /* versions, Reserved */
	uint32_t version_len = bytes_u32(&b);
	if (version_len > 255 || !bytes_take(&b, version_len)) {
		snprintf(err, errlen, "the metadata version string is %u bytes", version_len);
		return -1;
	}
	bytes_take(&b, 2); /* Flags */
	uint16_t streams = bytes_u16(&b);
	bool compressed = false;
	for (uint16_t i = 0; i < streams && !b.bad; i++) {
		uint32_t offset = bytes_u32(&b), size = bytes_u32(&b);
		char name[33];
		size_t n = 0;
		for (uint8_t c; (c = bytes_u8(&b)) != 0 && !b.bad;)
			if (n < sizeof name - 1)
				name[n++] = (char)c;
		name[n] = 0;
		bytes_seek(&b, (b.at + 3) & ~(size_t)3); /* names are padded to 4 bytes */
		if (b.at > len || offset > len || size > len - offset) {
			snprintf(err, errlen, "stream %u ('%s') lies outside the metadata", i, name);
			return -1;
		}
		struct md_span s = {p + offset, size};
		if (strcmp(name, "#Strings") == 0)
			m->strings = s;
		else if (strcmp(name, "#Blob") == 0)
			m->blobs = s;
		else if (strcmp(name, "#GUID") == 0)
			m->guids = s;
		else if (strcmp(name, "#Pdb") == 0)
			m->pdb = s;
		else if (strcmp(name, "#~") == 0 || strcmp(name, "#-") == 0) {
			m->tables = s;
			compressed = name[1] == '~';
		}
	}
	if (b.bad) {
		snprintf(err, errlen, "the metadata's stream headers are cut short");
		return -1;
	}
	if (!m->tables.len) {
		snprintf(err, errlen, "the metadata has no table stream");
		return -1;
	}
	if (!compressed) {
		snprintf(err, errlen, "uncompressed metadata tables (#-, edit and continue) are not supported");
		return -1;
	}
	if (read_table_header(m, err, errlen) < 0)
		return -1;
	if (m->pdb.len && read_pdb_stream(m, err, errlen) < 0)
		return -1;
	return lay_out_tables(m, err, errlen);
}

const uint8_t *md_row(const struct metadata *m, unsigned table, uint32_t row)
{
	if (table >= MD_TABLES || !m->row_size[table] || row == 0 || row > m->rows[table])
		return NULL;
	return m->tables.p + m->table_offset[table] + (size_t)(row - 1) * m->row_size[table];
}

const char *md_string(const struct metadata *m, uint32_t index)
{
	if (index >= m->strings.len || !memchr(m->strings.p + index, 0, m->strings.len - index))
		return NULL;
	return (const char *)m->strings.p + index;
}

bool md_blob(const struct metadata *m, uint32_t index, struct md_span *out)
{
	struct bytes b = bytes_at(m->blobs.p, m->blobs.len, index);
	uint32_t n = bytes_cu(&b);
	if (b.bad || n > b.len - b.at)
		return false;
	out->p = b.p + b.at;
	out->len = n;
	return true;
}

uint32_t md_find_method(const struct metadata *m, const char *name)
{
	for (uint32_t row = 1; row <= m->rows[MD_METHODDEF]; row++) {
		const uint8_t *r = md_row(m, MD_METHODDEF, row);
		if (!r)
			return 0;
		struct bytes b = bytes_at(r, m->row_size[MD_METHODDEF], 8); /* past RVA, ImplFlags, Flags */
		const char *s = md_string(m, bytes_index(&b, md_string_size(m)));
		if (s && strcmp(s, name) == 0)
			return 0x06000000u | row;
	}
	return 0;
}
