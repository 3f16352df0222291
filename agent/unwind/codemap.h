/* Code by address.  Managed code: which function an instruction belongs
 * to (GetFunctionFromIP), which of its native bodies (Tier0, OSR, Tier1,
 * ReadyToRun: GetNativeCodeStartAddresses + GetCodeInfo4) holds it, and
 * that body's decoded prolog.  Native code: the unwind rule its module's
 * .eh_frame gives for the instruction (modules listed by dl_iterate_phdr).
 * Everything is cached by address, so the runtime is asked once per
 * distinct address.  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_CODEMAP_H
#define CLRSCOPE_AGENT_CODEMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/unwind/ehframe.h"
#include "agent/unwind/x64frame.h"

struct code_body {
	uint64_t start, end;
	FunctionID fn;
	uint32_t dynamic_epoch; /* a dynamic method's: the compilations seen when it was read (0: not dynamic) */
	bool decoded; /* the prolog is one x64frame understands */
	struct x64_prolog prolog;
};

struct code_at {
	bool code;                    /* in an executable mapping at all */
	bool unknown;                 /* not code as far as the maps read last say, but they may be behind */
	FunctionID fn;                /* 0: not managed code */
	const struct code_body *body; /* NULL: the body is not known */
	bool epilog;                  /* the instruction at the address starts or is inside an epilog */
	bool in_module;               /* native code of a loaded module (else: code the runtime
					 generated, such as stubs, which its unwinder does not report) */
	bool native_known;            /* native code whose unwind rule is in rule */
	bool dynamic;                 /* fn is a dynamic method (DynamicMethod, compiled
					 expressions and regexes), which the runtime's
					 DoStackSnapshot does not report */
	struct eh_rule rule;
	uint8_t hijack_pushes;        /* native code of the runtime's hijack stub, entered by a return
					 (nativeframe_hijack_pushes): its pushes; 0: any other code */
};

int codemap_init(void) AGENT_HIDDEN;
/* Forgets every address and body (code may have been unloaded, or a new
 * attach). */
void codemap_forget(void) AGENT_HIDDEN;
/* Whether what is kept should be forgotten now: a managed module was
 * unloaded (told by codemap_code_unloaded: the FunctionIDs kept for its
 * code are no longer good to ask about); a shared object was unloaded (the
 * loader's count) or the address table is half full, and a second passed
 * since the last forgetting; or a minute passed. */
bool codemap_stale(uint64_t now_ns) AGENT_HIDDEN;
/* A managed module is being unloaded (any thread, before the sampler
 * thread's next tick): its FunctionIDs are freed, and its code's addresses
 * may hold other code. */
void codemap_code_unloaded(void) AGENT_HIDDEN;
/* A dynamic method was compiled (any thread): its code may sit where a
 * collected one's was, and its FunctionID may be a collected one's. */
void codemap_dynamic_compiled(void) AGENT_HIDDEN;
/* Compilations of dynamic methods so far: what is kept of a dynamic
 * method (its name) under another count may be stale. */
uint32_t codemap_dynamic_epoch(void) AGENT_HIDDEN;
/* Changes whenever codemap_forget forgets: what others keep by body
 * start address is stale then. */
uint32_t codemap_generation(void) AGENT_HIDDEN;
/* Changes with codemap_generation and when a native call's decoded frame
 * is refuted: a walk kept from before may not be what a walk gives now
 * (never 0). */
uint32_t codemap_walk_epoch(void) AGENT_HIDDEN;
/* What is at ip; check_epilog asks whether ip is inside an epilog (only
 * meaningful for an interrupted instruction, not a return address, and
 * taken to mean that a thread was running it: code for certain). */
struct code_at codemap_at(uint64_t ip, bool check_epilog) AGENT_HIDDEN;
/* A native frame's caller-side layout at a call, for a walk without the
 * thread's rbp (see nativeframe.h): for addr, the last byte of a call in
 * native code whose unwind rule (from codemap_at) is rbp-based, the CFA as
 * an offset from the stack pointer after the call returns.  Worked out
 * once per address; false when the code does not prove it. */
bool codemap_call_cfa(uint64_t addr, const struct eh_rule *rule, int32_t *cfa_from_sp) AGENT_HIDDEN;
/* ... and found wrong by a walk that had the frame pointer: not used for
 * addr again (said in a MESSAGE, the first few times). */
void codemap_call_cfa_refuted(uint64_t addr) AGENT_HIDDEN;
/* The file name of the loaded module that holds code at addr ("" for none:
 * code the runtime generated), for naming native frames by module. */
const char *codemap_module_name(uint64_t addr) AGENT_HIDDEN;
/* The native function that holds addr, by its unwind table's entry (a
 * stripped module still has one per function): where it starts, in memory
 * and in its file's own addresses, and the file.  False for code outside
 * the modules, a module without a full path, or no entry.  The vDSO has no
 * file: its path is its name, "linux-vdso.so.1" (no '/'), and the reading
 * side names its functions from a vDSO of the same build id. */
#define CODEMAP_BUILD_ID_MAX 32
struct native_function {
	uint64_t start;         /* in this process */
	uint64_t file_address;  /* start as the file's symbols say it (minus the load address) */
	const char *path, *name; /* the module's file (the vDSO: its name) and its file name (valid until the modules are rescanned) */
	const uint8_t *build_id;
	uint8_t build_id_len;
};
bool codemap_native_function(uint64_t addr, struct native_function *out) AGENT_HIDDEN;
/* What the code bytes around addr (code a thread ran or returns to) say,
 * read once per address while the map lasts: CODE_* bits, -1 when they
 * cannot be read. */
#define CODE_FOLLOWS_CALL 1  /* the bytes before addr end in a call: addr is a return address */
#define CODE_AFTER_SYSCALL 2 /* a syscall instruction ends at addr (the call returned, or EINTR) */
#define CODE_AT_SYSCALL 4    /* addr is a syscall instruction (the kernel moved ip back to repeat it) */
#define CODE_WAIT_SYSCALL 8  /* the syscall ending at addr is one that waits (its number, set just
				before it, is a sleep, poll, epoll or yield), whatever its arguments */
#define CODE_FUTEX_SYSCALL 16 /* ... is futex (it waits or not by its operation) */
int codemap_code_facts(uint64_t addr) AGENT_HIDDEN;
/* The end of the readable mapping that holds sp (a thread's stack top, as
 * far as a copy of its stack needs to go); 0 when not known. */
uint64_t codemap_stack_top(uint64_t sp) AGENT_HIDDEN;
/* The readable mapping that holds sp as the kernel has it now
 * (PROCMAP_QUERY): [*lo, *hi); false when the kernel cannot say. */
bool codemap_stack_mapping(uint64_t sp, uint64_t *lo, uint64_t *hi) AGENT_HIDDEN;

#ifdef CLRSCOPE_WALK_PROBE
/* A measuring build's (walkprobe.h): flushes from the caches what is kept
 * for the code at ip (with_body: the entry's body, else its entry). */
void codemap_probe_flush(uint64_t ip, bool with_body) AGENT_HIDDEN;
#endif

#endif
