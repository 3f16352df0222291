/* The diagnostics IPC client: exact request bytes (checked by hand against
 * dotnet/diagnostics documentation/design-docs/ipc-protocol.md), reply and
 * ProcessInfo decoding (whole, error, truncated), /proc parsing, and the
 * socket code against a fake runtime in a child process.
 *
 * With arguments it drives real processes for tests/e2e/ipc.sh:
 *   test_ipc attach PID PROFILER_PATH   AttachProfiler; prints rc and the error
 *   test_ipc info PID                   ProcessInfo2; prints rc, version, error
 *   test_ipc resume PID                 ResumeRuntime on PID's default socket
 *   test_ipc port PATH                  listens on PATH (DOTNET_DiagnosticPorts),
 *                                       prints the advertised pid, resumes it */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "live/ipc.h"
#include "live/procfs.h"
#include "testutil.h"

static const uint8_t magic[14] = {'D', 'O', 'T', 'N', 'E', 'T', '_', 'I', 'P', 'C', '_', 'V', '1', 0};

static void test_header(void)
{
	uint8_t b[IPC_HEADER_SIZE];
	CHECK_EQ_U(ipc_encode_simple(b, sizeof b, IPC_SET_PROCESS, IPC_PROCESS_INFO2), 20);
	CHECK(memcmp(b, magic, 14) == 0);
	static const uint8_t rest[6] = {20, 0, 0x04, 0x04, 0, 0};
	CHECK(memcmp(b + 14, rest, 6) == 0);
	CHECK_EQ_U(ipc_encode_simple(b, 19, IPC_SET_PROCESS, IPC_PROCESS_INFO), 0);
	ipc_encode_simple(b, sizeof b, IPC_SET_PROCESS, IPC_PROCESS_RESUME_RUNTIME);
	CHECK(b[16] == 0x04 && b[17] == 0x01);
}

static void test_attach_bytes(void)
{
	uint8_t clsid[16];
	CHECK(ipc_guid_parse("{BC8604E2-7E73-4C7E-B410-5D3E412990D8}", clsid) == 0);
	uint8_t b[256];
	size_t n = ipc_encode_attach_profiler(b, sizeof b, 5000, clsid, "/a.so", "xy", 2);
	/* header 20 + timeout 4 + CLSID 16 + string (4 + 6 units * 2) + length 4 + data 2 */
	static const uint8_t want[62] = {
		'D', 'O', 'T', 'N', 'E', 'T', '_', 'I', 'P', 'C', '_', 'V', '1', 0, /* magic */
		62, 0,                                                             /* size */
		0x03, 0x01,                                                        /* Profiler, AttachProfiler */
		0, 0,                                                              /* reserved */
		0x88, 0x13, 0, 0,                                                  /* attachTimeout 5000 ms */
		0xE2, 0x04, 0x86, 0xBC, 0x73, 0x7E, 0x7E, 0x4C,                    /* Data1, Data2, Data3 LE */
		0xB4, 0x10, 0x5D, 0x3E, 0x41, 0x29, 0x90, 0xD8,                    /* Data4 as written */
		6, 0, 0, 0,                                                        /* 6 UTF-16 units with NUL */
		'/', 0, 'a', 0, '.', 0, 's', 0, 'o', 0, 0, 0,                      /* "/a.so" */
		2, 0, 0, 0,                                                        /* client data length */
		'x', 'y',                                                          /* client data */
	};
	CHECK_EQ_U(n, sizeof want);
	CHECK(n == sizeof want && memcmp(b, want, sizeof want) == 0);

	/* no client data */
	n = ipc_encode_attach_profiler(b, sizeof b, 0, clsid, "/a.so", NULL, 0);
	CHECK_EQ_U(n, 60);
	CHECK(b[14] == 60 && b[56] == 0 && b[59] == 0);

	/* too big for the buffer, or for the 16-bit size */
	CHECK_EQ_U(ipc_encode_attach_profiler(b, 61, 5000, clsid, "/a.so", "xy", 2), 0);
	uint8_t *big = malloc(70000);
	static char data[65500];
	CHECK_EQ_U(ipc_encode_attach_profiler(big, 70000, 5000, clsid, "/a.so", data, sizeof data), 0);
	CHECK(ipc_encode_attach_profiler(big, 70000, 5000, clsid, "/a.so", data, 65000) > 0);
	free(big);
}

