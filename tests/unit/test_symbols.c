/* The agent's naming (agent/symbols/symbols.c, with ilmap.c and idmap.c)
 * from its own source, against a fake runtime: an ICorProfilerInfo whose
 * vtable fills only the slots those files call (agent/corprof.h declares
 * the rest), a metadata import of its own, and the code map's and the log
 * writer's functions, which symbols.c calls, defined here under their own
 * names.  What symbols.c writes is read back as a reader reads it (the
 * FRAMES, STACKS, ... records into a model) and checked by the stacks'
 * names. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/log/logwriter.h"
#include "agent/symbols/ilmap.h"
#include "agent/symbols/stubnames.h"
#include "agent/symbols/symbols.h"
#include "agent/unwind/codemap.h"
#include "check.h"
#include "common/records.h"

/* --- the program the fake runtime runs ---------------------------------- */

#define MOD_APP 0x500u
#define APP_PATH "/app/App.dll"
#define TD_PROGRAM 0x02000002u
#define TD_OUTER 0x02000003u
#define TD_INNER 0x02000004u
#define TD_LIST 0x02000005u

static const struct fake_type {
	mdTypeDef td;
	const char *name;
	mdTypeDef outer;
} types[] = {{TD_PROGRAM, "Ns.Program", 0}, {TD_OUTER, "Ns.Outer", 0}, {TD_INNER, "Inner", TD_OUTER},
	     {TD_LIST, "Ns.List`1", 0}};

#define CODE 0x7f0010000000ull /* managed bodies, 0x100 bytes each */
#define BODY 0x100u
enum { F_MAIN = 0x1001, F_RUN, F_WORK, F_LEAF, F_LAMBDA, F_STUB, F_UNNAMED };
static const struct fake_fn {
	FunctionID id;
	mdToken tok;
	mdTypeDef td;
	const char *name;
	bool dynamic;
} fns[] = {
	{F_MAIN, 0x06000001, TD_PROGRAM, "Main", false}, {F_RUN, 0x06000002, TD_PROGRAM, "Run", false},
	{F_WORK, 0x06000003, TD_INNER, "Work", false},   {F_LEAF, 0x06000004, TD_PROGRAM, "Leaf", false},
	{F_LAMBDA, 0, 0, "Lambda", true},                {F_STUB, 0, 0, "IL_STUB_PInvoke", true},
};
#define NFNS (sizeof fns / sizeof *fns)

static uint64_t code_of(FunctionID fn)
{
	return CODE + (fn - F_MAIN) * BODY;
}

/* Every body's IL map: its prolog, IL 0, IL 7 (a call that returns to
 * +0x30), IL 0x12, the epilog. */
static const COR_DEBUG_IL_TO_NATIVE_MAP il_map[] = {
	{0xFFFFFFFEu, 0x00, 0x10}, {0x0, 0x10, 0x20}, {0x7, 0x20, 0x30}, {0x12, 0x30, 0xF0}, {CS_IL_EPILOG, 0xF0, 0x100},
};
#define RETURNS_AT 0x30 /* a return address: the bytes before it are a call */

#define NATIVE_LIB 0x7f0020000000ull /* libfoo.so, functions every 0x100 bytes */
#define CORECLR 0x7f0030000000ull    /* libcoreclr.so, no function entries */
#define STUBS 0x7f0040000000ull      /* code no module holds */
#define AGENT_LIB 0x7f0050000000ull  /* the profiler's own library, functions every 0x100 bytes */

enum { CLS_PROGRAM = 0x9001, CLS_INTS, CLS_GRID, CLS_LIST };

/* What the runtime was asked. */
static struct {
	uint32_t il_maps, array_questions, function_infos;
	int md_refs, unknown_refs;
} asked;

/* --- its metadata -------------------------------------------------------- */

static void to_wide(const char *s, WCHAR *out, ULONG cap, ULONG *len)
{
	ULONG n = 0;
	for (; s[n] && n + 1 < cap; n++)
		out[n] = (WCHAR)s[n];
	if (cap)
		out[n] = 0;
	if (len)
		*len = n + 1; /* with its terminator, as the runtime counts */
}

static const struct fake_type *type_of(mdTypeDef td)
{
	for (size_t i = 0; i < sizeof types / sizeof *types; i++)
		if (types[i].td == td)
			return &types[i];
	return NULL;
}

static const struct fake_fn *fn_of(FunctionID id)
{
	for (size_t i = 0; i < NFNS; i++)
		if (fns[i].id == id)
			return &fns[i];
	return NULL;
}

static HRESULT md_query(IMetaDataImport *self, REFIID riid, void **out)
{
	(void)riid;
	asked.md_refs++;
	*out = self;
	return S_OK;
}

static ULONG md_addref(IMetaDataImport *self)
{
	(void)self;
	return (ULONG)++asked.md_refs;
}

static ULONG md_release(IMetaDataImport *self)
{
	(void)self;
	return (ULONG)--asked.md_refs;
}

static HRESULT md_typedef(IMetaDataImport *self, mdTypeDef td, LPWSTR name, ULONG cch, ULONG *pch, DWORD *flags,
			  mdToken *extends)
{
	(void)self;
	const struct fake_type *t = type_of(td);
	if (!t)
		return E_FAIL;
	to_wide(t->name, name, cch, pch);
	*flags = 0;
	*extends = 0;
	return S_OK;
}

