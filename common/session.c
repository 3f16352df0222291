#include "common/session.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static const char *file_kind(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISREG(mode))
		return "a regular file";
	return "something unusual";
}

const char *cs_entry_kind(int dirfd, const char *name)
{
	struct stat st;
	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? file_kind(st.st_mode) : "missing";
}

/* Why an entry cannot be opened, for messages: a symbolic link gets its own
 * words, anything else the error's. */
static void describe_entry(int dirfd, const char *name, int err, char *why, size_t n)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		snprintf(why, n, "is a symbolic link, and clrscope never follows one there");
	else
		snprintf(why, n, "cannot be opened (%s)", strerror(err));
}

int cs_open_file_at(int dirfd, const char *name, int flags, mode_t mode, char *why, size_t whylen)
{
	int fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, mode);
	if (fd < 0) {
		int err = errno;
		describe_entry(dirfd, name, err, why, whylen);
		errno = err;
		return -1;
	}
	struct stat st;
	const char *problem = NULL;
	if (fstat(fd, &st) != 0)
		problem = "something fstat cannot look at";
	else if (!S_ISREG(st.st_mode))
		problem = file_kind(st.st_mode);
	else if ((flags & O_ACCMODE) != O_RDONLY && st.st_nlink > 1)
		problem = "a file with other hard links (writing it would change them too)";
	if (problem) {
		close(fd);
		snprintf(why, whylen, "is %s, not a regular file of its own", problem);
		errno = EINVAL;
		return -1;
	}
	/* regular files never block: back to plain reads and writes */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* The refusals of a directory that is not private, in words naming path. */
static int check_private(const char *path, const struct stat *st, char *err, size_t errlen)
{
	if (st->st_uid != geteuid()) {
		snprintf(err, errlen, "%s belongs to another user (uid %u); use a directory of your own", path,
			 (unsigned)st->st_uid);
		return -1;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
			 "%s is writable by other users; session data must stay private "
			 "(chmod go-w, or choose another directory)",
			 path);
		return -1;
	}
	return 0;
}

int cs_dir_open_at(int dirfd, const char *name, bool private, const char *shown, char *err, size_t errlen)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		struct stat st;
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			snprintf(err, errlen, "%s is a symbolic link; give the real directory instead", shown);
		else if (e == ENOTDIR)
			snprintf(err, errlen, "%s exists and is not a directory", shown);
		else
			snprintf(err, errlen, "cannot open %s: %s", shown, strerror(e));
		errno = e;
		return -1;
	}
	struct stat st;
	if (private && (fstat(fd, &st) != 0 || check_private(shown, &st, err, errlen) < 0)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int cs_dir_open_private(const char *path, char *err, size_t errlen)
{
	return cs_dir_open_at(AT_FDCWD, path, true, path, err, errlen);
}

int cs_dir_make_private(const char *path, char *err, size_t errlen)
{
	if (mkdir(path, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create directory %s: %s", path, strerror(errno));
		return -1;
	}
	int fd = cs_dir_open_private(path, err, errlen);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* The directory part of path, opened (private when asked), and its last
 * name, copied into name (trailing slashes dropped). */
static int open_parent(const char *path, bool private, char *name, size_t n, char *err, size_t errlen)
{
	char copy[4096];
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len >= sizeof copy) {
		snprintf(err, errlen, "path too long: %s", path);
		return -1;
	}
	memcpy(copy, path, len);
	copy[len] = 0;
	char *slash = strrchr(copy, '/');
	const char *last = slash ? slash + 1 : copy;
	if (strlen(last) >= n) {
		snprintf(err, errlen, "name too long: %s", path);
		return -1;
	}
	memcpy(name, last, strlen(last) + 1);
	if (!slash)
		return cs_dir_open_at(AT_FDCWD, ".", private, ".", err, errlen);
	if (slash == copy)
		slash++; /* the root: keep its slash */
	*slash = 0;
	return cs_dir_open_at(AT_FDCWD, copy, private, copy, err, errlen);
}

int cs_proc_dir_open(const char *proc_dir, char *err, size_t errlen)
{
	char name[256];
	int parent = open_parent(proc_dir, true, name, sizeof name, err, errlen);
	if (parent < 0)
		return -1;
	int fd = cs_dir_open_at(parent, name, true, proc_dir, err, errlen);
	close(parent);
	return fd;
}

int cs_session_root(char *out, size_t n, char *err, size_t errlen)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int len;
	bool fallback = false;
	if (xdg && xdg[0] == '/' && access(xdg, W_OK) == 0) {
		len = snprintf(out, n, "%s/clrscope", xdg);
	} else {
		fallback = true;
		const char *tmp = getenv("TMPDIR");
		if (!tmp || tmp[0] != '/')
			tmp = "/tmp";
		len = snprintf(out, n, "%s/clrscope-%u", tmp, (unsigned)geteuid());
	}
	if (len < 0 || (size_t)len >= n) {
		snprintf(err, errlen, "session directory path too long");
		return -1;
	}
	char why[512];
	if (cs_dir_make_private(out, why, sizeof why) == 0)
		return 0;
	/* the fallback's name is predictable: another user may have made it
	 * first, to read what we record */
	if (fallback)
		snprintf(err, errlen,
			 "%s; it is the session root clrscope uses without XDG_RUNTIME_DIR, and its name is "
			 "predictable, so someone may have made it first: clrscope will not record there. Set "
			 "XDG_RUNTIME_DIR or TMPDIR to a private directory of yours, or give -o DIR",
			 why);
	else
		snprintf(err, errlen, "%s", why);
	return -1;
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
	int dirfd = cs_dir_open_private(session, err, errlen);
	if (dirfd < 0)
		return -1;
	int rc = -1;
	for (int attempt = 1; attempt < 1000 && rc < 0; attempt++) {
		char name[32];
		if (attempt == 1)
			snprintf(name, sizeof name, "%d", (int)pid);
		else
			snprintf(name, sizeof name, "%d.%d", (int)pid, attempt);
		int len = snprintf(out, n, "%s/%s", session, name);
		if (len < 0 || (size_t)len >= n) {
			snprintf(err, errlen, "process directory path too long");
			break;
		}
		/* mkdirat never follows a symbolic link in the name's place: a
		 * taken name (whatever it is) moves on to the next */
		if (mkdirat(dirfd, name, 0700) == 0)
			rc = 0;
		else if (errno != EEXIST) {
			snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
			break;
		} else if (attempt == 999)
			snprintf(err, errlen, "too many process directories for pid %d in %s", (int)pid, session);
	}
	close(dirfd);
	return rc;
}
