/* clrscope record: launch a program under the agent and wait for it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/rotate.h"
#include "common/dials.h"
#include "common/session.h"
#include "common/sessionlimits.h"
#include "live/ipc.h"
#include "live/launch.h"
#include "profile/profile.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/prune.h"
#include "util/xalloc.h"

#define STOP_GRACE_SECONDS 5.0

void cmd_record_usage(FILE *f)
{
	fprintf(f, "usage: clrscope record [-o DIR] [--rate HZ] [--duration SEC] [--events LIST] [--rotate SEC]\n"
		   "                       [--instrument PATTERN]... [--allocations] [--heap-snapshots]\n"
		   "                       -- COMMAND [ARG...]\n"
		   "       clrscope record --pid PID [-o DIR] [--rate HZ] [--duration SEC] [--events LIST]\n"
		   "                       [--rotate SEC]\n"
		   "\n"
		   "Runs COMMAND (a .NET program) with the clrscope agent loaded, forwards its\n"
		   "input, output and exit status, and records its stacks into a session directory.\n"
		   "With --pid, attaches to a running .NET process instead, records until the\n"
		   "duration ends or Ctrl-C, then detaches: the process keeps running.\n"
		   "\n"
		   "  -o, --output DIR    session directory (default: a new one under\n"
		   "                      $XDG_RUNTIME_DIR/clrscope, or $TMPDIR/clrscope-UID)\n"
		   "  -r, --rate HZ       samples per second, %d to %d (default %d, or the config file's rate)\n"
		   "  -d, --duration SEC  stop COMMAND after SEC seconds (SIGINT, then SIGTERM)\n"
		   "  -e, --events LIST   runtime events to record: gc, exceptions, jit, modules,\n"
		   "                      threads, contention, waits, threadpool, allocsamples,\n"
		   "                      all (the default)\n"
		   "                      or none\n"
		   "  -i, --instrument PATTERN\n"
		   "                      count every call of the matching functions and time them\n"
		   "                      exactly ('Ns.Type.*', '*.Method', a full name; repeatable;\n"
		   "                      not with --pid)\n"
		   "  -A, --allocations   count allocations by type (not with --pid)\n"
		   "  -H, --heap-snapshots\n"
		   "                      heap snapshots by a forced full GC with roots, as runtimes\n"
		   "                      before .NET 10 need; turns background GC off (not with --pid)\n"
		   "  -p, --pid PID       attach to the running process PID (then detach at the end)\n"
		   "      --sampler MODE  mixed (the default: every thread each tick; running ones\n"
		   "                      signalled, others walked in a suspension only when they\n"
		   "                      ran), kernel (mixed, but running threads sampled by the\n"
		   "                      kernel where it allows: no signal), suspend (the runtime\n"
		   "                      suspended for every tick in which a thread ran) or signal\n"
		   "                      (busy threads only; CPU time)\n"
		   "      --validate N    repeat every Nth fast walk of a thread exactly and count\n"
		   "                      the differences (0: never; default 1000)\n"
		   "      --async on|off  logical stacks: samples of async methods resumed after an\n"
		   "                      await go on into the methods awaiting them (default on)\n"
		   "      --rotate SEC    also write a pprof profile of each SEC seconds beside the\n"
		   "                      session (DIR.000001.pb.gz, ...), for collectors\n"
		   "      --symbols DIR   also look for native modules' debug files in DIR, by debug\n"
		   "                      link and build id, naming --rotate's profiles (repeatable)\n"
		   "  -m, --max-size SIZE the most the session may take (K, M, G suffixes; default a\n"
		   "                      quarter of the free space): reached, recording stops\n"
		   "      --follow-children\n"
		   "                      let processes COMMAND started go on recording after it\n"
		   "                      exits (by default those that start later do not record)\n"
		   "      --pause         start each .NET runtime of COMMAND paused until clrscope\n"
		   "                      is ready (off by default: see clrscope(1), CAVEATS)\n"
		   "  -h, --help          show this help\n",
		CS_RATE_MIN, CS_RATE_MAX, CS_RATE_DEFAULT);
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

/* The runtime's paused start: DOTNET_DiagnosticPorts makes each .NET
 * runtime of the launch (children too) dial our socket and wait; it goes on
 * when we answer with ResumeRuntime, once the session is ready. */
