/* clrscope record: launch a program under the agent and wait for it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agentpath.h"
#include "cmd.h"
#include "launch.h"
#include "profile.h"
#include "session.h"
#include "xalloc.h"

#define STOP_GRACE_SECONDS 5.0

void cmd_record_usage(FILE *f)
{
	fprintf(f, "usage: clrscope record [-o DIR] [--rate HZ] [--duration SEC] -- COMMAND [ARG...]\n"
		   "\n"
		   "Runs COMMAND (a .NET program) with the clrscope agent loaded, forwards its\n"
		   "input, output and exit status, and records its stacks into a session directory.\n"
		   "\n"
		   "  -o, --output DIR    session directory (default: a new one under\n"
		   "                      $XDG_RUNTIME_DIR/clrscope, or $TMPDIR/clrscope-UID)\n"
		   "  -r, --rate HZ       samples per second, %d to %d (default %d)\n"
		   "  -d, --duration SEC  stop COMMAND after SEC seconds (SIGINT, then SIGTERM)\n"
		   "  -h, --help          show this help\n",
		CS_RATE_MIN, CS_RATE_MAX, CS_RATE_DEFAULT);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *join_args(char *const *argv)
{
	size_t n = 1;
	for (size_t i = 0; argv[i]; i++)
		n += strlen(argv[i]) + 1;
	char *s = xmalloc(n);
	s[0] = 0;
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* What the profiled program's exit looks like as our own status. */
static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* Waits for the child, forwarding the signals meant for it and enforcing
 * the duration (SIGINT, then SIGTERM, then SIGKILL after grace periods). */
static int supervise(pid_t child, double duration, const sigset_t *watched)
{
	double start = now_s();
	double deadline = duration > 0 ? start + duration : 0;
	int stage = 0; /* 0 running, 1 sent SIGINT, 2 sent SIGTERM, 3 sent SIGKILL */
	for (;;) {
		int status;
		pid_t r = waitpid(child, &status, WNOHANG);
		if (r == child)
			return status;
		if (r < 0 && errno != EINTR)
			return 0;
		double wait = 1.0;
		if (deadline) {
			double left = deadline - now_s();
			if (left <= 0) {
				static const int escalation[] = {SIGINT, SIGTERM, SIGKILL};
				if (stage < 3) {
					kill(child, escalation[stage]);
					stage++;
				}
				deadline = now_s() + STOP_GRACE_SECONDS;
				continue;
			}
			if (left < wait)
				wait = left;
		}
		struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
		siginfo_t info;
		int sig = sigtimedwait(watched, &info, &ts);
		if (sig == SIGINT || sig == SIGQUIT || sig == SIGHUP) {
			/* typed at the terminal: the child, in our process group, got it
			 * too; sent to us alone: pass it on */
			if (info.si_code != SI_KERNEL)
				kill(child, sig);
		} else if (sig == SIGTERM) {
			kill(child, SIGTERM);
		}
	}
}

static bool looks_like_dotnet(const char *cmd)
{
	const char *base = strrchr(cmd, '/');
	base = base ? base + 1 : cmd;
	if (strcmp(base, "dotnet") == 0)
		return true;
	/* an apphost or a framework-dependent app has NAME.runtimeconfig.json beside it */
	char path[PATH_MAX];
	if (strchr(cmd, '/')) {
		snprintf(path, sizeof path, "%s.runtimeconfig.json", cmd);
		if (access(path, F_OK) == 0)
			return true;
		size_t n = strlen(cmd);
		if (n > 4 && strcmp(cmd + n - 4, ".dll") == 0) {
			snprintf(path, sizeof path, "%.*s.runtimeconfig.json", (int)(n - 4), cmd);
			return access(path, F_OK) == 0;
		}
		return false;
	}
	const char *env_path = getenv("PATH");
	char *copy = xstrdup(env_path ? env_path : "");
	bool found = false;
	for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof path, "%s/%s", dir, cmd);
		if (access(path, X_OK) == 0)
			found = looks_like_dotnet(path);
	}
	free(copy);
	return found;
}

static const char *diagnostics_disabled(void)
{
	static const char *const vars[] = {"DOTNET_EnableDiagnostics", "COMPlus_EnableDiagnostics",
					   "DOTNET_EnableDiagnostics_Profiler", "COMPlus_EnableDiagnostics_Profiler"};
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);
		if (v && strcmp(v, "0") == 0)
			return vars[i];
	}
	return NULL;
}

