#include "profile/natsym.h"

#include <elfutils/debuginfod.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/xalloc.h"

#define BUILD_ID_MAX 32
#define VDSO_MAX (1u << 20) /* bytes of a vDSO image (a few pages in practice) */
#define SYSTEM_DEBUG_DIR "/usr/lib/debug"

struct sym {
	uint64_t addr, size;
	char *name;
	bool weak;      /* an alias another symbol may define too */
	uint32_t index; /* in its table */
};

struct module {
	char *path;
	uint8_t build_id[BUILD_ID_MAX]; /* the loaded module's, as logged */
	size_t build_id_len;
	enum natsym_state state;
	enum natsym_source source;
	char *debug_file; /* owned; NULL: none */
	char debug_link[NAME_MAX + 1];
	char build_id_hex[2 * BUILD_ID_MAX + 1];
	struct sym *syms; /* functions by address */
	size_t nsyms;
};

struct natsym {
	struct module *mods;
	size_t n, cap;
	debuginfod_client *debuginfod; /* made on first use */
	bool debuginfod_failed;
};

/* The user's symbol directories (natsym_set_dirs). */
static char **user_dirs;
static size_t nuser_dirs;

void natsym_set_dirs(const char *const *dirs, size_t ndirs)
{
	for (size_t i = 0; i < nuser_dirs; i++)
		free(user_dirs[i]);
	free(user_dirs);
	user_dirs = ndirs ? xmalloc(ndirs * sizeof *user_dirs) : NULL;
	for (size_t i = 0; i < ndirs; i++)
		user_dirs[i] = xstrdup(dirs[i]);
	nuser_dirs = ndirs;
}

struct natsym *natsym_new(void)
{
	return xcalloc(1, sizeof(struct natsym));
}

static void forget_symbols(struct module *m)
{
	for (size_t k = 0; k < m->nsyms; k++)
		free(m->syms[k].name);
	free(m->syms);
	m->syms = NULL;
	m->nsyms = 0;
}

void natsym_free(struct natsym *ns)
{
	if (!ns)
		return;
	for (size_t i = 0; i < ns->n; i++) {
		forget_symbols(&ns->mods[i]);
		free(ns->mods[i].path);
		free(ns->mods[i].debug_file);
	}
	if (ns->debuginfod)
		debuginfod_end(ns->debuginfod);
	free(ns->mods);
	free(ns);
}

static size_t elf_build_id(Elf *elf, uint8_t *out)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) && nh.n_descsz <= BUILD_ID_MAX) {
				memcpy(out, (const uint8_t *)data->d_buf + desc_off, nh.n_descsz);
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

/* By address; at one address the sized one first, then one that is not a
 * weak alias (the vDSO's __vdso_clock_gettime, not clock_gettime), then
 * the first in the table: the name chosen does not depend on the sort. */
static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	if (x->weak != y->weak)
		return x->weak ? 1 : -1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The functions of the section of symbols of type (SHT_SYMTAB or SHT_DYNSYM). */
static bool read_symbols(Elf *elf, Elf64_Word type, struct module *m)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			return false;
		size_t count = sh.sh_size / sh.sh_entsize, cap = 0;
		for (size_t i = 0; i < count; i++) {
			GElf_Sym s;
			if (!gelf_getsym(data, (int)i, &s))
				break;
			int kind = GELF_ST_TYPE(s.st_info);
			if ((kind != STT_FUNC && kind != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF || !s.st_value)
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !name[0])
				continue;
			xgrow(&m->syms, &cap, m->nsyms + 1, sizeof *m->syms);
			m->syms[m->nsyms++] =
				(struct sym){s.st_value, s.st_size, xstrdup(name), GELF_ST_BIND(s.st_info) == STB_WEAK, (uint32_t)i};
		}
		qsort(m->syms, m->nsyms, sizeof *m->syms, by_addr);
		return m->nsyms > 0;
	}
	return false;
}

/* The file name and CRC of the module's .gnu_debuglink: a plain name (no
 * directory), NUL-terminated, padded to 4 bytes, then the CRC-32 of the
 * debug file in the module's byte order. */
