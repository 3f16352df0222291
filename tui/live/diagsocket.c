/* Finding a process's diagnostics socket, and whether to trust it (see
 * diagsocket.h): /proc read through procfs.h.  The socket's name is the
 * PAL's PAL_GetTransportName: ${TMPDIR:-/tmp}/dotnet-diagnostic-PID-KEY-socket. */
#include "live/diagsocket.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live/ipccodec.h"
#include "live/procfs.h"
#include "util/text.h"
#include "util/xalloc.h"

int ipc_parse_stat_starttime(const char *stat, size_t len, uint64_t *starttime)
{
	/* pid (comm) state ppid ... : comm may hold spaces and ")", so start
	 * after the last ')'; starttime is field 22, the 20th after comm */
	const char *end = stat + len, *p = NULL;
	for (const char *q = stat; q < end; q++)
		if (*q == ')')
			p = q;
	if (!p)
		return -1;
	p++;
	for (int field = 3; field <= 22; field++) {
		if (p >= end || *p != ' ')
			return -1;
		p++;
		if (field == 22) {
			uint64_t v = 0;
			const char *start = p;
			while (p < end && *p >= '0' && *p <= '9') {
				if (v > (UINT64_MAX - 9) / 10)
					return -1;
				v = v * 10 + (uint64_t)(*p - '0');
				p++;
			}
			if (p == start || (p < end && *p != ' ' && *p != '\n'))
				return -1;
			*starttime = v;
			return 0;
		}
		while (p < end && *p != ' ' && *p != '\n')
			p++;
	}
	return -1;
}


/* ---- finding the socket ---- */

struct target {
	pid_t pid;
	uid_t uid; /* the process's owner: its socket must be theirs too */
	long nspid; /* the pid as the target sees it (innermost pid namespace) */
	char comm[64];
	char *env;
	size_t envlen;
	uint64_t starttime;
	bool have_starttime;
	time_t start_epoch; /* 0 when unknown */
	char tmpdir[PATH_MAX];   /* as the target sees it */
	char dir[PATH_MAX + 32]; /* where we look for it */
	bool elsewhere;          /* another mount namespace or root */
};

static void target_free(struct target *t)
{
	free(t->env);
	t->env = NULL;
}

static time_t boot_time(void)
{
	FILE *f = fopen("/proc/stat", "re");
	if (!f)
		return 0;
	char line[256];
	long long bt = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "btime %lld", &bt) == 1)
			break;
	fclose(f);
	return (time_t)bt;
}

/* Whether the target sees a different file system root than we do. */
static bool other_root(pid_t pid)
{
	char path[64];
	struct stat ours, theirs;
	snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
	if (stat("/proc/self/ns/mnt", &ours) == 0 && stat(path, &theirs) == 0 &&
	    (ours.st_ino != theirs.st_ino || ours.st_dev != theirs.st_dev))
		return true;
	char mine[PATH_MAX], link[PATH_MAX];
	snprintf(path, sizeof path, "/proc/%d/root", (int)pid);
	ssize_t a = readlink("/proc/self/root", mine, sizeof mine - 1);
	ssize_t b = readlink(path, link, sizeof link - 1);
	if (a <= 0 || b <= 0)
		return false;
	mine[a] = link[b] = 0;
	return strcmp(mine, link) != 0;
}

static const char *user_name(uid_t uid, char *buf, size_t n)
{
	struct passwd entry, *pw = NULL;
	char strings[1024]; /* getpwuid_r: the UI's process list runs on a thread */
	if (getpwuid_r(uid, &entry, strings, sizeof strings, &pw) == 0 && pw && pw->pw_name)
		snprintf(buf, n, "%s", pw->pw_name);
	else
		snprintf(buf, n, "uid %u", (unsigned)uid);
	return buf;
}

