/* The control thread: waits on the process's named semaphore, applies the
 * dials file when it is posted, answers with a DIALS record, and watches
 * for its session vanishing.  It also runs the detach sequence, since a
 * detach must not come from a runtime thread. */
#ifndef CLRSCOPE_AGENT_CONTROL_H
#define CLRSCOPE_AGENT_CONTROL_H

#include "agent.h"
#include "dials.h"

/* Creates the semaphore (its name goes to g_agent.control_name) and writes
 * the initial dials file. */
int control_prepare(const struct cs_dials *initial) AGENT_HIDDEN;
int control_start(void) AGENT_HIDDEN;
/* Stops the thread (bounded wait) and removes the semaphore. */
void control_stop(void) AGENT_HIDDEN;

/* Applies dials now (also used for the initial state); fills the
 * acknowledgement's status and text.  Returns the status. */
int control_apply(const struct cs_dials *want, char *error, size_t errlen) AGENT_HIDDEN;

#endif
