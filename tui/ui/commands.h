/* Keys and prompt commands, in one table (see commands.c). */
#ifndef CLRSCOPE_COMMANDS_H
#define CLRSCOPE_COMMANDS_H

#include <stdio.h>

#include "app.h"

struct ui_command {
	const char *name;  /* typed at the ':' prompt */
	const char *args;  /* for help */
	const char *keys;  /* the keys that do the same, for help ("" = none) */
	const char *help;
	int (*run)(struct app *a, int argc, char **argv);
	const char *const *candidates; /* argument completions, NULL-terminated */
};

struct ui_key_help {
	const char *keys, *help;
};

extern const struct ui_command ui_commands[];
extern const struct ui_key_help ui_keys[];

/* Runs one prompt line (modified in place); returns key flags. */
int commands_run_line(struct app *a, char *line);
/* Completion candidates for the prompt (see prompt.h). */
const char *commands_candidate(int word, const char *line, int index);
/* The table as text (clrscope help keys). */
void commands_print(FILE *f);

/* Keys of the session screen that are commands. */
int commands_session_key(struct app *a, int key);

#endif