/* Everything about the target we need before looking for its socket. */
static int target_open(pid_t pid, struct target *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	t->pid = pid;
	t->nspid = pid;
	if (pid <= 0) {
		text_format(err, errlen, "%d is not a process id", (int)pid);
		return IPC_ERR_ARGS;
	}
	char path[64];
	struct stat st;
	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	if (stat(path, &st) < 0) {
		text_format(err, errlen, "no process %d is running (see 'clrscope ps' for your .NET processes)", (int)pid);
		return IPC_ERR_NO_PROCESS;
	}
	size_t len;
	char *status = proc_read(pid, "status", &len);
	if (!status) {
		text_format(err, errlen, "no process %d is running (see 'clrscope ps' for your .NET processes)", (int)pid);
		return IPC_ERR_NO_PROCESS;
	}
	char *line = strstr(status, "Name:\t");
	if (line)
		sscanf(line + 6, "%63[^\n]", t->comm);
	text_sanitize(t->comm); /* the process names itself; the name reaches terminals */
	line = strstr(status, "\nTgid:\t");
	long tgid = line ? strtol(line + 7, NULL, 10) : pid;
	line = strstr(status, "\nNSpid:\t");
	if (line) {
		char *p = line + 8, *next;
		for (long v; (v = strtol(p, &next, 10)), next != p; p = next)
			t->nspid = v; /* the last one is the innermost namespace */
	}
	free(status);
	if (tgid != pid) {
		text_format(err, errlen, "%d is a thread of process %ld, not a process: use %ld", (int)pid, tgid, tgid);
		return IPC_ERR_NO_PROCESS;
	}
	t->uid = st.st_uid;
	uid_t me = geteuid();
	if (st.st_uid != me && me != 0) {
		char name[64];
		text_format(err, errlen,
			"process %d (%s) belongs to %s, not to you: clrscope can only reach your own processes "
			"(run it as that user)",
			(int)pid, t->comm, user_name(st.st_uid, name, sizeof name));
		return IPC_ERR_OTHER_USER;
	}
	t->env = proc_read(pid, "environ", &t->envlen);
	if (!t->env) {
		int e = errno;
		if (e == ENOENT || e == ESRCH) {
			text_format(err, errlen, "process %d exited", (int)pid);
			return IPC_ERR_NO_PROCESS;
		}
		text_format(err, errlen,
			"cannot read the environment of process %d (%s): %s; it runs with other privileges "
			"(setuid or not dumpable), so clrscope cannot reach it",
			(int)pid, t->comm, strerror(e));
		return e == EACCES || e == EPERM ? IPC_ERR_OTHER_USER : IPC_ERR_IO;
	}
	char *stat_line = proc_read(pid, "stat", &len);
	if (stat_line && ipc_parse_stat_starttime(stat_line, len, &t->starttime) == 0) {
		t->have_starttime = true;
		time_t bt = boot_time();
		long hz = sysconf(_SC_CLK_TCK);
		if (bt && hz > 0)
			t->start_epoch = bt + (time_t)(t->starttime / (uint64_t)hz);
	}
	free(stat_line);
	/* the PAL's GetTempPathA: $TMPDIR when set and not empty, else /tmp */
	const char *tmp = proc_env_get(t->env, t->envlen, "TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (tmp[0] == '/')
		snprintf(t->tmpdir, sizeof t->tmpdir, "%s", tmp);
	else /* relative to the target's working directory */
		snprintf(t->tmpdir, sizeof t->tmpdir, "/proc/%d/cwd/%s", (int)pid, tmp);
	size_t tl = strlen(t->tmpdir);
	while (tl > 1 && t->tmpdir[tl - 1] == '/')
		t->tmpdir[--tl] = 0;
	t->elsewhere = tmp[0] == '/' && other_root(pid);
	if (t->elsewhere)
		snprintf(t->dir, sizeof t->dir, "/proc/%d/root%s", (int)pid, t->tmpdir);
	else
		snprintf(t->dir, sizeof t->dir, "%s", t->tmpdir);
	return 0;
}

/* Looks for dotnet-diagnostic-NSPID-KEY-socket in t->dir, among the sockets
 * owned by the process's owner (anyone may make such a name in /tmp): the
 * key equal to the start time first, else the newest socket made after the
 * process started.  stale counts sockets left by an earlier process with
 * this pid, foreign those of another owner, which are never used. */
static bool target_find(const struct target *t, char *out, size_t n, int *stale, int *foreign, int *dir_errno)
{
	*stale = 0;
	*foreign = 0;
	*dir_errno = 0;
	DIR *d = opendir(t->dir);
	if (!d) {
		*dir_errno = errno;
		return false;
	}
	char prefix[64];
	int plen = snprintf(prefix, sizeof prefix, "dotnet-diagnostic-%ld-", t->nspid);
	char best[NAME_MAX + 1] = "";
	time_t best_time = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *name = e->d_name;
		if (strncmp(name, prefix, (size_t)plen) != 0)
			continue;
		const char *k = name + plen;
		char *end;
		if (*k < '0' || *k > '9')
			continue;
		errno = 0;
		unsigned long long key = strtoull(k, &end, 10);
		if (errno || strcmp(end, "-socket") != 0)
			continue;
		struct stat st;
		if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		if (st.st_uid != t->uid) {
			(*foreign)++;
			continue;
		}
		if (t->have_starttime && key == t->starttime) {
			snprintf(best, sizeof best, "%s", name);
			break;
		}
		if (t->start_epoch && st.st_ctime + 2 < t->start_epoch) {
			(*stale)++;
			continue;
		}
		if (!best[0] || st.st_ctime > best_time) {
			snprintf(best, sizeof best, "%s", name);
			best_time = st.st_ctime;
		}
	}
	closedir(d);
	if (!best[0])
		return false;
	return (size_t)snprintf(out, n, "%s/%s", t->dir, best) < n;
}