static void test_strings(void)
{
	uint8_t b[64];
	CHECK_EQ_U(ipc_encode_string(b, sizeof b, NULL), 4);
	CHECK(b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0);
	/* é is one unit, U+1F600 a surrogate pair */
	size_t n = ipc_encode_string(b, sizeof b, "\xc3\xa9\xf0\x9f\x98\x80");
	CHECK_EQ_U(n, 4 + 2 * 4);
	static const uint8_t want[] = {4, 0, 0, 0, 0xE9, 0, 0x3D, 0xD8, 0x00, 0xDE, 0, 0};
	CHECK(memcmp(b, want, sizeof want) == 0);
	CHECK_EQ_U(ipc_encode_string(b, 11, "\xc3\xa9\xf0\x9f\x98\x80"), 0);

	const uint8_t *p = want;
	size_t left = sizeof want;
	char *s;
	CHECK(ipc_decode_string(&p, &left, &s) == 0);
	CHECK(s && strcmp(s, "\xc3\xa9\xf0\x9f\x98\x80") == 0);
	CHECK_EQ_U(left, 0);
	free(s);
	p = want;
	left = sizeof want - 1; /* one byte short */
	CHECK(ipc_decode_string(&p, &left, &s) < 0);
	CHECK(s == NULL);
	static const uint8_t empty[] = {0, 0, 0, 0};
	p = empty;
	left = 4;
	CHECK(ipc_decode_string(&p, &left, &s) == 0 && s == NULL && left == 0);
	/* what a process sends reaches terminals: escapes and C1 controls are
	 * masked ("\e]0;x\a", U+009B) */
	static const uint8_t esc[] = {7, 0, 0, 0, 0x1B, 0, ']', 0, '0', 0, 7, 0, 0x9B, 0, 'v', 0, 0, 0};
	p = esc;
	left = sizeof esc;
	CHECK(ipc_decode_string(&p, &left, &s) == 0);
	CHECK(s && strcmp(s, "?]0??v") == 0);
	free(s);
	static const uint8_t huge[] = {0xFF, 0xFF, 0xFF, 0x7F, 'a', 0};
	p = huge;
	left = sizeof huge;
	CHECK(ipc_decode_string(&p, &left, &s) < 0);
}

static size_t make_reply(uint8_t *b, uint8_t id, const uint8_t *payload, size_t n)
{
	ipc_encode_header(b, (uint16_t)(20 + n), 0xFF, id);
	if (n)
		memcpy(b + 20, payload, n);
	return 20 + n;
}

static void test_replies(void)
{
	uint8_t b[64];
	struct ipc_reply r;
	char err[256];
	static const uint8_t zero[4] = {0, 0, 0, 0};
	size_t n = make_reply(b, 0x00, zero, 4);
	CHECK(ipc_decode_reply(b, n, &r, err, sizeof err) == 0);
	CHECK_EQ_U(r.payload_len, 4);
	CHECK(r.hresult == 0);

	static const uint8_t already[4] = {0x6A, 0x13, 0x13, 0x80};
	n = make_reply(b, 0xFF, already, 4);
	CHECK_EQ_U(n, 24);
	CHECK(ipc_decode_reply(b, n, &r, err, sizeof err) == 1);
	CHECK((uint32_t)r.hresult == 0x8013136Au);
	CHECK(IPC_IS_HRESULT(r.hresult));
	CHECK(strstr(ipc_hresult_text(r.hresult), "already loaded") != NULL);
	char words[256];
	ipc_hresult_describe(r.hresult, words, sizeof words);
	CHECK(strstr(words, "0x8013136A") != NULL);
	ipc_hresult_describe((int32_t)0x80001234u, words, sizeof words);
	CHECK_STR(words, "HRESULT 0x80001234");
	CHECK(strstr(ipc_hresult_text((int32_t)0x8007007Eu), "mount namespace") != NULL);
	CHECK(ipc_hresult_text((int32_t)0x80131384u) && ipc_hresult_text((int32_t)0x80131385u) &&
	      ipc_hresult_text((int32_t)0x80131386u) && ipc_hresult_text((int32_t)0x8013135Bu) &&
	      ipc_hresult_text((int32_t)0x80131368u) && ipc_hresult_text((int32_t)0x80070005u));

	/* the generic OK of ResumeRuntime: no payload at all is fine too */
	n = make_reply(b, 0x00, NULL, 0);
	CHECK(ipc_decode_reply(b, n, &r, err, sizeof err) == 0 && r.payload_len == 0);

	/* truncated: in the header, in the payload */
	n = make_reply(b, 0xFF, already, 4);
	CHECK(ipc_decode_reply(b, 10, &r, err, sizeof err) < 0);
	CHECK(strstr(err, "truncated header") != NULL);
	CHECK(ipc_decode_reply(b, n - 1, &r, err, sizeof err) < 0);
	CHECK(strstr(err, "truncated reply") != NULL);
	/* an error without its HRESULT */
	n = make_reply(b, 0xFF, NULL, 0);
	CHECK(ipc_decode_reply(b, n, &r, err, sizeof err) < 0);
	/* bad magic, size below the header, not a server reply, unknown id */
	n = make_reply(b, 0x00, zero, 4);
	b[3] = 'X';
	CHECK(ipc_decode_reply(b, n, &r, err, sizeof err) < 0);
	CHECK(strstr(err, "magic") != NULL);
	n = make_reply(b, 0x00, zero, 4);
	b[14] = 19;
	CHECK(ipc_decode_reply(b, n, &r, err, sizeof err) < 0);
	n = make_reply(b, 0x00, zero, 4);
	b[16] = 0x04;
	CHECK(ipc_decode_reply(b, n, &r, err, sizeof err) < 0);
	n = make_reply(b, 0x7E, zero, 4);
	CHECK(ipc_decode_reply(b, n, &r, err, sizeof err) < 0);
}