struct paused_start {
	int listen_fd;
	char path[108]; /* sun_path */
	uint64_t *resumed; /* as many as there are: a runtime left out would dial in a loop */
	size_t nresumed, resumed_cap;
	int *held; /* resumed runtimes dial again and wait for a command: let them wait */
	size_t nheld, held_cap;
};

static void serve_port(struct paused_start *ps)
{
	struct ipc_advertise adv;
	char err[512];
	int fd = ipc_port_accept(ps->listen_fd, 1000, &adv, err, sizeof err);
	if (fd < 0)
		return; /* a runtime that dialed again and went away (exiting): nothing to do */
	for (size_t i = 0; i < ps->nresumed; i++) {
		if (ps->resumed[i] == adv.pid) {
			/* it dials again after each command; closing would make it
			 * dial every few milliseconds, so hold the line (once: a
			 * runtime holds one connection to its port) */
			xgrow(&ps->held, &ps->held_cap, ps->nheld + 1, sizeof *ps->held);
			ps->held[ps->nheld++] = fd;
			return;
		}
	}
	if (ipc_resume_runtime_fd(fd, err, sizeof err) < 0) {
		cmd_error("paused start: cannot resume pid %llu: %s", (unsigned long long)adv.pid, err);
		return;
	}
	xgrow(&ps->resumed, &ps->resumed_cap, ps->nresumed + 1, sizeof *ps->resumed);
	ps->resumed[ps->nresumed++] = adv.pid;
}

/* Waits for the child, forwarding the signals meant for it, resuming
 * paused runtimes, and enforcing the duration (SIGINT, then SIGTERM, then
 * SIGKILL after grace periods). */
static int supervise(pid_t child, double duration, const sigset_t *watched, struct paused_start *ps,
		     struct rotator *rot)
{
	int sfd = signalfd(-1, watched, SFD_CLOEXEC | SFD_NONBLOCK);
	double deadline = duration > 0 ? clock_now_s() + duration : 0;
	int stage = 0; /* 0 running, 1 sent SIGINT, 2 sent SIGTERM, 3 sent SIGKILL */
	for (;;) {
		rotator_poll(rot);
		int status;
		pid_t r = waitpid(child, &status, WNOHANG);
		if (r == child || (r < 0 && errno != EINTR)) {
			if (sfd >= 0)
				close(sfd);
			return r == child ? status : 0;
		}
		int wait_ms = (int)(rotator_wait_s(rot, 1.0) * 1000) + 1;
		if (deadline) {
			double left = deadline - clock_now_s();
			if (left <= 0) {
				static const int escalation[] = {SIGINT, SIGTERM, SIGKILL};
				if (stage < 3) {
					kill(child, escalation[stage]);
					stage++;
				}
				deadline = clock_now_s() + STOP_GRACE_SECONDS;
				continue;
			}
			if (left * 1000 < wait_ms)
				wait_ms = (int)(left * 1000) + 1;
		}
		struct pollfd fds[2] = {{sfd, POLLIN, 0}, {ps ? ps->listen_fd : -1, POLLIN, 0}};
		if (poll(fds, 2, wait_ms) <= 0)
			continue;
		if (fds[1].revents & POLLIN)
			serve_port(ps);
		struct signalfd_siginfo si;
		while (sfd >= 0 && read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
			int sig = (int)si.ssi_signo;
			if (sig == SIGINT || sig == SIGQUIT || sig == SIGHUP) {
				/* typed at the terminal: the child, in our process group, got
				 * it too; sent to us alone: pass it on */
				if (si.ssi_code != SI_KERNEL)
					kill(child, sig);
			} else if (sig == SIGTERM) {
				kill(child, SIGTERM);
			}
		}
	}
}

/* Sets up the port for a paused start; false (and a note) when it cannot. */
static bool paused_start_open(struct paused_start *ps, const char *session)
{
	char err[512];
	int n = snprintf(ps->path, sizeof ps->path, "%s/diag.sock", session);
	ps->resumed = NULL;
	ps->held = NULL;
	ps->nresumed = ps->resumed_cap = 0;
	ps->nheld = ps->held_cap = 0;
	ps->listen_fd = -1;
	if (n < 0 || (size_t)n >= sizeof ps->path) {
		cmd_error("note: the session path is too long for a socket; starting without the paused start");
		return false;
	}
	ps->listen_fd = ipc_port_listen(ps->path, err, sizeof err);
	if (ps->listen_fd < 0) {
		cmd_error("note: %s; starting without the paused start", err);
		return false;
	}
	return true;
}

