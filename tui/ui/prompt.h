/* The ':' prompt: GNU readline's callback interface inside curses.  curses
 * keeps the terminal; keys are fed to readline one at a time; readline's
 * line is drawn on the bottom row by our redisplay function.  History is
 * kept in $XDG_STATE_HOME/clrscope/history; Tab completes commands and
 * their arguments from the command table. */
#ifndef CLRSCOPE_PROMPT_H
#define CLRSCOPE_PROMPT_H

#include <stdbool.h>

#include "ui/canvas.h"

/* Called with each finished line (NULL when the prompt was abandoned). */
typedef void (*prompt_done)(char *line, void *ctx);
/* Candidates for completing word number `word` (0 = the command) of the line. */
typedef const char *(*prompt_candidate)(int word, const char *line, int index);

/* history_size: how many lines to keep in memory and in the file (0: none). */
void prompt_init(prompt_candidate candidates, unsigned history_size);
void prompt_fini(void);
/* Starts a prompt with text already typed (may be ""). */
void prompt_open(const char *initial, prompt_done done, void *ctx);
bool prompt_active(void);
/* Feeds one key (a curses key code or a wide character). */
void prompt_key(int key, bool is_function_key);
/* Draws the prompt line at row y; returns the cursor column. */
int prompt_draw(struct canvas *c, int y);
/* The last completion listing, for the message line ("" when none). */
const char *prompt_matches(void);

#endif