static void explain_no_agent(const char *cmd)
{
	const char *disabled = diagnostics_disabled();
	if (disabled)
		cmd_error("nothing was recorded: %s=0 in the environment turns profiling off; unset it and try again",
			  disabled);
	else if (!looks_like_dotnet(cmd))
		cmd_error("nothing was recorded: %s does not look like a .NET program (not the dotnet host, and no "
			  ".runtimeconfig.json beside it); clrscope profiles .NET programs",
			  cmd);
	else
		cmd_error("nothing was recorded: the .NET runtime did not load the clrscope agent "
			  "(set %s=/tmp/clrscope-agent.log and run again to see why)",
			  CS_ENV_AGENT_LOG);
}

/* Reads back what was recorded, for the closing summary. */
static size_t summarize(const char *dir, uint64_t *samples)
{
	struct prof_session s;
	char err[512];
	*samples = 0;
	if (prof_session_open(&s, dir, err, sizeof err) < 0)
		return 0;
	prof_session_update(&s, true);
	size_t hello = 0;
	for (size_t i = 0; i < s.nprocs; i++) {
		hello += s.procs[i]->have_hello;
		*samples += s.procs[i]->samples;
	}
	prof_session_free(&s);
	return hello;
}

int cmd_record(int argc, char **argv)
{
	static const struct option options[] = {
		{"output", required_argument, NULL, 'o'}, {"rate", required_argument, NULL, 'r'},
		{"duration", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *dir = NULL;
	unsigned rate = CS_RATE_DEFAULT;
	double duration = 0;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+o:r:d:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 'r':
			if (parse_u32(optarg, CS_RATE_MIN, CS_RATE_MAX, &rate) < 0)
				return cmd_usage_error("record", "--rate wants a whole number of Hz from %d to %d, not '%s'",
						       CS_RATE_MIN, CS_RATE_MAX, optarg);
			break;
		case 'd':
			if (parse_seconds(optarg, &duration) < 0)
				return cmd_usage_error("record", "--duration wants a positive number of seconds, not '%s'",
						       optarg);
			break;
		case 'h':
			cmd_record_usage(stdout);
			return 0;
		default:
			return cmd_usage_error("record", "unknown option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("record", "no command to run: clrscope record [OPTIONS] -- COMMAND [ARG...]");
	char **command = argv + optind;

	char agent[PATH_MAX], err[PATH_MAX + 256], session[PATH_MAX];
	if (agent_path_find(agent, sizeof agent, err, sizeof err) < 0) {
		cmd_error("%s", err);
		return 1;
	}
	char abs_dir[PATH_MAX];
	if (dir && dir[0] != '/') {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd) || (size_t)snprintf(abs_dir, sizeof abs_dir, "%s/%s", cwd, dir) >= sizeof abs_dir) {
			cmd_error("cannot make %s absolute", dir);
			return 1;
		}
		dir = abs_dir;
	}
	char *joined = join_args(command);
	int rc = cs_session_create(dir, command[0], joined, session, sizeof session, err, sizeof err);
	free(joined);
	if (rc < 0) {
		cmd_error("%s", err);
		return 1;
	}

	/* Signals are taken synchronously while the child runs (supervise). */
	sigset_t watched, old;
	sigemptyset(&watched);
	int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGQUIT, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaddset(&watched, sigs[i]);
	sigprocmask(SIG_BLOCK, &watched, &old);

	struct launch_request req = {command, agent, session, rate};
	pid_t child = launch_spawn(&req, &old, err, sizeof err);
	if (child < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		cmd_error("%s", err);
		return 127;
	}
	int status = supervise(child, duration, &watched);
	sigprocmask(SIG_SETMASK, &old, NULL);

	uint64_t samples;
	size_t processes = summarize(session, &samples);
	if (!processes) {
		explain_no_agent(command[0]);
		fprintf(stderr, "clrscope: the session directory is %s\n", session);
		return 1;
	}
	fprintf(stderr, "clrscope: recorded %" PRIu64 " samples from %zu process%s into %s\n", samples, processes,
		processes == 1 ? "" : "es", session);
	fprintf(stderr, "clrscope: see them with: clrscope report %s\n", session);
	return exit_status_of(status);
}