static HRESULT md_method(IMetaDataImport *self, mdMethodDef mb, mdTypeDef *td, LPWSTR name, ULONG cch, ULONG *pch,
			 DWORD *attr, PCCOR_SIGNATURE *sig, ULONG *siglen, ULONG *rva, DWORD *impl)
{
	(void)self;
	for (size_t i = 0; i < NFNS; i++) {
		if (fns[i].tok != mb || fns[i].dynamic)
			continue;
		*td = fns[i].td;
		to_wide(fns[i].name, name, cch, pch);
		*attr = *impl = 0;
		*sig = NULL;
		*siglen = *rva = 0;
		return S_OK;
	}
	return E_FAIL;
}

static HRESULT md_nested(IMetaDataImport *self, mdTypeDef td, mdTypeDef *outer)
{
	(void)self;
	const struct fake_type *t = type_of(td);
	if (!t || !t->outer)
		return E_FAIL;
	*outer = t->outer;
	return S_OK;
}

static const struct IMetaDataImportVtbl md_vtbl = {
	.QueryInterface = md_query,
	.AddRef = md_addref,
	.Release = md_release,
	.GetTypeDefProps = md_typedef,
	.GetMethodProps = md_method,
	.GetNestedClassProps = md_nested,
};
static IMetaDataImport md = {&md_vtbl};

static HRESULT unknown_query(IUnknown *self, REFIID riid, void **out)
{
	(void)self;
	return md_query(&md, riid, out);
}

static ULONG unknown_release(IUnknown *self)
{
	(void)self;
	return (ULONG)--asked.unknown_refs;
}

static const struct IUnknownVtbl unknown_vtbl = {.QueryInterface = unknown_query, .Release = unknown_release};
static IUnknown unknown = {&unknown_vtbl};

/* --- the profiling interface -------------------------------------------- */

static HRESULT get_function_info(ICorProfilerInfo15 *self, FunctionID id, ClassID *cls, ModuleID *mod, mdToken *tok)
{
	(void)self;
	asked.function_infos++;
	const struct fake_fn *f = fn_of(id);
	if (!f || f->dynamic)
		return E_FAIL;
	*cls = CLS_PROGRAM;
	*mod = MOD_APP;
	*tok = f->tok;
	return S_OK;
}

static HRESULT is_dynamic(ICorProfilerInfo15 *self, FunctionID id, BOOL *dynamic)
{
	(void)self;
	const struct fake_fn *f = fn_of(id);
	*dynamic = f && f->dynamic;
	return S_OK;
}

static HRESULT dynamic_info(ICorProfilerInfo15 *self, FunctionID id, ModuleID *mod, PCCOR_SIGNATURE *sig,
			    ULONG *siglen, ULONG cch, ULONG *pch, WCHAR *name)
{
	(void)self;
	const struct fake_fn *f = fn_of(id);
	if (!f || !f->dynamic)
		return E_FAIL;
	*mod = 0;
	*sig = NULL;
	*siglen = 0;
	to_wide(f->name, name, cch, pch);
	return S_OK;
}

static HRESULT module_info(ICorProfilerInfo15 *self, ModuleID mod, LPCBYTE *base, ULONG cch, ULONG *pch,
			   WCHAR *name, AssemblyID *assembly)
{
	(void)self;
	if (mod != MOD_APP)
		return E_FAIL;
	*base = NULL;
	*assembly = 0;
	to_wide(APP_PATH, name, cch, pch);
	return S_OK;
}

static HRESULT module_metadata(ICorProfilerInfo15 *self, ModuleID mod, DWORD flags, REFIID riid, IUnknown **out)
{
	(void)self;
	(void)flags;
	(void)riid;
	if (mod != MOD_APP)
		return E_FAIL;
	asked.unknown_refs++;
	*out = &unknown;
	return S_OK;
}

static HRESULT thread_info(ICorProfilerInfo15 *self, ThreadID tid, DWORD *os_tid)
{
	(void)self;
	*os_tid = (DWORD)(tid & 0xffff);
	return S_OK;
}

static HRESULT il_to_native(ICorProfilerInfo15 *self, UINT_PTR start, ULONG32 cap, ULONG32 *n,
			    COR_DEBUG_IL_TO_NATIVE_MAP *map)
{
	(void)self;
	asked.il_maps++;
	if (start < CODE || start >= CODE + NFNS * BODY)
		return E_FAIL;
	*n = sizeof il_map / sizeof *il_map;
	memcpy(map, il_map, (cap < *n ? cap : *n) * sizeof *map);
	return S_OK;
}

static HRESULT is_array(ICorProfilerInfo15 *self, ClassID cls, CorElementType *elem, ClassID *elem_cls, ULONG *rank)
{
	(void)self;
	asked.array_questions++;
	if (cls != CLS_INTS && cls != CLS_GRID)
		return (HRESULT)1; /* S_FALSE */
	*elem = 0x8; /* ELEMENT_TYPE_I4 */
	*elem_cls = 0;
	*rank = cls == CLS_GRID ? 2 : 1;
	return S_OK;
}

static HRESULT class_info(ICorProfilerInfo15 *self, ClassID cls, ModuleID *mod, mdTypeDef *td, ClassID *parent,
			  ULONG32 cargs, ULONG32 *nargs, ClassID *args)
{
	(void)self;
	*mod = MOD_APP;
	*parent = 0;
	*nargs = 0;
	if (cls == CLS_PROGRAM) {
		*td = TD_PROGRAM;
		return S_OK;
	}
	if (cls == CLS_LIST) {
		*td = TD_LIST;
		*nargs = 1;
		if (cargs)
			args[0] = CLS_PROGRAM;
		return S_OK;
	}
	return E_FAIL;
}

