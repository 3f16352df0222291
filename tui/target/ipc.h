/* A client for the .NET runtime's diagnostics IPC protocol (the Unix socket
 * every CoreCLR process listens on, dotnet/diagnostics
 * documentation/design-docs/ipc-protocol.md): finding a process's socket,
 * ProcessInfo, AttachProfiler and ResumeRuntime.
 *
 * Every message is a 20-byte little-endian header (magic "DOTNET_IPC_V1\0",
 * u16 size of header plus payload, u8 command set, u8 command id, u16 0)
 * and a payload.  The runtime answers with command set 0xFF: id 0x00 = OK
 * and a payload, id 0xFF = error and an int32 HRESULT.  One command per
 * connection.  The encoders and decoders are pure functions over buffers;
 * the rest connect with timeouts, so a stuck target never hangs clrscope.
 *
 * Return values: 0 success; a small negative enum ipc_error for a failure
 * on our side; or, when the runtime itself refused, its HRESULT (a large
 * negative int32, see IPC_IS_HRESULT).  err always says what happened and
 * what to do. */
#ifndef CLRSCOPE_IPC_H
#define CLRSCOPE_IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define IPC_HEADER_SIZE 20
#define IPC_MAGIC "DOTNET_IPC_V1" /* 13 characters and a NUL: 14 bytes */
#define IPC_MAGIC_SIZE 14
#define IPC_MAX_MESSAGE 0xFFFF /* the size field is 16 bits */
#define IPC_DEFAULT_TIMEOUT_MS 5000

/* Command sets and ids (dotnet/runtime src/native/eventpipe/ds-types.h). */
enum {
	IPC_SET_DUMP = 0x01,
	IPC_SET_EVENTPIPE = 0x02,
	IPC_SET_PROFILER = 0x03,
	IPC_SET_PROCESS = 0x04,
	IPC_SET_SERVER = 0xFF,
};
enum {
	IPC_PROFILER_ATTACH = 0x01,  /* AttachProfiler */
	IPC_PROFILER_STARTUP = 0x02, /* StartupProfiler: only while paused at startup */
};
enum {
	IPC_PROCESS_INFO = 0x00,
	IPC_PROCESS_RESUME_RUNTIME = 0x01,
	IPC_PROCESS_ENV = 0x02,
	IPC_PROCESS_INFO2 = 0x04,
};
enum {
	IPC_SERVER_OK = 0x00,
	IPC_SERVER_ERROR = 0xFF,
};

/* Failures on our side (the runtime's own refusals are HRESULTs). */
enum ipc_error {
	IPC_ERR_NO_PROCESS = -1,  /* no such process (or it exited) */
	IPC_ERR_OTHER_USER = -2,  /* it belongs to another user */
	IPC_ERR_NOT_DOTNET = -3,  /* no CoreCLR in it and no diagnostics socket */
	IPC_ERR_DISABLED = -4,    /* DOTNET_EnableDiagnostics=0 or _IPC=0 */
	IPC_ERR_NO_SOCKET = -5,   /* a .NET process whose socket is missing */
	IPC_ERR_CONNECT = -6,     /* the socket is there but refused us */
	IPC_ERR_TIMEOUT = -7,     /* the runtime did not answer in time */
	IPC_ERR_PROTOCOL = -8,    /* the answer was not the protocol */
	IPC_ERR_IO = -9,          /* a system call failed */
	IPC_ERR_ARGS = -10,       /* bad arguments (path too long for a message ...) */
};
/* rc is an HRESULT from the runtime rather than an enum ipc_error. */
#define IPC_IS_HRESULT(rc) ((rc) < -0xFFFF)

/* What ProcessInfo / ProcessInfo2 tell.  Strings are UTF-8, malloc'd, NULL
 * when the runtime sent none (ProcessInfo has no entrypoint or version). */
struct ipc_process_info {
	uint64_t pid;       /* in the target's own pid namespace */
	uint8_t cookie[16]; /* the runtime instance cookie, as sent */
	char *command_line;
	char *os;
	char *arch;
	char *entrypoint_assembly;
	char *clr_version;
	int version; /* 2: from ProcessInfo2, 1: from ProcessInfo */
};
void ipc_process_info_free(struct ipc_process_info *p);

/* ---- pure encoding and decoding ---- */

