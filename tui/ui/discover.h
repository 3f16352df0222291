/* Finding the .NET processes on a thread of its own, for the terminal UI:
 * procs_list talks to every runtime it finds, and a runtime (or a socket
 * pretending to be one) may take its time; the screen must not wait. */
#ifndef CLRSCOPE_DISCOVER_H
#define CLRSCOPE_DISCOVER_H

#include <stddef.h>

#include "live/procs.h"

struct discovery;

/* Starts the thread (it lists once at once); NULL and err if it cannot. */
struct discovery *discover_start(char *err, size_t errlen);
/* Asks for a fresh list; a request during a listing makes one more after it. */
void discover_request(struct discovery *d);
/* Readable when a new list is waiting (poll it with the terminal). */
int discover_fd(const struct discovery *d);
/* The newest list, if one came since the last call: its count, with *out
 * the caller's to procs_free; -1 when none is new. */
long discover_take(struct discovery *d, struct dotnet_proc **out);
/* Stops the thread (waiting for a listing under way) and frees it all. */
void discover_stop(struct discovery *d);

#endif
