/* Removing old sessions (see prune.h). */
#include "util/prune.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/namedevent.h"
#include "common/session.h"
#include "util/config.h"

/* The newest modification time under dir_fd, depth levels down (a session
 * holds process directories holding files). */
static time_t newest(int dir_fd, int depth)
{
	struct stat st;
	time_t best = fstat(dir_fd, &st) == 0 ? st.st_mtime : 0;
	int fd = dup(dir_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return best;
	}
	rewinddir(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (st.st_mtime > best)
			best = st.st_mtime;
		if (S_ISDIR(st.st_mode) && depth > 0) {
			int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				time_t t = newest(sub, depth - 1);
				best = t > best ? t : best;
				close(sub);
			}
		}
	}
	closedir(d);
	return best;
}

/* Removes name under dir_fd and what it holds, never following a symbolic
 * link (those are removed as links); depth bounds the descent. */
static int remove_tree_at(int dir_fd, const char *name, int depth)
{
	struct stat st;
	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dir_fd, name, 0);
	if (depth <= 0)
		return -1;
	int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && remove_tree_at(dirfd(d), e->d_name, depth - 1))
			rc = -1;
	closedir(d);
	return rc == 0 ? unlinkat(dir_fd, name, AT_REMOVEDIR) : rc;
}

int prune_sessions(const char *root, long age_s, bool dry_run, FILE *out, char *err, size_t errlen)
{
	int rootfd = cs_dir_open_private(root, err, errlen);
	if (rootfd < 0)
		return -1;
	DIR *d = fdopendir(rootfd);
	if (!d) {
		snprintf(err, errlen, "cannot read %s: %s", root, strerror(errno));
		close(rootfd);
		return -1;
	}
	time_t cutoff = time(NULL) - age_s;
	uid_t me = geteuid();
	int count = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		struct stat st;
		if (fstatat(rootfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != me)
			continue;
		int fd = openat(rootfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* only sessions: another program's directory in the root is not ours to judge */
		bool session = fstatat(fd, CS_SESSION_MARKER, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
		bool old = session && newest(fd, 2) < cutoff;
		close(fd);
		if (!old)
			continue;
		if (!dry_run && remove_tree_at(rootfd, e->d_name, 3) != 0) {
			if (out)
				fprintf(out, "clrscope: cannot remove all of %s/%s: %s\n", root, e->d_name, strerror(errno));
			continue;
		}
		if (out)
			fprintf(out, "%s %s/%s\n", dry_run ? "would remove" : "removed", root, e->d_name);
		count++;
	}
	closedir(d);
	return count;
}

void prune_automatically(void)
{
	struct config cfg;
	config_load(&cfg, NULL); /* its problems are said by the command's own load */
	config_free(&cfg);
	if (cfg.prune_after_s < 0)
		return;
	cs_namedevent_sweep();
	char root[4096], err[4200];
	if (cs_session_root(root, sizeof root, err, sizeof err) == 0)
		prune_sessions(root, cfg.prune_after_s ? cfg.prune_after_s : PRUNE_DEFAULT_AGE_S, false, NULL, err,
			       sizeof err);
}
