/* libFuzzer target for the portable PDB reader: the first input byte picks
 * what the rest is: even, an assembly (PE headers, the debug directory,
 * the metadata tables, the embedded PDB inflated and read); odd, a
 * portable PDB (#Pdb stream, Document and MethodDebugInformation tables,
 * every method's sequence points and document names).  What comes out
 * must keep the format's own promises: IL offsets rising, lines within
 * bounds, names terminated. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdb/metadata.h"
#include "pdb/pdb.h"
#include "pdb/pe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct walk {
	uint32_t last_il;
	size_t n;
};

static bool check_point(void *ctx, const struct pdb_point *pt)
{
	struct walk *w = ctx;
	if (w->n++ && pt->il_offset <= w->last_il)
		abort(); /* a point after the first always moves forward */
	w->last_il = pt->il_offset;
	if (pt->line != PDB_HIDDEN_LINE && (pt->line == 0 || pt->end_line < pt->line || pt->end_line >= 0x20000000u))
		abort();
	return true;
}

static void walk_pdb(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	struct pdb_file f;
	char err[256], name[512];
	if (pdb_open_bytes(&f, copy, size, err, sizeof err) < 0)
		return;
	uint32_t methods = f.md.rows[MD_METHODDEBUGINFO];
	for (uint32_t row = 1; row <= methods && row <= 256; row++) {
		struct walk w = {0, 0};
		pdb_each_point(&f, 0x06000000u | row, check_point, &w, err, sizeof err);
		struct pdb_line l;
		if (pdb_line(&f, 0x06000000u | row, 0x7FFFFFFF, &l, err, sizeof err) == 1 &&
		    (!memchr(l.file, 0, sizeof l.file) || l.line == 0))
			abort();
	}
	for (uint32_t doc = 1; doc <= f.md.rows[MD_DOCUMENT] && doc <= 64; doc++)
		if (pdb_document_name(&f, doc, name, sizeof name) == 0 && !memchr(name, 0, sizeof name))
			abort();
	pdb_close(&f);
}

static void walk_assembly(const uint8_t *data, size_t size)
{
	struct pe_debug d;
	struct metadata m;
	char err[256];
	if (pe_read(data, size, &d, err, sizeof err) < 0)
		return;
	if (!memchr(d.pdb_path, 0, sizeof d.pdb_path))
		abort();
	if (md_open(&m, d.metadata.p, d.metadata.len, err, sizeof err) == 0) {
		uint32_t token = md_find_method(&m, "Main");
		if (token && (token >> 24 != MD_METHODDEF || (token & 0xFFFFFF) > m.rows[MD_METHODDEF]))
			abort();
	}
	uint8_t *pdb;
	size_t len;
	if (d.embedded.len && pe_embedded_pdb(&d, &pdb, &len, err, sizeof err) == 0) {
		walk_pdb(pdb, len);
		free(pdb);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		walk_pdb(data + 1, size - 1);
	else
		walk_assembly(data + 1, size - 1);
	return 0;
}
