#include "live/agentpath.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/session.h"

static int usable(const char *path, char *out, size_t n, char *err, size_t errlen, const char *how)
{
	char real[PATH_MAX];
	if (!realpath(path, real) || access(real, R_OK) != 0) {
		snprintf(err, errlen, "the profiling agent is not at %s (%s): %s; %s", path, how, strerror(errno),
			 "reinstall clrscope, or set " CS_ENV_AGENT_PATH " to libclrscope-agent-*.so");
		return -1;
	}
	if ((size_t)snprintf(out, n, "%s", real) >= n) {
		snprintf(err, errlen, "agent path too long");
		return -1;
	}
	return 0;
}

int agent_path_find(char *out, size_t n, char *err, size_t errlen)
{
	const char *env = getenv(CS_ENV_AGENT_PATH);
	if (env && *env)
		return usable(env, out, n, err, errlen, "from " CS_ENV_AGENT_PATH);
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len <= 0) {
		snprintf(err, errlen, "cannot tell where clrscope is installed (/proc/self/exe): set %s",
			 CS_ENV_AGENT_PATH);
		return -1;
	}
	exe[len] = 0;
	char *slash = strrchr(exe, '/');
	*slash = 0;
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/../lib/clrscope/%s", exe, CLRSCOPE_AGENT_FILE);
	return usable(path, out, n, err, errlen, "beside the clrscope program");
}
