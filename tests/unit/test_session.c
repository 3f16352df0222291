#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "check.h"
#include "common/newsession.h"
#include "common/session.h"
#include "common/sessionlimits.h"
#include "testutil.h"

static void private_directories(void)
{
	char *base = make_temp_dir();
	char path[512], err[512];

	snprintf(path, sizeof path, "%s/new", base);
	CHECK(cs_dir_make_private(path, err, sizeof err) == 0);
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0700);
	CHECK(cs_dir_make_private(path, err, sizeof err) == 0); /* existing and fine */

	char link[512];
	snprintf(link, sizeof link, "%s/link", base);
	CHECK(symlink(path, link) == 0);
	CHECK(cs_dir_make_private(link, err, sizeof err) == -1);
	CHECK(strstr(err, "symbolic link") != NULL);

	snprintf(path, sizeof path, "%s/open", base);
	CHECK(mkdir(path, 0700) == 0 && chmod(path, 0777) == 0);
	CHECK(cs_dir_make_private(path, err, sizeof err) == -1);
	CHECK(strstr(err, "writable by other users") != NULL);

	snprintf(path, sizeof path, "%s/file", base);
	write_file(path, "x", 1);
	CHECK(cs_dir_make_private(path, err, sizeof err) == -1);
	CHECK(strstr(err, "not a directory") != NULL);

	snprintf(path, sizeof path, "%s/missing/deeper", base);
	CHECK(cs_dir_make_private(path, err, sizeof err) == -1);
	CHECK(strstr(err, "cannot create") != NULL);

	if (geteuid() == 0) { /* only root can give a directory away */
		snprintf(path, sizeof path, "%s/foreign", base);
		CHECK(mkdir(path, 0700) == 0 && chown(path, 4321, 4321) == 0);
		CHECK(cs_dir_make_private(path, err, sizeof err) == -1);
		CHECK(strstr(err, "another user") != NULL);
	}
	remove_tree(base);
}

static void sessions_and_processes(void)
{
	char *base = make_temp_dir();
	char dir[512], out[512], err[512];
	snprintf(dir, sizeof dir, "%s/s", base);
	CHECK(cs_session_create(dir, "app", "dotnet app.dll", out, sizeof out, err, sizeof err) == 0);
	CHECK_STR(out, dir);
	CHECK(cs_dir_kind(dir) == CS_DIR_SESSION);
	CHECK(cs_dir_kind(base) == CS_DIR_OTHER);

	char p1[512], p2[512], p3[512];
	CHECK(cs_proc_dir_create(dir, 900, p1, sizeof p1, err, sizeof err) == 0);
	CHECK(cs_proc_dir_create(dir, 900, p2, sizeof p2, err, sizeof err) == 0);
	CHECK(cs_proc_dir_create(dir, 12, p3, sizeof p3, err, sizeof err) == 0);
	char want[600];
	snprintf(want, sizeof want, "%s/900.2", dir);
	CHECK_STR(p2, want);
	struct stat st;
	CHECK(stat(p1, &st) == 0 && (st.st_mode & 0777) == 0700);

	char **list;
	int n = cs_session_processes(dir, &list);
	CHECK_EQ_U(n, 3);
	if (n == 3) {
		CHECK_STR(strrchr(list[0], '/'), "/12");
		CHECK_STR(strrchr(list[1], '/'), "/900");
		CHECK_STR(strrchr(list[2], '/'), "/900.2");
	}
	cs_free_list(list, n);

	/* a default session lands under TMPDIR when XDG_RUNTIME_DIR is absent */
	setenv("TMPDIR", base, 1);
	unsetenv("XDG_RUNTIME_DIR");
	CHECK(cs_session_create(NULL, "/usr/bin/My App", "x", out, sizeof out, err, sizeof err) == 0);
	char prefix[512];
	snprintf(prefix, sizeof prefix, "%s/clrscope-%u/", base, (unsigned)geteuid());
	CHECK(strncmp(out, prefix, strlen(prefix)) == 0);
	CHECK(strstr(out, "-My_App-") != NULL);
	remove_tree(base);
}

/* A victim file outside the session that no planted link may change. */
static void make_victim(const char *base, char *victim, size_t n)
{
	snprintf(victim, n, "%s/victim", base);
	write_file(victim, "untouched\n", 10);
}

static bool victim_untouched(const char *victim)
{
	char buf[32] = "";
	FILE *f = fopen(victim, "r");
	size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[got] = 0;
	return strcmp(buf, "untouched\n") == 0;
}

