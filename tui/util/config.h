/* The user's settings: $XDG_CONFIG_HOME/clrscope/config (or
 * ~/.config/clrscope/config), lines of
 *
 *   # a comment
 *   rate = 500               samples per second, 1..10000 (CS_RATE_*)
 *   events = gc,exceptions   a dials list (no +/-); unset: the agent's default
 *   color = auto             yes, no, or auto (on unless NO_COLOR is set)
 *   history_size = 1000      prompt lines kept, 0..100000
 *   app_dir = ~/apps         where 'clrscope apps' looks; repeatable
 *   symbols = ~/symbols      where native modules' debug files are looked
 *                            for (by debug link and build id); repeatable
 *   prune_after = 7d         sessions left untouched this long are removed
 *                            from the default root (s, m, h, d, w; or never)
 *
 * Command-line options override the file; NO_COLOR turns colour off
 * whatever the file says.  One parser (config_load) reads the file for
 * every user of it. */
#ifndef CLRSCOPE_CONFIG_H
#define CLRSCOPE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CONFIG_HISTORY_DEFAULT 1000
#define CONFIG_HISTORY_MAX 100000

struct config {
	unsigned rate;          /* CS_RATE_DEFAULT unless set */
	char events[128];       /* a dials list ("gc,exceptions"); "" = the agent's default */
	bool color;             /* true unless "no" (or "auto" with NO_COLOR) */
	unsigned history_size;  /* CONFIG_HISTORY_DEFAULT unless set */
	long prune_after_s;     /* 0: the default (PRUNE_DEFAULT_AGE_S); -1: never */
	char **app_dirs;        /* absolute ("~/" expanded), in file order */
	size_t napp_dirs;
	unsigned *app_dir_lines; /* the line of each app_dir, for messages */
	char **symbol_dirs;     /* symbols = DIR, absolute ("~/" expanded), in file order */
	size_t nsymbol_dirs;
	char path[4096];        /* the file that was (or would be) read; "" when no home */
};

/* The defaults, without reading anything. */
void config_defaults(struct config *c);

/* Sets c to the defaults, then applies the config file when it exists.
 * Each bad line (no '=', an unknown key, a bad value) is reported on warn
 * (NULL: silently) as "clrscope: FILE:LINE: what is wrong" and skipped; the
 * other lines still apply.  Returns the number of bad lines, or -1 (said on
 * warn; the defaults stand) when the file exists but cannot be read or is
 * refused: not a regular file, another user's (through a symbolic link or
 * not), or writable by group or others.  Release with config_free. */
int config_load(struct config *c, FILE *warn);
/* The same for the file at path. */
int config_load_file(struct config *c, const char *path, FILE *warn);
/* Opens path for reading if it is the user's own regular file that no one
 * else may write (through a symbolic link too): such files decide what
 * clrscope runs.  A descriptor; -1 (said on warn) otherwise, -2 when it
 * does not exist. */
int config_open_private(const char *path, FILE *warn);

/* Frees app_dirs (and their lines) and symbol_dirs; the other fields stay
 * usable. */
void config_free(struct config *c);

/* $XDG_CONFIG_HOME/clrscope/NAME when XDG_CONFIG_HOME is absolute, else
 * ~/.config/clrscope/NAME; -1 when there is no home either. */
/* $HOME, else the password database's home; NULL when there is none. */
const char *config_home_dir(void);

int config_path(const char *name, char *out, size_t n);

#endif
