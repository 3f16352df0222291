/* The terminal UI's event loop: it opens the terminal, then waits on the
 * keyboard, the session watcher, signals, child processes and the threads
 * of app.h; keys, clicks and prompt lines go through one dispatch to the
 * prompt, the commands (commands.h), the help or a screen, and each pass
 * draws the screen shown. */
#ifndef CLRSCOPE_LOOP_H
#define CLRSCOPE_LOOP_H

#include <sys/types.h>

#include "live/launch.h"

/* Entry points behind 'clrscope', 'open', 'launch' and 'attach'. */
enum loop_start { LOOP_TARGETS, LOOP_OPEN, LOOP_LAUNCH, LOOP_ATTACH };
struct loop_options {
	enum loop_start start;
	const char *dir;     /* open: the session; launch/attach: -o */
	char **command;      /* launch */
	pid_t pid;           /* attach */
	unsigned rate;
	const char *events;
	struct startup_features features; /* launch */
};
/* Runs the UI until the user leaves it: the exit status. */
int loop_main(const struct loop_options *o);

#endif
