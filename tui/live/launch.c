#include "live/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/newsession.h"
#include "common/session.h"
#include "common/sessionlimits.h"
#include "live/agentpath.h"
#include "util/text.h"
#include "util/xalloc.h"

extern char **environ;

/* Variables of ours, or ones that would load another profiler in our place. */
static bool replaced(const char *entry)
{
	static const char *const names[] = {
		"CORECLR_ENABLE_PROFILING", "CORECLR_PROFILER", "CORECLR_PROFILER_PATH",
		"CORECLR_PROFILER_PATH_64", "CORECLR_PROFILER_PATH_32", "CORECLR_PROFILER_PATH_ARM64",
		"CORECLR_PROFILER_PATH_ARM32", "DOTNET_ENABLE_PROFILING", "DOTNET_PROFILER",
		"DOTNET_PROFILER_PATH", "DOTNET_PROFILER_PATH_64", "DOTNET_PROFILER_PATH_32",
		"DOTNET_PROFILER_PATH_ARM64", "DOTNET_PROFILER_PATH_ARM32", CS_ENV_SESSION_DIR, CS_ENV_RATE, CS_ENV_SAMPLER,
		CS_ENV_VALIDATE, CS_ENV_INSTRUMENT, CS_ENV_ALLOCATIONS, CS_ENV_HEAP_SNAPSHOTS,
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		size_t n = strlen(names[i]);
		if (strncmp(entry, names[i], n) == 0 && entry[n] == '=')
			return true;
	}
	return false;
}

static char *assign(const char *name, const char *value)
{
	size_t n = strlen(name) + strlen(value) + 2;
	char *s = xmalloc(n);
	snprintf(s, n, "%s=%s", name, value);
	return s;
}

char **launch_env_build(const struct launch_request *r)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 15, sizeof *env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!replaced(environ[i]))
			env[k++] = xstrdup(environ[i]);
	char rate[16];
	snprintf(rate, sizeof rate, "%u", r->rate_hz);
	env[k++] = xstrdup("CORECLR_ENABLE_PROFILING=1");
	env[k++] = xstrdup("CORECLR_PROFILER=" CS_AGENT_CLSID);
	env[k++] = assign("CORECLR_PROFILER_PATH", r->agent_path);
	env[k++] = assign(CS_ENV_SESSION_DIR, r->session_dir);
	env[k++] = assign(CS_ENV_RATE, rate);
	if (r->events) {
		for (size_t i = 0; i < k; i++) { /* ours wins over an inherited one */
			if (!strncmp(env[i], CS_ENV_EVENTS "=", strlen(CS_ENV_EVENTS) + 1)) {
				free(env[i]);
				env[i] = env[--k];
				break;
			}
		}
		env[k++] = assign(CS_ENV_EVENTS, r->events);
	}
	/* the runtime's perf map, in the session directory, tells the agent
	 * its stubs' kinds (agent/symbols/stubnames.h); a user's own is left
	 * as it is */
	bool their_map = false;
	for (size_t i = 0; i < k; i++)
		their_map |= !strncmp(env[i], "DOTNET_PerfMapEnabled=", 22) ||
			     !strncmp(env[i], "DOTNET_PerfMapJitDumpPath=", 26) ||
			     !strncmp(env[i], "COMPlus_PerfMapEnabled=", 23);
	if (!their_map) {
		env[k++] = xstrdup("DOTNET_PerfMapEnabled=3");
		env[k++] = xstrdup("DOTNET_PerfMapShowOptimizationTiers=0");
		env[k++] = assign("DOTNET_PerfMapJitDumpPath", r->session_dir);
	}
	if (r->sampler)
		env[k++] = assign(CS_ENV_SAMPLER, r->sampler);
	if (r->validate)
		env[k++] = assign(CS_ENV_VALIDATE, r->validate);
	if (r->async)
		env[k++] = assign(CS_ENV_ASYNC, r->async);
	if (r->instrument && r->instrument[0])
		env[k++] = assign(CS_ENV_INSTRUMENT, r->instrument);
	if (r->allocations)
		env[k++] = assign(CS_ENV_ALLOCATIONS, "1");
	if (r->heap_snapshots)
		env[k++] = assign(CS_ENV_HEAP_SNAPSHOTS, "1");
	if (r->diagnostic_port) {
		/* added to any ports of the user's own ('; '-separated list) */
		char port[4200];
		const char *theirs = NULL;
		size_t at = k;
		for (size_t i = 0; i < k; i++)
			if (!strncmp(env[i], "DOTNET_DiagnosticPorts=", 23))
				theirs = env[i] + 23, at = i;
		snprintf(port, sizeof port, "%s%s%s,connect,suspend", theirs ? theirs : "", theirs ? ";" : "",
			 r->diagnostic_port);
		char *entry = assign("DOTNET_DiagnosticPorts", port);
		if (at < k)
			free(env[at]);
		else
			k++;
		env[at] = entry;
	}
	env[k] = NULL;
	return env;
}

