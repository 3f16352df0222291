#include "agent/unwind/codemap.h"

#include "agent/log/logwriter.h"
#include "agent/unwind/memread.h"
#include "agent/unwind/nativeframe.h"
#include "agent/unwind/r2r.h"
#ifdef CLRSCOPE_WALK_PROBE
#include "agent/unwind/walkprobe.h"
#endif
#include "common/records.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define IP_SLOTS 65536 /* power of two */
#define IP_PROBES 8
#define BODIES 16384 /* power of two; forgotten at BODIES_CROWDED, so that a new body always finds a slot */
#define BODIES_CROWDED (BODIES / 4 * 3)
#define STARTS_MAX 16    /* native bodies asked for per function */
#define PROLOG_BYTES 96  /* the longest prolog the JIT writes is far shorter */
#define EPILOG_BYTES 48
#define MODULES 1024
#define IMAGES 512 /* managed modules whose ReadyToRun tables are known */
#define REGIONS 8192
#define MAPS_REFRESH_NS 100000000ull /* an address outside them rereads the maps at most this often */
#define MAPS_RECHECK_NS 2000000ull /* ... one that memory holds (new code): this often */
#define LINE_BYTES 64 /* a cached line never crosses a page: readable whole or not at all */
#define LINES 2048     /* power of two */
#define FACT_SLOTS 4096 /* power of two: addresses whose code bytes were looked at */
#define MODULE_REFRESH_NS 200000000ull /* an unknown address rescans the modules at most this often */
#define LIBRARY_REFRESH_NS 5000000ull  /* ... one in a shared object's mapping (one just loaded) */
#define FORGET_EVERY_NS 60000000000ull /* forgotten at least this often, whatever else happened */
#define FORGET_UNLOADED_NS 1000000000ull /* ... and at most this often for a crowded table or an
					      unloaded shared object */
#define LOADER_CHECK_NS 1000000000ull  /* the loader's count of unloads is asked this often */
#define FORGET_EVERY_BLIND_NS 10000000000ull /* ... where the loader does not count them */

enum {
	IP_KNOWN = 1,
	IP_EPILOG_CHECKED = 2,
	IP_EPILOG = 4,
	IP_DYNAMIC = 8,
	IP_CALL_CHECKED = 16, /* its call's frame from rsp was worked out: */
	IP_CALL_KNOWN = 32,   /* ... it is in call_cfa */
};

/* A managed body's code range, sorted by start (codemap_at's index of the
 * bodies known: an address in one needs no question to the runtime). */
struct body_range {
	uint64_t start, end;
	int32_t body;
};

struct ip_entry {
	uint64_t ip;
	FunctionID fn;
	int32_t body; /* index in bodies, -1: unknown */
	uint32_t flags;
	bool in_module;
	bool native_known;
	uint32_t modules_scan; /* not in a module as of this scan of the modules */
	uint32_t dynamic_epoch; /* code the runtime generated: the dynamic compilations seen when resolved */
	struct eh_rule rule;
	int32_t call_cfa; /* IP_CALL_KNOWN: the CFA as an offset from rsp after the call returns */
	uint8_t hijack_pushes;
};

/* An executable segment of a loaded module, and its .eh_frame_hdr. */
struct module {
	uint64_t lo, hi, eh_hdr;
	uint64_t bias;       /* load address: an address minus bias is the file's own (st_value) */
	char path[256];      /* the file it was loaded from ("" when too long, or the vDSO's: no file) */
	const char *name;    /* its file name, in path or name_only */
	bool vdso;           /* the kernel's vDSO: named as it names itself ("linux-vdso.so.1") */
	char name_only[64];
	uint8_t build_id[CODEMAP_BUILD_ID_MAX];
	uint8_t build_id_len;
};

struct image {
	ModuleID module;
	struct r2r_image r2r;
};

/* A readable or executable mapping of this process, from /proc/self/maps. */
struct region {
	uint64_t lo, hi;
	bool readable, exec;
	bool library; /* executable and mapped from a shared object's file */
};

static struct {
	struct ip_entry *ips;
	struct image *images;
	uint32_t nimages;
	struct code_body *bodies;
	struct body_range *ranges;
	uint32_t nranges;
	bool dirty;
	uint32_t generation;
	uint32_t walk_epoch; /* see codemap_walk_epoch */
	struct module *modules;
	uint32_t nmodules;
	uint64_t modules_ns;
	uint32_t modules_scan; /* scans of the modules so far */
	uint64_t loads[2];     /* the loader's counts of loads and unloads at the last scan */
	struct region *regions;
	uint32_t nregions;
	uint64_t maps_ns;
	uint32_t lines_stamp; /* lines read under another stamp are stale */
	uint32_t kept_ips;    /* addresses kept since the last forgetting */
	uint32_t nbodies;     /* bodies kept since then */
	uint32_t unloads_seen; /* code_unloads then */
	uint64_t loader_subs; /* the loader's count of unloads then (UINT64_MAX: it does not say) */
	uint64_t forgot_ns, loader_checked_ns;
} m;

static _Atomic uint32_t code_unloads;

/* The address and body tables are 10 MiB of zero pages of which a program
 * uses a few hundred KiB: mapped on their own, so that forgetting gives
 * the used pages back (MADV_DONTNEED: they read as zeros again) instead of
 * a memset making all of them resident. */
