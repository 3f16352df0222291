/* The diagnostics IPC client's transport (see ipc.h): connections with
 * timeouts and the peer's credentials checked, one command each, and the
 * connect ports a paused runtime dials. */
#include "live/ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "live/diagsocket.h"
#include "util/text.h"
#include "util/xalloc.h"

static int g_timeout_ms = IPC_DEFAULT_TIMEOUT_MS;

void ipc_set_timeout(int ms)
{
	g_timeout_ms = ms > 0 ? ms : IPC_DEFAULT_TIMEOUT_MS;
}

/* ---- connections ---- */

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int left_ms(long long deadline)
{
	long long left = deadline - now_ms();
	return left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/* Waits for events on fd until deadline: 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, long long deadline)
{
	for (;;) {
		struct pollfd p = {fd, events, 0};
		int r = poll(&p, 1, left_ms(deadline));
		if (r > 0)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

static int send_all(int fd, const uint8_t *buf, size_t len, long long deadline, char *err, size_t errlen)
{
	while (len) {
		int w = wait_fd(fd, POLLOUT, deadline);
		if (w == 0) {
			text_format(err, errlen, "timed out sending to the runtime");
			return IPC_ERR_TIMEOUT;
		}
		ssize_t n = w < 0 ? -1 : send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			text_format(err, errlen, "cannot send to the runtime: %s", strerror(errno));
			return IPC_ERR_IO;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads exactly len bytes: 0, or an error (1 for a clean end of stream
 * before the first byte, with *got the bytes read). */
static int recv_all(int fd, uint8_t *buf, size_t len, long long deadline, size_t *got, char *err, size_t errlen)
{
	*got = 0;
	while (*got < len) {
		int w = wait_fd(fd, POLLIN, deadline);
		if (w == 0) {
			text_format(err, errlen, "the runtime did not answer in time (is the process stopped, e.g. by "
					     "a debugger or SIGSTOP?)");
			return IPC_ERR_TIMEOUT;
		}
		ssize_t n = w < 0 ? -1 : recv(fd, buf + *got, len - *got, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			text_format(err, errlen, "cannot read the runtime's answer: %s", strerror(errno));
			return IPC_ERR_IO;
		}
		if (n == 0) {
			text_format(err, errlen, "the runtime closed the connection %s", *got ? "in the middle of its answer"
											   : "without answering");
			return IPC_ERR_PROTOCOL;
		}
		*got += (size_t)n;
	}
	return 0;
}

/* Connects to the Unix socket at path (through /proc/self/fd when the
 * path is longer than sun_path holds). */
static int connect_socket(const char *path, long long deadline, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int dirfd_ = -1;
	if (strlen(path) < sizeof sa.sun_path) {
		snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	} else {
		const char *slash = strrchr(path, '/');
		char dir[PATH_MAX + 64];
		if (!slash || (size_t)(slash - path) >= sizeof dir) {
			text_format(err, errlen, "socket path too long: %s", path);
			return IPC_ERR_ARGS;
		}
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
		dirfd_ = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dirfd_ < 0 || (size_t)snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", dirfd_,
						   slash + 1) >= sizeof sa.sun_path) {
			text_format(err, errlen, "cannot reach %s: %s", path, dirfd_ < 0 ? strerror(errno) : "name too long");
			if (dirfd_ >= 0)
				close(dirfd_);
			return IPC_ERR_ARGS;
		}
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		text_format(err, errlen, "cannot make a socket: %s", strerror(errno));
		if (dirfd_ >= 0)
			close(dirfd_);
		return IPC_ERR_IO;
	}
	int rc = 0;
	for (;;) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
			break;
		int e = errno;
		if (e == EINTR)
			continue;
		if (e == EAGAIN && left_ms(deadline) > 0) { /* backlog full: the runtime is busy */
			struct timespec ts = {0, 20 * 1000000};
			nanosleep(&ts, NULL);
			continue;
		}
		if (e == EINPROGRESS) {
			int w = wait_fd(fd, POLLOUT, deadline);
			int soerr = 0;
			socklen_t sl = sizeof soerr;
			if (w > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0)
				break;
			e = w == 0 ? ETIMEDOUT : soerr ? soerr : errno;
		}
		if (e == ECONNREFUSED)
			text_format(err, errlen,
				"nothing listens on %s: the process is exiting or the socket is stale", path);
		else if (e == ENOENT)
			text_format(err, errlen, "the diagnostics socket %s disappeared (did the process exit?)", path);
		else if (e == EACCES || e == EPERM)
			text_format(err, errlen, "not allowed to connect to %s (%s): it belongs to another user", path,
				strerror(e));
		else if (e == EAGAIN || e == ETIMEDOUT)
			text_format(err, errlen, "timed out connecting to %s: the runtime is not accepting connections",
				path);
		else
			text_format(err, errlen, "cannot connect to %s: %s", path, strerror(e));
		rc = e == EACCES || e == EPERM ? IPC_ERR_OTHER_USER
		     : e == ENOENT		 ? IPC_ERR_NO_SOCKET
		     : e == EAGAIN || e == ETIMEDOUT ? IPC_ERR_TIMEOUT
						     : IPC_ERR_CONNECT;
		break;
	}
	if (dirfd_ >= 0)
		close(dirfd_);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* Whether the listener at the other end of fd is process pid running as
 * uid: a socket of the right name and owner could still be served by
 * another process of that user, or by one that took over the name. */
