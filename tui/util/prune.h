/* Removing old sessions from the session root: those with a marker file,
 * owned by the user, whose newest file is older than an age (an agent
 * still recording writes every second, so a live session is never old). */
#ifndef CLRSCOPE_PRUNE_H
#define CLRSCOPE_PRUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PRUNE_DEFAULT_AGE_S (7L * 24 * 3600)

/* Removes (or with dry_run only names) the sessions under root older than
 * age_s, one line each on out (NULL: silent).  Returns how many, or -1 with
 * err when root cannot be read. */
int prune_sessions(const char *root, long age_s, bool dry_run, FILE *out, char *err, size_t errlen);

/* Removes sessions older than the config file's prune_after (default
 * PRUNE_DEFAULT_AGE_S; never with "never") from the default root, quietly:
 * 'record' and the terminal UI call it as they start. */
void prune_automatically(void);

#endif
