/* The labels of frames that are no function of the program: one table, so
 * that every view and export spells each the same way (the agent names
 * its pseudo-frames from it, the reader the frames it labels).  A label
 * is a frame's whole name, in brackets; it may hold spaces (the folded
 * format takes the count after a line's last space). */
#ifndef CLRSCOPE_LABELS_H
#define CLRSCOPE_LABELS_H

#include <stddef.h>
#include <stdint.h>

enum cs_label {
	CS_LABEL_NATIVE,       /* native code no module holds, or not placed */
	CS_LABEL_TRUNCATED,    /* frames beyond the depth kept */
	CS_LABEL_STUB,         /* a leaf in code the runtime generated */
	CS_LABEL_JIT,          /* the JIT compiling the method above it, or libclrjit.so */
	CS_LABEL_TYPE_LOAD,    /* the runtime loading a type */
	CS_LABEL_GC,           /* the thread collecting garbage */
	CS_LABEL_THREAD_START, /* the native code a thread starts in, below its first managed frame */
	CS_LABEL_CLRSCOPE,     /* the profiler's own code (libclrscope-agent-*.so) */
	CS_LABEL_UNKNOWN,      /* a frame whose definition never arrived */
	CS_LABEL_AWAIT,        /* a logical stack: the async methods below await the one above */
	CS_LABEL_AWAIT_UNRESOLVED, /* a logical stack whose awaiting methods could not be known */
	CS_LABEL_WHEN_ALL,     /* the method below awaits Task.WhenAll of the one above and others */
	CS_LABEL_BLOCKING_WAIT, /* a thread waits for the async method below (Task.Wait, .Result) */
	CS_LABELS
};

/* The label's spelling, "[native]", "[JIT compilation]", ... */
const char *cs_label(enum cs_label label);

/* The label of a pseudo-frame id (below CS_FRAME_FIRST_FUNCTION, see
 * common/records.h); CS_LABEL_TRUNCATED for an id without one. */
enum cs_label cs_pseudo_frame_label(uint64_t frame_id);

/* The label of a run of native code in a module whose functions are not
 * named there, "[libcoreclr.so]", into out (the file name of module, a
 * path or a name). */
void cs_label_module(const char *module, char *out, size_t outlen);

/* The label a module's code gets whatever its function (a path or a file
 * name): the JIT's, libclrjit.so (its functions are nameless, and all of
 * it compiles), and the profiler's, libclrscope-agent-VERSION.so;
 * CS_LABELS for none. */
enum cs_label cs_module_label(const char *module);

/* The label of a runtime stub of a kind the runtime told,
 * "[stub: VSD_ResolveStub]", into out ([runtime stub] where none did). */
void cs_label_stub(const char *kind, char *out, size_t outlen);

/* The label of what an awaits chain's innermost method awaits, by the
 * awaited object's type, "[awaiting System.Threading.Tasks.Task+DelayPromise]",
 * into out. */
void cs_label_awaiting(const char *type, char *out, size_t outlen);

#endif
