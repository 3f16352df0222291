/* A new session directory for a recording (see newsession.h). */
#include "common/newsession.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/session.h"
#include "common/sessionlimits.h"

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

/* The marker is made afresh (unlink, then O_EXCL), so that a hard link to
 * another file under its name is left alone; anything but a regular file
 * there (a symbolic link, say) is refused. */
static int write_marker(const char *dir, const char *command, char *err, size_t errlen)
{
	int dirfd = cs_dir_open_private(dir, err, errlen);
	if (dirfd < 0)
		return -1;
	char why[160];
	const char *kind = cs_entry_kind(dirfd, CS_SESSION_MARKER);
	if (strcmp(kind, "missing") != 0 && strcmp(kind, "a regular file") != 0) {
		snprintf(err, errlen, "%s/%s is %s, not a session marker: remove it or choose another directory", dir,
			 CS_SESSION_MARKER, kind);
		close(dirfd);
		return -1;
	}
	if (unlinkat(dirfd, CS_SESSION_MARKER, 0) != 0 && errno != ENOENT) {
		snprintf(err, errlen, "cannot replace %s/%s: %s", dir, CS_SESSION_MARKER, strerror(errno));
		close(dirfd);
		return -1;
	}
	int fd = cs_open_file_at(dirfd, CS_SESSION_MARKER, O_WRONLY | O_CREAT | O_EXCL, 0600, why, sizeof why);
	close(dirfd);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s/%s: it %s", dir, CS_SESSION_MARKER, why);
		return -1;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		snprintf(err, errlen, "cannot write %s/%s: %s", dir, CS_SESSION_MARKER, strerror(errno));
		return -1;
	}
	fprintf(f, "%s\ncommand %s\n", CS_SESSION_MARKER_MAGIC, command ? command : "");
	if (fclose(f) != 0) {
		snprintf(err, errlen, "cannot write %s/%s: %s", dir, CS_SESSION_MARKER, strerror(errno));
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
	if (cs_dir_make_private(out, err, errlen) < 0 || write_marker(out, command, err, errlen) < 0)
		return -1;
	/* a new recording: open again, with the default cap (record may set another) */
	int fd = cs_dir_open_private(out, err, errlen);
	if (fd < 0)
		return -1;
	cs_session_reopen(fd);
	uint64_t max = cs_default_max_size(out);
	int rc = max ? cs_session_write_max_size(fd, max, err, errlen) : 0;
	close(fd);
	return rc;
}