static size_t put_str(uint8_t *b, const char *s)
{
	return ipc_encode_string(b, 512, s);
}

static size_t make_process_info(uint8_t *b, bool v2)
{
	size_t at = 0;
	static const uint8_t pid[8] = {0xD2, 0x04, 0, 0, 0, 0, 0, 0}; /* 1234 */
	memcpy(b, pid, 8);
	at += 8;
	for (int i = 0; i < 16; i++)
		b[at++] = (uint8_t)(0xA0 + i);
	at += put_str(b + at, "/usr/bin/dotnet /tmp/App.dll");
	at += put_str(b + at, "Linux");
	at += put_str(b + at, "x64");
	if (v2) {
		at += put_str(b + at, "App");
		at += put_str(b + at, "10.0.12");
	}
	return at;
}

static void test_process_info(void)
{
	uint8_t b[512];
	char err[256];
	struct ipc_process_info pi;
	size_t n = make_process_info(b, true);
	CHECK(ipc_decode_process_info(b, n, true, &pi, err, sizeof err) == 0);
	CHECK_EQ_U(pi.pid, 1234);
	CHECK(pi.cookie[0] == 0xA0 && pi.cookie[15] == 0xAF);
	CHECK(pi.command_line && strcmp(pi.command_line, "/usr/bin/dotnet /tmp/App.dll") == 0);
	CHECK(pi.os && strcmp(pi.os, "Linux") == 0);
	CHECK(pi.arch && strcmp(pi.arch, "x64") == 0);
	CHECK(pi.entrypoint_assembly && strcmp(pi.entrypoint_assembly, "App") == 0);
	CHECK(pi.clr_version && strcmp(pi.clr_version, "10.0.12") == 0);
	CHECK(pi.version == 2);
	ipc_process_info_free(&pi);

	/* every truncation fails cleanly */
	for (size_t cut = 0; cut < n; cut++) {
		CHECK(ipc_decode_process_info(b, cut, true, &pi, err, sizeof err) < 0);
		CHECK(pi.command_line == NULL && pi.version == 0);
	}
	CHECK(strstr(err, "truncated") != NULL);

	n = make_process_info(b, false);
	CHECK(ipc_decode_process_info(b, n, false, &pi, err, sizeof err) == 0);
	CHECK(pi.version == 1 && pi.clr_version == NULL && pi.entrypoint_assembly == NULL);
	CHECK(pi.arch && strcmp(pi.arch, "x64") == 0);
	ipc_process_info_free(&pi);
	/* a ProcessInfo payload is too short for ProcessInfo2 */
	CHECK(ipc_decode_process_info(b, n, true, &pi, err, sizeof err) < 0);
}

static void test_guid(void)
{
	uint8_t g[16];
	CHECK(ipc_guid_parse("00000001-0000-0000-c000-000000000046", g) == 0);
	static const uint8_t iunknown_factory[16] = {1, 0, 0, 0, 0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0x46};
	CHECK(memcmp(g, iunknown_factory, 16) == 0);
	CHECK(ipc_guid_parse("{00000001-0000-0000-C000-000000000046", g) < 0);
	CHECK(ipc_guid_parse("00000001-0000-0000-C000-00000000004G", g) < 0);
	CHECK(ipc_guid_parse("00000001+0000-0000-C000-000000000046", g) < 0);
	CHECK(ipc_guid_parse("", g) < 0);
}

static void test_advertise(void)
{
	uint8_t m[IPC_ADVERTISE_SIZE] = {'A', 'D', 'V', 'R', '_', 'V', '1', 0};
	for (int i = 0; i < 16; i++)
		m[8 + i] = (uint8_t)i;
	m[24] = 0x39, m[25] = 0x30; /* pid 12345 */
	struct ipc_advertise adv;
	CHECK(ipc_decode_advertise(m, sizeof m, &adv) == 0);
	CHECK_EQ_U(adv.pid, 12345);
	CHECK(adv.cookie[0] == 0 && adv.cookie[15] == 15);
	CHECK(ipc_decode_advertise(m, sizeof m - 1, &adv) < 0); /* short */
	m[7] = '!';
	CHECK(ipc_decode_advertise(m, sizeof m, &adv) < 0); /* "ADVR_V1" without its NUL */
}

