/* An exception's message, read from the thrown object in the
 * ExceptionThrown callback: System.Exception's _message field, a string.
 * No managed code runs, so a message the runtime would only build when
 * asked (an exception made without one) is not seen.
 * For the exception callbacks, which serve only where the runtime's event
 * stream is off (before .NET 5, or with --instrument); the stream's
 * ExceptionThrown event carries the message itself. */
#ifndef CLRSCOPE_AGENT_EXCMESSAGE_H
#define CLRSCOPE_AGENT_EXCMESSAGE_H

#include <stddef.h>

#include "agent/agent.h"

#define EXC_MESSAGE_MAX 256 /* bytes kept of a message, its NUL included */

/* At most cap-1 bytes of UTF-8, control characters replaced by spaces;
 * "" when there is none or it cannot be read.  Returns the length. */
size_t exc_message(ObjectID thrown, ClassID cls, char *out, size_t cap) AGENT_HIDDEN;

#endif