static void *zero_pages(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void clear_pages(void *p, size_t len)
{
	if (madvise(p, len, MADV_DONTNEED) != 0)
		memset(p, 0, len);
}

int codemap_init(void)
{
	if (!m.ips)
		m.ips = zero_pages(IP_SLOTS * sizeof *m.ips);
	if (!m.bodies)
		m.bodies = zero_pages(BODIES * sizeof *m.bodies);
	if (!m.ranges)
		m.ranges = zero_pages(BODIES * sizeof *m.ranges);
	if (!m.modules)
		m.modules = calloc(MODULES, sizeof *m.modules);
	if (!m.images)
		m.images = calloc(IMAGES, sizeof *m.images);
	if (!m.regions)
		m.regions = calloc(REGIONS, sizeof *m.regions);
	memread_init();
	return m.ips && m.bodies && m.ranges && m.modules && m.images && m.regions ? 0 : -1;
}

static uint64_t loader_unloads(void);

void codemap_forget(void)
{
	m.forgot_ns = m.loader_checked_ns = agent_mono_ns();
	m.unloads_seen = atomic_load(&code_unloads);
	m.loader_subs = loader_unloads();
	if (!m.dirty)
		return;
	m.kept_ips = m.nbodies = 0;
	clear_pages(m.ips, IP_SLOTS * sizeof *m.ips);
	clear_pages(m.bodies, BODIES * sizeof *m.bodies);
	clear_pages(m.ranges, BODIES * sizeof *m.ranges);
	m.nranges = 0;
	m.dirty = false;
	m.generation++;
	m.walk_epoch++;
	m.lines_stamp++;
	m.nmodules = 0;
	m.modules_ns = 0;
	m.nimages = 0;
	m.nregions = 0;
	m.maps_ns = 0;
}

uint32_t codemap_generation(void)
{
	return m.generation;
}

uint32_t codemap_walk_epoch(void)
{
	return m.walk_epoch + 1;
}

static uint32_t hash(uint64_t v)
{
	return (uint32_t)((v * 0x9E3779B97F4A7C15ull) >> 40);
}

/* What the instruction bytes around an address say, read once per address:
 * code does not change while it lives, and the addresses asked about are
 * code a thread ran or returns to (forgotten with the rest of the map).
 * Samples land on the same few system calls and call sites again and
 * again, so a read per capture would be most of the sampler thread's
 * reads. */
struct code_fact {
	uint64_t addr;
	uint32_t generation; /* the map's, plus one (0: an empty slot) */
	int8_t facts;        /* CODE_* bits, -1: unreadable */
};
static struct code_fact code_facts[FACT_SLOTS];

/* before: the 8 bytes before the address, around: the 2 before it and 2
 * from it; window (NULL when they were read apart): the SYSCALL_WINDOW
 * bytes before the address, for the number of a syscall that ends there. */
#define SYSCALL_WINDOW 14
static int8_t facts_of(const uint8_t *before, bool has_before, const uint8_t *around, bool has_around,
		       const uint8_t *window)
{
	int found = has_before || has_around ? 0 : -1;
	if (has_before && x64_follows_call(before + 7, 8))
		found |= CODE_FOLLOWS_CALL;
	if (has_around && around[0] == 0x0f && around[1] == 0x05) {
		found |= CODE_AFTER_SYSCALL;
		int64_t nr = window ? x64_syscall_number(window + SYSCALL_WINDOW, SYSCALL_WINDOW) : -1;
		found |= nr == X64_LINUX_FUTEX ? CODE_FUTEX_SYSCALL : x64_linux_syscall_waits(nr) ? CODE_WAIT_SYSCALL : 0;
	}
	if (has_around && around[2] == 0x0f && around[3] == 0x05)
		found |= CODE_AT_SYSCALL;
	return (int8_t)found;
}

/* The bytes before addr and 2 from it, in one read where it can be (a new
 * leaf in a hot loop asks at every sample), else each part alone. */
static int8_t read_facts(uint64_t addr)
{
	uint8_t code[SYSCALL_WINDOW + 2];
	if (addr >= SYSCALL_WINDOW && memread(addr - SYSCALL_WINDOW, code, sizeof code) == 0)
		return facts_of(code + SYSCALL_WINDOW - 8, true, code + SYSCALL_WINDOW - 2, true, code);
	uint8_t before[8], around[4];
	bool has_before = addr >= 8 && memread(addr - 8, before, sizeof before) == 0;
	bool has_around = addr >= 2 && memread(addr - 2, around, sizeof around) == 0;
	return facts_of(before, has_before, around, has_around, NULL);
}

int codemap_code_facts(uint64_t addr)
{
	struct code_fact *f = &code_facts[hash(addr) & (FACT_SLOTS - 1)];
	if (f->generation != m.generation + 1 || f->addr != addr) {
		*f = (struct code_fact){addr, m.generation + 1, read_facts(addr)};
		m.dirty = true;
	}
	return f->facts;
}

/* The first range whose start is above addr. */
static uint32_t range_after(uint64_t addr)
{
	return agent_first_above(m.ranges, m.nranges, sizeof *m.ranges, offsetof(struct body_range, start), addr);
}

/* Indexes body b (not a dynamic method's: a later compilation may put other
 * code there).  Ranges it overlaps are stale (code freed and reused):
 * dropped. */
static void index_body(int32_t b)
{
	const struct code_body *body = &m.bodies[b];
	uint32_t lo = range_after(body->start), hi = lo;
	while (lo > 0 && m.ranges[lo - 1].end > body->start)
		lo--;
	while (hi < m.nranges && m.ranges[hi].start < body->end)
		hi++;
	if (lo == hi && m.nranges == BODIES)
		return;
	memmove(&m.ranges[lo + 1], &m.ranges[hi], (m.nranges - hi) * sizeof *m.ranges);
	m.nranges = m.nranges - (hi - lo) + 1;
	m.ranges[lo] = (struct body_range){body->start, body->end, b};
}

/* The indexed body that holds ip, still as indexed, or -1: the body the
 * runtime would name for ip (GetFunctionFromIP, then its code's start),
 * as codemap_at's resolve would find it. */
static int32_t indexed_body(uint64_t ip)
{
	uint32_t i = range_after(ip);
	if (i == 0 || ip >= m.ranges[i - 1].end)
		return -1;
	const struct body_range *r = &m.ranges[i - 1];
	const struct code_body *b = &m.bodies[r->body];
	return b->start == r->start && b->end == r->end && !b->dynamic_epoch && b->fn ? r->body : -1;
}

/* The body that starts at start, asked of the runtime on first sight
 * (or, for ReadyToRun code, known to end at known_end).  Probed to the
 * first empty slot, however far: a body not kept is a method whose frames
 * no walk can place until the map is forgotten, and every sample through
 * it suspends the runtime; a short probe leaves out some of the hottest
 * methods of a large program (the C# compiler's) at half full. */
static int32_t body_at_start(uint64_t start, FunctionID fn, uint64_t known_end, uint32_t dynamic_epoch)
{
	uint32_t h = hash(start);
	for (uint32_t k = 0; k < BODIES; k++) {
		uint32_t j = (h + k) & (BODIES - 1);
		struct code_body *b = &m.bodies[j];
		bool same = b->start == start && b->fn == fn;
		if (same && b->dynamic_epoch == dynamic_epoch)
			return (int32_t)j;
		if (b->start && !same)
			continue;
		/* empty; or a dynamic method's, read before a later compilation
		 * (which may have put other code there under the same id): read
		 * again */
		COR_PRF_CODE_INFO info[4] = {{start, known_end - start}};
		ULONG32 n = 1;
		ICorProfilerInfo10 *pi = g_agent.info;
		if (!known_end && (FAILED(pi->vtbl->GetCodeInfo4(pi, (UINT_PTR)start, 4, &n, info)) || n == 0))
			return -1;
		/* x64 bodies are one range; a split body is not one we unwind */
		if (n != 1 || info[0].startAddress != start)
			return -1;
		m.nbodies += b->start == 0;
		b->start = start;
		b->end = start + info[0].size;
		b->fn = fn;
		b->dynamic_epoch = dynamic_epoch;
		uint8_t code[PROLOG_BYTES];
		size_t len = info[0].size < sizeof code ? info[0].size : sizeof code;
		b->decoded = memread(start, code, len) == 0 && x64_decode_prolog(code, len, &b->prolog);
		if (!b->decoded && len >= 8)
			agent_debug("a prolog the unwinder does not know at %#lx: %02x %02x %02x %02x %02x %02x %02x %02x",
				    (unsigned long)start, code[0], code[1], code[2], code[3], code[4], code[5], code[6],
				    code[7]);
		if (!dynamic_epoch && b->end > b->start)
			index_body((int32_t)j);
		m.dirty = true;
		return (int32_t)j;
	}
	return -1;
}

/* Lines of the modules' tables (unwind tables, ReadyToRun headers), kept
 * as read: they are file mappings that do not change while their module
 * is loaded, and the unwind rule of a new native leaf takes some twenty
 * words of them (a binary search of the table, then its entry), which
 * read one system call at a time would cost that many calls on every
 * sample of a hot native loop. */
struct line {
	uint64_t base;
	uint32_t stamp; /* m.lines_stamp + 1 when read (0: empty) */
	uint8_t bytes[LINE_BYTES];
};
static struct line lines[LINES];

/* The decoders' reader (ehframe.c, r2r.c): this process's memory, never a
 * fault; through the lines.  A read that misses a line reads all the lines
 * it spans in one system call. */
static int read_no_fault(uint64_t addr, void *buf, uint32_t n)
{
	enum { SPAN_MAX = 16 };
	if (!n)
		return 0;
	uint64_t first = addr & ~(uint64_t)(LINE_BYTES - 1);
	uint32_t count = (uint32_t)(((addr + n - 1) & ~(uint64_t)(LINE_BYTES - 1)) - first) / LINE_BYTES + 1;
	if (count > SPAN_MAX)
		return memread(addr, buf, n);
	struct line *at[SPAN_MAX];
	bool all_there = true;
	for (uint32_t i = 0; i < count; i++) {
		at[i] = &lines[hash(first + i * LINE_BYTES) & (LINES - 1)];
		all_there &= at[i]->stamp == m.lines_stamp + 1 && at[i]->base == first + i * LINE_BYTES;
	}
	uint32_t off = (uint32_t)(addr - first);
	if (all_there) {
		for (uint32_t i = 0, done = 0; i < count; i++) {
			uint32_t from = i ? 0 : off, take = LINE_BYTES - from < n - done ? LINE_BYTES - from : n - done;
			memcpy((uint8_t *)buf + done, at[i]->bytes + from, take);
			done += take;
		}
		return 0;
	}
	uint8_t span[SPAN_MAX * LINE_BYTES];
	size_t got = memread_prefix(first, span, count * LINE_BYTES);
	uint32_t whole = (uint32_t)got / LINE_BYTES;
	for (uint32_t i = 0; i < whole; i++) {
		struct line *l = at[i]; /* (two lines of the span may share one: the later wins) */
		l->base = first + i * LINE_BYTES;
		l->stamp = m.lines_stamp + 1;
		memcpy(l->bytes, span + i * LINE_BYTES, LINE_BYTES);
	}
	m.dirty |= whole > 0;
	if (got < off + n)
		return -1;
	memcpy(buf, span + off, n);
	return 0;
}

/* The ReadyToRun tables of fn's module, read on first sight. */
static const struct r2r_image *image_of(FunctionID fn)
{
	ICorProfilerInfo10 *pi = g_agent.info;
	ClassID cls;
	ModuleID module = 0;
	mdToken token;
	if (FAILED(pi->vtbl->GetFunctionInfo(pi, fn, &cls, &module, &token)) || !module)
		return NULL;
	for (uint32_t i = 0; i < m.nimages; i++)
		if (m.images[i].module == module)
			return m.images[i].r2r.functions ? &m.images[i].r2r : NULL;
	if (m.nimages == IMAGES)
		return NULL;
	LPCBYTE base = NULL;
	ULONG len = 0;
	AssemblyID assembly;
	struct image *img = &m.images[m.nimages++];
	img->module = module;
	img->r2r.functions = 0;
	m.dirty = true;
	if (FAILED(pi->vtbl->GetModuleInfo(pi, module, &base, 0, &len, NULL, &assembly)) || !base ||
	    !r2r_open((uint64_t)(uintptr_t)base, read_no_fault, &img->r2r))
		return NULL;
	return &img->r2r;
}

static int32_t r2r_body(FunctionID fn, uint64_t ip)
{
	const struct r2r_image *img = image_of(fn);
	uint64_t start, end;
	if (!img || !r2r_range_of(img, ip, read_no_fault, &start, &end))
		return -1;
	int32_t b = body_at_start(start, fn, end, 0);
	return b >= 0 && ip >= m.bodies[b].start && ip < m.bodies[b].end ? b : -1;
}

static int32_t body_containing(FunctionID fn, uint64_t ip, uint32_t dynamic_epoch)
{
	UINT_PTR starts[STARTS_MAX];
	ULONG32 n = 0;
	ICorProfilerInfo10 *pi = g_agent.info;
	if (FAILED(pi->vtbl->GetNativeCodeStartAddresses(pi, fn, 0, STARTS_MAX, &n, starts)))
		n = 0;
	if (n > STARTS_MAX)
		n = STARTS_MAX;
	for (ULONG32 i = 0; i < n; i++) {
		if (starts[i] > ip)
			continue;
		int32_t b = body_at_start(starts[i], fn, 0, dynamic_epoch);
		if (b >= 0 && ip >= m.bodies[b].start && ip < m.bodies[b].end)
			return b;
	}
	/* ReadyToRun code: its image's table of code ranges (the runtime
	 * reports such code's body only while it is the entry point) */
	int32_t b = r2r_body(fn, ip);
	if (b >= 0)
		return b;
	COR_PRF_CODE_INFO info[4];
	ULONG32 ni = 0;
	if (SUCCEEDED(pi->vtbl->GetCodeInfo2(pi, fn, 4, &ni, info)) && ni >= 1 && ip >= info[0].startAddress) {
		b = body_at_start(info[0].startAddress, fn, 0, dynamic_epoch);
		if (b >= 0 && ip >= m.bodies[b].start && ip < m.bodies[b].end)
			return b;
	}
	return -1;
}

/* The GNU build id among a module's notes (mapped: its first segment
 * holds them), so that the reading side can tell whether the file on disk
 * is still the one that was loaded. */
static uint8_t module_build_id(const struct dl_phdr_info *info, uint8_t *out)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (end - p >= (ptrdiff_t)sizeof(ElfW(Nhdr))) {
			ElfW(Nhdr) nh;
			memcpy(&nh, p, sizeof nh);
			size_t name = (nh.n_namesz + 3u) & ~3u, desc = (nh.n_descsz + 3u) & ~3u;
			const uint8_t *d = p + sizeof nh + name;
			if (name > (size_t)(end - p) || desc > (size_t)(end - p) || d + desc > end)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(p + sizeof nh, "GNU", 4) &&
			    nh.n_descsz <= CODEMAP_BUILD_ID_MAX) {
				memcpy(out, d, nh.n_descsz);
				return (uint8_t)nh.n_descsz;
			}
			p = d + desc;
		}
	}
	return 0;
}

