/* The control thread: waits on the process's named semaphore, applies the
 * dials file when it is posted, answers with a DIALS record, and watches
 * for its session vanishing.  It also runs the detach sequence, since a
 * detach must not come from a runtime thread. */
#ifndef CLRSCOPE_AGENT_CONTROL_H
#define CLRSCOPE_AGENT_CONTROL_H

#include "agent/agent.h"
#include "common/dials.h"

/* Creates the semaphore (its name goes to g_agent.control_name) and writes
 * the initial dials file. */
int control_prepare(const struct cs_dials *initial) AGENT_HIDDEN;
/* Starts the thread; on failure the semaphore and directory are released. */
int control_start(void) AGENT_HIDDEN;
/* Releases what control_prepare made, for a start given up before
 * control_start. */
void control_abandon(void) AGENT_HIDDEN;
/* Stops the thread (bounded wait); it removes the semaphore as it leaves.
 * Safe to call twice, and from the control thread itself (no-op). */
void control_stop(void) AGENT_HIDDEN;
/* 0 once no control thread is left (waiting up to ms), else -1: a new
 * session must not start before, or the old thread would close its
 * semaphore and directory. */
int control_wait_idle(int ms) AGENT_HIDDEN;

/* Applies dials now (also used for the initial state); fills the
 * acknowledgement's status and text.  Returns the status. */
int control_apply(const struct cs_dials *want, char *error, size_t errlen) AGENT_HIDDEN;

#endif