/* Writes a header into out (IPC_HEADER_SIZE bytes). */
void ipc_encode_header(uint8_t *out, uint16_t size, uint8_t command_set, uint8_t command_id);

/* A request with no payload; returns its size (20), or 0 if cap is short. */
size_t ipc_encode_simple(uint8_t *out, size_t cap, uint8_t command_set, uint8_t command_id);

/* AttachProfiler: u32 attach timeout (ms), 16-byte CLSID, string path,
 * u32 client data length, the bytes.  Returns the message size, or 0 when
 * it does not fit in cap or in the protocol's 65535 bytes. */
size_t ipc_encode_attach_profiler(uint8_t *out, size_t cap, uint32_t attach_timeout_ms, const uint8_t clsid[16],
				  const char *profiler_path, const void *client_data, uint32_t client_data_len);

/* A protocol string: u32 count of UTF-16 units including the NUL (0 = no
 * string), then UTF-16LE.  Returns the bytes written, or 0 if short. */
size_t ipc_encode_string(uint8_t *out, size_t cap, const char *utf8);

/* A reply, parsed from a complete message. */
struct ipc_reply {
	uint8_t command_set, command_id;
	uint16_t size;          /* from the header */
	const uint8_t *payload; /* points into the buffer */
	size_t payload_len;
	int32_t hresult; /* for an error reply (and the OK payload's u32, when there is one) */
};
/* Parses the 20-byte header at buf: -1 and err if the magic is wrong or the
 * size is below 20. */
int ipc_decode_header(const uint8_t *buf, size_t len, uint16_t *size, uint8_t *command_set, uint8_t *command_id,
		      char *err, size_t errlen);
/* Parses a whole reply: 0 for OK, 1 for an error reply (r->hresult set),
 * -1 and err for anything else (truncated, bad magic, unknown command set,
 * an error reply without its HRESULT). */
int ipc_decode_reply(const uint8_t *buf, size_t len, struct ipc_reply *r, char *err, size_t errlen);
/* Parses a ProcessInfo (v2 false) or ProcessInfo2 payload: 0, or -1 and err
 * when truncated or malformed (out is then empty). */
int ipc_decode_process_info(const uint8_t *payload, size_t len, bool v2, struct ipc_process_info *out, char *err,
			    size_t errlen);
/* Reads a protocol string at *p (n bytes left), advancing both; *out is a
 * malloc'd UTF-8 copy or NULL for the empty (count 0) string.  -1 if it
 * runs past the end. */
int ipc_decode_string(const uint8_t **p, size_t *n, char **out);

/* "{BC8604E2-7E73-4C7E-B410-5D3E412990D8}" (braces optional) into the GUID's
 * in-memory little-endian layout, as AttachProfiler sends it: -1 if bad. */
int ipc_guid_parse(const char *s, uint8_t out[16]);

/* Words for a failure HRESULT the runtime can send, or NULL. */
const char *ipc_hresult_text(int32_t hr);
/* "words (0x8013136A)" or "HRESULT 0x80004005", always filled. */
void ipc_hresult_describe(int32_t hr, char *out, size_t n);

/* The start time (field 22) of a /proc/PID/stat line, parsing after the
 * last ')' so that a comm with spaces or parentheses cannot shift it;
 * -1 if malformed. */
int ipc_parse_stat_starttime(const char *stat, size_t len, uint64_t *starttime);

/* ---- talking to processes ---- */

/* Read/connect timeout for everything below (IPC_DEFAULT_TIMEOUT_MS unless
 * set; AttachProfiler adds its attach timeout to it). */
void ipc_set_timeout(int ms);

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
struct ipc_advertise {
	uint8_t cookie[16];
	uint64_t pid;
};
/* The advertise message: "ADVR_V1\0", the 16-byte cookie, u64 pid, u16
 * reserved.  -1 when buf (len bytes) does not start with one. */
#define IPC_ADVERTISE_SIZE 34
int ipc_decode_advertise(const uint8_t *buf, size_t len, struct ipc_advertise *adv);
int ipc_port_listen(const char *path, char *err, size_t errlen);
int ipc_port_accept(int listen_fd, int timeout_ms, struct ipc_advertise *adv, char *err, size_t errlen);
int ipc_resume_runtime_fd(int fd, char *err, size_t errlen);

#endif