static void test_stat(void)
{
	uint64_t t = 0;
	/* comm "a) (b c" with spaces and parentheses: fields after the last ')' */
	const char *s = "4242 (a) (b c) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 987654321 19 20\n";
	CHECK(ipc_parse_stat_starttime(s, strlen(s), &t) == 0);
	CHECK_EQ_U(t, 987654321);
	s = "7 () (x) ) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 55 0\n";
	CHECK(ipc_parse_stat_starttime(s, strlen(s), &t) == 0);
	CHECK_EQ_U(t, 55);
	s = "7 (x S 1 2 3";
	CHECK(ipc_parse_stat_starttime(s, strlen(s), &t) < 0);
	s = "7 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18";
	CHECK(ipc_parse_stat_starttime(s, strlen(s), &t) < 0);
	s = "7 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 12a 5";
	CHECK(ipc_parse_stat_starttime(s, strlen(s), &t) < 0);

	/* our own, against a naive parse (our comm has no spaces) */
	size_t len;
	char *self = proc_read(getpid(), "stat", &len);
	CHECK(self != NULL);
	if (self) {
		unsigned long long want = 0;
		CHECK(sscanf(self, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
				   "%*d %*d %llu",
			     &want) == 1);
		CHECK(ipc_parse_stat_starttime(self, len, &t) == 0);
		CHECK_EQ_U(t, want);
		free(self);
	}
}

static void test_proc_helpers(void)
{
	static const char env[] = "A=1\0TMPDIR=/var/tmp\0COMPlus_EnableDiagnostics=0\0DOTNET_EnableDiagnostics=1\0"
				  "COMPlus_EnableDiagnostics_IPC=00\0X=";
	size_t len = sizeof env; /* ends in a NUL, like /proc/PID/environ */
	CHECK(proc_env_get(env, len, "TMPDIR") && strcmp(proc_env_get(env, len, "TMPDIR"), "/var/tmp") == 0);
	CHECK(proc_env_get(env, len, "TMP") == NULL);
	CHECK(proc_env_get(env, len, "X") && *proc_env_get(env, len, "X") == 0);
	const char *v;
	const char *var = proc_clr_config(env, len, "EnableDiagnostics", &v);
	CHECK(var && strcmp(var, "DOTNET_EnableDiagnostics") == 0 && strcmp(v, "1") == 0); /* DOTNET_ wins */
	char buf[128];
	CHECK(proc_diagnostics_off(env, len, false, buf, sizeof buf) != NULL);
	CHECK_STR(buf, "COMPlus_EnableDiagnostics_IPC=00");
	CHECK(proc_diagnostics_off(env, len, true, buf, sizeof buf) == NULL);
	static const char env2[] = "DOTNET_EnableDiagnostics_Profiler=0\0";
	CHECK(proc_diagnostics_off(env2, sizeof env2, true, buf, sizeof buf) != NULL);
	CHECK(proc_diagnostics_off(env2, sizeof env2, false, buf, sizeof buf) == NULL);

	const char *maps =
		"5590-55a0 r--p 00000000 08:01 123 /usr/bin/dotnet\n"
		"7f00-7f10 r-xp 00000000 08:01 456 /usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so\n"
		"7f20-7f30 r-xp 00000000 08:01 789 /opt/x/lib/clrscope/libclrscope-agent-0.1.0.so (deleted)\n"
		"7f40-7f50 rw-p 00000000 00:00 0 \n"
		"7ffc-7ffd rw-p 00000000 00:00 0                          [stack]\n";
	char path[256], ver[64];
	CHECK(proc_maps_file(maps, "libcoreclr.so", NULL, path, sizeof path));
	CHECK_STR(path, "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so");
	CHECK(proc_maps_file(maps, "libclrscope-agent-", ".so", path, sizeof path));
	CHECK_STR(path, "/opt/x/lib/clrscope/libclrscope-agent-0.1.0.so");
	CHECK(!proc_maps_file(maps, "libclrjit.so", NULL, NULL, 0));
	CHECK(!proc_maps_file(maps, "stack", NULL, NULL, 0));
	CHECK(proc_maps_runtime_version(maps, ver, sizeof ver));
	CHECK_STR(ver, "10.0.12");
	CHECK(!proc_maps_runtime_version("1-2 r-xp 0 0:0 1 /app/libcoreclr.so\n", ver, sizeof ver));
	CHECK(!proc_maps_runtime_version("1-2 r-xp 0 0:0 1 /app/publish/libcoreclr.so\n", ver, sizeof ver));
}

