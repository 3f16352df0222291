/* A session's size cap and closed mark (see sessionlimits.h). */
#include "common/sessionlimits.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/session.h"

uint64_t cs_default_max_size(const char *path)
{
	struct statvfs fs;
	if (statvfs(path, &fs) != 0)
		return 0;
	uint64_t share = (uint64_t)fs.f_bavail * fs.f_frsize / CS_MAX_SIZE_FREE_SHARE;
	return share < CS_MAX_SIZE_MIN ? CS_MAX_SIZE_MIN : share;
}

int cs_session_write_max_size(int session_fd, uint64_t bytes, char *err, size_t errlen)
{
	static const char tmp[] = ".max-size.new";
	char why[160], text[32];
	unlinkat(session_fd, tmp, 0);
	int fd = cs_open_file_at(session_fd, tmp, O_WRONLY | O_CREAT | O_EXCL, 0600, why, sizeof why);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write the session's %s: it %s", CS_SESSION_MAX_SIZE, why);
		return -1;
	}
	int n = snprintf(text, sizeof text, "%" PRIu64 "\n", bytes);
	bool ok = write(fd, text, (size_t)n) == n;
	ok = close(fd) == 0 && ok;
	if (!ok || renameat(session_fd, tmp, session_fd, CS_SESSION_MAX_SIZE) != 0) {
		snprintf(err, errlen, "cannot write the session's %s: %s", CS_SESSION_MAX_SIZE, strerror(errno));
		unlinkat(session_fd, tmp, 0);
		return -1;
	}
	return 0;
}

int cs_session_set_max_size(const char *session, uint64_t bytes, char *err, size_t errlen)
{
	int fd = cs_dir_open_private(session, err, errlen);
	if (fd < 0)
		return -1;
	int rc = cs_session_write_max_size(fd, bytes, err, errlen);
	close(fd);
	return rc;
}

uint64_t cs_session_read_max_size(int session_fd)
{
	char why[160], text[32];
	int fd = cs_open_file_at(session_fd, CS_SESSION_MAX_SIZE, O_RDONLY, 0, why, sizeof why);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	return errno || end == text || (*end && *end != '\n') ? 0 : (uint64_t)v;
}

int cs_session_close(int session_fd)
{
	char why[160];
	int fd = cs_open_file_at(session_fd, CS_SESSION_CLOSED, O_WRONLY | O_CREAT, 0600, why, sizeof why);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

void cs_session_reopen(int session_fd)
{
	unlinkat(session_fd, CS_SESSION_CLOSED, 0);
}

bool cs_session_closed(int session_fd)
{
	struct stat st;
	return fstatat(session_fd, CS_SESSION_CLOSED, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The regular files directly in one process directory. */
static uint64_t dir_bytes(int session_fd, const char *name)
{
	int fd = openat(session_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	uint64_t total = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] != '.' && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			total += (uint64_t)st.st_size;
	}
	closedir(d);
	return total;
}

uint64_t cs_session_bytes(int session_fd)
{
	int fd = dup(session_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);
	uint64_t total = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9') /* PID, PID.N */
			total += dir_bytes(dirfd(d), e->d_name);
	closedir(d);
	return total;
}

int cs_parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end == 'B' || *end == 'b' || (shift && *end == 'i' && end[1] == 'B' && end++))
		end++;
	if (*end || v == 0 || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}
