#include "agent/symbols/symbols.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/log/logwriter.h"
#include "agent/symbols/idmap.h"
#include "agent/symbols/ilmap.h"
#include "agent/symbols/stubnames.h"
#include "agent/unwind/codemap.h"
#include "common/labels.h"
#include "common/records.h"
#include "common/utf16.h"

#define NAME_MAX_UTF8 1024
#define NESTING_MAX 16
#define FIELDS_MAX 128 /* a class's own fields looked at for one (System.Exception has about twenty) */
#define NATIVE_MODULES 256 /* modules whose native frames get a frame of their own */

/* Per id from base on: 0 = never written, else 1 + the drop epoch it was
 * written in.  Ids below base belong to an id space given up (see
 * new_id_space) and are never current. */
struct epochs {
	uint32_t *v;
	size_t cap;
	uint64_t base;
};

static struct {
	struct idmap functions; /* FunctionID -> frame id */
	struct idmap sites;     /* frame << 32 | (IL offset + 1, 0: none) -> site id */
	struct idmap stacks;    /* parent << 32 | site -> stack id */
	struct idmap splices[2]; /* [unresolved] parent << 32 | physical stack -> the id of a logical stack's
				    [await] ([await ?]) frame: one for each physical stack, so that the
				    logical stacks above it name their physical stack (LOGICAL) */
	struct idmap threads;   /* ThreadID -> thread ref */
	struct idmap modules;   /* ModuleID -> index into metadata[] */
	struct idmap classes;   /* ClassID -> index into class_names[] */
	struct idmap dynamic_names;  /* a dynamic method's FunctionID -> a hash of the name its frame has */
	struct idmap dynamic_epochs; /* ... -> the dynamic compilations seen when that name was read */
	char **class_names;
	size_t nclass_names, class_names_cap;
	struct thread_info {
		char name[64];
		char os_name[16]; /* its comm: the kernel keeps 15 bytes */
		uint32_t os_tid;
		uint32_t uses; /* sym_thread calls: when its comm is read again */
	} *thread_info; /* by thread ref */
	size_t thread_info_cap;
	IMetaDataImport **metadata;
	size_t nmetadata, metadata_cap;
	struct epochs frame_written, stack_written, thread_written, logical_written;
	uint32_t next_frame, next_stack, next_thread, next_site;
	uint8_t *defs_buf; /* the payloads of pending */
	struct code_path {
		char *path;
		uint32_t written; /* 1 + the drop epoch it was last written in, 0: never */
	} *code_paths; /* by path reference - 1 */
	size_t ncode_paths, code_paths_cap;
	struct native_module {
		char name[64];
		uint32_t frame;
	} natives[NATIVE_MODULES]; /* [native] frames by module, in this id space */
	uint32_t nnatives;
	uint32_t stub_frames[STUBNAMES_KINDS]; /* [stub: KIND] frames by kind, in this id space (0: none yet) */
	struct sym_defs pending;
	uint32_t cap; /* entries a table may hold before a new id space */
	uint32_t id_spaces;
} sym;

/* The metadata cache is the one part other threads use too (the
 * instrumentation's function mapper runs on the runtime's JIT threads). */
static pthread_mutex_t metadata_mu = PTHREAD_MUTEX_INITIALIZER;

/* Changes whenever an id may come to mean something else (a new id space,
 * the end of an attach): memos of other stamps are stale.  Outside sym,
 * which is cleared at the end. */
static uint32_t ids_stamp = 1;

static bool epochs_is_current(struct epochs *e, uint64_t id)
{
	if (id < e->base)
		return false;
	id -= e->base;
	return id < e->cap && e->v[id] == lw_drop_epoch() + 1;
}

static void epochs_mark(struct epochs *e, uint64_t id)
{
	if (id < e->base)
		return;
	id -= e->base;
	if (!agent_grow(&e->v, &e->cap, id + 1, sizeof *e->v, 1024))
		return; /* written again next time: harmless */
	e->v[id] = lw_drop_epoch() + 1;
}

int sym_init(void)
{
	sym_fini();
	if (!idmap_init(&sym.functions, 4096) || !idmap_init(&sym.stacks, 16384) || !idmap_init(&sym.sites, 4096) ||
	    !idmap_init(&sym.threads, 64) || !idmap_init(&sym.modules, 64) || !idmap_init(&sym.classes, 64) ||
	    !idmap_init(&sym.dynamic_names, 64) || !idmap_init(&sym.dynamic_epochs, 64) ||
	    !idmap_init(&sym.splices[0], 1024) || !idmap_init(&sym.splices[1], 1024))
		return -1;
	sym.defs_buf = malloc(SYM_DEFS_PARTS * SYM_DEFS_BYTES);
	if (!sym.defs_buf || ilmap_init() != 0)
		return -1;
	cs_out_init(&sym.pending.frames, sym.defs_buf, SYM_DEFS_BYTES);
	cs_out_init(&sym.pending.frame_code, sym.defs_buf + SYM_DEFS_BYTES, SYM_DEFS_BYTES);
	cs_out_init(&sym.pending.stacks, sym.defs_buf + 2 * SYM_DEFS_BYTES, SYM_DEFS_BYTES);
	cs_out_init(&sym.pending.stack_il, sym.defs_buf + 3 * SYM_DEFS_BYTES, SYM_DEFS_BYTES);
	cs_out_init(&sym.pending.code_paths, sym.defs_buf + 4 * SYM_DEFS_BYTES, SYM_DEFS_BYTES);
	cs_out_init(&sym.pending.native_frames, sym.defs_buf + 5 * SYM_DEFS_BYTES, SYM_DEFS_BYTES);
	cs_out_init(&sym.pending.logical, sym.defs_buf + 6 * SYM_DEFS_BYTES, SYM_DEFS_BYTES);
	sym.next_frame = CS_FRAME_FIRST_FUNCTION;
	sym.next_site = 1;
	sym.next_stack = 1;
	sym.next_thread = 1;
	sym.cap = SYM_TABLE_CAP_DEFAULT;
	stubnames_open(g_agent.session_dir, getpid());
	return 0;
}

