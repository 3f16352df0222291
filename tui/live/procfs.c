/* Reading /proc (see procfs.h). */
#include "live/procfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/xalloc.h"

char *proc_read(pid_t pid, const char *name, size_t *len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

const char *proc_env_get(const char *env, size_t len, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < len;) {
		const char *s = env + i;
		size_t sl = strnlen(s, len - i);
		if (sl > nl && memcmp(s, name, nl) == 0 && s[nl] == '=')
			return s + nl + 1;
		i += sl + 1;
	}
	return NULL;
}

const char *proc_clr_config(const char *env, size_t len, const char *name, const char **value)
{
	static _Thread_local char var[128]; /* the UI lists processes on a thread of its own */
	static const char *const prefixes[] = {"DOTNET_", "COMPlus_"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(var, sizeof var, "%s%s", prefixes[i], name);
		const char *v = proc_env_get(env, len, var);
		if (v) {
			*value = v;
			return var;
		}
	}
	*value = NULL;
	return NULL;
}

/* CLRConfig reads DWORD settings as hexadecimal. */
static bool is_zero(const char *v)
{
	if (!v || !*v)
		return false;
	char *end;
	unsigned long x = strtoul(v, &end, 16);
	return *end == 0 && x == 0;
}

const char *proc_diagnostics_off(const char *env, size_t len, bool profiler, char *buf, size_t n)
{
	const char *names[] = {"EnableDiagnostics", profiler ? "EnableDiagnostics_Profiler" : "EnableDiagnostics_IPC"};
	for (size_t i = 0; i < 2; i++) {
		const char *value, *var = proc_clr_config(env, len, names[i], &value);
		if (var && is_zero(value)) {
			snprintf(buf, n, "%s=%s", var, value);
			return buf;
		}
	}
	return NULL;
}

/* Each line of maps: address perms offset dev inode [path]. */
static const char *maps_path(const char *line, const char *eol)
{
	const char *p = line;
	for (int field = 0; field < 5; field++) {
		while (p < eol && *p != ' ')
			p++;
		while (p < eol && *p == ' ')
			p++;
	}
	return p < eol && *p == '/' ? p : NULL;
}

bool proc_maps_file(const char *maps, const char *prefix, const char *suffix, char *path, size_t n)
{
	size_t pl = strlen(prefix), sl = suffix ? strlen(suffix) : 0;
	for (const char *line = maps; *line;) {
		const char *eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		const char *p = maps_path(line, eol);
		if (p) {
			size_t len = (size_t)(eol - p);
			const char *deleted = " (deleted)";
			if (len > strlen(deleted) && memcmp(eol - strlen(deleted), deleted, strlen(deleted)) == 0)
				len -= strlen(deleted);
			const char *base = p + len;
			while (base > p && base[-1] != '/')
				base--;
			size_t bl = (size_t)(p + len - base);
			if (bl >= pl + sl && memcmp(base, prefix, pl) == 0 &&
			    (!suffix || memcmp(base + bl - sl, suffix, sl) == 0)) {
				if (path && n)
					snprintf(path, n, "%.*s", (int)len, p);
				return true;
			}
		}
		line = *eol ? eol + 1 : eol;
	}
	return false;
}

bool proc_maps_runtime_version(const char *maps, char *out, size_t n)
{
	char path[PATH_MAX];
	if (!proc_maps_file(maps, "libcoreclr.so", NULL, path, sizeof path))
		return false;
	char *slash = strrchr(path, '/');
	if (!slash)
		return false;
	*slash = 0;
	char *dir = strrchr(path, '/');
	if (!dir)
		return false;
	dir++;
	/* a version directory: starts with a digit, digits and dots, maybe a
	 * prerelease label (10.0.0-preview.7.25380.108) */
	if (!isdigit((unsigned char)dir[0]) || !strchr(dir, '.'))
		return false;
	for (const char *c = dir; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '+')
			return false;
	snprintf(out, n, "%s", dir);
	return true;
}