/* ---- a fake runtime: answers one connection with a script ---- */

enum fake_mode { FAKE_REPLY, FAKE_DRIP, FAKE_SILENT, FAKE_CLOSE, FAKE_HALF };

/* *req_fd (when asked for) later yields the request the server read. */
static pid_t fake_server(const char *path, enum fake_mode mode, const uint8_t *reply, size_t n, int *req_fd)
{
	char err[256];
	int lfd = ipc_port_listen(path, err, sizeof err); /* any listening Unix socket will do */
	CHECK(lfd >= 0);
	int pipefd[2];
	CHECK(pipe(pipefd) == 0);
	pid_t child = fork();
	if (child == 0) {
		close(pipefd[0]);
		signal(SIGPIPE, SIG_IGN); /* the parent may not want the request */
		struct pollfd pfd = {lfd, POLLIN, 0};
		poll(&pfd, 1, 5000);
		int fd = accept(lfd, NULL, NULL);
		uint8_t req[64] = {0};
		ssize_t r = read(fd, req, sizeof req);
		if (write(pipefd[1], req, r > 0 ? (size_t)r : 0) < 0) {
			/* nobody asked */
		}
		struct timespec ms = {0, 2 * 1000000};
		switch (mode) {
		case FAKE_REPLY:
			if (write(fd, reply, n) < 0)
				_exit(3);
			break;
		case FAKE_DRIP: /* short reads, one byte at a time */
			for (size_t i = 0; i < n; i++) {
				if (write(fd, reply + i, 1) < 0)
					_exit(3);
				nanosleep(&ms, NULL);
			}
			break;
		case FAKE_SILENT:
			sleep(3);
			break;
		case FAKE_CLOSE:
			break;
		case FAKE_HALF:
			if (write(fd, reply, n / 2) < 0)
				_exit(3);
			break;
		}
		close(fd);
		_exit(0);
	}
	close(lfd);
	close(pipefd[1]);
	if (req_fd)
		*req_fd = pipefd[0];
	else
		close(pipefd[0]);
	return child;
}