void sym_set_table_cap(uint32_t cap)
{
	sym.cap = cap < SYM_TABLE_CAP_MIN ? SYM_TABLE_CAP_MIN : cap;
}

static void epochs_restart(struct epochs *e, uint64_t base)
{
	free(e->v);
	e->v = NULL;
	e->cap = 0;
	e->base = base;
}

static void (*id_space_hook)(void); /* sym_set_id_space_hook's */

void sym_set_id_space_hook(void (*hook)(void))
{
	id_space_hook = hook;
}

/* The frame or stack table is full: forget both (a stack names its frames)
 * and go on with ids after every one given so far, so that the reader never
 * sees an id mean two things.  What recurs is defined again.  The classes'
 * names are only a cache: dropped too. */
static void new_id_space(const char *which)
{
	idmap_free(&sym.functions);
	idmap_free(&sym.stacks);
	idmap_free(&sym.sites);
	idmap_free(&sym.classes);
	idmap_free(&sym.dynamic_names);
	idmap_free(&sym.dynamic_epochs);
	idmap_free(&sym.splices[0]);
	idmap_free(&sym.splices[1]);
	for (size_t i = 0; i < sym.nclass_names; i++)
		free(sym.class_names[i]);
	sym.nclass_names = 0;
	sym.next_site = 1;
	sym.nnatives = 0;
	memset(sym.stub_frames, 0, sizeof sym.stub_frames);
	if (!idmap_init(&sym.functions, 4096) || !idmap_init(&sym.stacks, 16384) || !idmap_init(&sym.sites, 4096) ||
	    !idmap_init(&sym.classes, 64) || !idmap_init(&sym.dynamic_names, 64) || !idmap_init(&sym.dynamic_epochs, 64) ||
	    !idmap_init(&sym.splices[0], 1024) || !idmap_init(&sym.splices[1], 1024))
		lw_message(CS_LEVEL_ERROR, "out of memory starting a new id space");
	epochs_restart(&sym.frame_written, sym.next_frame);
	epochs_restart(&sym.stack_written, sym.next_stack);
	epochs_restart(&sym.logical_written, sym.next_stack);
	if (id_space_hook)
		id_space_hook(); /* stacks kept elsewhere are of the old space */
	/* said at the 1st, 10th, 100th ...: a cap below what the program
	 * needs makes one every tick */
	ids_stamp++;
	uint32_t n = ++sym.id_spaces;
	while (n % 10 == 0)
		n /= 10;
	if (n == 1)
		lw_message(CS_LEVEL_WARNING,
			   "the agent's %s table reached %u entries: it starts a new id space (%u so far); frames "
			   "and stacks are defined again as they recur",
			   which, sym.cap, sym.id_spaces);
}

/* Before a new entry: room for it, or a new id space. */
static void make_room(void)
{
	if (sym.functions.count >= sym.cap)
		new_id_space("frame");
	else if (sym.stacks.count >= sym.cap || sym.sites.count >= sym.cap)
		new_id_space("stack");
	else if (sym.classes.count >= sym.cap)
		new_id_space("class name");
}

void sym_fini(void)
{
	pthread_mutex_lock(&metadata_mu);
	for (size_t i = 0; i < sym.nmetadata; i++)
		if (sym.metadata[i])
			sym.metadata[i]->vtbl->Release(sym.metadata[i]);
	free(sym.metadata);
	for (size_t i = 0; i < sym.nclass_names; i++)
		free(sym.class_names[i]);
	free(sym.class_names);
	free(sym.thread_info);
	idmap_free(&sym.classes);
	idmap_free(&sym.dynamic_names);
	idmap_free(&sym.dynamic_epochs);
	idmap_free(&sym.functions);
	idmap_free(&sym.stacks);
	idmap_free(&sym.sites);
	idmap_free(&sym.threads);
	idmap_free(&sym.modules);
	idmap_free(&sym.splices[0]);
	idmap_free(&sym.splices[1]);
	free(sym.frame_written.v);
	free(sym.stack_written.v);
	free(sym.logical_written.v);
	free(sym.thread_written.v);
	free(sym.defs_buf);
	for (uint32_t i = 0; i < sym.ncode_paths; i++)
		free(sym.code_paths[i].path);
	free(sym.code_paths);
	ilmap_fini();
	stubnames_close();
	memset(&sym, 0, sizeof sym);
	ids_stamp++;
	pthread_mutex_unlock(&metadata_mu);
}

static IMetaDataImport *module_metadata_locked(ModuleID mod)
{
	uint32_t idx;
	if (idmap_get(&sym.modules, mod, &idx))
		return sym.metadata[idx];
	IUnknown *unk = NULL;
	IMetaDataImport *md = NULL;
	ICorProfilerInfo10 *info = g_agent.info;
	if (SUCCEEDED(info->vtbl->GetModuleMetaData(info, mod, ofRead, &IID_IMetaDataImport, &unk)) && unk) {
		if (FAILED(unk->vtbl->QueryInterface(unk, &IID_IMetaDataImport, (void **)&md)))
			md = NULL;
		unk->vtbl->Release(unk);
	}
	if (!agent_grow(&sym.metadata, &sym.metadata_cap, sym.nmetadata + 1, sizeof *sym.metadata, 32))
		return md; /* uncached: still usable once (leaks one ref) */
	sym.metadata[sym.nmetadata] = md;
	idmap_put(&sym.modules, mod, (uint32_t)sym.nmetadata++);
	return md;
}

