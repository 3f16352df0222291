/* The .NET runtime's diagnostics IPC protocol (dotnet/diagnostics
 * documentation/design-docs/ipc-protocol.md): its messages, encoded and
 * decoded by pure functions over buffers (fuzzed: tests/fuzz/fuzz_ipc.c).
 *
 * Every message is a 20-byte little-endian header (magic "DOTNET_IPC_V1\0",
 * u16 size of header plus payload, u8 command set, u8 command id, u16 0)
 * and a payload.  The runtime answers with command set 0xFF: id 0x00 = OK
 * and a payload, id 0xFF = error and an int32 HRESULT.  One command per
 * connection.
 *
 * Return values of the IPC calls (here, diagsocket.h and ipc.h): 0 success;
 * a small negative enum ipc_error for a failure on our side; or, when the
 * runtime itself refused, its HRESULT (a large negative int32, see
 * IPC_IS_HRESULT).  err always says what happened and what to do. */
#ifndef CLRSCOPE_IPCCODEC_H
#define CLRSCOPE_IPCCODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* HRESULTs that are not in agent/corprof.h (which tui/ may not include):
 * winerror.h and corerror.xml values. */
#define HR(x) ((int32_t)(uint32_t)(x))
#define HR_CORDIAGIPC_E_BAD_ENCODING HR(0x80131384u)
#define HR_CORDIAGIPC_E_UNKNOWN_COMMAND HR(0x80131385u)

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

/* A "connect" port's advertise message (see ipc_port_accept): "ADVR_V1\0",
 * the 16-byte cookie, u64 pid, u16 reserved. */
struct ipc_advertise {
	uint8_t cookie[16];
	uint64_t pid;
};
/* -1 when buf (len bytes) does not start with one. */
#define IPC_ADVERTISE_SIZE 34
int ipc_decode_advertise(const uint8_t *buf, size_t len, struct ipc_advertise *adv);

#endif
