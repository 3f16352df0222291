/* Gathering the launchable .NET apps (see apps.h). */
#include "live/apps.h"
#include "util/text.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/config.h"
#include "util/xalloc.h"

#define DIR_DEPTH 3 /* app_dir: PATH and up to three directories below it */

const char *app_source_name(enum app_source s)
{
	switch (s) {
	case APP_LIST:
		return "list";
	case APP_TOOL:
		return "tool";
	case APP_DIR:
		return "dir";
	case APP_DESKTOP:
		return "desktop";
	}
	return "?";
}

void apps_free(struct app_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].command);
		free(l->v[i].origin);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

static void add(struct app_list *l, const char *name, enum app_source src, const char *command, const char *origin)
{
	for (size_t i = 0; i < l->n; i++) /* the same app reached twice from one source */
		if (l->v[i].source == src && strcmp(l->v[i].command, command) == 0 && strcmp(l->v[i].name, name) == 0)
			return;
	xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = (struct app_entry){xstrdup(name), src, xstrdup(command), xstrdup(origin)};
}

/* An XDG base directory: $var when absolute, else ~/fallback. */
static int xdg_dir(const char *var, const char *fallback, char *out, size_t n)
{
	const char *v = getenv(var);
	if (v && v[0] == '/')
		return (size_t)snprintf(out, n, "%s", v) < n ? 0 : -1;
	const char *home = config_home_dir();
	if (!home)
		return -1;
	return (size_t)snprintf(out, n, "%s/%s", home, fallback) < n ? 0 : -1;
}

int apps_config_path(const char *name, char *out, size_t n)
{
	return config_path(name, out, n);
}

/* Appends s to a growing command line, single-quoted for the shell when
 * it holds anything but plain characters. */
static void append_quoted(char **buf, size_t *len, size_t *cap, const char *s)
{
	bool plain = *s != 0;
	for (const char *c = s; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-", *c))
			plain = false;
	size_t need = *len + 4 * strlen(s) + 4;
	xgrow(buf, cap, need, 1);
	char *o = *buf + *len;
	if (*len)
		*o++ = ' ';
	if (plain) {
		o = stpcpy(o, s);
	} else {
		*o++ = '\'';
		for (const char *c = s; *c; c++) {
			if (*c == '\'')
				o = stpcpy(o, "'\\''");
			else
				*o++ = *c;
		}
		*o++ = '\'';
	}
	*o = 0;
	*len = (size_t)(o - *buf);
}

static char *quote(const char *s)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	append_quoted(&buf, &len, &cap, s);
	return buf;
}

static bool is_executable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static bool exists_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Opens the user's list with the config file's checks (its lines are
 * commands to run: it must be the user's own and private): NULL when
 * missing (silently), unreadable or not private (said on warn, counted in
 * *errors). */
static FILE *open_config(const char *path, FILE *warn, int *errors)
{
	int fd = config_open_private(path, warn);
	if (fd == -2)
		return NULL;
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (fd >= 0 && !f) {
		fprintf(warn, "clrscope: cannot read %s: %s\n", path, strerror(errno));
		close(fd);
	}
	if (!f)
		(*errors)++;
	return f;
}

/* (a) the user's list: NAME = COMMAND LINE */
static void collect_list(struct app_list *l, FILE *warn, int *errors)
{
	char path[PATH_MAX];
	if (apps_config_path("apps", path, sizeof path) < 0)
		return;
	FILE *f = open_config(path, warn, errors);
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		char *s = text_trim(line);
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		char *name = s, *cmd = eq ? eq + 1 : NULL;
		if (eq)
			*eq = 0;
		name = text_trim(name);
		cmd = cmd ? text_trim(cmd) : NULL;
		if (!eq || !*name || !*cmd) {
			fprintf(warn, "clrscope: %s:%u: %s; want NAME = COMMAND LINE\n", path, lineno,
				!eq ? "no '='" : !*name ? "no name before '='" : "no command after '='");
			continue;
		}
		char origin[PATH_MAX + 16];
		snprintf(origin, sizeof origin, "%s:%u", path, lineno);
		add(l, name, APP_LIST, cmd, origin);
	}
	free(line);
	fclose(f);
}

