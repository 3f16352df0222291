#include "agent/events/excmessage.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "agent/symbols/symbols.h"
#include "common/utf16.h"

#define UNITS_MAX 256  /* UTF-16 units of a message looked at */
#define DEPTH_MAX 32   /* classes between a thrown one and System.Exception */

/* Where _message sits in an exception object: found once, from the first
 * thrown class's ancestry; 0 not looked for yet, UINT32_MAX not found. */
static _Atomic uint32_t message_offset;
static ULONG string_length_offset, string_buffer_offset;
static pthread_mutex_t find_mu = PTHREAD_MUTEX_INITIALIZER;

static bool field_offset_in(ClassID cls, uint32_t *offset)
{
	ICorProfilerInfo10 *info = g_agent.info;
	ModuleID mod = 0;
	mdTypeDef td = 0;
	ClassID parent = 0;
	return SUCCEEDED(info->vtbl->GetClassIDInfo2(info, cls, &mod, &td, &parent, 0, NULL, NULL)) &&
	       sym_field_offset(cls, mod, td, u"_message", offset);
}

/* Walks up from cls to the class that declares _message. */
static uint32_t find_offset(ClassID cls)
{
	pthread_mutex_lock(&find_mu);
	uint32_t found = atomic_load(&message_offset);
	ICorProfilerInfo10 *info = g_agent.info;
	for (int depth = 0; !found && cls && depth < DEPTH_MAX; depth++) {
		uint32_t offset = 0;
		if (field_offset_in(cls, &offset) &&
		    SUCCEEDED(info->vtbl->GetStringLayout2(info, &string_length_offset, &string_buffer_offset)))
			found = offset;
		ClassID parent = 0;
		ModuleID mod = 0;
		mdTypeDef td = 0;
		if (found || FAILED(info->vtbl->GetClassIDInfo2(info, cls, &mod, &td, &parent, 0, NULL, NULL)))
			break;
		cls = parent;
	}
	if (!found)
		found = UINT32_MAX;
	atomic_store(&message_offset, found);
	pthread_mutex_unlock(&find_mu);
	return found;
}

size_t exc_message(ObjectID thrown, ClassID cls, char *out, size_t cap)
{
	out[0] = 0;
	uint32_t offset = atomic_load(&message_offset);
	if (!offset)
		offset = find_offset(cls);
	if (offset == UINT32_MAX || !thrown)
		return 0;
	/* the callback holds the object still: its fields can be read */
	ObjectID str = 0;
	memcpy(&str, (const void *)(thrown + offset), sizeof str);
	if (!str)
		return 0;
	int32_t len = 0;
	memcpy(&len, (const void *)(str + string_length_offset), sizeof len);
	if (len <= 0)
		return 0;
	uint16_t units[UNITS_MAX];
	size_t n = (size_t)len < UNITS_MAX ? (size_t)len : UNITS_MAX;
	memcpy(units, (const void *)(str + string_buffer_offset), n * sizeof *units);
	size_t bytes = cs_utf16_to_utf8(units, n, out, cap);
	for (size_t i = 0; i < bytes; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = ' ';
	return bytes;
}