void launch_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* The program's output file, opened here so that a problem with it is told
 * as such (not as a failure to run the program): never through a symbolic
 * link, never into a FIFO or another file's hard link. */
static int open_output(const char *path, char *err, size_t errlen)
{
	char why[160];
	int fd = cs_open_file_at(AT_FDCWD, path, O_WRONLY | O_CREAT | O_APPEND, 0600, why, sizeof why);
	if (fd < 0)
		snprintf(err, errlen, "cannot write the program's output to %s: it %s", path, why);
	return fd;
}

pid_t launch_spawn(const struct launch_request *r, const sigset_t *child_mask, char *err, size_t errlen)
{
	int out = r->output_path ? open_output(r->output_path, err, errlen) : -1;
	if (r->output_path && out < 0)
		return -1;
	char **env = launch_env_build(r);
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "cannot start %s: %s", r->argv[0], strerror(errno));
		launch_env_free(env);
		if (out >= 0)
			close(out);
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", r->argv[0], strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		launch_env_free(env);
		if (out >= 0)
			close(out);
		return -1;
	}
	if (pid == 0) {
		static const int sigs[] = {SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGCHLD, SIGALRM};
		for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
			signal(sigs[i], SIG_DFL);
		sigprocmask(SIG_SETMASK, child_mask, NULL);
		if (r->output_path) {
			/* a program under the terminal UI must not write over the screen */
			int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
			if (out < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) {
				int e = errno;
				ssize_t ignored = write(pipefd[1], &e, sizeof e);
				(void)ignored;
				_exit(127);
			}
			setsid(); /* and must not get the terminal's signals */
		}
		execvpe(r->argv[0], r->argv, env);
		int e = errno;
		ssize_t ignored = write(pipefd[1], &e, sizeof e);
		(void)ignored;
		_exit(127);
	}
	close(pipefd[1]);
	if (out >= 0)
		close(out);
	int child_errno = 0;
	ssize_t got;
	do
		got = read(pipefd[0], &child_errno, sizeof child_errno);
	while (got < 0 && errno == EINTR);
	close(pipefd[0]);
	launch_env_free(env);
	if (got == (ssize_t)sizeof child_errno) {
		snprintf(err, errlen, "cannot run %s: %s", r->argv[0], strerror(child_errno));
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return -1;
	}
	return pid;
}

int startup_features_add_pattern(struct startup_features *f, const char *pattern, char *err, size_t errlen)
{
	if (!pattern[0] || strchr(pattern, '\n')) {
		text_format(err, errlen,
			    "--instrument wants a pattern such as 'MyApp.Orders.*', '*.Parse' or 'MyApp.Orders.Submit', "
			    "not '%s'",
			    pattern);
		return -1;
	}
	size_t used = strlen(f->patterns);
	if (used + strlen(pattern) + 2 > sizeof f->patterns) {
		text_format(err, errlen, "too many --instrument patterns (%zu bytes at most)", sizeof f->patterns);
		return -1;
	}
	snprintf(f->patterns + used, sizeof f->patterns - used, "%s%s", used ? "\n" : "", pattern);
	return 0;
}

int launch_prepare(char *const *argv, const char *dir, uint64_t max_size, char *agent, size_t agent_n, char *session,
		   size_t session_n, char *err, size_t errlen)
{
	if (agent_path_find(agent, agent_n, err, errlen) < 0)
		return -1;
	size_t len = 1;
	for (size_t i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	char *joined = xmalloc(len);
	joined[0] = 0;
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strcat(joined, " ");
		strcat(joined, argv[i]);
	}
	int rc = cs_session_create(dir, argv[0], joined, session, session_n, err, errlen);
	free(joined);
	if (rc == 0 && max_size)
		rc = cs_session_set_max_size(session, max_size, err, errlen);
	return rc;
}
