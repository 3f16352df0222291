/* A client for the .NET runtime's diagnostics IPC protocol (the Unix socket
 * every CoreCLR process listens on): ProcessInfo, AttachProfiler and
 * ResumeRuntime over connections with timeouts, so a stuck target never
 * hangs clrscope, and the connect ports a paused runtime dials.  The
 * messages are ipccodec.h's; finding the socket is diagsocket.h's. */
#ifndef CLRSCOPE_IPC_H
#define CLRSCOPE_IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "live/diagsocket.h"
#include "live/ipccodec.h"

/* ---- talking to processes ---- */

/* Read/connect timeout for everything below (IPC_DEFAULT_TIMEOUT_MS unless
 * set; AttachProfiler adds its attach timeout to it). */
void ipc_set_timeout(int ms);

/* ProcessInfo2, falling back to ProcessInfo on runtimes that answer
 * "unknown command" (.NET 5), within timeout_ms per connection (0: the
 * ipc_set_timeout one).  Free out with ipc_process_info_free. */
int ipc_process_info(pid_t pid, int timeout_ms, struct ipc_process_info *out, char *err, size_t errlen);

/* AttachProfiler.  clsid is the GUID in its in-memory little-endian layout
 * (see ipc_guid_parse); profiler_path must exist inside the target's mount
 * namespace; client_data reaches ICorProfilerCallback3::InitializeForAttach.
 * attach_timeout_ms is how long the runtime may wait for a background GC
 * to finish before it loads the profiler. */
int ipc_attach_profiler(pid_t pid, uint32_t attach_timeout_ms, const uint8_t clsid[16], const char *profiler_path,
			const void *client_data, uint32_t client_data_len, char *err, size_t errlen);


/* ResumeRuntime on an explicit socket path (as ipc_find_socket found it),
 * served by process pid: resumes a runtime paused at startup by
 * DOTNET_DefaultDiagnosticPortSuspend=1; a no-op for a running one. */
int ipc_resume_runtime(const char *socket_path, pid_t pid, char *err, size_t errlen);

/* A "connect" diagnostic port: DOTNET_DiagnosticPorts=PATH[,suspend] makes
 * the runtime dial PATH (it cannot be made to listen there: the runtime
 * ignores "listen" ports other than its default one).  ipc_port_listen
 * makes the listening socket (mode 0600; an old socket file at PATH is
 * replaced); ipc_port_accept waits for the runtime, reads its advertise
 * message (ADVR_V1, cookie, pid) and returns the connected descriptor, on
 * which ipc_resume_runtime_fd sends ResumeRuntime (and closes it).  The
 * runtime dials again after every command. */
int ipc_port_listen(const char *path, char *err, size_t errlen);
int ipc_port_accept(int listen_fd, int timeout_ms, struct ipc_advertise *adv, char *err, size_t errlen);
int ipc_resume_runtime_fd(int fd, char *err, size_t errlen);

#endif
