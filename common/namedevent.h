/* The named event of a profiled process: a POSIX named semaphore (mode
 * 0600) that the agent creates and waits on, and that clrscope posts after
 * writing new dials.  Its name is unique to the process and the session:
 * "/clrscope.UID.PID.NONCE". */
#ifndef CLRSCOPE_NAMEDEVENT_H
#define CLRSCOPE_NAMEDEVENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CS_NAMEDEVENT_NAME_MAX 64

void cs_namedevent_name(char *out, size_t n, pid_t pid, uint32_t nonce);
/* Posts the semaphore once; -1 with err when it is gone, or when it is not
 * the agent's: a removed name can be made again by anyone, so the file
 * behind it must be ours and private (checked just before the post). */
int cs_namedevent_post(const char *name, char *err, size_t errlen);
/* Removes this user's semaphores of processes that no longer exist (an
 * agent killed before it could remove its own); returns how many. */
int cs_namedevent_sweep(void);

#endif
