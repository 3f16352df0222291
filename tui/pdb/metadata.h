/* ECMA-335 metadata (partition II, 24): the metadata root and its streams,
 * the heaps, and the table stream's row counts and row sizes; shared by
 * the assembly's own metadata and a portable PDB's. */
#ifndef CLRSCOPE_PDB_METADATA_H
#define CLRSCOPE_PDB_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MD_TABLES 64

/* Table numbers this reader uses (II.22, and the portable PDB's 0x30-0x37). */
enum {
	MD_MODULE = 0x00, MD_TYPEREF = 0x01, MD_TYPEDEF = 0x02, MD_FIELDPTR = 0x03, MD_FIELD = 0x04,
	MD_METHODPTR = 0x05, MD_METHODDEF = 0x06, MD_PARAM = 0x08, MD_MODULEREF = 0x1A, MD_TYPESPEC = 0x1B,
	MD_ASSEMBLYREF = 0x23,
	MD_DOCUMENT = 0x30, MD_METHODDEBUGINFO = 0x31,
};

struct md_span {
	const uint8_t *p;
	size_t len;
};

struct metadata {
	struct md_span strings, blobs, guids, tables, pdb; /* streams (len 0: absent) */
	uint8_t heap_sizes;            /* HeapSizes: 4-byte #Strings (1), #GUID (2), #Blob (4) indexes */
	uint64_t valid;                /* tables present */
	uint32_t rows[MD_TABLES];      /* rows per table; for a PDB, the type system's from #Pdb */
	size_t rows_at;                /* where the first table's rows start in tables.p */
	size_t table_offset[MD_TABLES];/* where each present table's rows start in tables.p */
	unsigned row_size[MD_TABLES];  /* bytes per row, for the tables this reader knows */
};

/* Parses the metadata root at p (the "BSJB" signature), its streams, and
 * the table stream up to the tables this reader knows (a portable PDB's
 * #Pdb stream adds the row counts of the assembly's tables).  Returns -1
 * and says why in err. */
int md_open(struct metadata *m, const uint8_t *p, size_t len, char *err, size_t errlen);

/* Row (1-based) of table: its bytes, or NULL when out of range. */
const uint8_t *md_row(const struct metadata *m, unsigned table, uint32_t row);

/* Index sizes of the heaps: 2 or 4 bytes. */
unsigned md_string_size(const struct metadata *m);
unsigned md_guid_size(const struct metadata *m);
unsigned md_blob_size(const struct metadata *m);
/* A simple index into table: 2 or 4 bytes. */
unsigned md_index_size(const struct metadata *m, unsigned table);

/* A #Strings entry (NUL-terminated within the heap), or NULL. */
const char *md_string(const struct metadata *m, uint32_t index);
/* A #Blob entry: false when the index or its length is out of range. */
bool md_blob(const struct metadata *m, uint32_t index, struct md_span *out);

/* The MethodDef token (0x06000000 | row) of the first method named name;
 * 0 when none. */
uint32_t md_find_method(const struct metadata *m, const char *name);

#endif