static const struct ICorProfilerInfo15Vtbl info_vtbl = {
	.GetFunctionInfo = get_function_info,
	.IsFunctionDynamic = is_dynamic,
	.GetDynamicFunctionInfo = dynamic_info,
	.GetModuleInfo = module_info,
	.GetModuleMetaData = module_metadata,
	.GetThreadInfo = thread_info,
	.GetILToNativeMapping3 = il_to_native,
	.IsArrayClass = is_array,
	.GetClassIDInfo2 = class_info,
};
static ICorProfilerInfo10 info = {&info_vtbl};

/* --- the code map and the log writer, as symbols.c sees them ------------- */

static uint32_t generation, dynamic_epoch = 1, drop_epoch;
static struct code_body bodies[NFNS];

uint32_t codemap_generation(void)
{
	return generation;
}

uint32_t codemap_dynamic_epoch(void)
{
	return dynamic_epoch;
}

struct code_at codemap_at(uint64_t ip, bool check_epilog)
{
	(void)check_epilog;
	if (ip < CODE || ip >= CODE + NFNS * BODY)
		return (struct code_at){0};
	size_t i = (size_t)((ip - CODE) / BODY);
	bodies[i] = (struct code_body){.start = CODE + i * BODY, .end = CODE + (i + 1) * BODY, .fn = fns[i].id, .decoded = true};
	return (struct code_at){.code = true, .fn = fns[i].id, .body = &bodies[i], .dynamic = fns[i].dynamic};
}

int codemap_code_facts(uint64_t addr)
{
	return addr >= CODE && (addr - CODE) % BODY == RETURNS_AT ? CODE_FOLLOWS_CALL : 0;
}

static const uint8_t build_id[] = {0xb1, 0x1d};

bool codemap_native_function(uint64_t addr, struct native_function *out)
{
	if (addr >= AGENT_LIB && addr < AGENT_LIB + 0x1000) {
		uint64_t start = addr & ~(uint64_t)0xff;
		*out = (struct native_function){start, start - AGENT_LIB, "/opt/clrscope/libclrscope-agent-0.1.0.so",
						"libclrscope-agent-0.1.0.so", build_id, sizeof build_id};
		return true;
	}
	if (addr < NATIVE_LIB || addr >= NATIVE_LIB + 0x1000)
		return false;
	uint64_t start = addr & ~(uint64_t)0xff;
	*out = (struct native_function){start, start - NATIVE_LIB + 0x4000, "/usr/lib/libfoo.so", "libfoo.so", build_id,
					sizeof build_id};
	return true;
}

const char *codemap_module_name(uint64_t addr)
{
	if (addr >= NATIVE_LIB && addr < NATIVE_LIB + 0x1000)
		return "libfoo.so";
	if (addr >= CORECLR && addr < CORECLR + 0x1000)
		return "libcoreclr.so";
	if (addr >= AGENT_LIB && addr < AGENT_LIB + 0x1000)
		return "libclrscope-agent-0.1.0.so";
	return "";
}

uint32_t lw_drop_epoch(void)
{
	return drop_epoch;
}

#define RECORDS_MAX 4096
static struct {
	uint32_t n;
	uint16_t type[RECORDS_MAX];
	uint8_t *p[RECORDS_MAX];
	size_t len[RECORDS_MAX];
	uint32_t messages;
	char message[512];
} logged;

bool lw_append_record(uint16_t type, const void *payload, size_t len)
{
	if (logged.n == RECORDS_MAX)
		return false;
	logged.type[logged.n] = type;
	logged.p[logged.n] = malloc(len ? len : 1);
	memcpy(logged.p[logged.n], payload, len);
	logged.len[logged.n++] = len;
	return true;
}

void lw_message(int level, const char *fmt, ...)
{
	(void)level;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(logged.message, sizeof logged.message, fmt, ap);
	va_end(ap);
	logged.messages++;
}

/* --- the log read back ---------------------------------------------------- */

#define IDS 8192
static struct {
	char frame[IDS][160]; /* "name" or "[native](module)" */
	bool frame_defined[IDS];
	uint32_t frame_defs;
	uint64_t parent[IDS], frame_of[IDS];
	bool stack_defined[IDS];
	uint32_t il[IDS];
	char path[64][128];
	uint32_t frame_token[IDS];
	uint64_t frame_path[IDS], native_path[IDS], native_address[IDS];
	uint32_t code_path_defs;
	struct cs_thread thread;
	char thread_name[64];
	uint32_t threads;
} model;
static uint32_t read_upto;

static void reset_log(void)
{
	for (uint32_t i = 0; i < logged.n; i++)
		free(logged.p[i]);
	memset(&logged, 0, sizeof logged);
	memset(&model, 0, sizeof model);
	for (uint32_t i = 0; i < IDS; i++)
		model.il[i] = ILMAP_NONE;
	read_upto = 0;
}