static bool elf_debug_link(Elf *elf, char *name, size_t cap, uint32_t *crc)
{
	size_t shstrndx;
	GElf_Ehdr eh;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0 || !gelf_getehdr(elf, &eh))
		return false;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sname;
		if (!gelf_getshdr(scn, &sh) || !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(sname, ".gnu_debuglink") != 0)
			continue;
		Elf_Data *data = elf_rawdata(scn, NULL);
		if (!data || !data->d_buf)
			return false;
		const char *p = data->d_buf;
		size_t len = strnlen(p, data->d_size);
		size_t at = (len + 4) & ~(size_t)3;
		if (!len || len >= cap || at + 4 > data->d_size || memchr(p, '/', len) || !strcmp(p, ".") ||
		    !strcmp(p, ".."))
			return false;
		const uint8_t *c = (const uint8_t *)p + at;
		*crc = eh.e_ident[EI_DATA] == ELFDATA2MSB
			       ? (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3]
			       : (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 | (uint32_t)c[1] << 8 | c[0];
		memcpy(name, p, len + 1);
		return true;
	}
	return false;
}

/* The CRC-32 of what is left of the file fd (zlib's: the one
 * .gnu_debuglink uses); false when it cannot be read. */
static bool file_crc(int fd, uint32_t *out)
{
	uint8_t buf[1 << 14];
	uLong crc = crc32(0, Z_NULL, 0);
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		crc = crc32(crc, buf, (uInt)n);
	*out = (uint32_t)crc;
	return n == 0;
}

/* A regular file at path, opened for reading: never a FIFO's writer awaited
 * nor a device read; -1 otherwise. */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The symbols of the debug file open as fd when it is the module's: its
 * build id the one wanted (id; any when len is 0), its CRC crc when
 * check_crc.  Takes fd. */
static bool read_debug_fd(int fd, const char *path, const uint8_t *id, size_t len, bool check_crc, uint32_t crc,
			  enum natsym_source source, struct module *m)
{
	uint32_t actual;
	if (check_crc && (!file_crc(fd, &actual) || actual != crc || lseek(fd, 0, SEEK_SET) != 0)) {
		close(fd);
		return false;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	bool ok = elf && elf_kind(elf) == ELF_K_ELF;
	if (ok && len) {
		uint8_t got[BUILD_ID_MAX];
		size_t got_len = elf_build_id(elf, got);
		ok = got_len == len && !memcmp(got, id, len);
	}
	ok = ok && read_symbols(elf, SHT_SYMTAB, m);
	elf_end(elf);
	close(fd);
	if (ok) {
		m->source = source;
		free(m->debug_file);
		m->debug_file = xstrdup(path);
	}
	return ok;
}

static bool read_debug_path(const char *path, const uint8_t *id, size_t len, bool check_crc, uint32_t crc,
			    enum natsym_source source, struct module *m)
{
	int fd = open_regular(path);
	return fd >= 0 && read_debug_fd(fd, path, id, len, check_crc, crc, source, m);
}

/* The debug file the module's debug link names, where gdb looks for it. */
static bool by_debug_link(const char *name, uint32_t crc, const uint8_t *id, size_t len, struct module *m)
{
	char dir[PATH_MAX], path[2 * PATH_MAX];
	const char *slash = strrchr(m->path, '/');
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - m->path), m->path);
	const char *const forms[][2] = {{"", "/"}, {"", "/.debug/"}, {SYSTEM_DEBUG_DIR, "/"}};
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
		snprintf(path, sizeof path, "%s%s%s%s", forms[i][0], dir, forms[i][1], name);
		if (read_debug_path(path, id, len, true, crc, NATSYM_FROM_DEBUGLINK, m))
			return true;
	}
	for (size_t i = 0; i < nuser_dirs; i++) {
		snprintf(path, sizeof path, "%s/%s", user_dirs[i], name);
		if (read_debug_path(path, id, len, true, crc, NATSYM_FROM_DEBUGLINK, m))
			return true;
		snprintf(path, sizeof path, "%s%s/%s", user_dirs[i], dir, name);
		if (read_debug_path(path, id, len, true, crc, NATSYM_FROM_DEBUGLINK, m))
			return true;
	}
	return false;
}

