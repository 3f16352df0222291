/* Finding the user's .NET processes (see procs.h). */
#include "live/procs.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live/procfs.h"
#include "util/text.h"
#include "util/xalloc.h"

static char *read_cmdline(pid_t pid)
{
	size_t len;
	char *s = proc_read(pid, "cmdline", &len);
	if (!s)
		return xstrdup("");
	while (len && s[len - 1] == 0)
		len--;
	for (size_t i = 0; i < len; i++)
		if (s[i] == 0)
			s[i] = ' ';
	s[len] = 0;
	return text_sanitize(s); /* the process writes it; it reaches terminals */
}

void procs_clear(struct dotnet_proc *p)
{
	free(p->command);
	free(p->runtime);
	free(p->socket);
	free(p->reason);
	free(p->info_error);
	ipc_process_info_free(&p->info);
	memset(p, 0, sizeof *p);
}

void procs_free(struct dotnet_proc *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		procs_clear(&p[i]);
	free(p);
}

static void not_attachable(struct dotnet_proc *p, const char *why)
{
	if (p->attachable || !p->reason) {
		free(p->reason);
		p->reason = xstrdup(why);
	}
	p->attachable = false;
}

/* The major version of a runtime version string, 0 if unknown. */
static int major_version(const char *v)
{
	return v && isdigit((unsigned char)v[0]) ? atoi(v) : 0;
}

/* Whether the process holds a log segment (seg-*.clog) open: the agent
 * does while it records.  Its library stays mapped after a detach or a
 * failed attach (it is never unloaded), so being mapped is not enough. */
static bool writes_segment(pid_t pid)
{
	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		char link[PATH_MAX];
		ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof link - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		const char *base = strrchr(link, '/');
		base = base ? base + 1 : link;
		size_t bl = strlen(base);
		found = strncmp(base, "seg-", 4) == 0 && bl > 9 && strcmp(base + bl - 5, ".clog") == 0;
	}
	closedir(d);
	return found;
}

/* The state letter of /proc/PID/stat (R, S, T ...), 0 if unknown. */
static char proc_state(pid_t pid)
{
	size_t len;
	char *stat = proc_read(pid, "stat", &len);
	char *paren = stat ? strrchr(stat, ')') : NULL;
	char state = paren && paren[1] == ' ' ? paren[2] : 0;
	free(stat);
	return state;
}

/* procs_get, giving the runtime at most timeout_ms to answer. */
static int get_within(pid_t pid, int timeout_ms, struct dotnet_proc *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	char sock[PATH_MAX + 64];
	int rc = ipc_find_socket(pid, sock, sizeof sock, err, errlen);
	if (rc < 0 && rc != IPC_ERR_DISABLED && rc != IPC_ERR_NO_SOCKET)
		return rc;
	out->pid = pid;
	out->command = read_cmdline(pid);
	out->attachable = true;
	size_t elen = 0, mlen = 0;
	char *env = proc_read(pid, "environ", &elen);
	char *maps = proc_read(pid, "maps", &mlen);
	out->agent_loaded = maps && proc_maps_file(maps, "libclrscope-agent-", ".so", NULL, 0);
	out->profiled = out->agent_loaded && writes_segment(pid);
	char buf[256], why[300];
	/* the reasons, the most fundamental first (not_attachable keeps the first) */
	if (out->profiled)
		not_attachable(out, "clrscope is profiling it");
	const char *v;
	if (env && (((v = proc_env_get(env, elen, "CORECLR_ENABLE_PROFILING")) && strcmp(v, "1") == 0) ||
		    ((v = proc_env_get(env, elen, "DOTNET_ENABLE_PROFILING")) && strcmp(v, "1") == 0)))
		not_attachable(out, "a startup profiler is set (CORECLR_ENABLE_PROFILING=1)");
	if (rc == IPC_ERR_DISABLED) {
		snprintf(why, sizeof why, "diagnostics turned off (%s)",
			 env && proc_diagnostics_off(env, elen, false, buf, sizeof buf) ? buf : "?");
		not_attachable(out, why);
		out->info_error = xstrdup(err);
	} else if (rc == IPC_ERR_NO_SOCKET) {
		not_attachable(out, "no diagnostics socket");
		out->info_error = xstrdup(err);
	} else if (proc_state(pid) == 'T' || proc_state(pid) == 't') {
		/* its diagnostics server cannot answer: do not wait for it */
		out->socket = xstrdup(sock);
		not_attachable(out, "it is stopped (SIGSTOP or a debugger)");
	} else {
		out->socket = xstrdup(sock);
		char ierr[1024];
		int irc = ipc_process_info(pid, timeout_ms, &out->info, ierr, sizeof ierr);
		if (irc == 0) {
			if (out->info.clr_version && *out->info.clr_version)
				out->runtime = xstrdup(out->info.clr_version);
		} else {
			if (irc == IPC_ERR_NO_PROCESS) { /* it exited meanwhile */
				snprintf(err, errlen, "%s", ierr);
				free(env);
				free(maps);
				procs_clear(out);
				return irc;
			}
			out->info_error = xstrdup(ierr);
			not_attachable(out, "its runtime does not answer");
		}
	}
	if (!out->runtime && maps && proc_maps_runtime_version(maps, buf, sizeof buf))
		out->runtime = xstrdup(buf);
	int major = major_version(out->runtime);
	if (major && major < 6)
		not_attachable(out, "the agent needs .NET 6 or later");
	free(env);
	free(maps);
	return 0;
}