/* Reads what was logged since the last read into the model. */
static void read_log(void)
{
	for (; read_upto < logged.n; read_upto++) {
		const uint8_t *p = logged.p[read_upto];
		size_t len = logged.len[read_upto];
		struct cs_list l;
		cs_list_init(&l, p, len);
		switch (logged.type[read_upto]) {
		case CS_REC_FRAMES: {
			struct cs_frame_def f;
			while (cs_next_frame_def(&l, &f) && f.id < IDS) {
				if (!strncmp(f.name.p, "[native]", f.name.len) && f.module.len)
					snprintf(model.frame[f.id], sizeof model.frame[f.id], "[native](%.*s)",
						 (int)f.module.len, f.module.p);
				else
					snprintf(model.frame[f.id], sizeof model.frame[f.id], "%.*s", (int)f.name.len,
						 f.name.p);
				model.frame_defined[f.id] = true;
				model.frame_defs++;
			}
			break;
		}
		case CS_REC_STACKS: {
			struct cs_stack_def s;
			while (cs_next_stack_def(&l, &s) && s.id < IDS) {
				model.parent[s.id] = s.parent;
				model.frame_of[s.id] = s.frame;
				model.stack_defined[s.id] = true;
			}
			break;
		}
		case CS_REC_STACK_IL: {
			struct cs_stack_il s;
			while (cs_next_stack_il(&l, &s))
				if (s.stack < IDS)
					model.il[s.stack] = s.il_offset;
			break;
		}
		case CS_REC_CODE_PATH: {
			struct cs_code_path c;
			while (cs_next_code_path(&l, &c) && c.ref < 64) {
				snprintf(model.path[c.ref], sizeof model.path[c.ref], "%.*s", (int)c.path.len, c.path.p);
				model.code_path_defs++;
			}
			break;
		}
		case CS_REC_FRAME_CODE: {
			struct cs_frame_code c;
			while (cs_next_frame_code(&l, &c) && c.frame < IDS) {
				model.frame_token[c.frame] = c.token;
				model.frame_path[c.frame] = c.path_ref;
			}
			break;
		}
		case CS_REC_NATIVE_FRAME: {
			struct cs_native_frame f;
			while (cs_next_native_frame(&l, &f) && f.frame < IDS) {
				model.native_path[f.frame] = f.path_ref;
				model.native_address[f.frame] = f.file_address;
			}
			break;
		}
		case CS_REC_THREAD:
			CHECK(cs_thread_decode(p, len, &model.thread));
			snprintf(model.thread_name, sizeof model.thread_name, "%.*s", (int)model.thread.name.len,
				 model.thread.name.p);
			model.threads++;
			break;
		default:
			break;
		}
	}
}

/* A stack as a reader names it, root first: "A;B@7;C" (@: its IL offset,
 * hex; @e: the epilog); "?" for an id never defined. */
static const char *stack_name(uint64_t id)
{
	static char out[1024];
	uint64_t chain[64];
	uint32_t n = 0;
	for (uint64_t s = id; s && n < 64; s = model.parent[s]) {
		if (s >= IDS || !model.stack_defined[s])
			return "?";
		chain[n++] = s;
	}
	size_t len = 0;
	out[0] = 0;
	while (n--) {
		uint64_t s = chain[n], f = model.frame_of[s];
		const char *name = f < IDS && model.frame_defined[f] ? model.frame[f] : "?";
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", len ? ";" : "", name);
		if (model.il[s] == CS_IL_EPILOG)
			len += (size_t)snprintf(out + len, sizeof out - len, "@e");
		else if (model.il[s] != ILMAP_NONE)
			len += (size_t)snprintf(out + len, sizeof out - len, "@%x", model.il[s]);
	}
	return out;
}

/* A walk's stack (frames innermost first), its definitions flushed and read. */
static uint64_t stack_of(const FunctionID *frames, const uint64_t *addrs, uint32_t n, bool truncated,
			 bool leaf_maybe_call, const struct activity *act, struct sym_memo *memo)
{
	uint64_t id = sym_stack_of_memo(frames, addrs, n, truncated, leaf_maybe_call, act, sym_defs(), memo);
	sym_flush_defs(sym_defs());
	read_log();
	return id;
}

static void start(void)
{
	reset_log();
	memset(&asked, 0, sizeof asked);
	g_agent.info = &info;
	generation = 0;
	dynamic_epoch = 1;
	drop_epoch = 0;
	CHECK(sym_init() == 0);
}

/* --- the cases -------------------------------------------------------- */

/* Functions become frame ids, defined once with their names, module and
 * where their code came from. */
static void frames(void)
{
	start();
	struct sym_defs *d = sym_defs();
	CHECK_EQ_U(sym_frame(F_MAIN, d), CS_FRAME_FIRST_FUNCTION);
	CHECK_EQ_U(sym_frame(F_WORK, d), CS_FRAME_FIRST_FUNCTION + 1);
	size_t pending = sym_defs_pending();
	CHECK(pending > 0);
	CHECK_EQ_U(sym_frame(F_MAIN, d), CS_FRAME_FIRST_FUNCTION);
	CHECK_EQ_U(sym_defs_pending(), pending); /* known: nothing more */
	uint64_t lambda = sym_frame(F_LAMBDA, d), stub = sym_frame(F_STUB, d), unnamed = sym_frame(F_UNNAMED, d);
	CHECK_EQ_U(sym_frame(0, d), CS_FRAME_NATIVE);
	sym_flush_defs(d);
	CHECK_EQ_U(sym_defs_pending(), 0);
	/* frames first, then the paths they refer to, then their code */
	CHECK(logged.n == 3 && logged.type[0] == CS_REC_FRAMES && logged.type[1] == CS_REC_CODE_PATH &&
	      logged.type[2] == CS_REC_FRAME_CODE);
	read_log();
	CHECK_STR(model.frame[16], "Ns.Program.Main");
	CHECK_STR(model.frame[17], "Ns.Outer+Inner.Work");
	CHECK_STR(model.frame[lambda], "dynamicClass.Lambda");
	CHECK_STR(model.frame[stub], "ILStubClass.IL_STUB_PInvoke");
	char want[64];
	snprintf(want, sizeof want, "[function 0x%x]", F_UNNAMED);
	CHECK_STR(model.frame[unnamed], want);
	CHECK_STR(model.frame[CS_FRAME_NATIVE], "[native]");
	CHECK_EQ_U(model.frame_token[16], 0x06000001);
	CHECK_EQ_U(model.frame_token[17], 0x06000003);
	CHECK_EQ_U(model.code_path_defs, 1); /* one path for both */
	CHECK_STR(model.path[model.frame_path[16]], APP_PATH);
	CHECK_EQ_U(model.frame_path[lambda], 0); /* no file behind a dynamic method */
	CHECK_EQ_U(model.frame_defs, 6);
	sym_fini();
	CHECK_EQ_U(asked.md_refs, 0); /* the metadata asked for is given back */
	CHECK_EQ_U(asked.unknown_refs, 0);
}

