#include "ui/help.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ui/commands.h"
#include "ui/session_screen.h"
#include "util/xalloc.h"

/* The columns' widths: keys and commands as wide as their longest text
 * when there is room, what it does takes the rest. */
struct layout {
	int keys, command, what;
};

static void command_text(const struct ui_command *c, char *out, size_t n)
{
	snprintf(out, n, ":%s%s%s", c->name, c->args[0] ? " " : "", c->args);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static struct layout layout(int width)
{
	int keys = 4, command = 14; /* the titles' */
	char text[256];
	for (const struct ui_command *c = ui_commands; c->name; c++) {
		commands_keys(c, text, sizeof text);
		keys = max_int(keys, (int)strlen(text));
		command_text(c, text, sizeof text);
		command = max_int(command, (int)strlen(text));
	}
	for (const struct ui_key_help *k = ui_keys; k->keys; k++)
		keys = max_int(keys, (int)strlen(k->keys));
	struct layout l;
	l.keys = min_int(keys, max_int(12, width / 6));
	l.command = min_int(command, max_int(16, width * 3 / 10));
	l.what = max_int(width - 3 - l.keys - l.command, 16); /* a narrower screen cuts the rest */
	return l;
}

/* The first line of text (ASCII) that fits in width columns: up to the
 * last space (dropped) or '|' (kept) that fits, else width characters.
 * Returns its length; *rest is where the next line starts. */
static size_t fit(const char *text, int width, const char **rest)
{
	size_t len = strlen(text), w = width > 0 ? (size_t)width : 1;
	size_t cut = w;
	if (len <= w) {
		cut = len;
		*rest = text + len;
	} else {
		*rest = text + w;
		for (size_t i = w; i > 0; i--) {
			if (text[i] == ' ') {
				cut = i;
				*rest = text + i;
				break;
			}
			if (text[i - 1] == '|') {
				cut = i;
				*rest = text + i;
				break;
			}
		}
	}
	while (**rest == ' ')
		(*rest)++;
	return cut;
}

/* A row of the table: as many lines as its tallest cell needs. */
static void row(const struct layout *l, const char *keys, const char *command, const char *what, help_line line,
		void *ctx)
{
	char out[1024];
	do {
		const char *k = keys, *c = command, *w = what;
		int kn = (int)fit(k, l->keys, &keys), cn = (int)fit(c, l->command, &command), wn = (int)fit(w, l->what, &what);
		snprintf(out, sizeof out, " %-*.*s %-*.*s %.*s", l->keys, kn, k, l->command, cn, c, wn, w);
		size_t len = strlen(out);
		while (len && out[len - 1] == ' ')
			out[--len] = 0;
		line(ctx, UI_NORMAL, out);
	} while (*keys || *command || *what);
}

/* The views and their keys, as many to a line as fit. */
static void views(int width, help_line line, void *ctx)
{
	static const char label[] = " views:";
	char out[1024], entry[64];
	size_t len = (size_t)snprintf(out, sizeof out, "%s", label);
	for (int i = 0; i < VIEW_COUNT; i++) {
		int key = ui_view_key((enum view_id)i);
		const char *name = ui_view((enum view_id)i)->name;
		if (key)
			snprintf(entry, sizeof entry, "  %c %s", key, name);
		else
			snprintf(entry, sizeof entry, "  %s (Tab)", name);
		if (len > sizeof label - 1 && len + strlen(entry) > (size_t)width) {
			line(ctx, UI_DIM, out);
			len = (size_t)snprintf(out, sizeof out, "%*s", (int)sizeof label - 1, "");
		}
		len += (size_t)snprintf(out + len, sizeof out - len, "%s", entry);
	}
	line(ctx, UI_DIM, out);
}

void help_lines(int width, help_line line, void *ctx)
{
	struct layout l = layout(width);
	char out[512], keys[256], command[256];
	snprintf(out, sizeof out, " %-*s %-*s %s", l.keys, "keys", l.command, "prompt command", "what it does");
	line(ctx, UI_HEADER, out);
	for (const struct ui_command *c = ui_commands; c->name; c++) {
		commands_keys(c, keys, sizeof keys);
		command_text(c, command, sizeof command);
		row(&l, keys, command, c->help, line, ctx);
	}
	for (const struct ui_key_help *k = ui_keys; k->keys; k++)
		row(&l, k->keys, "", k->help, line, ctx);
	views(width, line, ctx);
}

/* The lines kept to be drawn from any one of them. */
struct page {
	char **text;
	enum ui_style *style;
	size_t n, cap, style_cap;
};

static void keep_line(void *ctx, enum ui_style style, const char *text)
{
	struct page *p = ctx;
	xgrow(&p->text, &p->cap, p->n + 1, sizeof *p->text);
	xgrow(&p->style, &p->style_cap, p->n + 1, sizeof *p->style);
	p->style[p->n] = style;
	p->text[p->n++] = xstrdup(text);
}

static void page_free(struct page *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->text[i]);
	free(p->text);
	free(p->style);
}