/* (b) .NET global tools: the apphosts in ~/.dotnet/tools */
static void collect_tools(struct app_list *l)
{
	const char *home = config_home_dir();
	char dir[PATH_MAX];
	if (!home || (size_t)snprintf(dir, sizeof dir, "%s/.dotnet/tools", home) >= sizeof dir)
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	static const char *const data[] = {".dll", ".json", ".pdb", ".so", ".xml", ".config", ".txt"};
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		bool skip = false;
		for (size_t i = 0; i < sizeof data / sizeof *data; i++)
			skip |= ends_with(e->d_name, data[i]);
		char path[PATH_MAX];
		if (skip || (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path ||
		    !is_executable_file(path))
			continue;
		char *cmd = quote(path);
		add(l, e->d_name, APP_TOOL, cmd, path);
		free(cmd);
	}
	closedir(d);
}

/* NAME.runtimeconfig.json in dir: the apphost NAME, or dotnet NAME.dll. */
static void dir_app(struct app_list *l, const char *dir, const char *config_name)
{
	size_t nl = strlen(config_name) - strlen(".runtimeconfig.json");
	char name[NAME_MAX + 1], path[PATH_MAX];
	if (!nl || nl >= sizeof name)
		return;
	snprintf(name, sizeof name, "%.*s", (int)nl, config_name);
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path - 4)
		return;
	char *cmd = NULL;
	if (is_executable_file(path)) {
		cmd = quote(path);
	} else {
		strcat(path, ".dll");
		if (!exists_file(path))
			return;
		size_t len = 0, cap = 0;
		append_quoted(&cmd, &len, &cap, "dotnet");
		append_quoted(&cmd, &len, &cap, path);
	}
	add(l, name, APP_DIR, cmd, path);
	free(cmd);
}

static void walk_dir(struct app_list *l, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char **subdirs = NULL;
	size_t nsub = 0, capsub = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
			continue;
		struct stat st;
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) { /* symbolic links are not followed: no loops */
			if (depth < DIR_DEPTH) {
				xgrow(&subdirs, &capsub, nsub + 1, sizeof *subdirs);
				subdirs[nsub++] = xstrdup(path);
			}
		} else if (ends_with(e->d_name, ".runtimeconfig.json")) {
			dir_app(l, dir, e->d_name);
		}
	}
	closedir(d);
	for (size_t i = 0; i < nsub; i++) {
		walk_dir(l, subdirs[i], depth + 1);
		free(subdirs[i]);
	}
	free(subdirs);
}

/* (c) app_dir = PATH lines of the config file (read by config_load) */
static void collect_dirs(struct app_list *l, FILE *warn, int *errors)
{
	struct config c;
	if (config_load(&c, warn) < 0)
		(*errors)++;
	for (size_t i = 0; i < c.napp_dirs; i++) {
		const char *dir = c.app_dirs[i];
		struct stat st;
		int sr = stat(dir, &st);
		if (sr < 0 || !S_ISDIR(st.st_mode)) {
			fprintf(warn, "clrscope: %s:%u: app_dir %s: %s\n", c.path, c.app_dir_lines[i], dir,
				sr < 0 ? strerror(errno) : "not a directory");
			continue;
		}
		walk_dir(l, dir, 0);
	}
	config_free(&c);
}

/* Splits a desktop entry's Exec value into arguments (the quoting rules of
 * the Desktop Entry Specification), dropping field codes (%f, %U ...). */
static char **exec_split(const char *exec, size_t *argc)
{
	char **argv = NULL;
	size_t n = 0, cap = 0;
	const char *p = exec;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		char *arg = xmalloc(strlen(p) + 1), *o = arg;
		bool quoted = false;
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '"') {
				for (p++; *p && *p != '"'; p++) {
					if (*p == '\\' && p[1])
						p++;
					*o++ = *p;
				}
				if (*p == '"')
					p++;
				quoted = true;
			} else if (*p == '%' && p[1]) {
				if (p[1] == '%')
					*o++ = '%';
				p += 2; /* a field code: nothing to expand it to */
			} else {
				*o++ = *p++;
			}
		}
		*o = 0;
		if (o == arg && !quoted) { /* only field codes */
			free(arg);
			continue;
		}
		xgrow(&argv, &cap, n + 2, sizeof *argv);
		argv[n++] = arg;
		argv[n] = NULL;
	}
	*argc = n;
	return argv;
}

/* The Exec program's path: as written when it has a slash, else found in
 * PATH (empty when not found). */
