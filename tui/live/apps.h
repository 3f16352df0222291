/* The .NET apps a user may launch under clrscope, each with the command
 * line that starts it, gathered from:
 *   list     $XDG_CONFIG_HOME/clrscope/apps: "NAME = COMMAND LINE" lines
 *   tool     .NET global tools: the apphosts in ~/.dotnet/tools
 *   dir      the app_dir = PATH lines of $XDG_CONFIG_HOME/clrscope/config:
 *            NAME.runtimeconfig.json up to 3 directories below PATH, with
 *            the apphost NAME (when executable) or NAME.dll beside it
 *   desktop  .desktop entries (in $XDG_DATA_HOME and $XDG_DATA_DIRS
 *            /applications) whose Exec runs dotnet or an apphost
 * ($XDG_CONFIG_HOME defaults to ~/.config, $XDG_DATA_HOME to
 * ~/.local/share, $XDG_DATA_DIRS to /usr/local/share:/usr/share.) */
#ifndef CLRSCOPE_APPS_H
#define CLRSCOPE_APPS_H

#include <stddef.h>
#include <stdio.h>

enum app_source { APP_LIST, APP_TOOL, APP_DIR, APP_DESKTOP };

struct app_entry {
	char *name;
	enum app_source source;
	char *command; /* a shell command line (paths quoted when needed) */
	char *origin;  /* where it was found: FILE:LINE, a path or a .desktop file */
};

struct app_list {
	struct app_entry *v;
	size_t n, cap;
};

const char *app_source_name(enum app_source s);

/* Gathers every app, sorted by source then name.  Problems (a malformed
 * line, as FILE:LINE: ..., or an unreadable file) are reported on warn,
 * one line each, prefixed with "clrscope: ".  Returns how many files could
 * not be read (malformed lines do not count). */
int apps_collect(struct app_list *out, FILE *warn);
void apps_free(struct app_list *l);

/* $XDG_CONFIG_HOME/clrscope/NAME (or ~/.config/clrscope/NAME); -1 when
 * neither XDG_CONFIG_HOME nor HOME is set. */
int apps_config_path(const char *name, char *out, size_t n);

#endif