/* ROOT/.build-id/NN/REST.debug, as Debian's -dbgsym packages install them. */
static bool by_build_id_under(const char *root, const uint8_t *id, size_t len, struct module *m)
{
	char path[PATH_MAX + 2 * BUILD_ID_MAX + 32];
	int at = snprintf(path, sizeof path, "%s/.build-id/%02x/", root, id[0]);
	for (size_t i = 1; i < len && at > 0 && (size_t)at < sizeof path - 8; i++)
		at += snprintf(path + at, sizeof path - (size_t)at, "%02x", id[i]);
	if (at <= 0 || (size_t)at >= sizeof path - 8)
		return false;
	snprintf(path + at, sizeof path - (size_t)at, ".debug");
	return read_debug_path(path, id, len, false, 0, NATSYM_FROM_BUILD_ID, m);
}

static bool by_build_id(const uint8_t *id, size_t len, struct module *m)
{
	if (len < 2)
		return false;
	if (by_build_id_under(SYSTEM_DEBUG_DIR, id, len, m))
		return true;
	for (size_t i = 0; i < nuser_dirs; i++)
		if (by_build_id_under(user_dirs[i], id, len, m))
			return true;
	return false;
}

/* From the servers DEBUGINFOD_URLS names (none when it is unset or empty),
 * through libdebuginfod's cache. */
static bool by_debuginfod(struct natsym *ns, const uint8_t *id, size_t len, struct module *m)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (len < 2 || !urls || !urls[strspn(urls, " ")] || ns->debuginfod_failed)
		return false;
	if (!ns->debuginfod && !(ns->debuginfod = debuginfod_begin())) {
		ns->debuginfod_failed = true;
		return false;
	}
	char *path = NULL;
	int fd = debuginfod_find_debuginfo(ns->debuginfod, id, (int)len, &path);
	bool ok = fd >= 0 && read_debug_fd(fd, path ? path : "(debuginfod)", id, len, false, 0,
					   NATSYM_FROM_DEBUGINFOD, m);
	free(path);
	return ok;
}

/* A debug file for a module whose own file cannot be used, by the build id
 * logged. */
static bool by_logged_build_id(struct natsym *ns, struct module *m)
{
	if (by_build_id(m->build_id, m->build_id_len, m) || by_debuginfod(ns, m->build_id, m->build_id_len, m)) {
		m->state = NATSYM_SYMBOLS;
		return true;
	}
	return false;
}

/* The symbols of an ELF image, when it is the one that was loaded (the
 * build ids match); debug files for it where there are none (file: it is
 * on disk, at m->path). */
static void read_image(struct natsym *ns, Elf *elf, bool file, struct module *m)
{
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		m->state = NATSYM_UNREADABLE;
		return;
	}
	uint8_t id[BUILD_ID_MAX];
	size_t len = elf_build_id(elf, id);
	uint32_t crc = 0;
	bool linked = file && elf_debug_link(elf, m->debug_link, sizeof m->debug_link, &crc);
	if (m->build_id_len && (len != m->build_id_len || memcmp(id, m->build_id, len) != 0)) {
		m->state = NATSYM_REPLACED;
		if (file)
			by_logged_build_id(ns, m);
		return;
	}
	m->state = NATSYM_SYMBOLS;
	if (read_symbols(elf, SHT_SYMTAB, m))
		m->source = file ? NATSYM_FROM_SYMTAB : NATSYM_FROM_VDSO;
	else if (file && ((linked && by_debug_link(m->debug_link, crc, id, len, m)) || by_build_id(id, len, m) ||
			  by_debuginfod(ns, id, len, m)))
		; /* (the source is the debug file's) */
	else {
		read_symbols(elf, SHT_DYNSYM, m); /* none at all: every function by address */
		m->state = NATSYM_EXPORTS;
		m->source = !file ? NATSYM_FROM_VDSO : m->nsyms ? NATSYM_FROM_DYNSYM : NATSYM_FROM_NOWHERE;
	}
}