static void files_are_opened_without_following(void)
{
	char *base = make_temp_dir();
	char victim[512], path[600], why[200];
	make_victim(base, victim, sizeof victim);
	int dirfd = open(base, O_RDONLY | O_DIRECTORY);

	CHECK(symlinkat(victim, dirfd, "link") == 0);
	CHECK(cs_open_file_at(dirfd, "link", O_WRONLY | O_CREAT | O_APPEND, 0600, why, sizeof why) == -1);
	CHECK(strstr(why, "symbolic link") != NULL);
	CHECK(cs_open_file_at(dirfd, "link", O_RDONLY, 0, why, sizeof why) == -1);
	CHECK(cs_open_file_at(dirfd, "link", O_WRONLY | O_CREAT | O_EXCL, 0600, why, sizeof why) == -1 &&
	      errno == EEXIST);
	CHECK_STR(cs_entry_kind(dirfd, "link"), "a symbolic link");

	/* a FIFO would block an open for reading: refused at once instead */
	CHECK(mkfifoat(dirfd, "fifo", 0600) == 0);
	CHECK(cs_open_file_at(dirfd, "fifo", O_RDONLY, 0, why, sizeof why) == -1);
	CHECK(strstr(why, "a FIFO") != NULL);
	CHECK(mkdirat(dirfd, "dir", 0700) == 0);
	CHECK(cs_open_file_at(dirfd, "dir", O_RDONLY, 0, why, sizeof why) == -1);
	CHECK(strstr(why, "a directory") != NULL);

	/* a hard link to the victim may be read, never written */
	CHECK(linkat(AT_FDCWD, victim, dirfd, "hard", 0) == 0);
	CHECK(cs_open_file_at(dirfd, "hard", O_WRONLY | O_APPEND, 0, why, sizeof why) == -1);
	CHECK(strstr(why, "hard links") != NULL);
	int fd = cs_open_file_at(dirfd, "hard", O_RDONLY, 0, why, sizeof why);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);

	/* a new file is 0600 whatever the umask, and blocks as usual */
	mode_t old = umask(0);
	fd = cs_open_file_at(dirfd, "new", O_WRONLY | O_CREAT | O_EXCL, 0600, why, sizeof why);
	umask(old);
	CHECK(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK) && (fcntl(fd, F_GETFD) & FD_CLOEXEC));
	struct stat st;
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0600);
	if (fd >= 0)
		close(fd);
	CHECK(cs_open_file_at(dirfd, "absent", O_RDONLY, 0, why, sizeof why) == -1 && errno == ENOENT);
	CHECK(victim_untouched(victim));
	snprintf(path, sizeof path, "%s/absent", base);
	CHECK_STR(cs_entry_kind(AT_FDCWD, path), "missing");
	close(dirfd);
	remove_tree(base);
}