/* The kernel's answer about the mapping at one address (PROCMAP_QUERY,
 * Linux 6.11 and later: struct and numbers from include/uapi/linux/fs.h):
 * one system call, where a reread of the maps reads and parses the whole
 * list (hundreds of lines in a large program). */
struct procmap_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#define PROCMAP_QUERY_VMA_READABLE 0x01
#define PROCMAP_QUERY_VMA_EXECUTABLE 0x04

static int maps_fd = -2; /* for PROCMAP_QUERY: -2 not opened yet, -1 no such query here */

/* The kernel's answer for the mapping at addr (its file's name into name);
 * 0, or an errno (ENOENT: no mapping there). */
static int ask_maps(uint64_t addr, struct procmap_query *q, char *name, uint32_t namelen)
{
	if (maps_fd == -2) {
		maps_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		maps_fd = maps_fd < 0 ? -1 : maps_fd;
	}
	if (maps_fd < 0)
		return ENOTTY;
	*q = (struct procmap_query){.size = sizeof *q, .query_addr = addr, .vma_name_size = namelen,
				    .vma_name_addr = (uint64_t)(uintptr_t)name};
	if (ioctl(maps_fd, PROCMAP_QUERY, q) == 0)
		return 0;
	int err = errno;
	if (err == ENOTTY || err == EINVAL) {
		close(maps_fd); /* an older kernel: the maps are read instead */
		maps_fd = -1;
	}
	return err;
}

