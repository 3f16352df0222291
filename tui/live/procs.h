/* The .NET processes of the current user: which are running, what runtime
 * they use, whether clrscope profiles them and whether it could attach. */
#ifndef CLRSCOPE_PROCS_H
#define CLRSCOPE_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "live/ipc.h"

/* How long discovery waits for one runtime's ProcessInfo: a live runtime
 * answers in a few milliseconds, and ps and the targets screen must not
 * hang on a socket that accepts and says nothing. */
#define PROCS_IPC_TIMEOUT_MS 500
/* ... and all of them together, listing every process, past which each
 * still gets PROCS_IPC_FLOOR_MS (a live runtime answers well within it). */
#define PROCS_LIST_BUDGET_MS 600
#define PROCS_IPC_FLOOR_MS 50

struct dotnet_proc {
	pid_t pid;
	char *command; /* /proc/PID/cmdline, arguments joined by spaces */
	char *runtime; /* CLR version (ProcessInfo2, else the libcoreclr.so directory); NULL if unknown */
	char *socket;  /* its diagnostics socket; NULL when there is none */
	bool agent_loaded; /* clrscope's agent (libclrscope-agent-*.so) is mapped in it */
	bool profiled;     /* ... and recording: it holds a log segment open */
	bool attachable;
	char *reason;                 /* why not, when !attachable */
	struct ipc_process_info info; /* what the runtime said (info.version 0 when it did not answer) */
	char *info_error;             /* why it did not answer */
};

/* The .NET processes of this user, sorted by pid: those with CoreCLR
 * mapped (found through /proc) and those with a live diagnostics socket in
 * the temporary directories (single-file apps).  Other users' processes
 * and stale sockets are skipped.  Returns the count; free with procs_free. */
size_t procs_list(struct dotnet_proc **out);

/* One process, with errors that say why it is not a .NET process of this
 * user (no such process, another user's, not .NET): the return values of
 * ipc_find_socket.  A .NET process whose diagnostics are off or whose
 * socket is missing is returned (0) with attachable false. */
int procs_get(pid_t pid, struct dotnet_proc *out, char *err, size_t errlen);

void procs_free(struct dotnet_proc *p, size_t n);
void procs_clear(struct dotnet_proc *p);

#endif