static void load_file(struct natsym *ns, struct module *m)
{
	/* a log may name any file: never wait on a FIFO or read a device */
	int fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		m->state = NATSYM_MISSING;
		by_logged_build_id(ns, m);
		return;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		m->state = NATSYM_UNREADABLE;
		close(fd);
		return;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	read_image(ns, elf, true, m);
	elf_end(elf);
	close(fd);
}

/* The bytes of this process's vDSO image (its ELF header, segments and
 * section headers, all mapped), copied; 0 without one. */
static size_t own_vdso(uint8_t **image)
{
	const uint8_t *at = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	*image = NULL;
	if (!at)
		return 0;
	ElfW(Ehdr) eh;
	memcpy(&eh, at, sizeof eh);
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phentsize != sizeof(ElfW(Phdr)))
		return 0;
	size_t size = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		ElfW(Phdr) ph;
		memcpy(&ph, at + eh.e_phoff + i * sizeof ph, sizeof ph);
		if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > size)
			size = ph.p_offset + ph.p_filesz;
	}
	if (size > VDSO_MAX)
		return 0;
	*image = xmalloc(size);
	memcpy(*image, at, size);
	return size;
}

/* The vDSO has no file: its functions are named from this process's own
 * vDSO when it is the same image (the same kernel: the build ids match;
 * a recording from another kernel has its functions named by address). */
static void load_vdso(struct natsym *ns, struct module *m)
{
	uint8_t *image;
	size_t size = own_vdso(&image);
	if (!size || !m->build_id_len) {
		m->state = NATSYM_MISSING;
		free(image);
		return;
	}
	Elf *elf = elf_memory((char *)image, size);
	read_image(ns, elf, false, m);
	elf_end(elf);
	free(image);
	if (m->state == NATSYM_REPLACED || m->state == NATSYM_UNREADABLE)
		m->state = NATSYM_MISSING; /* another kernel's: not to be had here */
}

static void load(struct natsym *ns, struct module *m)
{
	if (strchr(m->path, '/'))
		load_file(ns, m);
	else
		load_vdso(ns, m); /* the one module logged without a file; a relative path is never opened */
}

static struct module *module_of(struct natsym *ns, const char *path, const uint8_t *build_id, size_t len)
{
	if (len > BUILD_ID_MAX)
		len = 0; /* not one this knows: the file cannot be checked */
	for (size_t i = 0; i < ns->n; i++) {
		struct module *m = &ns->mods[i];
		if (!strcmp(m->path, path) && m->build_id_len == len && (!len || !memcmp(m->build_id, build_id, len)))
			return m;
	}
	static bool elf_ready;
	if (!elf_ready) {
		elf_version(EV_CURRENT);
		elf_ready = true;
	}
	xgrow(&ns->mods, &ns->cap, ns->n + 1, sizeof *ns->mods);
	struct module *m = &ns->mods[ns->n++];
	*m = (struct module){.path = xstrdup(path), .build_id_len = len};
	if (len)
		memcpy(m->build_id, build_id, len);
	for (size_t i = 0; i < len; i++)
		snprintf(m->build_id_hex + 2 * i, 3, "%02x", build_id[i]);
	load(ns, m);
	if (m->state != NATSYM_SYMBOLS && m->state != NATSYM_EXPORTS)
		forget_symbols(m);
	return m;
}

/* The function at addr: the symbol that starts there, else one whose
 * extent holds it. */
static const char *symbol_at(const struct module *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct sym *s = &m->syms[lo - 1];
	if (s->addr == addr) {
		while (lo > 1 && m->syms[lo - 2].addr == addr)
			s = &m->syms[--lo - 1]; /* the sized one, sorted first */
		return s->name;
	}
	return addr < s->addr + s->size ? s->name : NULL;
}

