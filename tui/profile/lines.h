/* Source lines of a profile: each sampled frame's IL offset (STACK_IL)
 * mapped to a file and line through its assembly's portable PDB
 * (FRAME_CODE names the assembly and the method).  PDBs are opened on
 * first need and kept; an assembly without a matching PDB leaves its
 * frames at method level, with the reason kept for a note. */
#ifndef CLRSCOPE_LINES_H
#define CLRSCOPE_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "util/strmap.h"
#include "util/u64map.h"

struct lines_module; /* an assembly's PDB, or why there is none */

struct prof_lines {
	const struct prof_process *p;
	struct lines_module *mods; /* by prof_process.code_paths index */
	size_t nmods;
	struct u64map located; /* frame << 32 | il_plus1 -> (file + 1) << 32 | line; 1: no line */
	char **files;          /* source file paths */
	size_t nfiles;
	struct strmap file_index;
};

void prof_lines_init(struct prof_lines *L, const struct prof_process *p);
void prof_lines_free(struct prof_lines *L);

/* The file (index into L->files) and line of a frame at an IL offset + 1;
 * false when not known (no offset, no PDB, no visible sequence point). */
bool prof_lines_locate(struct prof_lines *L, uint32_t frame, uint32_t il_plus1, uint32_t *file, uint32_t *line);

/* "File.cs:42" of a file index and line (the file's last path part). */
const char *prof_lines_file_base(const struct prof_lines *L, uint32_t file);

/* A frame's name with its line when known: "Name (File.cs:42)". */
const char *prof_lines_label(struct prof_lines *L, uint32_t frame, uint32_t il_plus1, char *buf, size_t n);

/* Assemblies with sampled frames whose lines could not be read, and why:
 * calls visit for each (after prof_lines_rows or locate calls). */
typedef void (*prof_lines_note_visit)(void *ctx, const char *assembly, const char *why);
void prof_lines_notes(const struct prof_lines *L, prof_lines_note_visit visit, void *ctx);

/* Samples by source line: self (the line the innermost frame was at) and
 * total (lines on the stack; each counted once per sample). */
struct prof_line_row {
	uint32_t function; /* index into p->functions */
	uint32_t file;     /* index into L->files */
	uint32_t line;
	uint64_t self, total;
};
/* Every sampled line, largest self first (then total); *out malloc'd. */
size_t prof_lines_rows(struct prof_lines *L, struct prof_line_row **out);

#endif
