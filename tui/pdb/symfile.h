/* Finding an assembly's portable PDB the way the .NET tools do: embedded
 * in the assembly, or the file its debug directory names, looked for
 * beside the assembly, with the id checked against the assembly's. */
#ifndef CLRSCOPE_PDB_SYMFILE_H
#define CLRSCOPE_PDB_SYMFILE_H

#include <stddef.h>
#include <stdint.h>

#include "pdb/pdb.h"

#define SYMFILE_MAX (512u << 20) /* larger assemblies and PDBs are refused */

/* Reads path whole (a regular file of at most max bytes) into *data
 * (malloc'd).  -1 with err. */
int symfile_read(const char *path, size_t max, uint8_t **data, size_t *len, char *err, size_t errlen);

/* Opens the portable PDB of the assembly at path into *out.  -1 when
 * there is none that matches, with why (missing, another build's, not
 * portable, damaged) in err: lines then stay unknown. */
int symfile_open(const char *assembly, struct pdb_file *out, char *err, size_t errlen);

#endif
