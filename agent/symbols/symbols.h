/* Interning for the sampler: FunctionIDs become small frame ids with a
 * resolved name, stacks become ids in a tree keyed by (parent, frame), and
 * runtime ThreadIDs become small thread references.  Each definition is
 * written once, and again after the log writer dropped data (a new drop
 * epoch), so a reader never keeps an id it cannot name.
 *
 * Used only from the sampler thread, after the runtime was resumed, except
 * where a function says otherwise. */
#ifndef CLRSCOPE_AGENT_SYMBOLS_H
#define CLRSCOPE_AGENT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/symbols/activity.h"
#include "common/wire.h"

/* The tables (frames, stacks, class names) are bounded: one that reaches
 * the cap makes a new id space (a MESSAGE says so): the maps are emptied
 * and ids go on after the last one given, so none ever means two things. */
#define SYM_TABLE_CAP_DEFAULT (1u << 20)
#define SYM_TABLE_CAP_MIN 64u

int sym_init(void) AGENT_HIDDEN;
/* Entries a table may hold (CLRSCOPE_TABLE_CAP; at least SYM_TABLE_CAP_MIN). */
void sym_set_table_cap(uint32_t cap) AGENT_HIDDEN;
/* Called (sampler thread) as a new id space begins: the stack ids kept
 * outside these tables are of the old space.  Set before sym_init. */
void sym_set_id_space_hook(void (*hook)(void)) AGENT_HIDDEN;
/* Releases what the runtime gave us (metadata interfaces). */
void sym_fini(void) AGENT_HIDDEN;

/* Payload builders for FRAMES, CODE_PATH, FRAME_CODE, NATIVE_FRAME, STACKS
 * and STACK_IL records, filled by the calls below and emptied by
 * sym_flush_defs. */
#define SYM_DEFS_BYTES (64u << 10)
#define SYM_DEFS_PARTS 7
struct sym_defs {
	struct cs_out frames, frame_code, code_paths, native_frames;
	struct cs_out stacks, stack_il, logical;
};
/* The sampler thread's builders.  Definitions wait there until
 * sym_flush_defs, which must come before any record that uses them is
 * written (samples are staged, so their commit flushes first): one record
 * of each kind per flush instead of per tick. */
struct sym_defs *sym_defs(void) AGENT_HIDDEN;
/* Bytes waiting in them. */
size_t sym_defs_pending(void) AGENT_HIDDEN;

/* fn == 0 is a run of native frames. */
uint64_t sym_frame(FunctionID fn, struct sym_defs *d) AGENT_HIDDEN;
uint64_t sym_pseudo_frame(uint64_t frame_id, struct sym_defs *d) AGENT_HIDDEN;
/* "[awaiting TYPE]": what an awaits chain's innermost method awaits, by
 * the awaited object's type (a live object's). */
uint64_t sym_awaiting_frame(ClassID type, struct sym_defs *d) AGENT_HIDDEN;
/* il_offset: where in the frame's method (ILMAP_NONE: not known). */
uint64_t sym_stack(uint64_t parent, uint64_t frame, uint32_t il_offset, struct sym_defs *d) AGENT_HIDDEN;
/* A logical stack's boundary: an [await] frame (resolved: false, [await ?])
 * on top of parent, a stack of its own for each physical stack, so that
 * every stack above it was taken in that physical stack (sym_logical). */
uint64_t sym_splice(uint64_t parent, bool resolved, uint64_t physical, struct sym_defs *d) AGENT_HIDDEN;
/* LOGICAL: logical (a stack above a sym_splice) was taken in physical. */
void sym_logical(uint64_t logical, uint64_t physical, struct sym_defs *d) AGENT_HIDDEN;
/* Changes whenever an id may come to mean something else. */
uint32_t sym_ids_stamp(void) AGENT_HIDDEN;
/* Appends the pending definitions to the log, before any sample using them. */
void sym_flush_defs(struct sym_defs *d) AGENT_HIDDEN;

