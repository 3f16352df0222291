/* The session directory: where an agent writes and clrscope reads.
 *
 *   SESSION/                    mode 0700, owned by the user
 *     clrscope.session          marker: "clrscope-session 1" and the command
 *     PID/                      one per profiled process (PID.2, PID.3 ... on reuse)
 *       seg-000001.clog ...     log segments (logfmt.h), mode 0600
 *
 * Both halves meet only here and in the environment variables below. */
#ifndef CLRSCOPE_SESSION_H
#define CLRSCOPE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* clrscope's CLSID, as CORECLR_PROFILER expects it. */
#define CS_AGENT_CLSID "{BC8604E2-7E73-4C7E-B410-5D3E412990D8}"

/* Environment read by the agent. */
#define CS_ENV_SESSION_DIR "CLRSCOPE_SESSION_DIR" /* absolute session directory */
#define CS_ENV_RATE "CLRSCOPE_RATE"               /* initial sampling rate, Hz */
#define CS_ENV_EVENTS "CLRSCOPE_EVENTS"           /* initial event kinds (dials syntax) */
#define CS_ENV_SAMPLING "CLRSCOPE_SAMPLING"       /* initial sampling=on|off */
#define CS_ENV_SAMPLER "CLRSCOPE_SAMPLER"         /* initial sampler=mixed|kernel|suspend|signal */
#define CS_ENV_VALIDATE "CLRSCOPE_VALIDATE"       /* initial validate=N */
#define CS_ENV_ASYNC "CLRSCOPE_ASYNC"             /* initial async=on|off */
#define CS_ENV_AGENT_LOG "CLRSCOPE_AGENT_LOG"     /* optional debug log file of the agent */
#define CS_ENV_INSTRUMENT "CLRSCOPE_INSTRUMENT"   /* functions to hook, one pattern per line */
#define CS_ENV_ALLOCATIONS "CLRSCOPE_ALLOCATIONS" /* "1": count allocations by type */
#define CS_ENV_HEAP_SNAPSHOTS "CLRSCOPE_HEAP_SNAPSHOTS" /* "1": heap snapshots by a forced GC (background GC off) */
#define CS_ENV_TABLE_CAP "CLRSCOPE_TABLE_CAP"     /* entries per agent table before a new id space */
/* Environment read by clrscope. */
#define CS_ENV_AGENT_PATH "CLRSCOPE_AGENT" /* overrides where the agent library is */

#define CS_RATE_MIN 1
#define CS_RATE_MAX 10000
#define CS_RATE_DEFAULT 200

#define CS_SESSION_MARKER "clrscope.session"
#define CS_SESSION_MARKER_MAGIC "clrscope-session 1"
/* A process directory's log segments, numbered from 1. */
#define CS_SEG_NAME_FMT "seg-%06u.clog"
#define CS_SEG_NAME_MAX 32

/* Makes path a private directory (0700) or checks that an existing one is
 * acceptable: a real directory (not a symlink), owned by this user, not
 * writable by group or others.  On failure returns -1 and explains in err. */
int cs_dir_make_private(const char *path, char *err, size_t errlen);

/* Opens the directory name under dirfd (AT_FDCWD: a path) without following
 * a symbolic link in its place; with private, it must also pass the checks
 * of cs_dir_make_private.  Messages name it as shown.  Returns the
 * descriptor, or -1 with err. */
int cs_dir_open_at(int dirfd, const char *name, bool private, const char *shown, char *err, size_t errlen);
/* cs_dir_open_at(AT_FDCWD, path, true, path, ...): a session directory to write in. */
int cs_dir_open_private(const char *path, char *err, size_t errlen);
/* Opens SESSION/PID for writing in it: both directories private, neither
 * a symbolic link. */
int cs_proc_dir_open(const char *proc_dir, char *err, size_t errlen);

/* Opens name under dirfd as a regular file, never following a symbolic link
 * and never blocking on a FIFO or a device (O_NOFOLLOW, O_CLOEXEC, O_NOCTTY
 * and, until the file is known to be regular, O_NONBLOCK are added to
 * flags).  Anything but a regular file is refused, and so is, for writing,
 * a file with other hard links.  Returns the descriptor, or -1 with errno
 * and why, which completes "NAME ..." ("is a symbolic link, ..."). */
int cs_open_file_at(int dirfd, const char *name, int flags, mode_t mode, char *why, size_t whylen);
/* What stands under name in dirfd, for messages: "a symbolic link", "a FIFO",
 * "a regular file", ... or "missing". */
const char *cs_entry_kind(int dirfd, const char *name);

/* Where sessions go by default: $XDG_RUNTIME_DIR/clrscope, else
 * ${TMPDIR:-/tmp}/clrscope-UID.  Created private if missing. */
int cs_session_root(char *out, size_t n, char *err, size_t errlen);

/* Whether path looks like a session (has the marker) or a process directory
 * (has a segment); 0 = neither. */
enum cs_dir_kind { CS_DIR_OTHER = 0, CS_DIR_SESSION, CS_DIR_PROCESS };
enum cs_dir_kind cs_dir_kind(const char *path);

/* Lists the process directories of a session, sorted by name, as full
 * paths.  Returns the count (>= 0) or -1; free with cs_free_list. */
int cs_session_processes(const char *session, char ***out);
void cs_free_list(char **list, int n);

/* Creates SESSION/PID (or PID.N when the name is taken by anything, a
 * symbolic link included) private, in a private SESSION; agent side. */
int cs_proc_dir_create(const char *session, pid_t pid, char *out, size_t n, char *err,
		       size_t errlen);

#endif
