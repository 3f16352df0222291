#include "namedevent.h"

#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void cs_namedevent_name(char *out, size_t n, pid_t pid, uint32_t nonce)
{
	snprintf(out, n, "/clrscope.%u.%d.%08x", (unsigned)geteuid(), (int)pid, nonce);
}

int cs_namedevent_post(const char *name, char *err, size_t errlen)
{
	if (name[0] != '/' || strchr(name + 1, '/')) {
		snprintf(err, errlen, "'%s' is not a semaphore name", name);
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
