/* Starting a program with the profiling environment: the CoreCLR variables
 * that load our agent, and clrscope's own (session directory, rate). */
#ifndef CLRSCOPE_LAUNCH_H
#define CLRSCOPE_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

struct launch_request {
	char *const *argv;       /* the command; argv[0] is looked up in PATH */
	const char *agent_path;  /* absolute */
	const char *session_dir; /* absolute */
	uint32_t rate_hz;
	const char *events; /* event kinds (dials syntax), NULL: the agent's default */
	const char *sampler; /* "suspend" or "signal", NULL: the agent's default */
	const char *validate; /* fast walks per exact check ("0": never), NULL: the agent's default */
	const char *async;    /* "on" or "off": logical stacks of async methods, NULL: the agent's default */
	const char *diagnostic_port; /* a socket to pause the runtime on at startup, or NULL */
	const char *output_path;     /* the program's stdout and stderr (and no stdin), or NULL: ours */
	const char *instrument;      /* functions to hook, one pattern per line, or NULL */
	bool allocations;            /* count allocations by type */
	bool heap_snapshots;         /* heap snapshots by a forced GC (background GC off) */
};

/* What a program can only be given when it starts (--instrument,
 * --allocations, --heap-snapshots). */
struct startup_features {
	char patterns[4096]; /* --instrument patterns, one per line ("": none) */
	bool allocations;
	bool heap_snapshots; /* snapshots by a forced GC (background GC off) */
};
/* Adds one --instrument pattern; -1 with err when it is empty, holds a line
 * break or does not fit. */
int startup_features_add_pattern(struct startup_features *f, const char *pattern, char *err, size_t errlen);

/* The first steps of a launch, one sequence for 'record' and the terminal
 * UI: the agent found (agent: its absolute path) and a session made for the
 * command (named after argv[0], holding the whole command line; in dir, or
 * a new one under the default root; max_size caps it, 0: the default
 * share of the free space).  -1 with err when either cannot be had. */
int launch_prepare(char *const *argv, const char *dir, uint64_t max_size, char *agent, size_t agent_n, char *session,
		   size_t session_n, char *err, size_t errlen);

/* Builds the environment for the target: ours, less any profiler variables
 * that would override or disable clrscope's, plus clrscope's.  Free with
 * launch_env_free. */
char **launch_env_build(const struct launch_request *r);
void launch_env_free(char **env);

/* Forks and execs; the child keeps our stdin/stdout/stderr and gets default
 * signal handling.  Returns the pid, or -1 with err (exec failures included). */
pid_t launch_spawn(const struct launch_request *r, const sigset_t *child_mask, char *err, size_t errlen);

#endif
