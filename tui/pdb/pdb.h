/* Portable PDB (the format of System.Reflection.Metadata's
 * PortablePdb-Metadata.md): the Document and MethodDebugInformation
 * tables and the sequence points, which map a method's IL offsets to
 * source lines. */
#ifndef CLRSCOPE_PDB_PDB_H
#define CLRSCOPE_PDB_PDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdb/metadata.h"
#include "pdb/pe.h"

#define PDB_HIDDEN_LINE 0xFEEFEEu

struct pdb_file {
	uint8_t *data; /* the whole PDB, owned */
	size_t len;
	struct metadata md;
	uint8_t id[PDB_ID_SIZE];
};

/* Takes data (malloc'd; freed by pdb_close, or here on failure) as a
 * portable PDB.  -1 with err when it is not one. */
int pdb_open_bytes(struct pdb_file *f, uint8_t *data, size_t len, char *err, size_t errlen);
void pdb_close(struct pdb_file *f);

struct pdb_point {
	uint32_t il_offset;
	uint32_t document; /* Document row */
	uint32_t line, column, end_line, end_column; /* line PDB_HIDDEN_LINE: hidden */
};

/* Calls visit for each sequence point of the method (a MethodDef token),
 * in IL order, until it returns false.  Returns the number visited, or -1
 * with err when the method's blob is damaged. */
typedef bool (*pdb_point_visit)(void *ctx, const struct pdb_point *pt);
int pdb_each_point(const struct pdb_file *f, uint32_t method_token, pdb_point_visit visit, void *ctx, char *err,
		   size_t errlen);

/* A document's path, its parts joined by its separator; -1 when damaged
 * or too long for out. */
int pdb_document_name(const struct pdb_file *f, uint32_t document, char *out, size_t outlen);

/* The source line of an IL offset: the last visible sequence point at or
 * before it, as the runtime's stack traces choose.  1 found, 0 when the
 * method has no visible point there, -1 with err when damaged. */
struct pdb_line {
	char file[1024];
	uint32_t line, column;
};
int pdb_line(const struct pdb_file *f, uint32_t method_token, uint32_t il_offset, struct pdb_line *out, char *err,
	     size_t errlen);

#endif
