/* Sending dials to a running agent: write the dials file (under a lock, with
 * the next generation), post the agent's named semaphore, and wait for the
 * DIALS record that answers that generation.  Used by 'clrscope dial',
 * by 'record --pid' to detach, and by the live screens. */
#ifndef CLRSCOPE_DIALER_H
#define CLRSCOPE_DIALER_H

#include "profile/profile.h"

/* Writes and posts the assignments without waiting: the answer shows up
 * in p->dials later.  *generation is the one to look for. */
int dialer_post(struct prof_process *p, char *const *assignments, int n, uint64_t *generation, char *err,
		size_t errlen);

/* Sends the assignments (already validated) and waits up to timeout
 * seconds.  Returns 0 with *ack when answered, -1 with err otherwise. */
int dialer_send(struct prof_recording *s, struct prof_process *p, char *const *assignments, int n, double timeout,
		const struct prof_dials_ack **ack, char *err, size_t errlen);

/* Waits until p's log has its END record; false on timeout. */
bool dialer_wait_end(struct prof_recording *s, struct prof_process *p, double timeout);

#endif
