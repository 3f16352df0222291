/* The help: the prompt commands and keys of commands.c as a table of three
 * columns (keys, prompt command, what it does) sized to the width at hand,
 * each cell wrapped within its column so that no text is cut; the help
 * screen scrolls it when it is taller than the terminal. */
#ifndef CLRSCOPE_HELP_H
#define CLRSCOPE_HELP_H

#include <stdbool.h>
#include <stdio.h>

#include "ui/canvas.h"

/* One line of the help, at most width columns wide. */
typedef void (*help_line)(void *ctx, enum ui_style style, const char *text);

/* The help laid out for width columns, line by line. */
void help_lines(int width, help_line line, void *ctx);
/* The help screen on c, its table scrolled by top lines (clamped into
 * range and returned). */
int help_draw(struct canvas *c, int top);
/* The help screen's keys that scroll it (arrows, PgUp, PgDn, Home, End,
 * j k space g G) while it is taller than c: the new top for key, or -1
 * when key is not one (any other key leaves the help). */
int help_scroll(const struct canvas *c, int top, int key, bool function_key);
/* The table as text, for 'clrscope help keys': as wide as the terminal,
 * or 80 columns when f is not one. */
void help_print(FILE *f);

#endif