/* The interface stays valid after the unlock: cached ones are released only
 * by sym_fini, after detach, when no callback runs any more. */
static IMetaDataImport *module_metadata(ModuleID mod)
{
	pthread_mutex_lock(&metadata_mu);
	IMetaDataImport *md = module_metadata_locked(mod);
	pthread_mutex_unlock(&metadata_mu);
	return md;
}

IMetaDataImport *sym_module_metadata(ModuleID mod)
{
	return module_metadata(mod);
}

bool sym_field_offset(ClassID cls, ModuleID mod, mdTypeDef td, const WCHAR *name, uint32_t *offset)
{
	IMetaDataImport *md = module_metadata(mod);
	mdFieldDef field = 0;
	if (!md || FAILED(md->vtbl->FindField(md, td, name, NULL, 0, &field)))
		return false;
	ICorProfilerInfo10 *info = g_agent.info;
	COR_FIELD_OFFSET fields[FIELDS_MAX];
	ULONG n = 0, size = 0;
	if (FAILED(info->vtbl->GetClassLayout(info, cls, fields, FIELDS_MAX, &n, &size)))
		return false;
	for (ULONG i = 0; i < n && i < FIELDS_MAX; i++) {
		if (fields[i].ridOfField == field) {
			*offset = fields[i].ulOffset;
			return true;
		}
	}
	return false;
}

static size_t wide_to_utf8(const WCHAR *w, ULONG n, char *out, size_t cap)
{
	return cs_utf16_to_utf8((const uint16_t *)w, n, out, cap);
}

/* "Namespace.Outer+Inner" for a TypeDef, nested types walked outward. */
static void type_name(IMetaDataImport *md, mdTypeDef td, char *out, size_t cap)
{
	mdTypeDef chain[NESTING_MAX];
	int depth = 0;
	chain[depth++] = td;
	while (depth < NESTING_MAX) {
		mdTypeDef outer = 0;
		if (FAILED(md->vtbl->GetNestedClassProps(md, chain[depth - 1], &outer)) || !outer)
			break;
		chain[depth++] = outer;
	}
	size_t len = 0;
	out[0] = 0;
	for (int i = depth - 1; i >= 0; i--) {
		WCHAR w[512];
		ULONG wlen = 0;
		DWORD flags = 0;
		mdToken extends = 0;
		if (FAILED(md->vtbl->GetTypeDefProps(md, chain[i], w, 512, &wlen, &flags, &extends)))
			snprintf(out + len, cap - len, "%s[type 0x%08x]", i == depth - 1 ? "" : "+", chain[i]);
		else {
			if (i != depth - 1 && len + 1 < cap)
				out[len++] = '+';
			wide_to_utf8(w, wlen, out + len, cap - len);
		}
		len = strlen(out);
	}
}

/* A module's path and file name. */
static void module_name(ModuleID mod, char *module, size_t module_cap, char *path, size_t path_cap)
{
	ICorProfilerInfo10 *info = g_agent.info;
	WCHAR wmod[512];
	ULONG wlen = 0;
	LPCBYTE base = NULL;
	AssemblyID asm_id = 0;
	if (FAILED(info->vtbl->GetModuleInfo(info, mod, &base, 512, &wlen, wmod, &asm_id)))
		return;
	wide_to_utf8(wmod, wlen, path, path_cap);
	const char *slash = strrchr(path, '/');
	const char *base_name = slash ? slash + 1 : path;
	size_t n = strlen(base_name);
	if (n >= module_cap)
		n = module_cap - 1;
	memcpy(module, base_name, n);
	module[n] = 0;
}

/* A method without metadata, named as the runtime's event stream names it:
 * "dynamicClass.NAME" for a DynamicMethod, "ILStubClass.IL_STUB_..." for
 * the runtime's marshalling stubs; no token, no source. */
static bool dynamic_function_name(FunctionID fn, char *name, size_t name_cap, char *module, size_t module_cap)
{
	ICorProfilerInfo10 *info = g_agent.info;
	BOOL dynamic = FALSE;
	if (FAILED(info->vtbl->IsFunctionDynamic(info, fn, &dynamic)) || !dynamic)
		return false;
	ModuleID mod = 0;
	PCCOR_SIGNATURE sig = NULL;
	ULONG sig_len = 0, wlen = 0;
	WCHAR wname[512];
	if (FAILED(info->vtbl->GetDynamicFunctionInfo(info, fn, &mod, &sig, &sig_len, 512, &wlen, wname)))
		return false;
	char method[512], path[NAME_MAX_UTF8];
	wide_to_utf8(wname, wlen, method, sizeof method);
	snprintf(name, name_cap, "%s.%s", strncmp(method, "IL_STUB", 7) == 0 ? "ILStubClass" : "dynamicClass", method);
	if (mod)
		module_name(mod, module, module_cap, path, sizeof path);
	return true;
}

/* Its name, its module's file name, and where its code came from: the
 * MethodDef token and the module's path (empty for one not from a file).
 * True for a dynamic method. */
