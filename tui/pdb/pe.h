/* What a .NET assembly (a PE file, ECMA-335 II.25) says about its
 * symbols: its metadata, and the debug directory's CodeView entry (the
 * portable PDB's id and path) and embedded portable PDB. */
#ifndef CLRSCOPE_PDB_PE_H
#define CLRSCOPE_PDB_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdb/metadata.h"

#define PDB_ID_SIZE 20 /* a GUID and a time stamp */

struct pe_debug {
	struct md_span metadata;   /* the CLI metadata root */
	bool has_codeview;         /* a portable PDB's CodeView entry */
	uint8_t pdb_id[PDB_ID_SIZE];
	char pdb_path[1024];       /* as the compiler wrote it */
	struct md_span embedded;   /* the embedded PDB entry's data (len 0: none) */
};

/* Reads the headers of the PE image in p.  Returns -1 and says why in err
 * when it is not a .NET assembly. */
int pe_read(const uint8_t *p, size_t len, struct pe_debug *out, char *err, size_t errlen);

/* Inflates the embedded portable PDB into *pdb (malloc'd).  -1 with err. */
int pe_embedded_pdb(const struct pe_debug *d, uint8_t **pdb, size_t *len, char *err, size_t errlen);

#endif
