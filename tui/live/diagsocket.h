/* Which diagnostics socket belongs to a process, and whether it can be
 * trusted: read from /proc (the process's owner, start time, TMPDIR and
 * mount namespace) and the socket files themselves. */
#ifndef CLRSCOPE_DIAGSOCKET_H
#define CLRSCOPE_DIAGSOCKET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The start time (field 22) of a /proc/PID/stat line, parsing after the
 * last ')' so that a comm with spaces or parentheses cannot shift it;
 * -1 if malformed. */
int ipc_parse_stat_starttime(const char *stat, size_t len, uint64_t *starttime);

/* The target's socket: ${TMPDIR:-/tmp}/dotnet-diagnostic-{pid}-{key}-socket
 * with TMPDIR from /proc/PID/environ and key its start time (preferred
 * when several match), reached through /proc/PID/root when the target is
 * in another mount namespace.  Errors tell a missing process, another
 * user's process, a process that is not .NET, disabled diagnostics and a
 * missing socket apart.  Only sockets owned by the process's owner count
 * (anyone can make such a name in /tmp); every connection below also checks
 * that the listener is that process, as that user (SO_PEERCRED), before it
 * sends anything. */
int ipc_find_socket(pid_t pid, char *path, size_t n, char *err, size_t errlen);
/* The same, with the owner whose uid the listener must have (SO_PEERCRED). */
int ipc_find_socket_owned(pid_t pid, char *path, size_t n, uid_t *owner, char *err, size_t errlen);

#endif