/* The lines below the title, and how many the help has in all. */
static int page_rows(const struct canvas *c)
{
	return c->rows > 1 ? c->rows - 1 : 1;
}

static int count_lines(int width)
{
	struct page p = {0};
	help_lines(width, keep_line, &p);
	int n = (int)p.n;
	page_free(&p);
	return n;
}

static int clamp_top(int top, int lines, int rows)
{
	int last = lines > rows ? lines - rows : 0;
	return top < 0 ? 0 : top > last ? last : top;
}

int help_draw(struct canvas *c, int top)
{
	struct page p = {0};
	help_lines(c->cols, keep_line, &p);
	int rows = page_rows(c);
	top = clamp_top(top, (int)p.n, rows);
	char title[200];
	if ((int)p.n <= rows)
		snprintf(title, sizeof title, " clrscope help: any key goes back");
	else
		snprintf(title, sizeof title,
			 " clrscope help, lines %d-%d of %zu: Up Down PgUp PgDn Home End scroll, any other key goes back",
			 top + 1, top + rows < (int)p.n ? top + rows : (int)p.n, p.n);
	canvas_fill(c, 0, 0, c->cols, UI_STATUS);
	canvas_text(c, 0, 0, c->cols, UI_STATUS, true, title);
	for (int y = 1; y < c->rows; y++) {
		size_t i = (size_t)(top + y - 1);
		canvas_fill(c, y, 0, c->cols, UI_NORMAL);
		if (i < p.n)
			canvas_text(c, y, 0, c->cols, p.style[i], true, p.text[i]);
	}
	page_free(&p);
	return top;
}

int help_scroll(const struct canvas *c, int top, int key, bool function_key)
{
	int rows = page_rows(c), lines = count_lines(c->cols);
	if (lines <= rows)
		return -1; /* it all fits: every key goes back */
	int page = rows > 1 ? rows - 1 : 1;
	if (function_key) {
		switch (key) {
		case KEY_DOWN: return clamp_top(top + 1, lines, rows);
		case KEY_UP: return clamp_top(top - 1, lines, rows);
		case KEY_NPAGE: return clamp_top(top + page, lines, rows);
		case KEY_PPAGE: return clamp_top(top - page, lines, rows);
		case KEY_HOME: return 0;
		case KEY_END: return clamp_top(lines, lines, rows);
		}
		return -1;
	}
	switch (key) {
	case 'j': return clamp_top(top + 1, lines, rows);
	case 'k': return clamp_top(top - 1, lines, rows);
	case ' ': return clamp_top(top + page, lines, rows);
	case 'g': return 0;
	case 'G': return clamp_top(lines, lines, rows);
	}
	return -1;
}

static void print_line(void *ctx, enum ui_style style, const char *text)
{
	(void)style;
	fprintf(ctx, "%s\n", text);
}

void help_print(FILE *f)
{
	struct winsize ws;
	int width = isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
	help_lines(width, print_line, f);
}