static void reap(pid_t child)
{
	int status = 0;
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	if (getenv("DEBUG_REAP"))
		fprintf(stderr, "child status %d sig %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static void test_socket_exchange(void)
{
	char *dir = make_temp_dir();
	char path[256], err[512];
	snprintf(path, sizeof path, "%s/rt.sock", dir);
	uint8_t reply[32], req[20];
	static const uint8_t zero[4] = {0, 0, 0, 0};
	static const uint8_t not_yet[4] = {0x5B, 0x13, 0x13, 0x80};
	ipc_set_timeout(1000);

	size_t n = make_reply(reply, 0x00, zero, 4);
	pid_t c = fake_server(path, FAKE_REPLY, reply, n, NULL);
	CHECK(ipc_resume_runtime(path, getpid(), err, sizeof err) == 0);
	reap(c);

	n = make_reply(reply, 0x00, zero, 4);
	c = fake_server(path, FAKE_DRIP, reply, n, NULL);
	int rc = ipc_resume_runtime(path, getpid(), err, sizeof err);
	CHECK(rc == 0);
	if (rc)
		fprintf(stderr, "drip: %s\n", err);
	reap(c);

	n = make_reply(reply, 0xFF, not_yet, 4);
	int req_fd;
	c = fake_server(path, FAKE_REPLY, reply, n, &req_fd);
	rc = ipc_resume_runtime(path, getpid(), err, sizeof err);
	CHECK(read(req_fd, req, sizeof req) == sizeof req);
	close(req_fd);
	CHECK((uint32_t)rc == 0x8013135Bu);
	CHECK(strstr(err, "not running managed code yet") != NULL);
	/* and what it sent was ResumeRuntime */
	CHECK(memcmp(req, magic, 14) == 0 && req[14] == 20 && req[16] == 0x04 && req[17] == 0x01);
	reap(c);

	c = fake_server(path, FAKE_SILENT, NULL, 0, NULL);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = ipc_resume_runtime(path, getpid(), err, sizeof err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(rc == IPC_ERR_TIMEOUT);
	CHECK(strstr(err, "did not answer") != NULL);
	CHECK(took > 0.8 && took < 2.5);
	reap(c);

	c = fake_server(path, FAKE_CLOSE, NULL, 0, NULL);
	CHECK(ipc_resume_runtime(path, getpid(), err, sizeof err) == IPC_ERR_PROTOCOL);
	CHECK(strstr(err, "without answering") != NULL);
	reap(c);

	n = make_reply(reply, 0x00, zero, 4);
	c = fake_server(path, FAKE_HALF, reply, n, NULL);
	CHECK(ipc_resume_runtime(path, getpid(), err, sizeof err) == IPC_ERR_PROTOCOL);
	reap(c);

	/* a stale socket: nobody listens */
	int lfd = ipc_port_listen(path, err, sizeof err);
	close(lfd);
	CHECK(ipc_resume_runtime(path, getpid(), err, sizeof err) == IPC_ERR_CONNECT);
	CHECK(strstr(err, "nothing listens") != NULL);
	unlink(path);
	CHECK(ipc_resume_runtime(path, getpid(), err, sizeof err) == IPC_ERR_NO_SOCKET);

	/* a path longer than sun_path is reached through /proc/self/fd */
	char deep[512];
	snprintf(deep, sizeof deep, "%s/%0100d", dir, 7);
	CHECK(mkdir(deep, 0700) == 0);
	char longpath[640];
	snprintf(longpath, sizeof longpath, "%s/rt.sock", deep);
	CHECK(chdir(deep) == 0); /* bind needs a short name: bind relative */
	n = make_reply(reply, 0x00, zero, 4);
	c = fake_server("rt.sock", FAKE_REPLY, reply, n, NULL);
	CHECK(chdir("/") == 0);
	rc = ipc_resume_runtime(longpath, getpid(), err, sizeof err);
	CHECK(rc == 0);
	if (rc)
		fprintf(stderr, "long path: %s\n", err);
	reap(c);
	ipc_set_timeout(0);
	remove_tree(dir);
}

/* A runtime dialling our diagnostic port: advertise, then ResumeRuntime. */
static void test_connect_port(void)
{
	char *dir = make_temp_dir();
	char path[256], err[512];
	snprintf(path, sizeof path, "%s/port.sock", dir);
	int lfd = ipc_port_listen(path, err, sizeof err);
	CHECK(lfd >= 0);
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	pid_t child = fork();
	if (child == 0) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		size_t pl = strlen(path);
		if (pl >= sizeof sa.sun_path)
			_exit(2);
		memcpy(sa.sun_path, path, pl + 1);
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
			_exit(2);
		uint8_t adv[34] = {'A', 'D', 'V', 'R', '_', 'V', '1', 0};
		for (int i = 0; i < 16; i++)
			adv[8 + i] = (uint8_t)i;
		adv[24] = 0x39; /* pid 12345 */
		adv[25] = 0x30;
		if (write(fd, adv, sizeof adv) != sizeof adv)
			_exit(3);
		uint8_t req[20];
		if (read(fd, req, sizeof req) != 20 || req[16] != 0x04 || req[17] != 0x01)
			_exit(4);
		uint8_t ok[24];
		static const uint8_t zero[4] = {0, 0, 0, 0};
		make_reply(ok, 0x00, zero, 4);
		if (write(fd, ok, sizeof ok) != sizeof ok)
			_exit(5);
		_exit(0);
	}
	struct ipc_advertise adv;
	int fd = ipc_port_accept(lfd, 3000, &adv, err, sizeof err);
	CHECK(fd >= 0);
	CHECK_EQ_U(adv.pid, 12345);
	CHECK(adv.cookie[15] == 15);
	CHECK(ipc_resume_runtime_fd(fd, err, sizeof err) == 0);
	int status = -1;
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* nobody dials: a timeout */
	CHECK(ipc_port_accept(lfd, 200, &adv, err, sizeof err) == IPC_ERR_TIMEOUT);
	close(lfd);
	/* a file that is not a socket is left alone */
	snprintf(path, sizeof path, "%s/plain", dir);
	write_file(path, "x", 1);
	CHECK(ipc_port_listen(path, err, sizeof err) == IPC_ERR_ARGS);
	remove_tree(dir);
}

/* A listener that is not the target: the socket of the right name is
 * served by a child of ours, so it is refused before anything is sent. */
static void test_peer_check(void)
{
	char *dir = make_temp_dir();
	char path[256], err[512];
	snprintf(path, sizeof path, "%s/rt.sock", dir);
	int ready[2];
	CHECK(pipe(ready) == 0);
	pid_t child = fork();
	if (child == 0) {
		int lfd = ipc_port_listen(path, err, sizeof err);
		char c = lfd >= 0 ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		struct pollfd pfd = {lfd, POLLIN, 0};
		poll(&pfd, 1, 5000);
		int fd = accept(lfd, NULL, NULL);
		uint8_t req[20];
		/* exit 0 only if nothing came before the client hung up */
		_exit(fd >= 0 && read(fd, req, sizeof req) == 0 ? 0 : 1);
	}
	char c = 0;
	CHECK(read(ready[0], &c, 1) == 1 && c == 'y');
	close(ready[0]);
	close(ready[1]);
	ipc_set_timeout(1000);
	int rc = ipc_resume_runtime(path, getpid(), err, sizeof err);
	CHECK(rc == IPC_ERR_CONNECT);
	char want[64];
	snprintf(want, sizeof want, "served by process %d of uid", (int)child);
	CHECK(strstr(err, want) && strstr(err, "does not trust it"));
	int status = -1;
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ipc_set_timeout(0);
	remove_tree(dir);
}

/* As root: a socket of our pid's name owned by another user is never
 * used, even as the only one. */
static void test_foreign_socket(void)
{
	if (geteuid() != 0) {
		SKIP_PART("a socket of our pid's name owned by another user: needs root (chown)");
		return;
	}
	char path[256], found[512], err[1024];
	snprintf(path, sizeof path, "/tmp/dotnet-diagnostic-%d-1-socket", (int)getpid());
	int lfd = ipc_port_listen(path, err, sizeof err);
	CHECK(lfd >= 0 && chown(path, 65534, 65534) == 0);
	CHECK(ipc_find_socket(getpid(), found, sizeof found, err, sizeof err) == IPC_ERR_NOT_DOTNET);
	CHECK(strstr(err, "1 socket of that name owned by another user ignored") != NULL);
	/* ours again: found */
	CHECK(chown(path, 0, 0) == 0);
	CHECK(ipc_find_socket(getpid(), found, sizeof found, err, sizeof err) == 0);
	CHECK_STR(found, path);
	close(lfd);
	unlink(path);
}

static void test_find_errors(void)
{
	char path[512], err[1024];
	/* pid_max is at most 4194304 */
	CHECK(ipc_find_socket(4194305 + 7, path, sizeof path, err, sizeof err) == IPC_ERR_NO_PROCESS);
	CHECK(strstr(err, "no process") != NULL);
	CHECK(ipc_find_socket(0, path, sizeof path, err, sizeof err) == IPC_ERR_ARGS);
	/* we are not .NET */
	CHECK(ipc_find_socket(getpid(), path, sizeof path, err, sizeof err) == IPC_ERR_NOT_DOTNET);
	CHECK(strstr(err, "not a .NET program") != NULL);
	struct ipc_process_info pi;
	CHECK(ipc_process_info(getpid(), 0, &pi, err, sizeof err) == IPC_ERR_NOT_DOTNET);
	uint8_t clsid[16] = {0};
	CHECK(ipc_attach_profiler(getpid(), 1000, clsid, "/x.so", NULL, 0, err, sizeof err) == IPC_ERR_NOT_DOTNET);
}

/* ipc_process_info against a fake runtime that has taken our own pid's
 * socket name: it answers ProcessInfo2 with "unknown command" (as .NET 5
 * does) and the retry, ProcessInfo, with a v1 payload. */
static void test_process_info_fallback(void)
{
	size_t len;
	char *env = proc_read(getpid(), "environ", &len);
	const char *tmp = env ? proc_env_get(env, len, "TMPDIR") : NULL;
	char dir[256], path[512], found[512], err[512];
	snprintf(dir, sizeof dir, "%s", tmp && tmp[0] == '/' ? tmp : "/tmp");
	free(env);
	char *stat_line = proc_read(getpid(), "stat", &len);
	uint64_t start = 0;
	CHECK(stat_line && ipc_parse_stat_starttime(stat_line, len, &start) == 0);
	free(stat_line);
	snprintf(path, sizeof path, "%s/dotnet-diagnostic-%d-%llu-socket", dir, (int)getpid(), (unsigned long long)start);
	int lfd = ipc_port_listen(path, err, sizeof err);
	CHECK(lfd >= 0);
	if (lfd < 0)
		return;
	CHECK(ipc_find_socket(getpid(), found, sizeof found, err, sizeof err) == 0);
	CHECK_STR(found, path);
	pid_t child = fork();
	if (child == 0) {
		uint8_t reply[512], payload[512];
		static const uint8_t unknown[4] = {0x85, 0x13, 0x13, 0x80};
		for (int i = 0; i < 2; i++) {
			struct pollfd pfd = {lfd, POLLIN, 0};
			poll(&pfd, 1, 5000);
			int fd = accept(lfd, NULL, NULL);
			uint8_t req[20];
			if (fd < 0 || read(fd, req, sizeof req) != 20 || req[16] != 0x04 || req[17] != (i ? 0x00 : 0x04))
				_exit(2);
			size_t n = i ? make_reply(reply, 0x00, payload, make_process_info(payload, false))
				     : make_reply(reply, 0xFF, unknown, 4);
			if (write(fd, reply, n) != (ssize_t)n)
				_exit(3);
			close(fd);
		}
		_exit(0);
	}
	close(lfd);
	ipc_set_timeout(3000);
	struct ipc_process_info pi;
	int rc = ipc_process_info(getpid(), 0, &pi, err, sizeof err);
	CHECK(rc == 0);
	if (rc)
		fprintf(stderr, "fallback: %s\n", err);
	CHECK(pi.version == 1 && pi.pid == 1234 && pi.clr_version == NULL);
	CHECK(pi.os && strcmp(pi.os, "Linux") == 0);
	ipc_process_info_free(&pi);
	int status = -1;
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the socket is still there but nobody listens: a stale one */
	CHECK(ipc_process_info(getpid(), 0, &pi, err, sizeof err) == IPC_ERR_CONNECT);

	/* AttachProfiler refused with what a profiler's InitializeForAttach said */
	static const uint8_t invalidarg[4] = {0x57, 0x00, 0x07, 0x80};
	uint8_t reply[32];
	int req_fd;
	pid_t c = fake_server(path, FAKE_REPLY, reply, make_reply(reply, 0xFF, invalidarg, 4), &req_fd);
	uint8_t clsid[16] = {0};
	rc = ipc_attach_profiler(getpid(), 1000, clsid, "/p.so", NULL, 0, err, sizeof err);
	uint8_t req[20];
	CHECK(read(req_fd, req, sizeof req) == sizeof req && req[16] == 0x03 && req[17] == 0x01);
	close(req_fd);
	CHECK((uint32_t)rc == 0x80070057u);
	CHECK(strstr(err, "did not load the profiler /p.so") && strstr(err, "E_INVALIDARG") &&
	      strstr(err, "InitializeForAttach"));
	reap(c);
	unlink(path);
	ipc_set_timeout(0);
}

/* ---- driving real processes (tests/e2e/ipc.sh) ---- */

static int live(int argc, char **argv)
{
	char err[2048];
	if (argc == 4 && strcmp(argv[1], "attach") == 0) {
		uint8_t clsid[16];
		ipc_guid_parse("{BC8604E2-7E73-4C7E-B410-5D3E412990D8}", clsid);
		int rc = ipc_attach_profiler(atoi(argv[2]), 2000, clsid, argv[3], "hi", 2, err, sizeof err);
		printf("rc=%d hr=0x%08X\n%s\n", rc, (unsigned)rc, rc ? err : "attached");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "info") == 0) {
		struct ipc_process_info pi;
		int rc = ipc_process_info(atoi(argv[2]), 0, &pi, err, sizeof err);
		printf("rc=%d version=%d pid=%llu clr=%s entry=%s\n%s\n", rc, pi.version, (unsigned long long)pi.pid,
		       pi.clr_version ? pi.clr_version : "-", pi.entrypoint_assembly ? pi.entrypoint_assembly : "-",
		       rc ? err : "ok");
		ipc_process_info_free(&pi);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "resume") == 0) {
		char path[4096];
		int rc = ipc_find_socket(atoi(argv[2]), path, sizeof path, err, sizeof err);
		if (rc == 0)
			rc = ipc_resume_runtime(path, atoi(argv[2]), err, sizeof err);
		printf("rc=%d\n%s\n", rc, rc ? err : "resumed");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "port") == 0) {
		int lfd = ipc_port_listen(argv[2], err, sizeof err);
		if (lfd < 0) {
			printf("rc=%d\n%s\n", lfd, err);
			return 1;
		}
		printf("listening\n");
		fflush(stdout);
		struct ipc_advertise adv;
		int fd = ipc_port_accept(lfd, 20000, &adv, err, sizeof err);
		if (fd < 0) {
			printf("rc=%d\n%s\n", fd, err);
			return 1;
		}
		printf("advertised pid %llu\n", (unsigned long long)adv.pid);
		int rc = ipc_resume_runtime_fd(fd, err, sizeof err);
		printf("rc=%d\n%s\n", rc, rc ? err : "resumed");
		fflush(stdout);
		/* the runtime dials again after each command: keep the port open a
		 * moment, then let it retry against nothing */
		sleep(1);
		close(lfd);
		unlink(argv[2]);
		return 0;
	}
	fprintf(stderr, "usage: test_ipc [attach PID PATH | info PID | resume PID | port PATH]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return live(argc, argv);
	RUN(test_header);
	RUN(test_attach_bytes);
	RUN(test_strings);
	RUN(test_replies);
	RUN(test_process_info);
	RUN(test_guid);
	RUN(test_advertise);
	RUN(test_stat);
	RUN(test_proc_helpers);
	RUN(test_socket_exchange);
	RUN(test_connect_port);
	RUN(test_find_errors);
	RUN(test_peer_check);
	RUN(test_foreign_socket);
	RUN(test_process_info_fallback);
	return CHECK_DONE();
}
