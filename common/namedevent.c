#include "common/namedevent.h"

#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

void cs_namedevent_name(char *out, size_t n, pid_t pid, uint32_t nonce)
{
	snprintf(out, n, "/clrscope.%u.%d.%08x", (unsigned)geteuid(), (int)pid, nonce);
}

/* Where glibc keeps named semaphores. */
#define SEM_DIR "/dev/shm"
#define SEM_PREFIX "sem."

int cs_namedevent_post(const char *name, char *err, size_t errlen)
{
	if (name[0] != '/' || strchr(name + 1, '/')) {
		snprintf(err, errlen, "'%s' is not a semaphore name", name);
		return -1;
	}
	char path[128];
	struct stat st;
	snprintf(path, sizeof path, SEM_DIR "/" SEM_PREFIX "%s", name + 1);
	if (lstat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))) {
		snprintf(err, errlen,
			 "the control semaphore %s is not the agent's (%s, owner uid %u, mode %03o): someone made it "
			 "again after it was removed; not posting it",
			 path, S_ISREG(st.st_mode) ? "a file" : "not a file", (unsigned)st.st_uid,
			 (unsigned)(st.st_mode & 0777));
		return -1;
	}
	sem_t *sem = sem_open(name, 0);
	if (sem == SEM_FAILED) {
		if (errno == ENOENT)
			snprintf(err, errlen,
				 "the agent's control semaphore %s is gone: the process has ended or detached "
				 "(or someone removed /dev/shm/sem.%s)",
				 name, name + 1);
		else
			snprintf(err, errlen, "cannot open the agent's control semaphore %s: %s", name, strerror(errno));
		return -1;
	}
	int rc = sem_post(sem);
	int e = errno;
	sem_close(sem);
	if (rc != 0) {
		snprintf(err, errlen, "cannot post the agent's control semaphore %s: %s", name, strerror(e));
		return -1;
	}
	return 0;
}

int cs_namedevent_sweep(void)
{
	DIR *d = opendir(SEM_DIR);
	if (!d)
		return 0;
	char mine[64];
	int ml = snprintf(mine, sizeof mine, SEM_PREFIX "clrscope.%u.", (unsigned)geteuid());
	int removed = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, mine, (size_t)ml) != 0)
			continue;
		char *end;
		long pid = strtol(e->d_name + ml, &end, 10);
		struct stat st;
		if (end == e->d_name + ml || *end != '.' || pid <= 0 ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* alive (or a reused pid: left alone) */
		char name[NAME_MAX + 2];
		snprintf(name, sizeof name, "/%s", e->d_name + strlen(SEM_PREFIX));
		if (sem_unlink(name) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}