/* The stack id of a walk (FunctionIDs innermost first); a truncated walk
 * gets a [truncated] root.  addrs (optional): each frame's instruction, for
 * its IL offset; leaf_maybe_call: the walk is the runtime's, whose innermost
 * frame may be at a call's return address (see ilmap_offset).  act
 * (optional): what the runtime was doing on the thread; it stands for the
 * native run at the leaf ("Caller;Method;[JIT compilation]"), or tops a
 * runtime walk, which starts at the innermost managed frame. */
uint64_t sym_stack_of(const FunctionID *frames, const uint64_t *addrs, uint32_t n, bool truncated,
		      bool leaf_maybe_call, const struct activity *act, struct sym_defs *d) AGENT_HIDDEN;

/* frames[n - 1] .. frames[0] (innermost first) on top of stack base, as
 * sym_stack_of names them. */
uint64_t sym_stack_above(uint64_t base, const FunctionID *frames, const uint64_t *addrs, uint32_t n,
			 bool leaf_maybe_call, const struct activity *act, struct sym_defs *d) AGENT_HIDDEN;

/* A thread's last walk, root first, with the stack id of each prefix: the
 * next walk of the thread shares most of its root part (a server thread's
 * dispatch loop under each request), and those ids are taken from here
 * instead of being named and looked up again, frame by frame.  Valid while
 * nothing was forgotten or dropped, and no dynamic method compiled, since
 * (the stamps). */
#define SYM_MEMO_DEPTH 96
struct sym_memo {
	uint32_t n; /* frames kept (the leaf never is) */
	uint32_t ids_stamp, code_stamp, drop_stamp, dynamic_stamp;
	bool truncated;
	FunctionID fn[SYM_MEMO_DEPTH];
	uint64_t addr[SYM_MEMO_DEPTH];
	uint64_t stack[SYM_MEMO_DEPTH];
};
/* sym_stack_of for a sampled walk (addrs given) of the thread whose memo
 * this is; the same id. */
uint64_t sym_stack_of_memo(const FunctionID *frames, const uint64_t *addrs, uint32_t n, bool truncated,
			   bool leaf_maybe_call, const struct activity *act, struct sym_defs *d,
			   struct sym_memo *memo) AGENT_HIDDEN;

uint64_t sym_thread(ThreadID tid) AGENT_HIDDEN;
/* A thread's new name or OS thread id: its THREAD record is written again. */
void sym_thread_name(ThreadID tid, const char *name) AGENT_HIDDEN;
void sym_thread_os(ThreadID tid, uint32_t os_tid) AGENT_HIDDEN;
/* The OS thread id known for a thread reference (0 if unknown). */
uint32_t sym_thread_os_of(uint64_t ref) AGENT_HIDDEN;

/* "Namespace.Type" of a class (cached): "Element[]" for arrays, generic
 * arguments in <>.  Sampler thread only. */
void sym_class_name(ClassID cls, char *out, size_t n) AGENT_HIDDEN;
/* The same name, uncached; safe on any thread. */
void sym_class_name_uncached(ClassID cls, char *out, size_t n) AGENT_HIDDEN;
/* A module's metadata, cached (not to be released); NULL when the runtime
 * gives none. */
IMetaDataImport *sym_module_metadata(ModuleID mod) AGENT_HIDDEN;
/* The offset of the field name that class cls (its module and TypeDef)
 * declares itself: from the object's start for a reference type, from the
 * value's for a value type (GetClassLayout); false when it has none.  Any
 * thread. */
bool sym_field_offset(ClassID cls, ModuleID mod, mdTypeDef td, const WCHAR *name, uint32_t *offset) AGENT_HIDDEN;
/* "Namespace.Type.Method" of a function, uncached; safe on any thread. */
void sym_function_name(FunctionID fn, char *out, size_t n) AGENT_HIDDEN;

#endif
