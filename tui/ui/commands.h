/* Prompt commands and the keys bound to them, as tables (see commands.c). */
#ifndef CLRSCOPE_COMMANDS_H
#define CLRSCOPE_COMMANDS_H

#include <stdbool.h>

#include "ui/app.h"

struct ui_command {
	const char *name;  /* typed at the ':' prompt */
	const char *args;  /* for help */
	const char *other_keys; /* keys not in ui_bindings that do the same, for help ("" = none) */
	const char *help;
	void (*run)(struct app *a, int argc, char **argv);
	const char *const *candidates; /* argument completions, NULL-terminated */
};

/* A key that runs a prompt line. */
struct ui_binding {
	int key;
	bool function_key; /* a curses KEY_ code, not a character */
	bool session_only; /* the targets screen has keys of its own */
	const char *label; /* as help shows it */
	const char *line;  /* the prompt line it runs */
};

struct ui_key_help {
	const char *keys, *help;
};

extern const struct ui_command ui_commands[];
extern const struct ui_binding ui_bindings[];
extern const struct ui_key_help ui_keys[];

/* Runs one prompt line (modified in place). */
void commands_run_line(struct app *a, char *line);
/* The binding of a key on this screen, or NULL. */
const struct ui_binding *commands_binding(int key, bool function_key, bool session);
/* The keys that run a command, for help: its bindings, then its other keys. */
void commands_keys(const struct ui_command *c, char *out, size_t n);
/* Completion candidates for the prompt (see prompt.h). */
const char *commands_candidate(int word, const char *line, int index);

#endif
