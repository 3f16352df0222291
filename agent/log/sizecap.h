/* The session's size cap (SESSION/max-size): the writer thread asks before
 * each write whether it still fits, counting its own bytes and re-reading
 * what the session's other processes wrote once a second.  Once it does
 * not fit the session is marked closed (so no later process starts
 * recording into it) and the control thread stops this agent. */
#ifndef CLRSCOPE_AGENT_SIZECAP_H
#define CLRSCOPE_AGENT_SIZECAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

/* Takes session_fd (closed by sizecap_stop); max 0: no cap. */
void sizecap_start(int session_fd, uint64_t max) AGENT_HIDDEN;
void sizecap_stop(void) AGENT_HIDDEN;
/* Writer thread: whether len more bytes fit (then counted in); when not,
 * *room is what still does.  The writer writes what fits, then refuses. */
bool sizecap_fits(size_t len, size_t *room) AGENT_HIDDEN;
/* The cap is reached: the session is marked closed, and nothing fits any more. */
void sizecap_refuse(void) AGENT_HIDDEN;
/* Whether the cap was reached (any thread). */
bool sizecap_reached(void) AGENT_HIDDEN;
uint64_t sizecap_max(void) AGENT_HIDDEN;

#endif