/* After the log writer dropped data (a new drop epoch), what a reader may
 * have lost is defined again before it is used, under the same id. */
static void drop_epochs(void)
{
	start();
	struct sym_defs *d = sym_defs();
	uint64_t main_frame = sym_frame(F_MAIN, d);
	sym_flush_defs(d);
	read_log();
	uint32_t defs = model.frame_defs, paths = model.code_path_defs;
	CHECK_EQ_U(sym_frame(F_MAIN, d), main_frame);
	CHECK_EQ_U(sym_defs_pending(), 0);
	drop_epoch++;
	CHECK_EQ_U(sym_frame(F_MAIN, d), main_frame);
	sym_flush_defs(d);
	read_log();
	CHECK_EQ_U(model.frame_defs, defs + 1);
	CHECK_EQ_U(model.code_path_defs, paths + 1);
	sym_fini();
}

/* Stacks: a tree of (parent, frame at an IL offset), root first; the same
 * walk is the same id, defined once. */
static void stacks(void)
{
	start();
	const FunctionID walk[] = {F_LEAF, F_RUN, F_MAIN};
	const uint64_t addrs[] = {code_of(F_LEAF) + 0x15, code_of(F_RUN) + 0x25, code_of(F_MAIN) + 0x40};
	uint64_t id = stack_of(walk, addrs, 3, false, false, NULL, NULL);
	CHECK_STR(stack_name(id), "Ns.Program.Main@12;Ns.Program.Run@7;Ns.Program.Leaf@0");
	uint32_t before = logged.n;
	CHECK_EQ_U(stack_of(walk, addrs, 3, false, false, NULL, NULL), id);
	CHECK_EQ_U(logged.n, before); /* nothing new to define */
	/* each body's IL map asked for once */
	CHECK_EQ_U(asked.il_maps, 3);
	/* the leaf elsewhere: in its prolog (IL 0), its epilog */
	const uint64_t in_epilog[] = {code_of(F_LEAF) + 0xF5, addrs[1], addrs[2]};
	uint64_t epilog = stack_of(walk, in_epilog, 3, false, false, NULL, NULL);
	CHECK(epilog != id);
	CHECK_STR(stack_name(epilog), "Ns.Program.Main@12;Ns.Program.Run@7;Ns.Program.Leaf@e");
	CHECK_EQ_U(model.parent[epilog], model.parent[id]); /* the same callers */
	/* the runtime's walk may stop at a return address: the call is named */
	const uint64_t at_return[] = {code_of(F_LEAF) + RETURNS_AT, addrs[1], addrs[2]};
	CHECK_STR(stack_name(stack_of(walk, at_return, 3, false, true, NULL, NULL)),
		  "Ns.Program.Main@12;Ns.Program.Run@7;Ns.Program.Leaf@7");
	CHECK_STR(stack_name(stack_of(walk, at_return, 3, false, false, NULL, NULL)),
		  "Ns.Program.Main@12;Ns.Program.Run@7;Ns.Program.Leaf@12");
	/* without addresses, no IL offsets; cut at the depth limit, a root says so */
	CHECK_STR(stack_name(stack_of(walk, NULL, 3, false, false, NULL, NULL)),
		  "Ns.Program.Main;Ns.Program.Run;Ns.Program.Leaf");
	CHECK_STR(stack_name(stack_of(walk, NULL, 3, true, false, NULL, NULL)),
		  "[truncated];Ns.Program.Main;Ns.Program.Run;Ns.Program.Leaf");
	/* the code map forgot its bodies: their maps are asked for again */
	uint32_t maps = asked.il_maps;
	generation++;
	stack_of(walk, addrs, 3, false, false, NULL, NULL);
	CHECK_EQ_U(asked.il_maps, maps + 3);
	sym_fini();
}

/* Native frames: the leaf by its function (a frame of its own, placed in
 * its module's file), a run between managed frames by its module, code no
 * module holds as a stub. */