/* ipc_find_socket, also telling the process's owner (whom the socket's
 * listener must run as). */
int ipc_find_socket_owned(pid_t pid, char *path, size_t n, uid_t *owner, char *err, size_t errlen)
{
	struct target t;
	int rc = target_open(pid, &t, err, errlen);
	if (rc < 0) {
		target_free(&t);
		return rc;
	}
	*owner = t.uid;
	int stale, foreign, dir_errno;
	if (target_find(&t, path, n, &stale, &foreign, &dir_errno)) {
		target_free(&t);
		return 0;
	}
	char ignored[128] = "";
	if (foreign)
		snprintf(ignored, sizeof ignored, " (%d socket%s of that name owned by another user ignored)", foreign,
			 foreign == 1 ? "" : "s");
	size_t mlen = 0;
	char *maps = proc_read(pid, "maps", &mlen);
	if (!maps && (errno == EACCES || errno == EPERM)) {
		text_format(err, errlen, "cannot read the memory map of process %d (%s): %s; it runs with other privileges",
			(int)pid, t.comm, strerror(errno));
		target_free(&t);
		return IPC_ERR_OTHER_USER;
	}
	if (!maps) {
		text_format(err, errlen, "process %d exited", (int)pid);
		target_free(&t);
		return IPC_ERR_NO_PROCESS;
	}
	bool coreclr = proc_maps_file(maps, "libcoreclr.so", NULL, NULL, 0);
	free(maps);
	char off[128];
	const char *disabled = proc_diagnostics_off(t.env, t.envlen, false, off, sizeof off);
	if (!coreclr) {
		text_format(err, errlen,
			"process %d (%s) is not a .NET program: it has no CoreCLR (libcoreclr.so) loaded and no "
			"diagnostics socket%s (see 'clrscope ps' for your .NET processes)",
			(int)pid, t.comm, ignored);
		rc = IPC_ERR_NOT_DOTNET;
	} else if (disabled) {
		text_format(err, errlen,
			"the .NET process %d (%s) runs with its diagnostics turned off (%s in its environment): "
			"restart it without that setting to profile it",
			(int)pid, t.comm, disabled);
		rc = IPC_ERR_DISABLED;
	} else {
		char why[PATH_MAX + 256] = "";
		if (t.elsewhere && (dir_errno == EACCES || dir_errno == EPERM)) {
			text_format(err, errlen,
				"the .NET process %d (%s) runs in another mount namespace (a container?) and its "
				"TMPDIR cannot be reached through /proc/%d/root (%s): run clrscope inside that "
				"container, or with the right to trace the process",
				(int)pid, t.comm, (int)pid, strerror(dir_errno));
			target_free(&t);
			return IPC_ERR_NO_SOCKET;
		}
		if (dir_errno)
			snprintf(why, sizeof why, " (cannot open %s: %s)", t.dir, strerror(dir_errno));
		else if (stale)
			snprintf(why, sizeof why, " (only %d stale socket%s left by an earlier process %d)%s", stale,
				 stale == 1 ? "" : "s", (int)pid, ignored);
		else
			snprintf(why, sizeof why, "%s", ignored);
		text_format(err, errlen,
			"the .NET process %d (%s) has no diagnostics socket dotnet-diagnostic-%ld-%llu-socket in "
			"%s%s%s: it may still be starting, or the socket was deleted (by a /tmp cleaner?); "
			"restarting the program makes a new one",
			(int)pid, t.comm, t.nspid, (unsigned long long)t.starttime, t.dir,
			t.elsewhere ? " (its TMPDIR, seen through its root)" : "", why);
		rc = IPC_ERR_NO_SOCKET;
	}
	target_free(&t);
	return rc;
}

int ipc_find_socket(pid_t pid, char *path, size_t n, char *err, size_t errlen)
{
	uid_t owner;
	return ipc_find_socket_owned(pid, path, n, &owner, err, errlen);
}

