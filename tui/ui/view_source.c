/* Source: the function in focus line by line.  Its source file (as its
 * PDB names it) with each line's self and total share and a heat bar, the
 * cursor on the hottest line; when the file cannot be read, the lines with
 * samples as a table. */
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/lines.h"
#include "ui/session_screen.h"
#include "util/text.h"
#include "util/xalloc.h"

#define SOURCE_MAX (4u << 20) /* bytes of a source file shown */
#define BAR_WIDTH 10

struct source_line {
	uint32_t line;
	uint64_t self, total;
	char *text; /* NULL in the table form */
};

struct source {
	const struct prof_process *bound; /* the process L reads */
	struct prof_lines L;
	uint32_t focus;
	char file[1024];          /* the focus function's file ("" when it has no lines) */
	char why[512];            /* why there are no lines, or the file is not shown */
	bool from_file;           /* rows are the file's lines, else the table */
	struct source_line *rows; /* file lines 1..n, or the table */
	size_t nrows, rows_cap;
	uint64_t max_total;
};

static const struct column file_columns[] = {
	{"self%", 6, true}, {"total%", 6, true}, {"line", 5, true}, {"", BAR_WIDTH, false}, {"source", 0, false},
};
static const struct column table_columns[] = {
	{"self%", 6, true}, {"total%", 6, true}, {"line", 5, true}, {"", BAR_WIDTH, false}, {"", 0, false},
};

static void init(void *priv)
{
	((struct source *)priv)->focus = UINT32_MAX;
}

static void clear_rows(struct source *v)
{
	for (size_t i = 0; i < v->nrows; i++)
		free(v->rows[i].text);
	v->nrows = 0;
	v->max_total = 0;
}

static void unbind(struct source *v)
{
	if (v->bound)
		prof_lines_free(&v->L);
	v->bound = NULL;
}

static void done(void *priv)
{
	struct source *v = priv;
	clear_rows(v);
	free(v->rows);
	unbind(v);
}

static void add_row(struct source *v, uint32_t line, char *text)
{
	xgrow(&v->rows, &v->rows_cap, v->nrows + 1, sizeof *v->rows);
	v->rows[v->nrows++] = (struct source_line){line, 0, 0, text};
}

/* The file's lines as rows; false (and why) when it cannot be read. */
static bool read_file(struct source *v)
{
	FILE *f = fopen(v->file, "r");
	if (!f) {
		snprintf(v->why, sizeof v->why, "%s: %s", v->file, strerror(errno));
		return false;
	}
	char *line = NULL;
	size_t cap = 0, bytes = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) >= 0 && bytes < SOURCE_MAX) {
		bytes += (size_t)n;
		/* tabs as four spaces; nothing from the file may steer the terminal */
		char *out = xmalloc((size_t)n * 4 + 1), *o = out;
		for (ssize_t i = 0; i < n && line[i] != '\n' && line[i] != '\r'; i++) {
			if (line[i] == '\t') {
				memcpy(o, "    ", 4);
				o += 4;
			} else {
				*o++ = line[i];
			}
		}
		*o = 0;
		add_row(v, (uint32_t)v->nrows + 1, text_sanitize(out));
	}
	free(line);
	fclose(f);
	return true;
}