static void native_frames(void)
{
	start();
	const FunctionID walk[] = {0, F_RUN, 0, F_MAIN};
	const uint64_t addrs[] = {NATIVE_LIB + 0x123, code_of(F_RUN) + 0x25, CORECLR + 0x50, code_of(F_MAIN) + 0x40};
	uint64_t id = stack_of(walk, addrs, 4, false, false, NULL, NULL);
	CHECK_STR(stack_name(id), "Ns.Program.Main@12;[native](libcoreclr.so);Ns.Program.Run@7;[native](libfoo.so)");
	uint64_t leaf_frame = model.frame_of[id];
	CHECK_STR(model.path[model.native_path[leaf_frame]], "/usr/lib/libfoo.so");
	CHECK_EQ_U(model.native_address[leaf_frame], 0x4100);
	/* the same function at another instruction: the same frame */
	const uint64_t same_fn[] = {NATIVE_LIB + 0x1f0, addrs[1], addrs[2], addrs[3]};
	CHECK_EQ_U(model.frame_of[stack_of(walk, same_fn, 4, false, false, NULL, NULL)], leaf_frame);
	/* a function of that module between managed frames: named by the module,
	 * as the runtime's walk sees it (no function, no place in the file) */
	const uint64_t lib_between[] = {addrs[0], addrs[1], NATIVE_LIB + 0x250, addrs[3]};
	uint64_t between = model.parent[model.parent[stack_of(walk, lib_between, 4, false, false, NULL, NULL)]];
	CHECK_STR(stack_name(between), "Ns.Program.Main@12;[native](libfoo.so)");
	CHECK(model.frame_of[between] != leaf_frame && !model.native_path[model.frame_of[between]]);
	/* a stub at the leaf; elsewhere a run of native frames */
	const uint64_t stubs[] = {STUBS + 8, addrs[1], STUBS + 16, addrs[3]};
	CHECK_STR(stack_name(stack_of(walk, stubs, 4, false, false, NULL, NULL)),
		  "Ns.Program.Main@12;[native];Ns.Program.Run@7;[runtime stub]");
	/* the native frames from the leaf to the first managed one: each by its
	 * function, frames of a module without function entries as one */
	const FunctionID lead_walk[] = {0, 0, 0, 0, F_RUN, F_MAIN};
	const uint64_t lead_addrs[] = {NATIVE_LIB + 0x123, NATIVE_LIB + 0x250, CORECLR + 0x60,
				       CORECLR + 0x80, addrs[1], addrs[3]};
	uint64_t lead = stack_of(lead_walk, lead_addrs, 6, false, false, NULL, NULL);
	CHECK_STR(stack_name(lead),
		  "Ns.Program.Main@12;Ns.Program.Run@7;[native](libcoreclr.so);[native](libfoo.so);[native](libfoo.so)");
	CHECK_EQ_U(model.frame_of[lead], leaf_frame);
	uint64_t caller = model.frame_of[model.parent[lead]];
	CHECK(model.native_path[caller] && model.native_address[caller] == 0x4200);
	CHECK(!model.native_path[model.frame_of[model.parent[model.parent[lead]]]]);
	/* the profiler's own functions, which the reader labels whatever their
	 * name: one frame */
	const uint64_t agent_addrs[] = {NATIVE_LIB + 0x123, AGENT_LIB + 0x10, AGENT_LIB + 0x220,
					AGENT_LIB + 0x330, addrs[1], addrs[3]};
	uint64_t agent = stack_of(lead_walk, agent_addrs, 6, false, false, NULL, NULL);
	CHECK_STR(stack_name(agent), "Ns.Program.Main@12;Ns.Program.Run@7;[native](libclrscope-agent-0.1.0.so);[native](libfoo.so)");
	sym_fini();
}

/* What the runtime does on the thread stands for the native run at the
 * leaf: a compilation under the method that calls what it compiles, a
 * collection. */
static void activities(void)
{
	start();
	const FunctionID walk[] = {0, F_RUN, F_MAIN};
	const uint64_t addrs[] = {CORECLR + 0x10, code_of(F_RUN) + 0x25, code_of(F_MAIN) + 0x40};
	struct activity jit = {1, {(uint64_t)ACT_JIT << 56 | F_WORK}};
	CHECK_STR(stack_name(stack_of(walk, addrs, 3, false, false, &jit, NULL)),
		  "Ns.Program.Main@12;Ns.Program.Run@7;Ns.Outer+Inner.Work;[JIT compilation]");
	struct activity gc = {1, {(uint64_t)ACT_GC << 56}};
	CHECK_STR(stack_name(stack_of(walk, addrs, 3, false, false, &gc, NULL)),
		  "Ns.Program.Main@12;Ns.Program.Run@7;[GC]");
	/* a capture in managed code: the note is stale */
	const FunctionID managed[] = {F_LEAF, F_RUN, F_MAIN};
	const uint64_t managed_addrs[] = {code_of(F_LEAF) + 0x15, addrs[1], addrs[2]};
	CHECK_STR(stack_name(stack_of(managed, managed_addrs, 3, false, false, &gc, NULL)),
		  "Ns.Program.Main@12;Ns.Program.Run@7;Ns.Program.Leaf@0");
	sym_fini();
}

/* A thread's last walk, its root part's ids kept: taken as they are while
 * nothing was forgotten, dropped or compiled since, and asked again after. */
