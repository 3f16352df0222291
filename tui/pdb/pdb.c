#include "pdb/pdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdb/bytes.h"

#define LINE_LIMIT 0x20000000u   /* the format's bound on line numbers */
#define COLUMN_LIMIT 0x10000u    /* and on columns */

int pdb_open_bytes(struct pdb_file *f, uint8_t *data, size_t len, char *err, size_t errlen)
{
	memset(f, 0, sizeof *f);
	if (md_open(&f->md, data, len, err, errlen) < 0) {
		free(data);
		return -1;
	}
	if (f->md.pdb.len < PDB_ID_SIZE) {
		snprintf(err, errlen, "not a portable PDB (no #Pdb stream)");
		free(data);
		return -1;
	}
	if (f->md.rows[MD_METHODDEBUGINFO] && !f->md.row_size[MD_METHODDEBUGINFO]) {
		snprintf(err, errlen, "the PDB holds tables this reader does not know before its method table");
		free(data);
		return -1;
	}
	memcpy(f->id, f->md.pdb.p, PDB_ID_SIZE);
	f->data = data;
	f->len = len;
	return 0;
}

void pdb_close(struct pdb_file *f)
{
	free(f->data);
	memset(f, 0, sizeof *f);
}

int pdb_document_name(const struct pdb_file *f, uint32_t document, char *out, size_t outlen)
{
	const struct metadata *m = &f->md;
	const uint8_t *row = md_row(m, MD_DOCUMENT, document);
	struct md_span name;
	if (!row || outlen == 0)
		return -1;
	struct bytes r = bytes_at(row, m->row_size[MD_DOCUMENT], 0);
	if (!md_blob(m, bytes_index(&r, md_blob_size(m)), &name))
		return -1;
	/* a separator character, then the parts: blob indexes of UTF-8 text */
	struct bytes b = bytes_at(name.p, name.len, 0);
	uint8_t separator = bytes_u8(&b);
	size_t n = 0;
	for (bool first = true; !b.bad && b.at < b.len; first = false) {
		struct md_span part;
		if (!md_blob(m, bytes_cu(&b), &part) || b.bad)
			return -1;
		size_t need = part.len + (!first && separator);
		if (need >= outlen - n)
			return -1;
		if (!first && separator)
			out[n++] = (char)separator;
		memcpy(out + n, part.p, part.len);
		n += part.len;
	}
	out[n] = 0;
	return b.bad || memchr(out, 0, n) ? -1 : 0;
}

int pdb_each_point(const struct pdb_file *f, uint32_t method_token, pdb_point_visit visit, void *ctx, char *err,
		   size_t errlen)
{
	const struct metadata *m = &f->md;
	if (method_token >> 24 != MD_METHODDEF) {
		snprintf(err, errlen, "0x%08x is not a method token", method_token);
		return -1;
	}
	const uint8_t *row = md_row(m, MD_METHODDEBUGINFO, method_token & 0xFFFFFF);
	if (!row) {
		snprintf(err, errlen, "the PDB has no method 0x%08x", method_token);
		return -1;
	}
	struct bytes r = bytes_at(row, m->row_size[MD_METHODDEBUGINFO], 0);
	struct pdb_point pt = {0};
	pt.document = bytes_index(&r, md_index_size(m, MD_DOCUMENT));
	uint32_t blob = bytes_index(&r, md_blob_size(m));
	struct md_span points;
	if (blob == 0)
		return 0; /* no sequence points: a method without source */
	if (!md_blob(m, blob, &points)) {
		snprintf(err, errlen, "method 0x%08x: its sequence points lie outside the blob heap", method_token);
		return -1;
	}
	struct bytes b = bytes_at(points.p, points.len, 0);
	bytes_cu(&b); /* LocalSignature */
	if (!pt.document)
		pt.document = bytes_cu(&b); /* InitialDocument */
	int count = 0;
	bool first = true, visible = false;
	uint32_t line = 0, column = 0;
	while (!b.bad && b.at < b.len) {
		uint32_t delta_il = bytes_cu(&b);
		if (!first && delta_il == 0) { /* a document record */
			pt.document = bytes_cu(&b);
			continue;
		}
		if (!first && delta_il > UINT32_MAX - pt.il_offset)
			break;
		pt.il_offset = first ? delta_il : pt.il_offset + delta_il;
		first = false;
		uint32_t delta_lines = bytes_cu(&b);
		int64_t delta_columns = delta_lines == 0 ? (int64_t)bytes_cu(&b) : (int64_t)bytes_ci(&b);
		if (delta_lines == 0 && delta_columns == 0) {
			pt.line = pt.end_line = PDB_HIDDEN_LINE;
			pt.column = pt.end_column = 0;
		} else {
			/* the first visible point is absolute, the others relative to the one before */
			int64_t l = visible ? (int64_t)line + bytes_ci(&b) : (int64_t)bytes_cu(&b);
			int64_t c = visible ? (int64_t)column + bytes_ci(&b) : (int64_t)bytes_cu(&b);
			int64_t end_l = l + delta_lines, end_c = c + delta_columns;
			if (l < 1 || end_l >= LINE_LIMIT || c < 0 || c >= COLUMN_LIMIT || end_c < 0 || end_c >= COLUMN_LIMIT)
				break;
			line = (uint32_t)l;
			column = (uint32_t)c;
			visible = true;
			pt.line = line;
			pt.column = column;
			pt.end_line = (uint32_t)end_l;
			pt.end_column = (uint32_t)end_c;
		}
		if (b.bad)
			break;
		count++;
		if (!visit(ctx, &pt))
			return count;
	}
	if (b.bad || b.at < b.len) {
		snprintf(err, errlen, "method 0x%08x: damaged sequence points", method_token);
		return -1;
	}
	return count;
}

struct line_search {
	uint32_t il_offset;
	bool found;
	struct pdb_point best;
};

static bool keep_last_visible(void *ctx, const struct pdb_point *pt)
{
	struct line_search *s = ctx;
	if (pt->il_offset > s->il_offset)
		return false; /* points come in IL order */
	if (pt->line != PDB_HIDDEN_LINE) {
		s->best = *pt;
		s->found = true;
	}
	return true;
}

int pdb_line(const struct pdb_file *f, uint32_t method_token, uint32_t il_offset, struct pdb_line *out, char *err,
	     size_t errlen)
{
	struct line_search s = {il_offset, false, {0}};
	if (pdb_each_point(f, method_token, keep_last_visible, &s, err, errlen) < 0)
		return -1;
	if (!s.found)
		return 0;
	if (pdb_document_name(f, s.best.document, out->file, sizeof out->file) < 0) {
		snprintf(err, errlen, "method 0x%08x: document %u is missing or damaged", method_token, s.best.document);
		return -1;
	}
	out->line = s.best.line;
	out->column = s.best.column;
	return 1;
}
