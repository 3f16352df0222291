#include "common/labels.h"

#include <stdio.h>
#include <string.h>

#include "common/records.h"

static const char *const labels[CS_LABELS] = {
	[CS_LABEL_NATIVE] = "[native]",
	[CS_LABEL_TRUNCATED] = "[truncated]",
	[CS_LABEL_STUB] = "[runtime stub]",
	[CS_LABEL_JIT] = "[JIT compilation]",
	[CS_LABEL_TYPE_LOAD] = "[type loading]",
	[CS_LABEL_GC] = "[GC]",
	[CS_LABEL_THREAD_START] = "[thread start]",
	[CS_LABEL_CLRSCOPE] = "[clrscope]",
	[CS_LABEL_UNKNOWN] = "[unknown]",
	[CS_LABEL_AWAIT] = "[await]",
	[CS_LABEL_AWAIT_UNRESOLVED] = "[await ?]",
	[CS_LABEL_WHEN_ALL] = "[WhenAll]",
	[CS_LABEL_BLOCKING_WAIT] = "[blocking wait]",
};

const char *cs_label(enum cs_label label)
{
	return (unsigned)label < CS_LABELS ? labels[label] : labels[CS_LABEL_UNKNOWN];
}

enum cs_label cs_pseudo_frame_label(uint64_t frame_id)
{
	switch (frame_id) {
	case CS_FRAME_NATIVE: return CS_LABEL_NATIVE;
	case CS_FRAME_STUB: return CS_LABEL_STUB;
	case CS_FRAME_JIT: return CS_LABEL_JIT;
	case CS_FRAME_TYPE_LOAD: return CS_LABEL_TYPE_LOAD;
	case CS_FRAME_GC: return CS_LABEL_GC;
	case CS_FRAME_THREAD_START: return CS_LABEL_THREAD_START;
	case CS_FRAME_AWAIT: return CS_LABEL_AWAIT;
	case CS_FRAME_AWAIT_UNRESOLVED: return CS_LABEL_AWAIT_UNRESOLVED;
	case CS_FRAME_WHEN_ALL: return CS_LABEL_WHEN_ALL;
	case CS_FRAME_BLOCKING_WAIT: return CS_LABEL_BLOCKING_WAIT;
	default: return CS_LABEL_TRUNCATED;
	}
}

void cs_label_module(const char *module, char *out, size_t outlen)
{
	const char *slash = strrchr(module, '/');
	snprintf(out, outlen, "[%s]", slash ? slash + 1 : module);
}

enum cs_label cs_module_label(const char *module)
{
	const char *slash = strrchr(module, '/');
	const char *file = slash ? slash + 1 : module;
	size_t n = strlen(file);
	if (!strcmp(file, "libclrjit.so"))
		return CS_LABEL_JIT;
	if (!strncmp(file, "libclrscope-agent-", 18) && n > 21 && !strcmp(file + n - 3, ".so"))
		return CS_LABEL_CLRSCOPE;
	return CS_LABELS;
}

void cs_label_stub(const char *kind, char *out, size_t outlen)
{
	snprintf(out, outlen, "[stub: %s]", kind);
}

void cs_label_awaiting(const char *type, char *out, size_t outlen)
{
	snprintf(out, outlen, "[awaiting %s]", type);
}