static bool function_name(FunctionID fn, char *name, size_t name_cap, char *module, size_t module_cap,
			  uint32_t *token, char *path, size_t path_cap)
{
	ICorProfilerInfo10 *info = g_agent.info;
	ClassID cls = 0;
	ModuleID mod = 0;
	mdToken tok = 0;
	snprintf(name, name_cap, "[function 0x%llx]", (unsigned long long)fn);
	module[0] = 0;
	path[0] = 0;
	*token = 0;
	if (dynamic_function_name(fn, name, name_cap, module, module_cap))
		return true;
	if (FAILED(info->vtbl->GetFunctionInfo(info, fn, &cls, &mod, &tok)))
		return false;
	*token = tok;
	module_name(mod, module, module_cap, path, path_cap);
	IMetaDataImport *md = module_metadata(mod);
	if (!md)
		return false;
	mdTypeDef td = 0;
	WCHAR wname[512];
	ULONG wname_len = 0;
	DWORD attr = 0, impl = 0;
	PCCOR_SIGNATURE sig = NULL;
	ULONG sig_len = 0, rva = 0;
	if (FAILED(md->vtbl->GetMethodProps(md, tok, &td, wname, 512, &wname_len, &attr, &sig, &sig_len, &rva, &impl)))
		return false;
	char type[NAME_MAX_UTF8], method[512];
	type[0] = 0;
	if (td)
		type_name(md, td, type, sizeof type);
	wide_to_utf8(wname, wname_len, method, sizeof method);
	snprintf(name, name_cap, "%s%s%s", type, type[0] ? "." : "", method);
	return false;
}

/* The reference of an assembly path, defined (CODE_PATH) when this drop
 * epoch has not seen it; 0 when out of memory or room. */
static uint64_t code_path_ref(const char *path, struct sym_defs *d)
{
	uint32_t i = 0;
	while (i < sym.ncode_paths && strcmp(sym.code_paths[i].path, path) != 0)
		i++;
	if (i == sym.ncode_paths) {
		if (!agent_grow(&sym.code_paths, &sym.code_paths_cap, sym.ncode_paths + 1, sizeof *sym.code_paths, 32))
			return 0;
		char *copy = strdup(path);
		if (!copy)
			return 0;
		sym.code_paths[sym.ncode_paths++] = (struct code_path){copy, 0};
	}
	struct code_path *cp = &sym.code_paths[i];
	if (cp->written != lw_drop_epoch() + 1) {
		struct cs_code_path def = {i + 1u, {cp->path, strlen(cp->path)}};
		size_t before = d->code_paths.len;
		cs_code_path_encode(&d->code_paths, &def);
		if (d->code_paths.overflow) {
			d->code_paths.len = before;
			d->code_paths.overflow = false;
			return 0;
		}
		cp->written = lw_drop_epoch() + 1;
	}
	return i + 1u;
}

/* A frame's definition and where its code came from, all or nothing: for
 * a method from an assembly file its token there (token 0: none), for a
 * native function (native) its place in its module's file at path. */
static void define_frame(uint64_t id, const char *name, const char *module, uint32_t token, const char *path,
			 const struct native_function *native, struct sym_defs *d)
{
	struct cs_frame_def f = {id, {name, strlen(name)}, {module, strlen(module)}};
	size_t before = d->frames.len, code_before = d->frame_code.len, native_before = d->native_frames.len;
	cs_frame_def_encode(&d->frames, &f);
	uint64_t path_ref = native || (token && path[0] == '/') ? code_path_ref(path, d) : 0; /* a native's: a file or the vDSO */
	if (path_ref && native) {
		struct cs_native_frame n = {id, path_ref, native->file_address,
					    {(const char *)native->build_id, native->build_id_len}};
		cs_native_frame_encode(&d->native_frames, &n);
	} else if (path_ref) {
		struct cs_frame_code c = {id, token, path_ref};
		cs_frame_code_encode(&d->frame_code, &c);
	}
	if (d->frames.overflow || d->frame_code.overflow || d->native_frames.overflow) {
		/* no room this tick: roll back, it will be written next time */
		d->frames.len = before;
		d->frame_code.len = code_before;
		d->native_frames.len = native_before;
		d->frames.overflow = d->frame_code.overflow = d->native_frames.overflow = false;
		return;
	}
	epochs_mark(&sym.frame_written, id);
}

struct sym_defs *sym_defs(void)
{
	return &sym.pending;
}

size_t sym_defs_pending(void)
{
	const struct sym_defs *d = &sym.pending;
	return d->frames.len + d->frame_code.len + d->stacks.len + d->stack_il.len + d->code_paths.len +
	       d->native_frames.len + d->logical.len;
}

uint64_t sym_pseudo_frame(uint64_t frame_id, struct sym_defs *d)
{
	if (!epochs_is_current(&sym.frame_written, frame_id))
		define_frame(frame_id, cs_label(cs_pseudo_frame_label(frame_id)), "", 0, "", NULL, d);
	return frame_id;
}

/* A native function, by its start (never a FunctionID: those are not
 * code addresses): "[native]" in its module, and where it is in its file
 * for the reading side to name; *label, the label its module's code gets
 * whatever its function (CS_LABELS: none). */
static bool native_function_frame(uint64_t addr, struct sym_defs *d, uint64_t *frame, enum cs_label *label)
{
	struct native_function nf;
	if (!codemap_native_function(addr, &nf))
		return false;
	*label = cs_module_label(nf.name);
	uint32_t id;
	bool known = idmap_get(&sym.functions, nf.start, &id);
	if (!known) {
		make_room();
		id = sym.next_frame++;
		idmap_put(&sym.functions, nf.start, id);
	}
	if (!epochs_is_current(&sym.frame_written, id))
		define_frame(id, cs_label(CS_LABEL_NATIVE), nf.name, 0, nf.path, &nf, d);
	*frame = id;
	return true;
}

uint64_t sym_awaiting_frame(ClassID type, struct sym_defs *d)
{
	/* keyed by the type's MethodTable in the functions' map: no
	 * MethodDesc or code starts there */
	uint32_t id;
	if (!idmap_get(&sym.functions, type, &id)) {
		make_room();
		id = sym.next_frame++;
		idmap_put(&sym.functions, type, id);
	}
	if (!epochs_is_current(&sym.frame_written, id)) {
		char name[NAME_MAX_UTF8], label[NAME_MAX_UTF8 + 16];
		sym_class_name(type, name, sizeof name);
		cs_label_awaiting(name, label, sizeof label);
		define_frame(id, label, "", 0, "", NULL, d);
	}
	return id;
}

