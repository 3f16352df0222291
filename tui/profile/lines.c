#include "profile/lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdb/symfile.h"
#include "util/xalloc.h"

#define PATH_FRAMES 4096

struct lines_module {
	bool tried, ok, used;
	struct pdb_file pdb;
	char why[256];
};

void prof_lines_init(struct prof_lines *L, const struct prof_process *p)
{
	memset(L, 0, sizeof *L);
	L->p = p;
	u64map_init(&L->located, 1);
	strmap_init(&L->file_index);
}

void prof_lines_free(struct prof_lines *L)
{
	for (size_t i = 0; i < L->nmods; i++)
		if (L->mods[i].ok)
			pdb_close(&L->mods[i].pdb);
	free(L->mods);
	u64map_free(&L->located);
	for (size_t i = 0; i < L->nfiles; i++)
		free(L->files[i]);
	free(L->files);
	strmap_free(&L->file_index);
	memset(L, 0, sizeof *L);
}

static struct lines_module *module_of(struct prof_lines *L, uint32_t code_path)
{
	const struct prof_process *p = L->p;
	if (!code_path || code_path > p->ncode_paths)
		return NULL;
	if (L->nmods < p->ncode_paths) {
		size_t cap = L->nmods;
		xgrow(&L->mods, &cap, p->ncode_paths, sizeof *L->mods);
		memset(L->mods + L->nmods, 0, (p->ncode_paths - L->nmods) * sizeof *L->mods);
		L->nmods = p->ncode_paths;
	}
	struct lines_module *m = &L->mods[code_path - 1];
	m->used = true;
	if (!m->tried) {
		m->tried = true;
		m->ok = symfile_open(p->code_paths[code_path - 1], &m->pdb, m->why, sizeof m->why) == 0;
	}
	return m->ok ? m : NULL;
}

static uint32_t file_index(struct prof_lines *L, const char *file)
{
	uint32_t idx;
	if (strmap_get(&L->file_index, file, strlen(file), &idx))
		return idx;
	idx = (uint32_t)L->nfiles;
	size_t cap = L->nfiles;
	xgrow(&L->files, &cap, L->nfiles + 1, sizeof *L->files);
	L->files[L->nfiles++] = xstrdup(file);
	if (!strmap_add(&L->file_index, file, strlen(file), idx)) {
		fprintf(stderr, "clrscope: out of memory\n");
		exit(1);
	}
	return idx;
}

bool prof_lines_locate(struct prof_lines *L, uint32_t frame, uint32_t il_plus1, uint32_t *file, uint32_t *line)
{
	const struct prof_process *p = L->p;
	if (!il_plus1 || frame >= p->nframes)
		return false;
	uint64_t *v = u64map_counters(&L->located, (uint64_t)frame << 32 | il_plus1);
	if (!*v) {
		*v = 1;
		const struct prof_frame *fr = &p->frames[frame];
		struct lines_module *m = fr->token ? module_of(L, fr->code_path) : NULL;
		struct pdb_line pl;
		char err[256];
		/* an epilog is the method's last line: the last visible point */
		if (m && pdb_line(&m->pdb, fr->token, il_plus1 - 1, &pl, err, sizeof err) == 1)
			*v = (uint64_t)(file_index(L, pl.file) + 1) << 32 | pl.line;
	}
	if (*v == 1)
		return false;
	*file = (uint32_t)(*v >> 32) - 1;
	*line = (uint32_t)*v;
	return true;
}

const char *prof_lines_file_base(const struct prof_lines *L, uint32_t file)
{
	if (file >= L->nfiles)
		return "?";
	const char *f = L->files[file];
	const char *slash = strrchr(f, '/'), *back = strrchr(f, '\\');
	if (back && (!slash || back > slash))
		slash = back;
	return slash ? slash + 1 : f;
}

const char *prof_lines_label(struct prof_lines *L, uint32_t frame, uint32_t il_plus1, char *buf, size_t n)
{
	const char *name = prof_frame_name(L->p, frame);
	uint32_t file, line;
	if (!prof_lines_locate(L, frame, il_plus1, &file, &line))
		return name;
	snprintf(buf, n, "%s (%s:%u)", name, prof_lines_file_base(L, file), line);
	return buf;
}

void prof_lines_notes(const struct prof_lines *L, prof_lines_note_visit visit, void *ctx)
{
	for (size_t i = 0; i < L->nmods; i++)
		if (L->mods[i].used && !L->mods[i].ok)
			visit(ctx, L->p->code_paths[i], L->mods[i].why);
}

struct row_table {
	struct u64map index; /* function << 32 | location -> row + 1 */
	struct u64map locs;  /* (file + 1) << 32 | line -> location + 1 */
	struct prof_line_row *rows;
	size_t n, cap;
	uint64_t *stamp; /* by row: the last sample (stack) that counted its total */
};

static size_t row_of(struct row_table *t, uint32_t function, uint32_t file, uint32_t line)
{
	uint64_t *loc = u64map_counters(&t->locs, (uint64_t)(file + 1) << 32 | line);
	if (!*loc)
		*loc = t->locs.count;
	uint64_t *r = u64map_counters(&t->index, (uint64_t)function << 32 | (uint32_t)*loc);
	if (!*r) {
		size_t cap = t->cap;
		xgrow(&t->rows, &t->cap, t->n + 1, sizeof *t->rows);
		xgrow(&t->stamp, &cap, t->n + 1, sizeof *t->stamp);
		t->rows[t->n] = (struct prof_line_row){function, file, line, 0, 0};
		t->stamp[t->n] = 0;
		*r = ++t->n;
	}
	return (size_t)*r - 1;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct prof_line_row *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->function != y->function)
		return x->function < y->function ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

size_t prof_lines_rows(struct prof_lines *L, struct prof_line_row **out)
{
	const struct prof_process *p = L->p;
	struct row_table t = {0};
	u64map_init(&t.index, 1);
	u64map_init(&t.locs, 1);
	uint32_t *frames = xmalloc(PATH_FRAMES * sizeof *frames), *ils = xmalloc(PATH_FRAMES * sizeof *ils);
	for (uint32_t s = 1; s < p->nstacks; s++) {
		uint64_t c = p->stacks[s].line_count;
		if (!c)
			continue;
		size_t depth = prof_stack_path_at(p, s, frames, ils, PATH_FRAMES);
		for (size_t i = 0; i < depth; i++) {
			uint32_t file, line;
			if (frames[i] >= p->nframes || p->frames[frames[i]].function == UINT32_MAX ||
			    !prof_lines_locate(L, frames[i], ils[i], &file, &line))
				continue;
			size_t r = row_of(&t, p->frames[frames[i]].function, file, line);
			if (t.stamp[r] != s) { /* recursion counts once toward total */
				t.stamp[r] = s;
				t.rows[r].total += c;
			}
			if (i == depth - 1)
				t.rows[r].self += c;
		}
	}
	free(frames);
	free(ils);
	free(t.stamp);
	u64map_free(&t.index);
	u64map_free(&t.locs);
	if (t.n)
		qsort(t.rows, t.n, sizeof *t.rows, cmp_rows);
	*out = t.rows;
	return t.n;
}