static void update(struct view_ctx *c)
{
	struct source *v = c->priv;
	struct session_screen *s = c->s;
	struct prof_process *p = c->p;
	bool moved = v->focus != s->focus;
	if (p != v->bound) {
		unbind(v);
		if (p) {
			prof_lines_init(&v->L, p);
			v->bound = p;
		}
		moved = true;
	}
	v->focus = s->focus;
	clear_rows(v);
	v->file[0] = v->why[0] = 0;
	v->from_file = false;
	if (!p || v->focus >= p->nfunctions) {
		view_set_rows(c->v, 0);
		return;
	}
	struct prof_line_row *rows;
	size_t n = prof_lines_rows(&v->L, &rows);
	/* the focus function's lines, in the file that holds most of its time */
	uint32_t file = UINT32_MAX;
	for (size_t i = 0; i < n && file == UINT32_MAX; i++)
		if (rows[i].function == v->focus)
			file = rows[i].file;
	if (file == UINT32_MAX) {
		snprintf(v->why, sizeof v->why, "%s",
			 s->all ? "the merged view of all processes has no lines: pick one process"
			 : !p->have_lines ? "the log holds no IL offsets (an older agent?)"
					  : "no lines for this function (no PDB, or no sample in code with lines)");
		free(rows);
		view_set_rows(c->v, 0);
		return;
	}
	snprintf(v->file, sizeof v->file, "%s", v->L.files[file]);
	v->from_file = read_file(v);
	size_t hottest = 0;
	uint64_t hottest_self = 0;
	for (size_t i = 0; i < n; i++) {
		const struct prof_line_row *r = &rows[i];
		if (r->function != v->focus || r->file != file)
			continue;
		struct source_line *row = NULL;
		if (v->from_file && r->line >= 1 && r->line <= v->nrows) {
			row = &v->rows[r->line - 1];
		} else {
			if (v->from_file) /* a line past the file's end: not this file's version */
				continue;
			add_row(v, r->line, NULL);
			row = &v->rows[v->nrows - 1];
		}
		row->self += r->self;
		row->total += r->total;
		if (row->total > v->max_total)
			v->max_total = row->total;
		if (row->self > hottest_self || !hottest_self) {
			hottest_self = row->self;
			hottest = (size_t)(row - v->rows);
		}
	}
	free(rows);
	c->v->lv.cols = v->from_file ? file_columns : table_columns;
	view_set_rows(c->v, v->nrows);
	if (moved) { /* a new function: start on its hottest line */
		c->v->lv.cursor = hottest;
		c->v->lv.top = hottest > 5 ? hottest - 5 : 0;
	}
}

static void cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct source *v = c->priv;
	const struct source_line *r = &v->rows[item];
	double all = c->p && c->p->samples ? (double)c->p->samples : 1.0;
	buf[0] = 0;
	switch (col) {
	case 0:
		if (r->self)
			snprintf(buf, n, "%.1f", 100.0 * (double)r->self / all);
		break;
	case 1:
		if (r->total)
			snprintf(buf, n, "%.1f", 100.0 * (double)r->total / all);
		break;
	case 2: snprintf(buf, n, "%" PRIu32, r->line); break;
	case 3: {
		/* the heat bar: total against the busiest line of the function */
		int w = v->max_total ? (int)((r->total * BAR_WIDTH + v->max_total - 1) / v->max_total) : 0;
		size_t at = 0;
		for (int i = 0; i < w && at + 4 < n; i++) {
			memcpy(buf + at, "\u2588", 3);
			at += 3;
		}
		buf[at] = 0;
		break;
	}
	default: snprintf(buf, n, "%s", r->text ? r->text : ""); break;
	}
}

static enum ui_style row_style(struct view_ctx *c, uint32_t item)
{
	const struct source_line *r = &((struct source *)c->priv)->rows[item];
	return r->self ? UI_HOT : r->total ? UI_NORMAL : UI_DIM;
}

/* The function and its file, or why its lines are not shown. */
static int header(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	(void)height;
	struct source *v = c->priv;
	const struct prof_process *p = c->p;
	char head[1400];
	if (!p || v->focus >= p->nfunctions) {
		canvas_text(cv, y, 0, cv->cols, UI_DIM, true,
			    "no function chosen: press S on one in Functions, Callers or Tree (or :source NAME)");
		return -1;
	}
	const struct prof_function *fn = &p->functions[v->focus];
	if (!v->file[0]) {
		snprintf(head, sizeof head, "%s: %s", fn->name, v->why);
		canvas_text(cv, y, 0, cv->cols, UI_DIM, true, head);
		return -1;
	}
	snprintf(head, sizeof head, "%s  %s%s%s", fn->name, v->file, v->from_file ? "" : "  (file not readable: ",
		 v->from_file ? "" : v->why);
	if (!v->from_file)
		strncat(head, ")", sizeof head - strlen(head) - 1);
	canvas_text(cv, y, 0, cv->cols, UI_HOT, true, head);
	return 1;
}

static void process_changed(void *priv)
{
	struct source *v = priv;
	unbind(v);
	clear_rows(v);
	v->focus = UINT32_MAX;
}

const struct view_ops view_source = {
	.name = "Source",
	.title = "the chosen function line by line: self and total per source line",
	.private_size = sizeof(struct source), .samples = true, .init = init, .done = done, .update = update,
	.process_changed = process_changed,
	VIEW_COLUMNS(file_columns),
	.cell = cell, .style = row_style, .header = header,
};