/* A runtime stub: by its kind where the runtime's perf map tells it
 * (stubnames.h), else [runtime stub]. */
static uint64_t stub_frame(uint64_t addr, struct sym_defs *d)
{
	int kind = stubnames_kind_at(addr);
	if (kind < 0)
		return sym_pseudo_frame(CS_FRAME_STUB, d);
	uint32_t *id = &sym.stub_frames[kind];
	if (!*id) {
		make_room();
		*id = sym.next_frame++;
	}
	if (!epochs_is_current(&sym.frame_written, *id)) {
		char label[STUBNAMES_KIND_MAX + 16];
		cs_label_stub(stubnames_kind_name(kind), label, sizeof label);
		define_frame(*id, label, "", 0, "", NULL, d);
	}
	return *id;
}

/* A native frame from the leaf to the first managed one (leaf), named by
 * its function where the module's unwind table places it (*function, with
 * its module's *label); else, and for a run of them between managed
 * frames, by the module ("[native]" in libcoreclr.so), as the runtime's
 * own walks see them too (one frame, no address): stacks from either
 * walker then share their callers. */
static uint64_t native_frame(uint64_t addr, bool leaf, struct sym_defs *d, bool *function, enum cs_label *label)
{
	uint64_t frame;
	*label = CS_LABELS;
	*function = addr && leaf && native_function_frame(addr, d, &frame, label);
	if (*function)
		return frame;
	const char *module = addr ? codemap_module_name(addr) : "";
	if (!module[0] && addr && leaf) /* code no module holds: a stub the runtime generated */
		return stub_frame(addr, d);
	if (!module[0])
		return sym_pseudo_frame(CS_FRAME_NATIVE, d);
	struct native_module *nm = NULL;
	for (uint32_t i = 0; i < sym.nnatives && !nm; i++)
		if (!strcmp(sym.natives[i].name, module))
			nm = &sym.natives[i];
	if (!nm) {
		if (sym.nnatives == NATIVE_MODULES)
			return sym_pseudo_frame(CS_FRAME_NATIVE, d);
		make_room();
		nm = &sym.natives[sym.nnatives++];
		snprintf(nm->name, sizeof nm->name, "%s", module);
		nm->frame = sym.next_frame++;
	}
	if (!epochs_is_current(&sym.frame_written, nm->frame))
		define_frame(nm->frame, cs_label(CS_LABEL_NATIVE), nm->name, 0, "", NULL, d);
	return nm->frame;
}

static uint32_t name_hash(const char *name)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 16777619u;
	return h;
}

/* A dynamic method's FunctionID outlives it: the runtime gives a collected
 * one's to the next it makes.  After a dynamic compilation its name is read
 * again, and a frame named otherwise now is a new frame. */
static bool dynamic_renamed(FunctionID fn)
{
	uint32_t seen, hash = 0, epoch = codemap_dynamic_epoch();
	if (!idmap_get(&sym.dynamic_epochs, fn, &seen) || seen == epoch)
		return false;
	char name[NAME_MAX_UTF8], module[256], path[NAME_MAX_UTF8];
	uint32_t token;
	function_name(fn, name, sizeof name, module, sizeof module, &token, path, sizeof path);
	idmap_get(&sym.dynamic_names, fn, &hash);
	idmap_put(&sym.dynamic_epochs, fn, epoch);
	return name_hash(name) != hash;
}

uint64_t sym_frame(FunctionID fn, struct sym_defs *d)
{
	if (!fn)
		return sym_pseudo_frame(CS_FRAME_NATIVE, d);
	uint32_t id;
	bool known = idmap_get(&sym.functions, fn, &id) && !dynamic_renamed(fn);
	if (known && epochs_is_current(&sym.frame_written, id))
		return id;
	if (!known) {
		make_room();
		id = sym.next_frame++;
		idmap_put(&sym.functions, fn, id);
	}
	char name[NAME_MAX_UTF8], module[256], path[NAME_MAX_UTF8];
	uint32_t token;
	uint32_t epoch = codemap_dynamic_epoch(); /* before the name is read */
	if (function_name(fn, name, sizeof name, module, sizeof module, &token, path, sizeof path)) {
		idmap_put(&sym.dynamic_names, fn, name_hash(name));
		idmap_put(&sym.dynamic_epochs, fn, epoch);
	}
	define_frame(id, name, module, token, path, NULL, d);
	return id;
}

/* A frame at an IL offset: a small number, so that a stack's key fits in
 * 64 bits. */
static uint32_t site_of(uint64_t frame, uint32_t il_offset)
{
	uint64_t key = (frame << 32) | (il_offset == ILMAP_NONE ? 0u : (uint64_t)il_offset + 1u);
	uint32_t site;
	if (idmap_get(&sym.sites, key, &site))
		return site;
	site = sym.next_site++;
	idmap_put(&sym.sites, key, site);
	return site;
}

/* The stack id map gives for key, defined (again) as parent and frame
 * when it is not written in this drop epoch. */