/* The main program's file: dl_iterate_phdr gives it no name. */
static const char *program_path(void)
{
	static char path[256];
	if (!path[0]) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
		if (n <= 0 || (size_t)n >= sizeof path - 1)
			snprintf(path, sizeof path, "%s", program_invocation_name);
		else
			path[n] = 0;
	}
	return path;
}

/* The file a module loaded by a relative path (dlopen("lib/x.so")) was
 * mapped from, as the kernel names it; else the path made absolute from the
 * working directory now (the program's, unless it moved since). */
static const char *absolute_module_path(uint64_t addr, const char *path, char *out, size_t outlen)
{
	struct procmap_query q;
	char name[PATH_MAX];
	static const char deleted[] = " (deleted)"; /* the report tells a missing file itself */
	if (ask_maps(addr, &q, name, sizeof name) == 0 && q.vma_name_size && name[0] == '/') {
		size_t len = strlen(name);
		if (len > sizeof deleted - 1 && strcmp(name + len - (sizeof deleted - 1), deleted) == 0)
			name[len - (sizeof deleted - 1)] = 0;
		snprintf(out, outlen, "%s", name);
		return out;
	}
	return realpath(path, name) && strlen(name) < outlen ? strcpy(out, name) : path;
}

static int list_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	uint64_t hdr = 0, code = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
		if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X) && !code)
			code = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	}
	const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : program_path();
	char absolute[sizeof m.modules->path];
	if (path[0] != '/' && hdr && code)
		path = absolute_module_path(code, path, absolute, sizeof absolute);
	const char *slash = strrchr(path, '/');
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
	for (int i = 0; i < info->dlpi_phnum && hdr && m.nmodules < MODULES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			struct module *mod = &m.modules[m.nmodules++];
			*mod = (struct module){info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz, hdr,
					       info->dlpi_addr};
			if (path[0] == '/' && strlen(path) < sizeof mod->path) {
				memcpy(mod->path, path, strlen(path) + 1);
				mod->name = mod->path + (slash - path) + 1;
			} else {
				snprintf(mod->name_only, sizeof mod->name_only, "%s", slash ? slash + 1 : path);
				mod->name = mod->name_only;
			}
			mod->build_id_len = module_build_id(info, mod->build_id);
			mod->vdso = vdso && vdso >= info->dlpi_addr && vdso < mod->hi; /* its ELF header is loaded here */
		}
	}
	return 0;
}