static int check_peer(int fd, const char *path, pid_t pid, uid_t uid, char *err, size_t errlen)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		text_format(err, errlen, "cannot tell who serves %s: %s", path, strerror(errno));
		return IPC_ERR_IO;
	}
	if (cred.pid != pid || cred.uid != uid) {
		text_format(err, errlen,
			"%s is served by process %d of uid %u, not by process %d of uid %u: not its runtime, so "
			"clrscope does not trust it (remove the socket if it is stale)",
			path, (int)cred.pid, (unsigned)cred.uid, (int)pid, (unsigned)uid);
		return IPC_ERR_CONNECT;
	}
	return 0;
}

/* Sends req on fd and reads one whole reply into *reply (malloc'd). */
static int exchange(int fd, const uint8_t *req, size_t reqlen, long long deadline, uint8_t **reply, size_t *replylen,
		    char *err, size_t errlen)
{
	*reply = NULL;
	*replylen = 0;
	int rc = send_all(fd, req, reqlen, deadline, err, errlen);
	if (rc < 0)
		return rc;
	uint8_t header[IPC_HEADER_SIZE];
	size_t got;
	rc = recv_all(fd, header, sizeof header, deadline, &got, err, errlen);
	if (rc < 0)
		return rc;
	uint16_t size;
	uint8_t set, id;
	char why[128];
	if (ipc_decode_header(header, sizeof header, &size, &set, &id, why, sizeof why) < 0) {
		text_format(err, errlen, "the runtime's answer is not the diagnostics protocol: %s", why);
		return IPC_ERR_PROTOCOL;
	}
	uint8_t *buf = xmalloc(size);
	memcpy(buf, header, sizeof header);
	rc = recv_all(fd, buf + IPC_HEADER_SIZE, size - IPC_HEADER_SIZE, deadline, &got, err, errlen);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*reply = buf;
	*replylen = size;
	return 0;
}

/* One command on a new connection to socket, served by process pid of uid
 * (else nothing is sent); the reply is decoded into r (pointing into *buf,
 * which the caller frees).  Returns 0 for OK, the HRESULT of an error
 * reply, or an ipc_error. */
static int transact(const char *socket_path, pid_t pid, uid_t uid, const uint8_t *req, size_t reqlen, int timeout_ms,
		    uint8_t **buf, struct ipc_reply *r, char *err, size_t errlen)
{
	*buf = NULL;
	long long deadline = now_ms() + timeout_ms;
	int fd = connect_socket(socket_path, deadline, err, errlen);
	if (fd < 0)
		return fd;
	int rc = check_peer(fd, socket_path, pid, uid, err, errlen);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	size_t len;
	rc = exchange(fd, req, reqlen, deadline, buf, &len, err, errlen);
	close(fd);
	if (rc < 0)
		return rc;
	char why[128];
	int k = ipc_decode_reply(*buf, len, r, why, sizeof why);
	if (k < 0) {
		text_format(err, errlen, "the runtime's answer is not the diagnostics protocol: %s", why);
		return IPC_ERR_PROTOCOL;
	}
	if (k == 1) {
		int32_t hr = r->hresult;
		if (!IPC_IS_HRESULT(hr)) /* a failure code we could not tell from ours */
			hr = HR(0x80004005u);
		char words[256];
		ipc_hresult_describe(r->hresult, words, sizeof words);
		text_format(err, errlen, "the runtime refused: %s", words);
		return hr;
	}
	return 0;
}

