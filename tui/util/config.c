/* Reading the user's config file (see config.h). */
#include "util/config.h"
#include "util/text.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/dials.h"
#include "common/session.h"
#include "util/age.h"
#include "util/xalloc.h"

void config_defaults(struct config *c)
{
	memset(c, 0, sizeof *c);
	c->rate = CS_RATE_DEFAULT;
	c->color = true;
	c->history_size = CONFIG_HISTORY_DEFAULT;
}

void config_free(struct config *c)
{
	for (size_t i = 0; i < c->napp_dirs; i++)
		free(c->app_dirs[i]);
	free(c->app_dirs);
	free(c->app_dir_lines);
	c->app_dirs = NULL;
	c->app_dir_lines = NULL;
	c->napp_dirs = 0;
	for (size_t i = 0; i < c->nsymbol_dirs; i++)
		free(c->symbol_dirs[i]);
	free(c->symbol_dirs);
	c->symbol_dirs = NULL;
	c->nsymbol_dirs = 0;
}

const char *config_home_dir(void)
{
	const char *h = getenv("HOME");
	if (h && *h)
		return h;
	struct passwd *pw = getpwuid(getuid());
	return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}

int config_path(const char *name, char *out, size_t n)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && xdg[0] == '/')
		return (size_t)snprintf(out, n, "%s/clrscope/%s", xdg, name) < n ? 0 : -1;
	const char *home = config_home_dir();
	if (!home)
		return -1;
	return (size_t)snprintf(out, n, "%s/.config/clrscope/%s", home, name) < n ? 0 : -1;
}

/* A whole number in [min, max]: digits only. */
static int parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
	unsigned long v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max)
			return -1;
	}
	if (v < min)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int set_rate(struct config *c, const char *v, unsigned line, char *why, size_t n)
{
	(void)line;
	if (parse_uint(v, CS_RATE_MIN, CS_RATE_MAX, &c->rate) == 0)
		return 0;
	snprintf(why, n, "rate wants a whole number of Hz from %d to %d, not '%s'", CS_RATE_MIN, CS_RATE_MAX, v);
	return -1;
}

static int set_events(struct config *c, const char *v, unsigned line, char *why, size_t n)
{
	(void)line;
	char list[sizeof c->events], assignment[sizeof list + 8];
	size_t len = 0;
	for (const char *p = v; *p; p++) { /* "gc, jit" is "gc,jit" */
		if (*p == ' ' || *p == '\t')
			continue;
		if (len + 1 >= sizeof list) {
			snprintf(why, n, "events: list too long");
			return -1;
		}
		list[len++] = *p;
	}
	list[len] = 0;
	if (list[0] == '+' || list[0] == '-' || strstr(list, ",+") || strstr(list, ",-")) {
		snprintf(why, n, "events wants a list of kinds (gc,exceptions,...), not changes (+ or -)");
		return -1;
	}
	struct cs_dials check;
	cs_dials_default(&check, CS_RATE_DEFAULT);
	snprintf(assignment, sizeof assignment, "events=%s", list);
	if (cs_dials_assign(&check, assignment, why, n) < 0)
		return -1;
	memcpy(c->events, list, len + 1);
	return 0;
}

static int set_color(struct config *c, const char *v, unsigned line, char *why, size_t n)
{
	(void)line;
	const char *no_color = getenv("NO_COLOR");
	if (!strcmp(v, "yes"))
		c->color = true;
	else if (!strcmp(v, "no"))
		c->color = false;
	else if (!strcmp(v, "auto"))
		c->color = !(no_color && *no_color);
	else {
		snprintf(why, n, "color wants yes, no or auto, not '%s'", v);
		return -1;
	}
	return 0;
}

static int set_history_size(struct config *c, const char *v, unsigned line, char *why, size_t n)
{
	(void)line;
	if (parse_uint(v, 0, CONFIG_HISTORY_MAX, &c->history_size) == 0)
		return 0;
	snprintf(why, n, "history_size wants a whole number from 0 to %d, not '%s'", CONFIG_HISTORY_MAX, v);
	return -1;
}

/* An absolute path ("~/" expanded) into dir; -1 with why otherwise. */
static int config_dir(const char *key, const char *v, char *dir, size_t size, char *why, size_t n)
{
	const char *home = config_home_dir();
	int len;
	if (v[0] == '~' && (v[1] == '/' || !v[1]) && home)
		len = snprintf(dir, size, "%s%s", home, v + 1);
	else
		len = snprintf(dir, size, "%s", v);
	if (dir[0] != '/') {
		snprintf(why, n, "%s wants an absolute path (or ~/...), not '%s'", key, v);
		return -1;
	}
	if (len < 0 || (size_t)len >= size) {
		snprintf(why, n, "%s: path too long", key);
		return -1;
	}
	return 0;
}