/* The loader's counts of objects loaded and unloaded so far (the first
 * object's info carries them): while they stand, the modules do. */
static int count_loads(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t *loads = arg;
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
		loads[0] = info->dlpi_adds;
		loads[1] = info->dlpi_subs;
	}
	return 1; /* one is enough */
}

/* The loader's count of objects unloaded so far, UINT64_MAX when it does
 * not say. */
static uint64_t loader_unloads(void)
{
	uint64_t loads[2] = {0, 0};
	dl_iterate_phdr(count_loads, loads);
	return loads[0] ? loads[1] : UINT64_MAX;
}

void codemap_code_unloaded(void)
{
	atomic_fetch_add_explicit(&code_unloads, 1, memory_order_relaxed);
}

bool codemap_stale(uint64_t now_ns)
{
	if (!m.dirty)
		return false;
	/* a managed module went: the FunctionIDs kept for its code are freed
	 * (the runtime reads freed memory for them), and its code's addresses
	 * may hold other code soon */
	if (atomic_load_explicit(&code_unloads, memory_order_relaxed) != m.unloads_seen)
		return true;
	uint64_t since = now_ns - m.forgot_ns;
	if (since >= (m.loader_subs == UINT64_MAX ? FORGET_EVERY_BLIND_NS : FORGET_EVERY_NS))
		return true;
	if (since < FORGET_UNLOADED_NS)
		return false;
	if (m.kept_ips >= IP_SLOTS / 2 || m.nbodies >= BODIES_CROWDED)
		return true; /* crowded: new addresses would go unkept, new bodies probe long */
	if (now_ns - m.loader_checked_ns < LOADER_CHECK_NS)
		return false;
	m.loader_checked_ns = now_ns;
	return loader_unloads() != m.loader_subs; /* a shared object went: another may take its range */
}