static uint64_t stack_in(struct idmap *map, uint64_t key, uint64_t parent, uint64_t frame, uint32_t il_offset,
			 struct sym_defs *d)
{
	uint32_t id;
	bool known = idmap_get(map, key, &id);
	if (known && epochs_is_current(&sym.stack_written, id))
		return id;
	if (!known) {
		if (sym.stacks.count >= sym.cap) /* parent and frame stay defined in the old space */
			new_id_space("stack");
		id = sym.next_stack++;
		idmap_put(map, key, id);
	}
	struct cs_stack_def s = {id, parent, frame};
	size_t before = d->stacks.len, il_before = d->stack_il.len;
	cs_stack_def_encode(&d->stacks, &s);
	if (il_offset != ILMAP_NONE) {
		struct cs_stack_il si = {id, il_offset};
		cs_stack_il_encode(&d->stack_il, &si);
	}
	if (d->stacks.overflow || d->stack_il.overflow) {
		d->stacks.len = before;
		d->stack_il.len = il_before;
		d->stacks.overflow = d->stack_il.overflow = false;
	} else {
		epochs_mark(&sym.stack_written, id);
	}
	return id;
}

uint64_t sym_stack(uint64_t parent, uint64_t frame, uint32_t il_offset, struct sym_defs *d)
{
	return stack_in(&sym.stacks, (parent << 32) | site_of(frame, il_offset), parent, frame, il_offset, d);
}

uint64_t sym_splice(uint64_t parent, bool resolved, uint64_t physical, struct sym_defs *d)
{
	uint64_t frame = sym_pseudo_frame(resolved ? CS_FRAME_AWAIT : CS_FRAME_AWAIT_UNRESOLVED, d);
	if (sym.stacks.count + sym.splices[0].count + sym.splices[1].count >= sym.cap)
		new_id_space("stack"); /* (ids of the old space stay defined in the log) */
	return stack_in(&sym.splices[!resolved], (parent << 32) | physical, parent, frame, ILMAP_NONE, d);
}

void sym_logical(uint64_t logical, uint64_t physical, struct sym_defs *d)
{
	if (epochs_is_current(&sym.logical_written, logical))
		return;
	size_t before = d->logical.len;
	struct cs_logical l = {logical, physical};
	cs_logical_encode(&d->logical, &l);
	if (d->logical.overflow) {
		d->logical.len = before;
		d->logical.overflow = false;
	} else {
		epochs_mark(&sym.logical_written, logical);
	}
}

uint32_t sym_ids_stamp(void)
{
	return ids_stamp;
}

void sym_flush_defs(struct sym_defs *d)
{
	/* frames first: stacks refer to them; each part after what it adds to */
	if (d->frames.len)
		lw_append_record(CS_REC_FRAMES, d->frames.buf, d->frames.len);
	if (d->code_paths.len)
		lw_append_record(CS_REC_CODE_PATH, d->code_paths.buf, d->code_paths.len);
	if (d->frame_code.len)
		lw_append_record(CS_REC_FRAME_CODE, d->frame_code.buf, d->frame_code.len);
	if (d->native_frames.len)
		lw_append_record(CS_REC_NATIVE_FRAME, d->native_frames.buf, d->native_frames.len);
	if (d->stacks.len)
		lw_append_record(CS_REC_STACKS, d->stacks.buf, d->stacks.len);
	if (d->stack_il.len)
		lw_append_record(CS_REC_STACK_IL, d->stack_il.buf, d->stack_il.len);
	if (d->logical.len)
		lw_append_record(CS_REC_LOGICAL, d->logical.buf, d->logical.len);
	d->frames.len = d->frame_code.len = d->stacks.len = d->stack_il.len = d->code_paths.len = 0;
	d->native_frames.len = d->logical.len = 0;
}

static struct thread_info *thread_info_of(uint32_t ref)
{
	if (!agent_grow(&sym.thread_info, &sym.thread_info_cap, ref + 1, sizeof *sym.thread_info, 64))
		return NULL;
	return &sym.thread_info[ref];
}

/* The kernel's name of one of this process's threads (its comm, which the
 * runtime sets for its own threads and for a managed name); false when it
 * cannot be read. */
static bool read_comm(uint32_t os_tid, char *out, size_t n)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%u/comm", os_tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t len = read(fd, out, n - 1);
	close(fd);
	if (len <= 0)
		return false;
	out[len] = 0;
	out[strcspn(out, "\n")] = 0;
	return true;
}

static void write_thread(ThreadID tid, uint32_t ref)
{
	struct thread_info *ti = thread_info_of(ref);
	if (ti && !ti->os_tid) {
		DWORD os_tid = 0;
		if (SUCCEEDED(g_agent.info->vtbl->GetThreadInfo(g_agent.info, tid, &os_tid)))
			ti->os_tid = os_tid;
	}
	if (ti && ti->os_tid)
		read_comm(ti->os_tid, ti->os_name, sizeof ti->os_name);
	const char *name = ti ? ti->name : "", *os_name = ti ? ti->os_name : "";
	struct cs_thread t = {.ref = ref, .runtime_id = tid, .os_tid = ti ? ti->os_tid : 0,
			      .name = {name, strlen(name)}, .os_name = {os_name, strlen(os_name)}};
	uint8_t payload[160];
	struct cs_out o;
	cs_out_init(&o, payload, sizeof payload);
	cs_thread_encode(&o, &t);
	if (lw_append_record(CS_REC_THREAD, o.buf, o.len))
		epochs_mark(&sym.thread_written, ref);
}

/* A thread names itself as it starts, maybe after the agent first wrote
 * it: its comm is read again at its 16th, 256th and 4096th sample or
 * event, and written when it changed. */
static void recheck_comm(ThreadID tid, uint32_t ref)
{
	struct thread_info *ti = ref < sym.thread_info_cap ? &sym.thread_info[ref] : NULL;
	if (!ti || !ti->os_tid || ti->uses > 4096)
		return;
	uint32_t uses = ++ti->uses;
	char now[sizeof ti->os_name];
	if ((uses == 16 || uses == 256 || uses == 4096) && read_comm(ti->os_tid, now, sizeof now) &&
	    strcmp(now, ti->os_name) != 0)
		write_thread(tid, ref);
}