static void memos(void)
{
	start();
	struct sym_memo memo = {0};
	const FunctionID walk[] = {F_LEAF, F_RUN, F_MAIN};
	const uint64_t addrs[] = {code_of(F_LEAF) + 0x15, code_of(F_RUN) + 0x25, code_of(F_MAIN) + 0x40};
	uint64_t id = stack_of(walk, addrs, 3, false, false, NULL, &memo);
	CHECK_EQ_U(memo.n, 2); /* the root part: all but the leaf */
	CHECK_EQ_U(memo.stack[1], model.parent[id]);
	CHECK_EQ_U(memo.stack[0], model.parent[model.parent[id]]);
	/* the memo's ids are used: one made up is taken for the callers' */
	const uint64_t made_up = 4000;
	memo.stack[1] = made_up;
	uint64_t from_memo = sym_stack_of_memo(walk, addrs, 3, false, false, NULL, sym_defs(), &memo);
	sym_flush_defs(sym_defs());
	read_log();
	CHECK_EQ_U(model.parent[from_memo], made_up);
	/* ... unless the log dropped data, the code map forgot, a dynamic
	 * method was compiled, or the walk was cut (each: a stale memo) */
	for (int why = 0; why < 4; why++) {
		memo.stack[1] = made_up;
		bool truncated = false;
		switch (why) {
		case 0:
			drop_epoch++;
			break;
		case 1:
			generation++;
			break;
		case 2:
			dynamic_epoch++;
			break;
		default:
			truncated = true;
			break;
		}
		uint64_t again = stack_of(walk, addrs, 3, truncated, false, NULL, &memo);
		CHECK(model.parent[again] != made_up);
		CHECK_STR(stack_name(again), truncated ? "[truncated];Ns.Program.Main@12;Ns.Program.Run@7;Ns.Program.Leaf@0"
						       : "Ns.Program.Main@12;Ns.Program.Run@7;Ns.Program.Leaf@0");
	}
	/* another function at the same address (code freed and used again): not taken */
	stack_of(walk, addrs, 3, false, false, NULL, &memo);
	memo.stack[1] = made_up;
	const FunctionID moved[] = {F_LEAF, F_WORK, F_MAIN};
	CHECK_STR(stack_name(stack_of(moved, addrs, 3, false, false, NULL, &memo)),
		  "Ns.Program.Main@12;Ns.Outer+Inner.Work;Ns.Program.Leaf@0");
	/* the same function at another instruction: not taken */
	stack_of(walk, addrs, 3, false, false, NULL, &memo);
	memo.stack[1] = made_up;
	const uint64_t elsewhere[] = {addrs[0], addrs[1], code_of(F_MAIN) + 0x15};
	CHECK_STR(stack_name(stack_of(walk, elsewhere, 3, false, false, NULL, &memo)),
		  "Ns.Program.Main@0;Ns.Program.Run@7;Ns.Program.Leaf@0");
	/* another root: only what matches is taken */
	memo.stack[1] = made_up;
	const FunctionID other[] = {F_LEAF, F_RUN, F_WORK};
	const uint64_t other_addrs[] = {addrs[0], addrs[1], code_of(F_WORK) + 0x40};
	CHECK_STR(stack_name(stack_of(other, other_addrs, 3, true, false, NULL, &memo)),
		  "[truncated];Ns.Outer+Inner.Work@12;Ns.Program.Run@7;Ns.Program.Leaf@0");
	sym_fini();
}

static uint32_t id_spaces;
static void count_id_space(void)
{
	id_spaces++;
}

/* A table at its cap starts a new id space: the maps are emptied, ids go
 * on after the last one given (none means two things), the hook is told,
 * a MESSAGE says so, and what recurs is defined again. */
static void id_space(void)
{
	sym_set_id_space_hook(count_id_space);
	start();
	sym_set_table_cap(SYM_TABLE_CAP_MIN);
	struct sym_defs *d = sym_defs();
	struct sym_memo memo = {0};
	const FunctionID walk[] = {F_LEAF, F_RUN, F_MAIN};
	const uint64_t addrs[] = {code_of(F_LEAF) + 0x15, code_of(F_RUN) + 0x25, code_of(F_MAIN) + 0x40};
	stack_of(walk, addrs, 3, false, false, NULL, &memo);
	uint64_t main_frame = sym_frame(F_MAIN, d), last = main_frame + 2;
	uint64_t main_stack = sym_stack(0, main_frame, ILMAP_NONE, d);
	sym_flush_defs(d);
	for (uint32_t k = 3; k < SYM_TABLE_CAP_MIN; k++) { /* unnamed functions up to the cap */
		last = sym_frame(0x50000 + k, d);
		sym_flush_defs(d);
	}
	CHECK_EQ_U(last, CS_FRAME_FIRST_FUNCTION + SYM_TABLE_CAP_MIN - 1);
	CHECK_EQ_U(id_spaces, 0);
	uint64_t next = sym_frame(0x60000, d);
	CHECK_EQ_U(id_spaces, 1);
	CHECK_EQ_U(next, last + 1);
	CHECK_EQ_U(logged.messages, 1);
	CHECK(strstr(logged.message, "new id space") != NULL);
	/* Main again: a new id, defined again; its stack too */
	uint64_t main_again = sym_frame(F_MAIN, d);
	CHECK(main_again > next);
	uint64_t stack_again = sym_stack(0, main_again, ILMAP_NONE, d);
	CHECK(stack_again > main_stack);
	sym_flush_defs(d);
	read_log();
	CHECK_STR(model.frame[main_again], "Ns.Program.Main");
	CHECK_STR(stack_name(stack_again), "Ns.Program.Main");
	/* a thread's memo is of the old space: not taken */
	const uint64_t made_up = 4000;
	memo.stack[1] = made_up;
	uint64_t walked = stack_of(walk, addrs, 3, false, false, NULL, &memo);
	CHECK(model.parent[walked] != made_up && walked > stack_again);
	CHECK_STR(stack_name(walked), "Ns.Program.Main@12;Ns.Program.Run@7;Ns.Program.Leaf@0");
	sym_fini();
	sym_set_id_space_hook(NULL);
}