static void paused_start_close(struct paused_start *ps)
{
	for (size_t i = 0; i < ps->nheld; i++)
		close(ps->held[i]);
	free(ps->held);
	free(ps->resumed);
	ps->held = NULL;
	ps->resumed = NULL;
	ps->nheld = ps->nresumed = 0;
	if (ps->listen_fd >= 0) {
		close(ps->listen_fd);
		unlink(ps->path);
	}
	ps->listen_fd = -1;
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

void record_close_session(const char *session, bool follow, size_t full)
{
	char err[PATH_MAX + 256];
	int fd = cs_dir_open_private(session, err, sizeof err);
	if (fd < 0)
		return; /* removed while recording: said elsewhere */
	uint64_t max = cs_session_read_max_size(fd);
	if (!follow)
		cs_session_close(fd);
	close(fd);
	if (full)
		cmd_error("the session reached its size cap of %llu KiB and recording stopped early (%zu process%s); "
			  "give a larger --max-size, or a lower --rate",
			  (unsigned long long)(max >> 10), full, full == 1 ? "" : "es");
}

/* Reads back what was recorded, for the closing summary. */
size_t record_summarize(const char *dir, uint64_t *samples, size_t *full)
{
	struct prof_recording s;
	char err[512];
	*samples = 0;
	*full = 0;
	if (prof_recording_open(&s, dir, err, sizeof err) < 0)
		return 0;
	prof_recording_update(&s, true);
	size_t hello = 0;
	for (size_t i = 0; i < s.nprocs; i++) {
		hello += s.procs[i]->have_hello;
		*samples += s.procs[i]->wall_samples; /* every sample taken, running or waiting */
		*full += s.procs[i]->ended && s.procs[i]->end_reason == CS_END_SIZE_CAP;
	}
	prof_recording_free(&s);
	return hello;
}

int cmd_record(int argc, char **argv)
{
	static const struct option options[] = {
		{"output", required_argument, NULL, 'o'}, {"rate", required_argument, NULL, 'r'},
		{"duration", required_argument, NULL, 'd'}, {"events", required_argument, NULL, 'e'},
		{"pid", required_argument, NULL, 'p'}, {"pause", no_argument, NULL, 'P'},
		{"sampler", required_argument, NULL, 'S'}, {"validate", required_argument, NULL, 'V'},
		{"instrument", required_argument, NULL, 'i'}, {"allocations", no_argument, NULL, 'A'},
		{"rotate", required_argument, NULL, 'R'}, {"max-size", required_argument, NULL, 'm'},
		{"follow-children", no_argument, NULL, 'F'}, {"heap-snapshots", no_argument, NULL, 'H'},
		{"symbols", required_argument, NULL, 'Y'},
		{"async", required_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *dir = NULL;
	struct config cfg; /* the defaults: the options override them */
	config_load(&cfg, stderr);
	config_free(&cfg); /* (only the rate and events are wanted) */
	unsigned rate = cfg.rate;
	double duration = 0, rotate = 0;
	const char *events = cfg.events[0] ? cfg.events : NULL;
	unsigned pid = 0;
	bool pause = false, follow = false;
	uint64_t max_size = 0;
	const char *sampler = NULL, *validate = NULL, *async = NULL;
	struct startup_features features = {.patterns = ""};
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+o:r:d:e:p:i:Am:Hh", options, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (cs_parse_size(optarg, &max_size) < 0)
				return cmd_usage_error("record", "--max-size wants a size such as 500K, 64M or 2G, not '%s'",
						       optarg);
			break;
		case 'F':
			follow = true;
			break;
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
		case 'e':
			if (parse_events_option("record", optarg) != 0)
				return EXIT_USAGE;
			events = optarg;
			break;
		case 'P':
			pause = true;
			break;
		case 'R':
			if (parse_seconds(optarg, &rotate) < 0 || rotate < 0.1)
				return cmd_usage_error("record", "--rotate wants a number of seconds, at least 0.1, not '%s'",
						       optarg);
			break;
		case 'i':
			if (add_instrument_pattern("record", &features, optarg) != 0)
				return EXIT_USAGE;
			break;
		case 'A':
			features.allocations = true;
			break;
		case 'H':
			features.heap_snapshots = true;
			break;
		case 'S':
			if (cs_sampler_parse(optarg) < 0)
				return cmd_usage_error("record", "--sampler is mixed, kernel, suspend or signal, not '%s'", optarg);
			sampler = optarg;
			break;
		case 'V': {
			struct cs_dials probe;
			char assignment[64], why[160];
			cs_dials_default(&probe, CS_RATE_DEFAULT);
			snprintf(assignment, sizeof assignment, "validate=%s", optarg);
			if (cs_dials_assign(&probe, assignment, why, sizeof why) < 0)
				return cmd_usage_error("record", "--validate: %s", why);
			validate = optarg;
			break;
		}
		case 'a':
			if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0)
				return cmd_usage_error("record", "--async is on or off, not '%s'", optarg);
			async = optarg;
			break;
		case 'p':
			if (parse_u32(optarg, 1, 0x7fffffff, &pid) < 0)
				return cmd_usage_error("record", "--pid wants a process id, not '%s'", optarg);
			break;
		case 'Y':
			if (add_symbols_option("record", optarg) != 0)
				return EXIT_USAGE;
			break;
		case 'h':
			cmd_record_usage(stdout);
			return 0;
		default:
			return cmd_usage_error("record", "unknown option");
		}
	}
	prune_automatically();
	use_symbol_dirs();
	char abs_dir[PATH_MAX];
	if (dir && dir[0] != '/') {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd) || (size_t)snprintf(abs_dir, sizeof abs_dir, "%s/%s", cwd, dir) >= sizeof abs_dir) {
			cmd_error("cannot make %s absolute", dir);
			return 1;
		}
		dir = abs_dir;
	}
	if (pid) {
		if (optind < argc)
			return cmd_usage_error("record", "give --pid or a command to run, not both");
		if (refuse_features_on_attach("record", &features) != 0)
			return EXIT_USAGE;
		return record_attach((int)pid, dir, rate, events, duration, rotate, max_size);
	}
	if (optind >= argc)
		return cmd_usage_error("record", "no command to run: clrscope record [OPTIONS] -- COMMAND [ARG...]");
	char **command = argv + optind;

	char agent[PATH_MAX], err[PATH_MAX + 256], session[PATH_MAX];
	if (launch_prepare(command, dir, max_size, agent, sizeof agent, session, sizeof session, err, sizeof err) < 0) {
		cmd_error("%s", err);
		return 1;
	}

	/* Signals are taken synchronously while the child runs (supervise). */
	sigset_t watched, old;
	static const int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGQUIT, SIGHUP};
	watch_signals(sigs, sizeof sigs / sizeof *sigs, &watched, &old);

	struct paused_start ps;
	bool paused = pause && paused_start_open(&ps, session);
	struct launch_request req = {.argv = command, .agent_path = agent, .session_dir = session, .rate_hz = rate,
				     .events = events, .sampler = sampler, .validate = validate, .async = async,
				     .diagnostic_port = paused ? ps.path : NULL, .instrument = features.patterns,
				     .allocations = features.allocations, .heap_snapshots = features.heap_snapshots};
	pid_t child = launch_spawn(&req, &old, err, sizeof err);
	if (child < 0) {
		if (paused)
			paused_start_close(&ps);
		sigprocmask(SIG_SETMASK, &old, NULL);
		cmd_error("%s", err);
		return 127;
	}
	struct rotator rot;
	rotator_init(&rot, session, rotate);
	int status = supervise(child, duration, &watched, paused ? &ps : NULL, &rot);
	if (paused)
		paused_start_close(&ps);
	sigprocmask(SIG_SETMASK, &old, NULL);
	rotator_finish(&rot);

	uint64_t samples;
	size_t full;
	size_t processes = record_summarize(session, &samples, &full);
	record_close_session(session, follow, full);
	if (!processes && access(session, F_OK) != 0) {
		cmd_error("the session directory %s was removed while recording; nothing is left to read", session);
		return 1;
	}
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