int ipc_process_info(pid_t pid, int timeout_ms, struct ipc_process_info *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	char path[PATH_MAX + 64];
	uid_t owner;
	int rc = ipc_find_socket_owned(pid, path, sizeof path, &owner, err, errlen);
	if (rc < 0)
		return rc;
	for (int v = 2; v >= 1; v--) {
		uint8_t req[IPC_HEADER_SIZE], *buf;
		struct ipc_reply r;
		ipc_encode_simple(req, sizeof req, IPC_SET_PROCESS, v == 2 ? IPC_PROCESS_INFO2 : IPC_PROCESS_INFO);
		char why[512];
		rc = transact(path, pid, owner, req, sizeof req, timeout_ms > 0 ? timeout_ms : g_timeout_ms, &buf, &r,
			      why, sizeof why);
		if (rc == HR_CORDIAGIPC_E_UNKNOWN_COMMAND && v == 2) { /* .NET 5: no ProcessInfo2 */
			free(buf);
			continue;
		}
		if (rc == 0 && ipc_decode_process_info(r.payload, r.payload_len, v == 2, out, why, sizeof why) < 0)
			rc = IPC_ERR_PROTOCOL;
		free(buf);
		if (rc != 0)
			text_format(err, errlen, "process %d did not tell about itself: %s", (int)pid, why);
		return rc;
	}
	return IPC_ERR_PROTOCOL; /* not reached */
}

/* Whether the runtime's attach path itself returns hr (LoadProfiler,
 * CoCreateProfiler, the IPC server), rather than only passing on the
 * profiler's InitializeForAttach result. */
static bool attach_own_hresult(int32_t hr)
{
	static const uint32_t own[] = {
		0x80131384u, 0x80131385u, 0x80131386u, 0x80131387u, 0x8013135Bu, 0x80131371u, 0x8013136Au,
		0x80131367u, 0x80131368u, 0x80131515u, 0x8007007Eu, 0x8007007Fu, 0x800700C1u, 0x8007000Eu,
		0x80040111u, 0x80004002u, 0x8000FFFFu,
	};
	for (size_t i = 0; i < sizeof own / sizeof *own; i++)
		if ((uint32_t)hr == own[i])
			return true;
	return false;
}

int ipc_attach_profiler(pid_t pid, uint32_t attach_timeout_ms, const uint8_t clsid[16], const char *profiler_path,
			const void *client_data, uint32_t client_data_len, char *err, size_t errlen)
{
	uint8_t *req = xmalloc(IPC_MAX_MESSAGE);
	size_t len = ipc_encode_attach_profiler(req, IPC_MAX_MESSAGE, attach_timeout_ms, clsid, profiler_path,
						client_data, client_data_len);
	if (!len) {
		free(req);
		text_format(err, errlen, "the profiler path and client data (%u bytes) do not fit in one %d-byte message",
			(unsigned)client_data_len, IPC_MAX_MESSAGE);
		return IPC_ERR_ARGS;
	}
	char path[PATH_MAX + 64];
	uid_t owner;
	int rc = ipc_find_socket_owned(pid, path, sizeof path, &owner, err, errlen);
	if (rc < 0) {
		free(req);
		return rc;
	}
	/* the runtime answers after loading the profiler and its
	 * InitializeForAttach, having waited up to attach_timeout_ms for a
	 * background GC */
	long long timeout = (long long)g_timeout_ms + attach_timeout_ms;
	uint8_t *buf;
	struct ipc_reply r;
	char why[512];
	rc = transact(path, pid, owner, req, len, timeout > INT_MAX ? INT_MAX : (int)timeout, &buf, &r, why,
		      sizeof why);
	free(req);
	if (rc == 0 && r.payload_len >= 4 && r.hresult < 0) { /* OK carrying a failure: not expected, but say so */
		char words[256];
		ipc_hresult_describe(r.hresult, words, sizeof words);
		snprintf(why, sizeof why, "the runtime answered OK with %s", words);
		rc = r.hresult;
	}
	free(buf);
	if (rc != 0)
		text_format(err, errlen, "process %d did not load the profiler %s: %s%s", (int)pid, profiler_path, why,
			IPC_IS_HRESULT(rc) && !attach_own_hresult(rc)
				? " (the runtime passes on what the profiler's InitializeForAttach returns: see its log)"
				: "");
	return rc;
}