static void find_program(const char *prog, char *out, size_t n)
{
	out[0] = 0;
	if (strchr(prog, '/')) {
		snprintf(out, n, "%s", prog);
		return;
	}
	const char *env = getenv("PATH");
	char *copy = xstrdup(env ? env : "/usr/local/bin:/usr/bin:/bin");
	char *save = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char path[PATH_MAX];
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, prog) < sizeof path && is_executable_file(path)) {
			snprintf(out, n, "%s", path);
			break;
		}
	}
	free(copy);
}

static void desktop_file(struct app_list *l, const char *path, const char *file_name)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char *line = NULL, *name = NULL, *exec = NULL;
	size_t cap = 0;
	bool in_entry = false, hidden = false, application = true;
	while (getline(&line, &cap, f) >= 0) {
		char *s = text_trim(line);
		if (*s == '[') {
			in_entry = strcmp(s, "[Desktop Entry]") == 0;
			continue;
		}
		if (!in_entry || !*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq)
			continue;
		*eq = 0;
		char *key = text_trim(s), *value = text_trim(eq + 1);
		if (strcmp(key, "Name") == 0 && !name)
			name = xstrdup(value);
		else if (strcmp(key, "Exec") == 0 && !exec)
			exec = xstrdup(value);
		else if (strcmp(key, "Hidden") == 0)
			hidden = strcmp(value, "true") == 0;
		else if (strcmp(key, "Type") == 0)
			application = strcmp(value, "Application") == 0;
	}
	free(line);
	fclose(f);
	size_t argc = 0;
	char **argv = exec && !hidden && application ? exec_split(exec, &argc) : NULL;
	if (argc) {
		const char *base = strrchr(argv[0], '/');
		base = base ? base + 1 : argv[0];
		bool dotnet = strcmp(base, "dotnet") == 0;
		if (!dotnet) {
			char prog[PATH_MAX], config[PATH_MAX + 32];
			find_program(argv[0], prog, sizeof prog);
			snprintf(config, sizeof config, "%s.runtimeconfig.json", prog);
			dotnet = prog[0] && exists_file(config);
		}
		if (dotnet) {
			char *cmd = NULL;
			size_t len = 0, ccap = 0;
			for (size_t i = 0; i < argc; i++)
				append_quoted(&cmd, &len, &ccap, argv[i]);
			char stem[NAME_MAX + 1];
			snprintf(stem, sizeof stem, "%.*s", (int)(strlen(file_name) - strlen(".desktop")), file_name);
			add(l, name && *name ? name : stem, APP_DESKTOP, cmd, path);
			free(cmd);
		}
	}
	for (size_t i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	free(name);
	free(exec);
}

/* (d) desktop entries */
static void collect_desktop(struct app_list *l)
{
	char data_home[PATH_MAX];
	const char *dirs_env = getenv("XDG_DATA_DIRS");
	char *dirs = xstrdup(dirs_env && *dirs_env ? dirs_env : "/usr/local/share:/usr/share");
	char **roots = NULL;
	size_t nroots = 0, cap = 0;
	if (xdg_dir("XDG_DATA_HOME", ".local/share", data_home, sizeof data_home) == 0) {
		xgrow(&roots, &cap, nroots + 1, sizeof *roots);
		roots[nroots++] = xstrdup(data_home);
	}
	char *save = NULL;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (d[0] != '/')
			continue;
		xgrow(&roots, &cap, nroots + 1, sizeof *roots);
		roots[nroots++] = xstrdup(d);
	}
	free(dirs);
	for (size_t r = 0; r < nroots; r++) {
		char dir[PATH_MAX];
		if ((size_t)snprintf(dir, sizeof dir, "%s/applications", roots[r]) >= sizeof dir)
			continue;
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char path[PATH_MAX];
			if (e->d_name[0] == '.' || !ends_with(e->d_name, ".desktop") ||
			    (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
				continue;
			desktop_file(l, path, e->d_name);
		}
		if (d)
			closedir(d);
	}
	for (size_t r = 0; r < nroots; r++)
		free(roots[r]);
	free(roots);
}

static int cmp_app(const void *a, const void *b)
{
	const struct app_entry *x = a, *y = b;
	if (x->source != y->source)
		return (int)x->source - (int)y->source;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->command, y->command);
}

int apps_collect(struct app_list *out, FILE *warn)
{
	memset(out, 0, sizeof *out);
	int errors = 0;
	collect_list(out, warn, &errors);
	collect_tools(out);
	collect_dirs(out, warn, &errors);
	collect_desktop(out);
	if (out->n)
		qsort(out->v, out->n, sizeof *out->v, cmp_app);
	return errors;
}
