/* Where views draw: a grid of cells that is either a curses window or an
 * in-memory grid.  Views only ever draw on a canvas, so layout and widgets
 * are tested as strings without a terminal. */
#ifndef CLRSCOPE_CANVAS_H
#define CLRSCOPE_CANVAS_H

#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

enum ui_style {
	UI_NORMAL,
	UI_HEADER,   /* column titles, section lines */
	UI_SELECTED, /* the cursor row */
	UI_STATUS,   /* the status bar */
	UI_DIM,      /* secondary text */
	UI_HOT,      /* hot values, bars */
	UI_WARN,     /* drops, errors */
	UI_GOOD,     /* applied, running */
	UI_FLAME1,   /* flame graph blocks, one of four by namespace */
	UI_FLAME2,
	UI_FLAME3,
	UI_FLAME4,
	UI_SAME,    /* differential flame graph: a frame whose share held */
	UI_GROW1,   /* ... grew, by more and more */
	UI_GROW2,
	UI_GROW3,
	UI_SHRINK1, /* ... shrank */
	UI_SHRINK2,
	UI_SHRINK3,
	UI_STYLES
};

struct canvas {
	int rows, cols;
	bool ascii;    /* no UTF-8: ASCII stand-ins for bars and lines */
	bool color;    /* colour pairs are set up (not under NO_COLOR or on monochrome terminals) */
	void *window;  /* curses WINDOW *, or NULL for the memory grid */
	wchar_t *cells; /* memory grid: rows * cols */
	unsigned char *styles;
};

void canvas_init_memory(struct canvas *c, int rows, int cols);
void canvas_free_memory(struct canvas *c);
/* Renders the memory grid as UTF-8 lines (trailing blanks trimmed). */
char *canvas_dump(const struct canvas *c);
enum ui_style canvas_style_at(const struct canvas *c, int y, int x);

void canvas_clear(struct canvas *c);
/* Draws UTF-8 text at (y, x) in at most width columns (cut by display
 * width, never mid-character); with pad, fills the rest of width with
 * blanks.  Returns the columns used. */
int canvas_text(struct canvas *c, int y, int x, int width, enum ui_style style, bool pad, const char *utf8);
/* The same, right-aligned in width. */
int canvas_text_right(struct canvas *c, int y, int x, int width, enum ui_style style, const char *utf8);
void canvas_fill(struct canvas *c, int y, int x, int width, enum ui_style style);
/* One cell of a bar or strip: level 0..8 (eighths). */
void canvas_level(struct canvas *c, int y, int x, int level, enum ui_style style);
/* Display width of UTF-8 text. */
int text_width(const char *utf8);

#endif