static const struct region *region_at(uint64_t addr);

static const struct module *module_of(uint64_t ip)
{
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < m.nmodules; i++)
			if (ip >= m.modules[i].lo && ip < m.modules[i].hi)
				return &m.modules[i];
		uint64_t now = agent_mono_ns();
		const struct region *r = region_at(ip);
		uint64_t every = r && r->library ? LIBRARY_REFRESH_NS : MODULE_REFRESH_NS;
		if (pass || (m.modules_ns && now - m.modules_ns < every))
			return NULL;
		m.modules_ns = now;
		uint64_t loads[2] = {0, 0};
		dl_iterate_phdr(count_loads, loads);
		if (m.nmodules && loads[0] && loads[0] == m.loads[0] && loads[1] == m.loads[1])
			continue; /* nothing loaded or unloaded since the last scan (0: the loader does not say) */
		m.loads[0] = loads[0];
		m.loads[1] = loads[1];
		m.modules_scan++;
		m.lines_stamp++; /* a module may have gone, and its tables with it */
		m.nmodules = 0;
		dl_iterate_phdr(list_module, NULL);
		m.dirty = true;
	}
	return NULL;
}

const char *codemap_module_name(uint64_t addr)
{
	const struct module *mod = module_of(addr);
	return mod ? mod->name : "";
}

bool codemap_native_function(uint64_t addr, struct native_function *out)
{
	const struct module *mod = module_of(addr);
	if (!mod || (!mod->path[0] && !mod->vdso))
		return false;
	struct code_at at = codemap_at(addr, false);
	if (!at.native_known || !at.rule.fn_start || at.rule.fn_start < mod->bias)
		return false;
	*out = (struct native_function){at.rule.fn_start, at.rule.fn_start - mod->bias, mod->vdso ? mod->name : mod->path,
					mod->name, mod->build_id, mod->build_id_len};
	return true;
}

static bool in_epilog(uint64_t ip, const struct code_body *b)
{
	uint8_t code[EPILOG_BYTES];
	uint64_t left = b->end - ip;
	size_t len = left < sizeof code ? (size_t)left : sizeof code;
	struct x64_epilog e;
	return len && memread(ip, code, len) == 0 && x64_decode_epilog(code, len, &e);
}

static void read_maps(void)
{
	m.nregions = 0;
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	/* read again as new code appears (a page at a time while the JIT is
	 * busy), hundreds of lines on a server: parsed by hand, in large reads */
	static char buf[1 << 16];
	setvbuf(f, buf, _IOFBF, sizeof buf);
	char line[512];
	while (m.nregions < REGIONS && fgets(line, sizeof line, f)) {
		char *p = line, *end;
		uint64_t lo = strtoull(p, &end, 16);
		if (end == p || *end != '-')
			continue;
		p = end + 1;
		uint64_t hi = strtoull(p, &end, 16);
		if (end == p || end[0] != ' ' || !end[1] || !end[2] || !end[3])
			continue;
		const char *perms = end + 1;
		if (perms[0] == 'r' || perms[2] == 'x')
			m.regions[m.nregions++] = (struct region){lo, hi, perms[0] == 'r', perms[2] == 'x',
								  perms[2] == 'x' && strstr(perms, ".so") != NULL};
	}
	fclose(f);
	m.dirty = true;
}