/* Threads get small references, written at once (THREAD), again with a
 * new name or OS thread id, and after a drop. */
static void threads(void)
{
	start();
	const ThreadID tid = 0x7f0000000a11ull;
	CHECK_EQ_U(sym_thread(tid), 1);
	read_log();
	CHECK_EQ_U(model.threads, 1);
	CHECK_EQ_U(model.thread.ref, 1);
	CHECK_EQ_U(model.thread.runtime_id, tid);
	CHECK_EQ_U(model.thread.os_tid, 0xa11);
	CHECK_EQ_U(sym_thread(tid), 1);
	CHECK_EQ_U(sym_thread(tid + 1), 2);
	read_log();
	CHECK_EQ_U(model.threads, 2);
	sym_thread_name(tid, "worker");
	read_log();
	CHECK_EQ_U(model.threads, 3);
	CHECK_STR(model.thread_name, "worker");
	sym_thread_os(tid, 0x222);
	sym_thread_os(tid, 0x222);
	read_log();
	CHECK_EQ_U(model.threads, 4);
	CHECK_EQ_U(sym_thread_os_of(1), 0x222);
	drop_epoch++;
	CHECK_EQ_U(sym_thread(tid), 1);
	read_log();
	CHECK_EQ_U(model.threads, 5);
	CHECK_STR(model.thread_name, "worker");
	sym_fini();
}

/* Class names: arrays by their element, generics with their arguments,
 * each asked of the runtime once. */
static void class_names(void)
{
	start();
	char name[256];
	sym_class_name(CLS_INTS, name, sizeof name);
	CHECK_STR(name, "System.Int32[]");
	sym_class_name(CLS_GRID, name, sizeof name);
	CHECK_STR(name, "System.Int32[,]");
	sym_class_name(CLS_LIST, name, sizeof name);
	CHECK_STR(name, "Ns.List`1<Ns.Program>");
	uint32_t questions = asked.array_questions;
	sym_class_name(CLS_LIST, name, sizeof name);
	CHECK_STR(name, "Ns.List`1<Ns.Program>");
	CHECK_EQ_U(asked.array_questions, questions);
	sym_class_name(0, name, sizeof name);
	CHECK_STR(name, "[unknown class]");
	sym_function_name(F_WORK, name, sizeof name);
	CHECK_STR(name, "Ns.Outer+Inner.Work");
	sym_fini();
	CHECK_EQ_U(asked.md_refs, 0);
}

/* The runtime's perf map lines: a stub's range and kind, whatever its
 * granularity's form; a method's line or a damaged one is none. */
static void perf_map_lines(void)
{
	uint64_t start, size;
	char kind[STUBNAMES_KIND_MAX];
#define LINE(s) s, sizeof s - 1
	CHECK(stubnames_parse(LINE("0x7f7ceb050000 110 stub InitThreadManagerPerfMapData<JIT_CopiedWriteBarriers>"),
			      &start, &size, kind, sizeof kind));
	CHECK_EQ_U(start, 0x7f7ceb050000ull);
	CHECK_EQ_U(size, 0x110);
	CHECK_STR(kind, "JIT_CopiedWriteBarriers");
	CHECK(stubnames_parse(LINE("7F5A24C523F8 b stub<12> CreateReturnConst<DynamicHelper>"), &start, &size, kind,
			      sizeof kind));
	CHECK_EQ_U(start, 0x7f5a24c523f8ull);
	CHECK_EQ_U(size, 0xb);
	CHECK_STR(kind, "DynamicHelper");
	CHECK(stubnames_parse(LINE("0x10 20 stub ReportStubBlock<VSD resolve>"), &start, &size, kind, sizeof kind));
	CHECK_STR(kind, "VSD_resolve"); /* one word, as a frame's label */
	CHECK(!stubnames_parse(LINE("0x7f59a5e827d0 a0 int32 [Allocator] Program::AllocateMany(int32)"), &start, &size,
			       kind, sizeof kind));
	CHECK(!stubnames_parse(LINE("0x7f59a5e827d0 a0 stubborn<X>"), &start, &size, kind, sizeof kind));
	CHECK(!stubnames_parse(LINE("0x7f59a5e827d0 0 stub A<B>"), &start, &size, kind, sizeof kind));
	CHECK(!stubnames_parse(LINE("0x7f59a5e827d0 a0 stub A<>"), &start, &size, kind, sizeof kind));
	CHECK(!stubnames_parse(LINE("0x7f59a5e827d0 a0 stub A<B"), &start, &size, kind, sizeof kind));
	CHECK(!stubnames_parse(LINE("0x11112222333344445 a0 stub A<B>"), &start, &size, kind, sizeof kind));
	CHECK(!stubnames_parse(LINE("0x10"), &start, &size, kind, sizeof kind));
	CHECK(!stubnames_parse(LINE("0x10 20 stub A<KindNameLongerThanTheBufferHolds>"), &start, &size, kind, 8));
#undef LINE
}

int main(void)
{
	RUN(frames);
	RUN(drop_epochs);
	RUN(stacks);
	RUN(native_frames);
	RUN(activities);
	RUN(memos);
	RUN(id_space);
	RUN(threads);
	RUN(class_names);
	RUN(perf_map_lines);
	reset_log();
	return CHECK_DONE();
}