static int add_app_dir(struct config *c, const char *v, unsigned line, char *why, size_t n)
{
	char dir[4096];
	if (config_dir("app_dir", v, dir, sizeof dir, why, n) < 0)
		return -1;
	size_t cap = c->napp_dirs; /* grown one at a time: there are few */
	c->app_dirs = xrealloc(c->app_dirs, (cap + 1) * sizeof *c->app_dirs);
	c->app_dir_lines = xrealloc(c->app_dir_lines, (cap + 1) * sizeof *c->app_dir_lines);
	c->app_dirs[c->napp_dirs] = xstrdup(dir);
	c->app_dir_lines[c->napp_dirs++] = line;
	return 0;
}

static int add_symbol_dir(struct config *c, const char *v, unsigned line, char *why, size_t n)
{
	(void)line;
	char dir[4096];
	if (config_dir("symbols", v, dir, sizeof dir, why, n) < 0)
		return -1;
	c->symbol_dirs = xrealloc(c->symbol_dirs, (c->nsymbol_dirs + 1) * sizeof *c->symbol_dirs);
	c->symbol_dirs[c->nsymbol_dirs++] = xstrdup(dir);
	return 0;
}

static int set_prune_after(struct config *c, const char *v, unsigned line, char *why, size_t n)
{
	(void)line;
	if (!strcmp(v, "never")) {
		c->prune_after_s = -1;
		return 0;
	}
	long age;
	if (age_parse(v, &age) == 0 && age > 0) {
		c->prune_after_s = age;
		return 0;
	}
	snprintf(why, n, "prune_after wants an age such as 12h, 7d or 2w, or never, not '%s'", v);
	return -1;
}

static const struct {
	const char *key;
	int (*set)(struct config *c, const char *value, unsigned line, char *why, size_t n);
} keys[] = {
	{"rate", set_rate},
	{"events", set_events},
	{"color", set_color},
	{"history_size", set_history_size},
	{"app_dir", add_app_dir},
	{"symbols", add_symbol_dir},
	{"prune_after", set_prune_after},
};

/* Applies one line; -1 with why when it is bad. */
static int apply_line(struct config *c, char *s, unsigned line, char *why, size_t n)
{
	char *eq = strchr(s, '=');
	if (!eq) {
		snprintf(why, n, "no '='; want KEY = VALUE");
		return -1;
	}
	*eq = 0;
	char *key = text_trim(s), *value = text_trim(eq + 1);
	if (!*key) {
		snprintf(why, n, "no key before '='; want KEY = VALUE");
		return -1;
	}
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		if (strcmp(key, keys[i].key) != 0)
			continue;
		if (!*value) {
			snprintf(why, n, "no value after '%s ='", key);
			return -1;
		}
		return keys[i].set(c, value, line, why, n);
	}
	snprintf(why, n, "unknown key '%.64s' (rate, events, color, history_size, app_dir, symbols, prune_after)", key);
	return -1;
}

int config_open_private(const char *path, FILE *warn)
{
	struct stat lst, st;
	if (lstat(path, &lst) < 0) {
		if (errno == ENOENT)
			return -2;
		memset(&lst, 0, sizeof lst);
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return -2; /* a dangling link, or gone since */
		if (warn)
			fprintf(warn, "clrscope: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	bool link = S_ISLNK(lst.st_mode);
	char problem[4096 + 256];
	problem[0] = 0;
	if (fstat(fd, &st) < 0)
		snprintf(problem, sizeof problem, "cannot read %s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(problem, sizeof problem, "%s is not a regular file; ignoring it", path);
	else if (st.st_uid != geteuid())
		snprintf(problem, sizeof problem, "%s %s (uid %u); ignoring it: settings must be your own", path,
			 link ? "is a symbolic link to a file of another user" : "belongs to another user",
			 (unsigned)st.st_uid);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(problem, sizeof problem,
			 "%s is %swritable by other users; ignoring it: settings must stay private (chmod go-w %s)",
			 path, link ? "a symbolic link to a file " : "", path);
	if (!problem[0])
		return fd;
	if (warn)
		fprintf(warn, "clrscope: %s\n", problem);
	close(fd);
	return -1;
}

int config_load_file(struct config *c, const char *path, FILE *warn)
{
	config_defaults(c);
	snprintf(c->path, sizeof c->path, "%s", path);
	int fd = config_open_private(path, warn);
	if (fd < 0)
		return fd == -2 ? 0 : -1;
	FILE *f = fdopen(fd, "r");
	if (!f) {
		if (warn)
			fprintf(warn, "clrscope: cannot read %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int bad = 0;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		char *s = text_trim(line);
		if (!*s || *s == '#')
			continue;
		char why[512];
		if (apply_line(c, s, lineno, why, sizeof why) < 0) {
			bad++;
			if (warn)
				fprintf(warn, "clrscope: %s:%u: %s\n", path, lineno, why);
		}
	}
	int read_error = ferror(f) ? errno : 0;
	free(line);
	fclose(f);
	if (read_error) {
		if (warn)
			fprintf(warn, "clrscope: cannot read %s: %s\n", path, strerror(read_error));
		return -1;
	}
	return bad;
}

int config_load(struct config *c, FILE *warn)
{
	char path[4096];
	if (config_path("config", path, sizeof path) < 0) {
		config_defaults(c);
		return 0;
	}
	return config_load_file(c, path, warn);
}