static const struct region *region_at(uint64_t addr)
{
	uint32_t lo = 0, hi = m.nregions; /* the maps list is sorted by address */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m.regions[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m.nregions && addr >= m.regions[lo].lo ? &m.regions[lo] : NULL;
}

/* Reads the maps again unless that was done less than MAPS_REFRESH_NS ago
 * (and now is false); whether they were read. */
static bool reread_maps(bool now)
{
	uint64_t t = agent_mono_ns();
	if (!now && m.maps_ns && t - m.maps_ns < MAPS_REFRESH_NS)
		return false;
	m.maps_ns = t;
	read_maps();
	return true;
}

/* Asks the kernel whether ip is code: 1 in an executable mapping (the
 * runtime's code heap grows a page at a time; the mapping is added to the
 * list), 0 in none, -1 when the kernel cannot say. */
static int query_region(uint64_t ip)
{
	char name[256];
	struct procmap_query q;
	int err = ask_maps(ip, &q, name, sizeof name);
	if (err)
		return err == ENOENT ? 0 : -1;
	if (!(q.vma_flags & PROCMAP_QUERY_VMA_EXECUTABLE))
		return 0;
	if (m.nregions >= REGIONS)
		return -1;
	/* into the sorted list, in place of what it now covers (the mapping
	 * grew over pages listed apart, or merged with its neighbours) */
	uint32_t lo = 0;
	while (lo < m.nregions && m.regions[lo].hi <= q.vma_start)
		lo++;
	uint32_t hi = lo;
	while (hi < m.nregions && m.regions[hi].lo < q.vma_end)
		hi++;
	memmove(&m.regions[lo + 1], &m.regions[hi], (m.nregions - hi) * sizeof *m.regions);
	m.nregions = m.nregions - (hi - lo) + 1;
	m.regions[lo] = (struct region){q.vma_start, q.vma_end, (q.vma_flags & PROCMAP_QUERY_VMA_READABLE) != 0, true,
					q.vma_name_size && strstr(name, ".so") != NULL};
	m.dirty = true;
	return 1;
}

/* Whether ip is inside an executable mapping (1), not (0), or cannot be
 * told now (-1: not in the maps as last read, and they were read too
 * recently to read again: new code regions appear as the runtime grows its
 * code heap).  The runtime's lookup of an address in memory it reserved
 * for code but never committed faults, and a word read off a stack may be
 * anything: only code addresses are asked about. */
static int executable(uint64_t ip, bool executed)
{
	const struct region *r = region_at(ip);
	if (r && r->exec)
		return 1;
	int asked = query_region(ip);
	if (asked >= 0)
		return asked;
	/* an instruction a thread was running is code: the maps are behind,
	 * read them again now (new code regions are rare); so may be a return
	 * address that memory holds (the runtime commits its code heap a page
	 * at a time as it compiles: in a burst of compilations most callers'
	 * code is newer than the maps), a little later */
	uint8_t probe;
	bool now = executed || (agent_mono_ns() - m.maps_ns >= MAPS_RECHECK_NS && memread(ip, &probe, 1) == 0);
	if (!reread_maps(now))
		return -1;
	r = region_at(ip);
	return r && r->exec ? 1 : 0;
}

uint64_t codemap_stack_top(uint64_t sp)
{
	const struct region *r = region_at(sp);
	if (!r && reread_maps(false))
		r = region_at(sp);
	return r && r->readable ? r->hi : 0;
}

bool codemap_stack_mapping(uint64_t sp, uint64_t *lo, uint64_t *hi)
{
	struct procmap_query q;
	if (ask_maps(sp, &q, NULL, 0) != 0 || !(q.vma_flags & PROCMAP_QUERY_VMA_READABLE))
		return false;
	*lo = q.vma_start;
	*hi = q.vma_end;
	return true;
}

static _Atomic uint32_t dynamic_compiles = 1;

void codemap_dynamic_compiled(void)
{
	atomic_fetch_add_explicit(&dynamic_compiles, 1, memory_order_relaxed);
}

uint32_t codemap_dynamic_epoch(void)
{
	return atomic_load_explicit(&dynamic_compiles, memory_order_relaxed);
}

/* Code the runtime generated outside every module: a dynamic method
 * (GetFunctionFromIP3: GetFunctionFromIP fails for a method without
 * metadata) with a body whose prolog is known is unwound like any
 * method's; anything else there is the runtime's own stubs, which its
 * unwinder steps through by the frame pointer and does not report. */
static void resolve_generated(struct ip_entry *e)
{
	ICorProfilerInfo10 *pi = g_agent.info;
	e->dynamic_epoch = codemap_dynamic_epoch();
	FunctionID fn = 0;
	ReJITID rejit = 0;
	BOOL dynamic = FALSE;
	if (FAILED(pi->vtbl->GetFunctionFromIP3(pi, (LPCBYTE)e->ip, &fn, &rejit)) || !fn ||
	    FAILED(pi->vtbl->IsFunctionDynamic(pi, fn, &dynamic)) || !dynamic)
		return;
	int32_t body = body_containing(fn, e->ip, e->dynamic_epoch);
	if (body < 0 || !m.bodies[body].decoded)
		return;
	e->fn = fn;
	e->body = body;
	e->flags |= IP_DYNAMIC;
}

static struct ip_entry resolve(uint64_t ip)
{
	struct ip_entry e = {ip, 0, -1, IP_KNOWN};
	ICorProfilerInfo10 *pi = g_agent.info;
	if (FAILED(pi->vtbl->GetFunctionFromIP(pi, (LPCBYTE)ip, &e.fn)))
		e.fn = 0;
	BOOL dynamic = FALSE;
	if (e.fn && SUCCEEDED(pi->vtbl->IsFunctionDynamic(pi, e.fn, &dynamic)) && dynamic) {
		/* IL stubs have no code versions to ask about: named, but not
		 * unwound by their layout */
	} else if (e.fn) {
		e.body = body_containing(e.fn, ip, 0);
	} else {
		const struct module *mod = module_of(ip);
		e.in_module = mod != NULL;
		e.native_known = mod && eh_rule_at(mod->eh_hdr, ip, read_no_fault, &e.rule);
		e.modules_scan = m.modules_scan;
		uint8_t prolog[24];
		if (e.native_known && read_no_fault(e.rule.fn_start, prolog, sizeof prolog) == 0)
			e.hijack_pushes = (uint8_t)nativeframe_hijack_pushes(prolog, sizeof prolog);
		if (!mod)
			resolve_generated(&e);
	}
	return e;
}

/* The entry kept for ip, or NULL (then *free_slot: where it may go, or
 * NULL when its neighbourhood is full). */
static struct ip_entry *kept_entry(uint64_t ip, struct ip_entry **free_slot)
{
	uint32_t h = hash(ip);
	*free_slot = NULL;
	for (uint32_t k = 0; k < IP_PROBES; k++) {
		struct ip_entry *s = &m.ips[(h + k) & (IP_SLOTS - 1)];
		if (s->flags && s->ip == ip)
			return s;
		if (!s->flags) {
			*free_slot = s;
			return NULL;
		}
	}
	return NULL;
}

#ifdef CLRSCOPE_WALK_PROBE
void codemap_probe_flush(uint64_t ip, bool with_body)
{
	struct ip_entry *free_slot, *e = kept_entry(ip, &free_slot);
	if (!e)
		return;
	if (!with_body)
		walkprobe_flush(e, sizeof *e);
	else if (e->body >= 0)
		walkprobe_flush(&m.bodies[e->body], sizeof m.bodies[e->body]);
}
#endif

struct code_at codemap_at(uint64_t ip, bool check_epilog)
{
	struct ip_entry *free_slot, tmp;
	struct ip_entry *e = kept_entry(ip, &free_slot);
	if (e) {
		/* only code is kept: the maps need not be asked again.  Code
		 * outside the modules known then: a module loaded since (dlopen)
		 * may hold it, and only its unwind table can step through it (and
		 * name its functions) */
		if (!e->fn && !e->in_module &&
		    (e->modules_scan != m.modules_scan || agent_mono_ns() - m.modules_ns >= MODULE_REFRESH_NS))
			*e = resolve(ip);
		/* generated code: a dynamic method compiled since may be there
		 * now (the runtime frees a collected one's code and reuses its id) */
		else if ((e->flags & IP_DYNAMIC || (!e->fn && !e->in_module)) &&
			 e->dynamic_epoch != codemap_dynamic_epoch())
			*e = resolve(ip);
	} else {
		/* in a body known: its function (a running thread's leaf is a new
		 * address in a known body at almost every sample); else not kept
		 * when not code: the address may be code a moment later */
		int32_t b = indexed_body(ip);
		int exec = b >= 0 ? 1 : executable(ip, check_epilog);
		if (exec <= 0)
			return (struct code_at){.unknown = exec < 0};
		e = free_slot ? free_slot : &tmp; /* a full neighbourhood: answer without keeping it */
		m.kept_ips += free_slot != NULL;
		*e = b >= 0 ? (struct ip_entry){ip, m.bodies[b].fn, b, IP_KNOWN} : resolve(ip);
		m.dirty = true;
	}
	struct code_at at = {.code = true,
			     .fn = e->fn,
			     .body = e->body >= 0 ? &m.bodies[e->body] : NULL,
			     .in_module = e->in_module,
			     .native_known = e->native_known,
			     .dynamic = (e->flags & IP_DYNAMIC) != 0,
			     .rule = e->rule,
			     .hijack_pushes = e->hijack_pushes};
	if (check_epilog && at.body) {
		if (!(e->flags & IP_EPILOG_CHECKED))
			e->flags |= IP_EPILOG_CHECKED | (in_epilog(ip, at.body) ? IP_EPILOG : 0);
		at.epilog = (e->flags & IP_EPILOG) != 0;
	}
	return at;
}

/* Calls whose decoded frame a walk found wrong: kept apart from the
 * addresses, which are forgotten every few seconds, so that they are
 * never decoded again (a full list: no more decoding at all). */
#define REFUTED_MAX 64
static uint64_t refuted[REFUTED_MAX];
static uint32_t call_refutations;

static bool was_refuted(uint64_t addr)
{
	if (call_refutations >= REFUTED_MAX)
		return true;
	for (uint32_t i = 0; i < call_refutations; i++)
		if (refuted[i] == addr)
			return true;
	return false;
}

bool codemap_call_cfa(uint64_t addr, const struct eh_rule *rule, int32_t *cfa_from_sp)
{
	struct ip_entry *free_slot, *e = kept_entry(addr, &free_slot);
	if (!e || e->fn || !e->native_known)
		return false; /* (codemap_at keeps what it resolves unless its neighbourhood is full) */
	if (!(e->flags & IP_CALL_CHECKED)) {
		e->flags |= IP_CALL_CHECKED;
		if (was_refuted(addr))
			return false;
		uint8_t code[NATIVEFRAME_SCAN_MAX];
		uint64_t call_end = addr + 1 - rule->fn_start;
		int32_t off;
		if (rule->cfa_reg == EH_REG_RBP && !rule->cfa_deref && rule->fn_start && addr >= rule->fn_start &&
		    call_end <= sizeof code && read_no_fault(rule->fn_start, code, (uint32_t)call_end) == 0 &&
		    nativeframe_cfa_at_call(code, call_end, (uint32_t)call_end, rule->cfa_off, &off)) {
			e->flags |= IP_CALL_KNOWN;
			e->call_cfa = off;
		}
	}
	*cfa_from_sp = e->call_cfa;
	return (e->flags & IP_CALL_KNOWN) != 0;
}

void codemap_call_cfa_refuted(uint64_t addr)
{
	struct ip_entry *free_slot, *e = kept_entry(addr, &free_slot);
	if (!e || !(e->flags & IP_CALL_KNOWN))
		return;
	e->flags &= ~(uint32_t)IP_CALL_KNOWN;
	m.walk_epoch++; /* walks kept may have placed a frame by it */
	if (call_refutations < REFUTED_MAX)
		refuted[call_refutations] = addr;
	if (call_refutations++ < 3) {
		struct native_function fn;
		bool named = codemap_native_function(addr, &fn);
		lw_message(CS_LEVEL_WARNING,
			   "the frame decoded at a native call (%s+0x%llx) disagreed with its frame pointer: "
			   "placed by rbp from now on",
			   named ? fn.name : "?", named ? (unsigned long long)(addr - fn.start) : 0ull);
	}
}