int ipc_resume_runtime(const char *socket_path, pid_t pid, char *err, size_t errlen)
{
	char proc[64];
	struct stat st;
	snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
	if (stat(proc, &st) < 0) {
		text_format(err, errlen, "no process %d is running", (int)pid);
		return IPC_ERR_NO_PROCESS;
	}
	uint8_t req[IPC_HEADER_SIZE], *buf;
	struct ipc_reply r;
	char why[512];
	ipc_encode_simple(req, sizeof req, IPC_SET_PROCESS, IPC_PROCESS_RESUME_RUNTIME);
	int rc = transact(socket_path, pid, st.st_uid, req, sizeof req, g_timeout_ms, &buf, &r, why, sizeof why);
	free(buf);
	if (rc != 0)
		text_format(err, errlen, "cannot resume the runtime at %s: %s", socket_path, why);
	return rc;
}

/* ---- connect ports ---- */

int ipc_port_listen(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path) {
		text_format(err, errlen, "diagnostic port path too long (%zu bytes, at most %zu): %s", strlen(path),
			sizeof sa.sun_path - 1, path);
		return IPC_ERR_ARGS;
	}
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			text_format(err, errlen, "%s exists and is not a socket: choose another path", path);
			return IPC_ERR_ARGS;
		}
		unlink(path);
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		text_format(err, errlen, "cannot make a socket: %s", strerror(errno));
		return IPC_ERR_IO;
	}
	mode_t old = umask(0177); /* the socket file is made 0600 */
	int b = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	int e = errno;
	umask(old);
	if (b < 0 || listen(fd, 8) < 0) {
		if (b == 0)
			e = errno;
		text_format(err, errlen, "cannot listen on %s: %s", path, strerror(e));
		close(fd);
		return IPC_ERR_IO;
	}
	return fd;
}

int ipc_port_accept(int listen_fd, int timeout_ms, struct ipc_advertise *adv, char *err, size_t errlen)
{
	long long deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : g_timeout_ms);
	int fd;
	for (;;) {
		int w = wait_fd(listen_fd, POLLIN, deadline);
		if (w == 0) {
			text_format(err, errlen, "the runtime did not connect to the diagnostic port within %d ms",
				timeout_ms > 0 ? timeout_ms : g_timeout_ms);
			return IPC_ERR_TIMEOUT;
		}
		fd = w < 0 ? -1 : accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd >= 0)
			break;
		if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) {
			text_format(err, errlen, "cannot accept on the diagnostic port: %s", strerror(errno));
			return IPC_ERR_IO;
		}
	}
	uint8_t msg[IPC_ADVERTISE_SIZE];
	size_t got;
	char why[256];
	struct ipc_advertise greeting;
	int rc = recv_all(fd, msg, sizeof msg, deadline, &got, why, sizeof why);
	if (rc == 0 && ipc_decode_advertise(msg, sizeof msg, &greeting) < 0) {
		snprintf(why, sizeof why, "not an advertise message");
		rc = IPC_ERR_PROTOCOL;
	}
	if (rc < 0) {
		text_format(err, errlen, "bad greeting on the diagnostic port: %s", why);
		close(fd);
		return rc;
	}
	if (adv)
		*adv = greeting;
	return fd;
}

int ipc_resume_runtime_fd(int fd, char *err, size_t errlen)
{
	uint8_t req[IPC_HEADER_SIZE], *buf;
	size_t len;
	char why[512];
	ipc_encode_simple(req, sizeof req, IPC_SET_PROCESS, IPC_PROCESS_RESUME_RUNTIME);
	int rc = exchange(fd, req, sizeof req, now_ms() + g_timeout_ms, &buf, &len, why, sizeof why);
	close(fd);
	if (rc == 0) {
		struct ipc_reply r;
		int k = ipc_decode_reply(buf, len, &r, why, sizeof why);
		if (k < 0)
			rc = IPC_ERR_PROTOCOL;
		else if (k == 1) {
			ipc_hresult_describe(r.hresult, why, sizeof why);
			rc = IPC_IS_HRESULT(r.hresult) ? r.hresult : HR(0x80004005u);
		}
	}
	free(buf);
	if (rc != 0)
		text_format(err, errlen, "cannot resume the runtime: %s", why);
	return rc;
}

