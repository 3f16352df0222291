/* One scrolling table serves every list on screen: columns with titles and
 * widths, rows given by a callback, a cursor, and the keys people expect
 * (arrows, j/k, PgUp/PgDn, Home/End, mouse wheel). */
#ifndef CLRSCOPE_LISTVIEW_H
#define CLRSCOPE_LISTVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/canvas.h"

struct column {
	const char *title;
	int width;  /* columns; 0 = take what is left */
	bool right; /* right-aligned (numbers) */
};

/* Fills buf with the text of one cell. */
typedef void (*listview_cell)(void *ctx, size_t row, int col, char *buf, size_t n);
/* A row's style (UI_NORMAL for most). */
typedef enum ui_style (*listview_row_style)(void *ctx, size_t row);

struct listview {
	const struct column *cols;
	int ncols;
	size_t nrows;
	size_t cursor, top;
	int height; /* rows of data shown at the last draw */
	bool follow; /* keep the cursor on the last row as rows arrive */
	int first_y; /* the screen line of its first row at the last draw (for clicks) */
};

void listview_set_rows(struct listview *lv, size_t nrows);
/* Draws the title line at y and rows below it, height lines in all. */
void listview_draw(struct listview *lv, struct canvas *c, int y, int height, listview_cell cell,
		   listview_row_style style, void *ctx);
/* Moves the cursor for navigation keys; true when the key was one. */
bool listview_key(struct listview *lv, int key);
/* Selects the row drawn y lines below the first row (a mouse click);
 * false outside the rows shown. */
bool listview_click(struct listview *lv, int y_from_first_row);
/* The same for a click on screen line y, wherever the list was drawn. */
bool listview_click_screen(struct listview *lv, int y);

#endif
