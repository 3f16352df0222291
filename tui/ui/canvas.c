#include "ui/canvas.h"

#include <curses.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void canvas_init_memory(struct canvas *c, int rows, int cols)
{
	memset(c, 0, sizeof *c);
	c->rows = rows;
	c->cols = cols;
	c->cells = xcalloc((size_t)(rows * cols) + 1, sizeof *c->cells);
	c->styles = xcalloc((size_t)(rows * cols) + 1, 1);
	canvas_clear(c);
}

void canvas_free_memory(struct canvas *c)
{
	free(c->cells);
	free(c->styles);
	c->cells = NULL;
	c->styles = NULL;
}

void canvas_clear(struct canvas *c)
{
	if (c->window) {
		werase(c->window);
		return;
	}
	for (int i = 0; i < c->rows * c->cols; i++) {
		c->cells[i] = L' ';
		c->styles[i] = UI_NORMAL;
	}
}

char *canvas_dump(const struct canvas *c)
{
	size_t cap = (size_t)c->rows * ((size_t)c->cols * MB_LEN_MAX + 1) + 1;
	char *out = xmalloc(cap), *p = out;
	for (int y = 0; y < c->rows; y++) {
		char *line = p;
		for (int x = 0; x < c->cols; x++) {
			wchar_t w = c->cells[y * c->cols + x];
			if (w == 0)
				continue; /* the second cell of a wide character */
			mbstate_t st;
			memset(&st, 0, sizeof st);
			size_t n = wcrtomb(p, w, &st);
			p += n == (size_t)-1 ? 0 : n;
		}
		while (p > line && p[-1] == ' ')
			p--;
		*p++ = '\n';
	}
	*p = 0;
	return out;
}

enum ui_style canvas_style_at(const struct canvas *c, int y, int x)
{
	if (c->window || y < 0 || y >= c->rows || x < 0 || x >= c->cols)
		return UI_NORMAL;
	return (enum ui_style)c->styles[y * c->cols + x];
}

/* Colour pairs 1..18 are set up by the UI in the order of enum ui_style. */
static attr_t style_attr(const struct canvas *c, enum ui_style s, short *pair)
{
	*pair = c->color ? (short)s : 0;
	switch (s) {
	case UI_HEADER: return A_BOLD;
	case UI_SELECTED: return c->color ? A_NORMAL : A_REVERSE;
	case UI_STATUS: return c->color ? A_NORMAL : A_REVERSE;
	case UI_DIM: return c->color ? A_NORMAL : A_DIM;
	case UI_HOT: return A_BOLD;
	case UI_WARN: return A_BOLD;
	case UI_GROW3:
	case UI_SHRINK3: return A_BOLD;
	default: return A_NORMAL;
	}
}

static void put_cell(struct canvas *c, int y, int x, wchar_t w, int width, enum ui_style style)
{
	if (c->window) {
		cchar_t cc;
		wchar_t s[2] = {w, 0};
		short pair;
		attr_t attr = style_attr(c, style, &pair);
		setcchar(&cc, s, attr, pair, NULL);
		mvwadd_wch(c->window, y, x, &cc);
		return;
	}
	c->cells[y * c->cols + x] = w;
	c->styles[y * c->cols + x] = (unsigned char)style;
	for (int k = 1; k < width && x + k < c->cols; k++) {
		c->cells[y * c->cols + x + k] = 0;
		c->styles[y * c->cols + x + k] = (unsigned char)style;
	}
}

/* Decodes the next character of left bytes at p; a bad byte reads as '?'.
 * Returns the bytes it took. */
static size_t next_char(const char *p, size_t left, mbstate_t *st, wchar_t *wc)
{
	size_t n = mbrtowc(wc, p, left, st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		memset(st, 0, sizeof *st);
		*wc = L'?';
		return 1;
	}
	return n;
}

int text_width(const char *utf8)
{
	mbstate_t st;
	memset(&st, 0, sizeof st);
	int w = 0;
	const char *p = utf8;
	size_t left = strlen(utf8);
	while (left) {
		wchar_t wc;
		size_t n = next_char(p, left, &st, &wc);
		int cw = wcwidth(wc);
		w += cw < 0 ? 1 : cw;
		p += n;
		left -= n;
	}
	return w;
}

int canvas_text(struct canvas *c, int y, int x, int width, enum ui_style style, bool pad, const char *utf8)
{
	if (y < 0 || y >= c->rows || x >= c->cols || width <= 0)
		return 0;
	if (x + width > c->cols)
		width = c->cols - x;
	mbstate_t st;
	memset(&st, 0, sizeof st);
	int used = 0;
	const char *p = utf8;
	size_t left = strlen(utf8);
	while (left) {
		wchar_t wc;
		size_t n = next_char(p, left, &st, &wc);
		if (wc < 0x20 || (c->ascii && wc > 0x7e))
			wc = L'?';
		int cw = wcwidth(wc);
		if (cw < 0)
			cw = 1, wc = L'?';
		if (used + cw > width)
			break;
		if (cw > 0)
			put_cell(c, y, x + used, wc, cw, style);
		used += cw;
		p += n;
		left -= n;
	}
	int drawn = used;
	if (pad)
		for (; used < width; used++)
			put_cell(c, y, x + used, L' ', 1, style);
	return pad ? used : drawn;
}

int canvas_text_right(struct canvas *c, int y, int x, int width, enum ui_style style, const char *utf8)
{
	int w = text_width(utf8);
	if (w > width)
		w = width;
	canvas_fill(c, y, x, width - w, style);
	return canvas_text(c, y, x + width - w, w, style, false, utf8);
}

void canvas_fill(struct canvas *c, int y, int x, int width, enum ui_style style)
{
	for (int i = 0; i < width && x + i < c->cols; i++)
		if (y >= 0 && y < c->rows && x + i >= 0)
			put_cell(c, y, x + i, L' ', 1, style);
}

void canvas_level(struct canvas *c, int y, int x, int level, enum ui_style style)
{
	static const wchar_t blocks[9] = {L' ', L'\u2581', L'\u2582', L'\u2583', L'\u2584',
					  L'\u2585', L'\u2586', L'\u2587', L'\u2588'};
	static const char ascii[9] = {' ', '.', '.', ':', ':', '=', '=', '#', '#'};
	if (level < 0)
		level = 0;
	if (level > 8)
		level = 8;
	if (y < 0 || y >= c->rows || x < 0 || x >= c->cols)
		return;
	put_cell(c, y, x, c->ascii ? (wchar_t)ascii[level] : blocks[level], 1, style);
}