static void the_marker_refuses_links(void)
{
	char *base = make_temp_dir();
	char victim[512], dir[512], marker[600], out[512], err[512];
	make_victim(base, victim, sizeof victim);
	snprintf(dir, sizeof dir, "%s/s", base);
	snprintf(marker, sizeof marker, "%s/%s", dir, CS_SESSION_MARKER);
	CHECK(mkdir(dir, 0700) == 0);

	CHECK(symlink(victim, marker) == 0);
	CHECK(cs_session_create(dir, "app", "x", out, sizeof out, err, sizeof err) == -1);
	CHECK(strstr(err, "is a symbolic link") != NULL);
	CHECK(unlink(marker) == 0);
	CHECK(cs_session_create(dir, "app", "x", out, sizeof out, err, sizeof err) == 0);
	struct stat st;
	CHECK(lstat(marker, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);

	/* a hard link under the marker's name is unlinked, not truncated */
	CHECK(unlink(marker) == 0 && link(victim, marker) == 0);
	CHECK(cs_session_create(dir, "app", "x", out, sizeof out, err, sizeof err) == 0);
	CHECK(lstat(marker, &st) == 0 && st.st_nlink == 1);
	CHECK(victim_untouched(victim));
	remove_tree(base);
}

static void process_directories_never_follow(void)
{
	char *base = make_temp_dir();
	char victim_dir[512], session[512], link[600], out[600], err[512];
	snprintf(victim_dir, sizeof victim_dir, "%s/elsewhere", base);
	snprintf(session, sizeof session, "%s/s", base);
	CHECK(mkdir(victim_dir, 0700) == 0 && mkdir(session, 0700) == 0);

	/* a link in the pid's place is a taken name: the agent moves on to PID.2 */
	snprintf(link, sizeof link, "%s/77", session);
	CHECK(symlink(victim_dir, link) == 0);
	CHECK(cs_proc_dir_create(session, 77, out, sizeof out, err, sizeof err) == 0);
	CHECK(strstr(out, "/77.2") != NULL);
	int fd = cs_proc_dir_open(out, err, sizeof err);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	char slashed[700];
	snprintf(slashed, sizeof slashed, "%s//", out); /* as typed on a command line */
	fd = cs_proc_dir_open(slashed, err, sizeof err);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(cs_proc_dir_open(link, err, sizeof err) == -1);
	CHECK(strstr(err, "symbolic link") != NULL);

	/* a session reached through a link is refused, for creating and opening */
	char session_link[512];
	snprintf(session_link, sizeof session_link, "%s/s-link", base);
	CHECK(symlink(session, session_link) == 0);
	CHECK(cs_proc_dir_create(session_link, 78, out, sizeof out, err, sizeof err) == -1);
	CHECK(strstr(err, "symbolic link") != NULL);
	snprintf(link, sizeof link, "%s/77.2", session_link);
	CHECK(cs_proc_dir_open(link, err, sizeof err) == -1);

	/* and so is one that others may write in */
	CHECK(chmod(session, 0770) == 0);
	CHECK(cs_proc_dir_create(session, 79, out, sizeof out, err, sizeof err) == -1);
	CHECK(strstr(err, "writable by other users") != NULL);
	CHECK(cs_dir_open_private(session, err, sizeof err) == -1);
	CHECK(chmod(session, 0700) == 0);
	if (geteuid() == 0) {
		CHECK(chown(session, 65534, 65534) == 0);
		CHECK(cs_proc_dir_create(session, 80, out, sizeof out, err, sizeof err) == -1);
		CHECK(strstr(err, "another user") != NULL);
		CHECK(chown(session, 0, 0) == 0);
	}
	char **list;
	int n = cs_session_processes(session, &list);
	CHECK_EQ_U(n, 2); /* 77 (the link, which readers refuse to open) and 77.2 */
	cs_free_list(list, n);
	remove_tree(base);
}

/* The size cap and the closed mark: written by cs_session_create, read
 * back, counted over process directories only; sizes parsed. */
static void limits(void)
{
	char *base = make_temp_dir();
	char dir[512], out[512], err[512], path[600];
	snprintf(dir, sizeof dir, "%s/s", base);
	CHECK(cs_session_create(dir, "app", "x", out, sizeof out, err, sizeof err) == 0);
	int fd = cs_dir_open_private(dir, err, sizeof err);
	CHECK(fd >= 0);
	uint64_t def = cs_session_read_max_size(fd);
	CHECK(def >= CS_MAX_SIZE_MIN); /* a quarter of what was free then */
	CHECK(cs_session_write_max_size(fd, 12345, err, sizeof err) == 0);
	CHECK_EQ_U(cs_session_read_max_size(fd), 12345);
	CHECK(!cs_session_closed(fd));
	CHECK(cs_session_close(fd) == 0 && cs_session_close(fd) == 0 && cs_session_closed(fd));
	/* a new recording into the same directory opens it again */
	CHECK(cs_session_create(dir, "app", "x", out, sizeof out, err, sizeof err) == 0);
	CHECK(!cs_session_closed(fd));

	CHECK(cs_proc_dir_create(dir, 900, out, sizeof out, err, sizeof err) == 0);
	snprintf(path, sizeof path, "%s/seg-000001.clog", out);
	write_file(path, "0123456789", 10);
	snprintf(path, sizeof path, "%s/status", out);
	write_file(path, "abcd", 4);
	snprintf(path, sizeof path, "%s/other", dir); /* not a process directory */
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof path, "%s/other/big", dir);
	write_file(path, "0123456789", 10);
	CHECK_EQ_U(cs_session_bytes(fd), 14);
	close(fd);

	uint64_t v;
	CHECK(cs_parse_size("64K", &v) == 0 && v == 65536);
	CHECK(cs_parse_size("10M", &v) == 0 && v == 10u << 20);
	CHECK(cs_parse_size("2GiB", &v) == 0 && v == 2ull << 30);
	CHECK(cs_parse_size("123", &v) == 0 && v == 123);
	CHECK(cs_parse_size("0", &v) < 0 && cs_parse_size("-1K", &v) < 0 && cs_parse_size("5Q", &v) < 0 &&
	      cs_parse_size("", &v) < 0 && cs_parse_size("99999999999999999999", &v) < 0);
	remove_tree(base);
}

int main(void)
{
	RUN(private_directories);
	RUN(sessions_and_processes);
	RUN(files_are_opened_without_following);
	RUN(the_marker_refuses_links);
	RUN(process_directories_never_follow);
	RUN(limits);
	return CHECK_DONE();
}
