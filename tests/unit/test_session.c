#include <sys/stat.h>

#include "check.h"
#include "session.h"
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

int main(void)
{
	RUN(private_directories);
	RUN(sessions_and_processes);
	return CHECK_DONE();
}
