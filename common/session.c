#include "session.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "logfmt.h"

int cs_dir_make_private(const char *path, char *err, size_t errlen)
{
	if (mkdir(path, 0700) == 0)
		return 0;
	int saved = errno;
	struct stat st;
	if (saved != EEXIST || lstat(path, &st) != 0) {
		snprintf(err, errlen, "cannot create directory %s: %s", path, strerror(saved));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "%s is a symbolic link; give the real directory instead", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a directory", path);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s belongs to another user (uid %u); use a directory of your own",
			 path, (unsigned)st.st_uid);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
			 "%s is writable by other users; session data must stay private "
			 "(chmod go-w, or choose another directory)",
			 path);
		return -1;
	}
	return 0;
}

int cs_session_root(char *out, size_t n, char *err, size_t errlen)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int len;
	if (xdg && xdg[0] == '/' && access(xdg, W_OK) == 0) {
		len = snprintf(out, n, "%s/clrscope", xdg);
	} else {
		const char *tmp = getenv("TMPDIR");
		if (!tmp || tmp[0] != '/')
			tmp = "/tmp";
		len = snprintf(out, n, "%s/clrscope-%u", tmp, (unsigned)geteuid());
	}
	if (len < 0 || (size_t)len >= n) {
		snprintf(err, errlen, "session directory path too long");
		return -1;
	}
	return cs_dir_make_private(out, err, errlen);
}

static void sanitize_name(char *dst, size_t n, const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	size_t j = 0;
	for (size_t i = 0; base[i] && j + 1 < n && j < 40; i++) {
		unsigned char c = (unsigned char)base[i];
		dst[j++] = (isalnum(c) || c == '.' || c == '_' || c == '-') ? (char)c : '_';
	}
	dst[j] = 0;
	if (!j)
		snprintf(dst, n, "session");
}

static int write_marker(const char *dir, const char *command, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, CS_SESSION_MARKER);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "%s\ncommand %s\n", CS_SESSION_MARKER_MAGIC, command ? command : "");
	if (fclose(f) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int cs_session_create(const char *dir, const char *name, const char *command, char *out,
		      size_t n, char *err, size_t errlen)
{
	if (dir) {
		if (dir != out && (size_t)snprintf(out, n, "%s", dir) >= n) {
			snprintf(err, errlen, "session directory path too long");
			return -1;
		}
	} else {
		char root[4096], clean[64], stamp[32];
		if (cs_session_root(root, sizeof root, err, errlen) < 0)
			return -1;
		sanitize_name(clean, sizeof clean, name ? name : "session");
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
		int len = snprintf(out, n, "%s/%s-%s-%d", root, stamp, clean, (int)getpid());
		if (len < 0 || (size_t)len >= n) {
			snprintf(err, errlen, "session directory path too long");
			return -1;
		}
	}
	if (cs_dir_make_private(out, err, errlen) < 0)
		return -1;
	return write_marker(out, command, err, errlen);
}

static bool is_process_dir_name(const char *s)
{
	if (!isdigit((unsigned char)s[0]))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == 0;
}

enum cs_dir_kind cs_dir_kind(const char *path)
{
	char probe[4096];
	snprintf(probe, sizeof probe, "%s/%s", path, CS_SESSION_MARKER);
	if (access(probe, F_OK) == 0)
		return CS_DIR_SESSION;
	snprintf(probe, sizeof probe, "%s/" CS_SEG_NAME_FMT, path, 1u);
	if (access(probe, F_OK) == 0)
		return CS_DIR_PROCESS;
	return CS_DIR_OTHER;
}

static int compare_names(const void *a, const void *b)
{
	/* numeric pid order first, then the reuse suffix */
	const char *x = strrchr(*(char *const *)a, '/') + 1, *y = strrchr(*(char *const *)b, '/') + 1;
	long px = strtol(x, NULL, 10), py = strtol(y, NULL, 10);
	if (px != py)
		return px < py ? -1 : 1;
	return strcmp(x, y);
}

int cs_session_processes(const char *session, char ***out)
{
	*out = NULL;
	DIR *d = opendir(session);
	if (!d)
		return -1;
	char **list = NULL;
	int count = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!is_process_dir_name(e->d_name))
			continue;
		if (count == cap) {
			cap = cap ? cap * 2 : 8;
			char **nl = realloc(list, (size_t)cap * sizeof *nl);
			if (!nl)
				break;
			list = nl;
		}
		size_t len = strlen(session) + strlen(e->d_name) + 2;
		list[count] = malloc(len);
		if (!list[count])
			break;
		snprintf(list[count], len, "%s/%s", session, e->d_name);
		count++;
	}
	closedir(d);
	if (count)
		qsort(list, (size_t)count, sizeof *list, compare_names);
	*out = list;
	return count;
}

void cs_free_list(char **list, int n)
{
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

int cs_proc_dir_create(const char *session, pid_t pid, char *out, size_t n, char *err,
		       size_t errlen)
{
	for (int attempt = 1; attempt < 1000; attempt++) {
		int len = attempt == 1 ? snprintf(out, n, "%s/%d", session, (int)pid)
				       : snprintf(out, n, "%s/%d.%d", session, (int)pid, attempt);
		if (len < 0 || (size_t)len >= n) {
			snprintf(err, errlen, "process directory path too long");
			return -1;
		}
		if (mkdir(out, 0700) == 0)
			return 0;
		if (errno != EEXIST) {
			snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
			return -1;
		}
	}
	snprintf(err, errlen, "too many process directories for pid %d in %s", (int)pid, session);
	return -1;
}