void natsym_name(struct natsym *ns, const char *path, uint64_t file_address, const uint8_t *build_id,
		 size_t build_id_len, char *out, size_t outlen)
{
	const char *slash = strrchr(path, '/');
	const char *file = slash ? slash + 1 : path;
	const struct module *m = module_of(ns, path, build_id, build_id_len);
	const char *name = symbol_at(m, file_address);
	if (name)
		snprintf(out, outlen, "%s!%s", file, name);
	else
		snprintf(out, outlen, "%s+0x%" PRIx64, file, file_address);
}

size_t natsym_modules(const struct natsym *ns)
{
	return ns ? ns->n : 0;
}

void natsym_module(const struct natsym *ns, size_t i, struct natsym_module_info *out)
{
	const struct module *m = &ns->mods[i];
	*out = (struct natsym_module_info){m->path, m->state, m->source, m->debug_file ? m->debug_file : "",
					   m->debug_link, m->build_id_hex};
}

/* Each state's word and sentence. */
static const struct {
	const char *name, *text;
} states[] = {
	[NATSYM_SYMBOLS] = {"symbols", "symbols"},
	[NATSYM_EXPORTS] = {"exports", "stripped: only exported functions are named"},
	[NATSYM_MISSING] = {"missing", "not on disk: functions are named by address"},
	[NATSYM_REPLACED] = {"replaced",
			     "replaced on disk since it was loaded (another build id): functions are named by address"},
	[NATSYM_UNREADABLE] = {"unreadable", "not an ELF file: functions are named by address"},
};

const char *natsym_state_name(enum natsym_state state)
{
	return (unsigned)state < sizeof states / sizeof *states ? states[state].name : "";
}

static const char *const sources[] = {
	[NATSYM_FROM_NOWHERE] = NULL,
	[NATSYM_FROM_SYMTAB] = "symtab",
	[NATSYM_FROM_DEBUGLINK] = "debuglink",
	[NATSYM_FROM_BUILD_ID] = "build-id",
	[NATSYM_FROM_DEBUGINFOD] = "debuginfod",
	[NATSYM_FROM_DYNSYM] = "dynsym",
	[NATSYM_FROM_VDSO] = "vdso",
};

const char *natsym_source_name(enum natsym_source source)
{
	return (unsigned)source < sizeof sources / sizeof *sources ? sources[source] : NULL;
}

void natsym_module_text(const struct natsym_module_info *m, char *out, size_t outlen)
{
	if (m->state == NATSYM_SYMBOLS) {
		switch (m->source) {
		case NATSYM_FROM_DEBUGLINK:
			snprintf(out, outlen, "symbols from %s (its debug link)", m->debug_file);
			return;
		case NATSYM_FROM_BUILD_ID:
			snprintf(out, outlen, "symbols from %s (its build id)", m->debug_file);
			return;
		case NATSYM_FROM_DEBUGINFOD:
			snprintf(out, outlen, "symbols from debuginfod, %s", m->debug_file);
			return;
		case NATSYM_FROM_VDSO:
			snprintf(out, outlen, "symbols from this machine's vDSO");
			return;
		default:
			snprintf(out, outlen, "symbols from its own symbol table");
			return;
		}
	}
	if (m->state == NATSYM_EXPORTS && m->source == NATSYM_FROM_VDSO) {
		snprintf(out, outlen, "its exported functions, from this machine's vDSO");
		return;
	}
	const char *text = (unsigned)m->state < sizeof states / sizeof *states ? states[m->state].text : "";
	if (m->state != NATSYM_EXPORTS) {
		snprintf(out, outlen, "%s", text);
		return;
	}
	/* what to fetch, and where it would be found */
	char link[NAME_MAX + 64] = "";
	if (m->debug_link[0])
		snprintf(link, sizeof link, "debug link %s, ", m->debug_link);
	snprintf(out, outlen, "%s; no debug file found (%sbuild id %s): see --symbols in clrscope-report(1)", text,
		 link, m->build_id[0] ? m->build_id : "not logged");
}