uint64_t sym_thread(ThreadID tid)
{
	uint32_t ref;
	bool known = idmap_get(&sym.threads, tid, &ref);
	if (known && epochs_is_current(&sym.thread_written, ref)) {
		recheck_comm(tid, ref);
		return ref;
	}
	if (!known) {
		ref = sym.next_thread++;
		idmap_put(&sym.threads, tid, ref);
	}
	write_thread(tid, ref);
	return ref;
}

void sym_thread_name(ThreadID tid, const char *name)
{
	uint32_t ref = (uint32_t)sym_thread(tid);
	struct thread_info *ti = thread_info_of(ref);
	if (!ti)
		return;
	snprintf(ti->name, sizeof ti->name, "%s", name);
	write_thread(tid, ref);
}

void sym_thread_os(ThreadID tid, uint32_t os_tid)
{
	uint32_t ref = (uint32_t)sym_thread(tid);
	struct thread_info *ti = thread_info_of(ref);
	if (!ti || ti->os_tid == os_tid)
		return;
	ti->os_tid = os_tid;
	write_thread(tid, ref);
}

uint32_t sym_thread_os_of(uint64_t ref)
{
	return ref < sym.thread_info_cap ? sym.thread_info[ref].os_tid : 0;
}

/* The activities' frames on top of stack, outermost first: a compilation
 * under the method it compiles when managed code below is calling it (not
 * when the frame below is that method, an OSR body compiled from its own
 * loop, nor on a thread with no managed frame below: the runtime's
 * background compiler, which compiles hot methods again at tier 1, calls
 * none of them, and the runtime's own walk shows no frame there), one frame
 * for nested type loads. */
static uint64_t push_activity(uint64_t stack, FunctionID below, const struct activity *act, struct sym_defs *d)
{
	enum act_kind last = 0;
	bool called = below != 0;
	for (uint8_t k = 0; k < act->n && k < ACT_DEPTH; k++) {
		enum act_kind kind = act_word_kind(act->word[k]);
		FunctionID fn = act_word_function(act->word[k]);
		if (kind == last && kind != ACT_JIT)
			continue;
		if (kind == ACT_JIT && fn && called && fn != below)
			stack = sym_stack(stack, sym_frame(fn, d), ILMAP_NONE, d);
		uint64_t frame = kind == ACT_JIT ? CS_FRAME_JIT : kind == ACT_GC ? CS_FRAME_GC : CS_FRAME_TYPE_LOAD;
		stack = sym_stack(stack, sym_pseudo_frame(frame, d), ILMAP_NONE, d);
		below = 0;
		called = true; /* a compilation nested in another activity: named */
		last = kind;
	}
	return stack;
}

static bool memo_valid(const struct sym_memo *memo, bool truncated)
{
	return memo->ids_stamp == ids_stamp && memo->code_stamp == codemap_generation() + 1 &&
	       memo->drop_stamp == lw_drop_epoch() + 1 && memo->dynamic_stamp == codemap_dynamic_epoch() &&
	       memo->truncated == truncated;
}

/* frames[n - 1] .. frames[0] on top of stack base (0: a root). */
static uint64_t stack_above(uint64_t base, const FunctionID *frames, const uint64_t *addrs, uint32_t n,
			    bool truncated, bool leaf_maybe_call, const struct activity *act, struct sym_defs *d,
			    struct sym_memo *memo)
{
	uint64_t stack = base;
	if (truncated && !base)
		stack = sym_stack(0, sym_pseudo_frame(CS_FRAME_TRUNCATED, d), ILMAP_NONE, d);
	/* the native run at the leaf is the activity's work: it goes, but for
	 * its outermost frame when nothing managed is below it */
	uint32_t skip = 0;
	if (act && act->n && n && frames[0] && !leaf_maybe_call)
		act = NULL; /* a capture in managed code: the note is stale */
	if (act && act->n) {
		while (skip < n && !frames[skip])
			skip++;
		if (skip == n && n)
			skip = n - 1;
	}
	bool named_leaf = !act || !act->n; /* else the leaf's native run is the activity */
	uint32_t lead = 0; /* the native frames from the leaf to the first managed one */
	while (lead < n && !frames[lead])
		lead++;
	uint64_t last = 0;
	enum cs_label last_label = CS_LABELS;
	/* the root part the thread's last walk had: its ids, while they are
	 * still written (an id whose definition did not fit the buffer is not
	 * kept, so that it is defined again) */
	bool reuse = memo && addrs && memo_valid(memo, truncated);
	uint32_t kept = 0;
	for (uint32_t i = n; i-- > skip;) {
		uint32_t depth = n - 1 - i;
		if (reuse && i >= lead && i > 0 && depth < memo->n && memo->fn[depth] == frames[i] &&
		    memo->addr[depth] == addrs[i]) {
			stack = memo->stack[depth];
			kept = depth + 1;
			continue;
		}
		reuse = false;
		uint32_t il = addrs && frames[i] ? ilmap_offset(frames[i], addrs[i], leaf_maybe_call && i == 0)
						 : ILMAP_NONE;
		bool function = false;
		enum cs_label label = CS_LABELS;
		uint64_t frame = frames[i] ? sym_frame(frames[i], d)
					   : native_frame(addrs ? addrs[i] : 0, named_leaf && i < lead, d, &function, &label);
		if (!frames[i] && ((!function && frame == last) || (label != CS_LABELS && label == last_label)))
			continue; /* frames of one module not placed by function, or of one labelled
				     whatever its function (the JIT's, the profiler's): one frame */
		last = frame;
		last_label = label;
		stack = sym_stack(stack, frame, il, d);
		if (memo && addrs && i > 0 && depth == kept && depth < SYM_MEMO_DEPTH &&
		    epochs_is_current(&sym.stack_written, stack)) {
			memo->fn[depth] = frames[i];
			memo->addr[depth] = addrs[i];
			memo->stack[depth] = stack;
			kept = depth + 1;
		}
	}
	if (memo && addrs) {
		memo->n = kept;
		memo->ids_stamp = ids_stamp;
		memo->code_stamp = codemap_generation() + 1;
		memo->drop_stamp = lw_drop_epoch() + 1;
		memo->dynamic_stamp = codemap_dynamic_epoch();
		memo->truncated = truncated;
	}
	if (act && act->n)
		stack = push_activity(stack, skip < n ? frames[skip] : 0, act, d);
	return stack;
}