int procs_get(pid_t pid, struct dotnet_proc *out, char *err, size_t errlen)
{
	return get_within(pid, PROCS_IPC_TIMEOUT_MS, out, err, errlen);
}

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct pidset {
	pid_t *v;
	size_t n, cap;
};

static void pidset_add(struct pidset *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == pid)
			return;
	xgrow(&s->v, &s->cap, s->n + 1, sizeof *s->v);
	s->v[s->n++] = pid;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* Processes of ours with a dotnet-diagnostic-PID-KEY-socket of ours in dir
 * (another user's socket says nothing about our processes). */
static void scan_sockets(const char *dir, struct pidset *s)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		long pid;
		int end = 0;
		if (sscanf(e->d_name, "dotnet-diagnostic-%ld-%*u-socket%n", &pid, &end) < 1 || !end ||
		    e->d_name[end] || pid <= 0 || pid > INT_MAX)
			continue;
		char path[64];
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		snprintf(path, sizeof path, "/proc/%ld", pid);
		if (stat(path, &st) == 0 && st.st_uid == geteuid())
			pidset_add(s, (pid_t)pid); /* stale ones are weeded out by ipc_find_socket */
	}
	closedir(d);
}

size_t procs_list(struct dotnet_proc **out)
{
	struct pidset set = {0};
	uid_t me = geteuid();
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX)
			continue;
		char path[64];
		struct stat st;
		snprintf(path, sizeof path, "/proc/%ld", pid);
		if (stat(path, &st) < 0 || st.st_uid != me)
			continue;
		char *maps = proc_read((pid_t)pid, "maps", NULL);
		if (maps && proc_maps_file(maps, "libcoreclr.so", NULL, NULL, 0))
			pidset_add(&set, (pid_t)pid);
		free(maps);
	}
	if (d)
		closedir(d);
	const char *tmp = getenv("TMPDIR");
	if (tmp && *tmp && strcmp(tmp, "/tmp") != 0)
		scan_sockets(tmp, &set);
	scan_sockets("/tmp", &set);

	if (set.n)
		qsort(set.v, set.n, sizeof *set.v, cmp_pid);
	struct dotnet_proc *procs = xcalloc(set.n ? set.n : 1, sizeof *procs);
	size_t n = 0;
	/* runtimes that keep silent share one budget, so that the whole list
	 * comes within a second however many there are; past it, each still
	 * gets the little a live runtime needs */
	long long deadline = mono_ms() + PROCS_LIST_BUDGET_MS;
	for (size_t i = 0; i < set.n; i++) {
		char err[1024];
		long long left = deadline - mono_ms();
		int timeout = left > PROCS_IPC_TIMEOUT_MS ? PROCS_IPC_TIMEOUT_MS
			      : left > PROCS_IPC_FLOOR_MS  ? (int)left
							   : PROCS_IPC_FLOOR_MS;
		if (get_within(set.v[i], timeout, &procs[n], err, sizeof err) == 0)
			n++;
	}
	free(set.v);
	*out = procs;
	return n;
}
