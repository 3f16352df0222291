/* The classes that declare the static fields behind a heap snapshot's
 * static roots.  The runtime names a static root by its field's name and
 * address only; the declaring class is the one, among the loaded modules'
 * classes with a static field of that name, whose field lives at that
 * address (GetAppDomainStaticAddress: a value type's static is a box, and
 * the address is the box's data).  Found names are kept for the next
 * snapshots (a static's address does not change).
 *
 * From a thread of the agent's own, outside the runtime's callbacks: the
 * search asks for classes by token, which may load them. */
#ifndef CLRSCOPE_AGENT_STATICNAMES_H
#define CLRSCOPE_AGENT_STATICNAMES_H

#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

#define SN_NAME_MAX 512

struct sn_static {
	uint64_t slot;     /* the field's address (the root's GCRootID) */
	uint64_t object;   /* the object it holds (a value type's: its box) */
	const char *field; /* its name */
	char type[SN_NAME_MAX]; /* out: the declaring class, "" when not found */
};

/* Fills in every type it can. */
void sn_resolve(struct sn_static *statics, size_t n) AGENT_HIDDEN;
/* Forgets the names kept (detach). */
void sn_forget(void) AGENT_HIDDEN;

#endif