uint64_t sym_stack_of_memo(const FunctionID *frames, const uint64_t *addrs, uint32_t n, bool truncated,
			   bool leaf_maybe_call, const struct activity *act, struct sym_defs *d,
			   struct sym_memo *memo)
{
	return stack_above(0, frames, addrs, n, truncated, leaf_maybe_call, act, d, memo);
}

uint64_t sym_stack_above(uint64_t base, const FunctionID *frames, const uint64_t *addrs, uint32_t n,
			 bool leaf_maybe_call, const struct activity *act, struct sym_defs *d)
{
	return stack_above(base, frames, addrs, n, false, leaf_maybe_call, act, d, NULL);
}

uint64_t sym_stack_of(const FunctionID *frames, const uint64_t *addrs, uint32_t n, bool truncated,
		      bool leaf_maybe_call, const struct activity *act, struct sym_defs *d)
{
	return sym_stack_of_memo(frames, addrs, n, truncated, leaf_maybe_call, act, d, NULL);
}

static const char *primitive_name(CorElementType t)
{
	static const char *const names[] = {
		[0x2] = "System.Boolean", [0x3] = "System.Char",   [0x4] = "System.SByte",   [0x5] = "System.Byte",
		[0x6] = "System.Int16",   [0x7] = "System.UInt16", [0x8] = "System.Int32",   [0x9] = "System.UInt32",
		[0xa] = "System.Int64",   [0xb] = "System.UInt64", [0xc] = "System.Single",  [0xd] = "System.Double",
		[0xe] = "System.String",  [0x18] = "System.IntPtr", [0x19] = "System.UIntPtr", [0x1c] = "System.Object",
	};
	return t < sizeof names / sizeof *names && names[t] ? names[t] : "[element]";
}

#define TYPE_ARGS_MAX 8
#define CLASS_NESTING_MAX 4

/* "Namespace.Type", "Element[]", "List`1<Namespace.Arg>": what a ClassID is. */
static void describe_class(ClassID cls, char *out, size_t n, int depth)
{
	ICorProfilerInfo10 *info = g_agent.info;
	snprintf(out, n, "[class 0x%llx]", (unsigned long long)cls);
	CorElementType elem = 0;
	ClassID elem_cls = 0;
	ULONG rank = 0;
	if (info->vtbl->IsArrayClass(info, cls, &elem, &elem_cls, &rank) == S_OK) {
		char inner[NAME_MAX_UTF8];
		if (elem_cls && depth < CLASS_NESTING_MAX)
			describe_class(elem_cls, inner, sizeof inner, depth + 1);
		else
			snprintf(inner, sizeof inner, "%s", primitive_name(elem));
		char commas[32] = "";
		for (ULONG i = 1; i < rank && i < sizeof commas; i++)
			commas[i - 1] = ',';
		snprintf(out, n, "%s[%s]", inner, commas);
		return;
	}
	ModuleID mod = 0;
	mdTypeDef td = 0;
	ClassID parent = 0, args[TYPE_ARGS_MAX];
	ULONG32 nargs = 0;
	if (FAILED(info->vtbl->GetClassIDInfo2(info, cls, &mod, &td, &parent, TYPE_ARGS_MAX, &nargs, args)))
		return;
	IMetaDataImport *md = module_metadata(mod);
	if (!md)
		return;
	type_name(md, td, out, n);
	if (nargs == 0 || depth >= CLASS_NESTING_MAX)
		return;
	size_t len = strlen(out);
	for (ULONG32 i = 0; i < nargs && i < TYPE_ARGS_MAX && len + 2 < n; i++) {
		out[len++] = i ? ',' : '<';
		describe_class(args[i], out + len, n - len, depth + 1);
		len = strlen(out);
	}
	if (len + 1 < n) {
		out[len++] = '>';
		out[len] = 0;
	}
}

void sym_class_name_uncached(ClassID cls, char *out, size_t n)
{
	if (cls)
		describe_class(cls, out, n, 0);
	else
		snprintf(out, n, "[unknown class]");
}

void sym_class_name(ClassID cls, char *out, size_t n)
{
	uint32_t idx;
	if (cls && idmap_get(&sym.classes, cls, &idx)) {
		snprintf(out, n, "%s", sym.class_names[idx]);
		return;
	}
	sym_class_name_uncached(cls, out, n);
	if (!cls)
		return;
	if (sym.classes.count >= sym.cap)
		make_room();
	if (!agent_grow(&sym.class_names, &sym.class_names_cap, sym.nclass_names + 1, sizeof *sym.class_names, 32))
		return;
	char *copy = strdup(out);
	if (!copy)
		return;
	sym.class_names[sym.nclass_names] = copy;
	idmap_put(&sym.classes, cls, (uint32_t)sym.nclass_names++);
}

void sym_function_name(FunctionID fn, char *out, size_t n)
{
	char module[256], path[NAME_MAX_UTF8];
	uint32_t token;
	function_name(fn, out, n, module, sizeof module, &token, path, sizeof path);
}
