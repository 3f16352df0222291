#include "ui/listview.h"

#include <curses.h>
#include <stdio.h>

static void clamp(struct listview *lv)
{
	if (lv->nrows == 0) {
		lv->cursor = lv->top = 0;
		return;
	}
	if (lv->cursor >= lv->nrows)
		lv->cursor = lv->nrows - 1;
	int h = lv->height > 0 ? lv->height : 1;
	if (lv->cursor < lv->top)
		lv->top = lv->cursor;
	if (lv->cursor >= lv->top + (size_t)h)
		lv->top = lv->cursor - (size_t)h + 1;
}

void listview_set_rows(struct listview *lv, size_t nrows)
{
	bool at_end = lv->nrows == 0 || lv->cursor + 1 >= lv->nrows;
	lv->nrows = nrows;
	if (lv->follow && at_end && nrows)
		lv->cursor = nrows - 1;
	clamp(lv);
}

static int flexible_width(const struct listview *lv, int total)
{
	int fixed = 0, flex = 0;
	for (int i = 0; i < lv->ncols; i++) {
		fixed += lv->cols[i].width + 1;
		flex += lv->cols[i].width == 0;
	}
	int left = total - fixed;
	return flex && left > 0 ? left / flex : 0;
}

void listview_draw(struct listview *lv, struct canvas *c, int y, int height, listview_cell cell,
		   listview_row_style style, void *ctx)
{
	if (height < 1)
		return;
	lv->height = height - 1;
	lv->first_y = y + 1;
	/* no blank space below the last row while rows are hidden above */
	if (lv->top && lv->top + (size_t)lv->height > lv->nrows)
		lv->top = lv->nrows > (size_t)lv->height ? lv->nrows - (size_t)lv->height : 0;
	clamp(lv);
	int flex = flexible_width(lv, c->cols);
	int x = 0;
	for (int i = 0; i < lv->ncols && x < c->cols; i++) {
		int w = lv->cols[i].width ? lv->cols[i].width : flex;
		if (lv->cols[i].right)
			canvas_text_right(c, y, x, w, UI_HEADER, lv->cols[i].title);
		else
			canvas_text(c, y, x, w, UI_HEADER, true, lv->cols[i].title);
		canvas_fill(c, y, x + w, 1, UI_HEADER);
		x += w + 1;
	}
	canvas_fill(c, y, x, c->cols - x, UI_HEADER);
	char buf[1024];
	for (int r = 0; r < lv->height; r++) {
		size_t row = lv->top + (size_t)r;
		int line = y + 1 + r;
		if (row >= lv->nrows) {
			canvas_fill(c, line, 0, c->cols, UI_NORMAL);
			continue;
		}
		enum ui_style st = row == lv->cursor ? UI_SELECTED : style ? style(ctx, row) : UI_NORMAL;
		x = 0;
		for (int i = 0; i < lv->ncols && x < c->cols; i++) {
			int w = lv->cols[i].width ? lv->cols[i].width : flex;
			buf[0] = 0;
			cell(ctx, row, i, buf, sizeof buf);
			if (lv->cols[i].right)
				canvas_text_right(c, line, x, w, st, buf);
			else
				canvas_text(c, line, x, w, st, true, buf);
			canvas_fill(c, line, x + w, 1, st);
			x += w + 1;
		}
		canvas_fill(c, line, x, c->cols - x, st);
	}
}

bool listview_key(struct listview *lv, int key)
{
	size_t page = lv->height > 1 ? (size_t)lv->height - 1 : 1;
	switch (key) {
	case KEY_DOWN:
	case 'j':
		if (lv->cursor + 1 < lv->nrows)
			lv->cursor++;
		break;
	case KEY_UP:
	case 'k':
		if (lv->cursor > 0)
			lv->cursor--;
		break;
	case KEY_NPAGE:
	case ' ':
		lv->cursor += page;
		break;
	case KEY_PPAGE:
		lv->cursor = lv->cursor > page ? lv->cursor - page : 0;
		break;
	case KEY_HOME:
	case 'g':
		lv->cursor = 0;
		break;
	case KEY_END:
	case 'G':
		lv->cursor = lv->nrows ? lv->nrows - 1 : 0;
		break;
	default:
		return false;
	}
	clamp(lv);
	return true;
}

bool listview_click(struct listview *lv, int y_from_first_row)
{
	size_t row = lv->top + (size_t)y_from_first_row;
	if (y_from_first_row < 0 || y_from_first_row >= lv->height || row >= lv->nrows)
		return false;
	lv->cursor = row;
	return true;
}

bool listview_click_screen(struct listview *lv, int y)
{
	return listview_click(lv, y - lv->first_y);
}
