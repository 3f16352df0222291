/* The agent's control semaphore as clrscope sees it: posted only when it
 * is the user's own and private; leftovers of dead processes swept. */
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "common/namedevent.h"

static pid_t dead_pid(void)
{
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	return child;
}

static void post_and_ownership(void)
{
	char name[CS_NAMEDEVENT_NAME_MAX], path[128], err[512];
	cs_namedevent_name(name, sizeof name, getpid(), 0x1234abcd);
	snprintf(path, sizeof path, "/dev/shm/sem.%s", name + 1);
	sem_unlink(name);
	sem_t *sem = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
	CHECK(sem != SEM_FAILED);
	CHECK(cs_namedevent_post(name, err, sizeof err) == 0);
	CHECK(sem_trywait(sem) == 0);
	CHECK(chmod(path, 0666) == 0); /* as another user's sem_open(O_CREAT, 0666) would leave it */
	CHECK(cs_namedevent_post(name, err, sizeof err) == -1);
	CHECK(strstr(err, "is not the agent's") && strstr(err, "mode 666"));
	CHECK(chmod(path, 0600) == 0);
	if (geteuid() == 0) {
		CHECK(chown(path, 65534, 65534) == 0);
		CHECK(cs_namedevent_post(name, err, sizeof err) == -1);
		CHECK(strstr(err, "owner uid 65534") != NULL);
		CHECK(chown(path, 0, 0) == 0);
	} else {
		SKIP_PART("a semaphore of another user: needs root (chown)");
	}
	CHECK(sem_trywait(sem) == -1 && errno == EAGAIN); /* nothing was posted meanwhile */
	sem_close(sem);
	sem_unlink(name);
	CHECK(cs_namedevent_post(name, err, sizeof err) == -1);
	CHECK(strstr(err, "is gone") != NULL);
}

static void sweep(void)
{
	char gone[CS_NAMEDEVENT_NAME_MAX], alive[CS_NAMEDEVENT_NAME_MAX];
	cs_namedevent_name(gone, sizeof gone, dead_pid(), 1);
	cs_namedevent_name(alive, sizeof alive, getpid(), 2);
	sem_t *a = sem_open(gone, O_CREAT, 0600, 0), *b = sem_open(alive, O_CREAT, 0600, 0);
	CHECK(a != SEM_FAILED && b != SEM_FAILED);
	sem_close(a);
	sem_close(b);
	CHECK(cs_namedevent_sweep() >= 1);
	CHECK(sem_open(gone, 0) == SEM_FAILED && errno == ENOENT);
	sem_t *still = sem_open(alive, 0);
	CHECK(still != SEM_FAILED);
	if (still != SEM_FAILED)
		sem_close(still);
	sem_unlink(alive);
}

int main(void)
{
	RUN(post_and_ownership);
	RUN(sweep);
	return CHECK_DONE();
}
