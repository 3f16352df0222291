#include "profile/natsym.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

#define BUILD_ID_MAX 32
#define VDSO_MAX (1u << 20) /* bytes of a vDSO image (a few pages in practice) */

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
	struct sym *syms; /* functions by address */
	size_t nsyms;
};

struct natsym {
	struct module *mods;
	size_t n, cap;
};

struct natsym *natsym_new(void)
{
	return xcalloc(1, sizeof(struct natsym));
}

void natsym_free(struct natsym *ns)
{
	if (!ns)
		return;
	for (size_t i = 0; i < ns->n; i++) {
		for (size_t k = 0; k < ns->mods[i].nsyms; k++)
			free(ns->mods[i].syms[k].name);
		free(ns->mods[i].syms);
		free(ns->mods[i].path);
	}
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

/* A separate debug file, as Debian's -dbgsym packages install them. */
static bool read_debug_file(const uint8_t *id, size_t len, struct module *m)
{
	if (len < 2)
		return false;
	char path[128];
	int at = snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (size_t i = 1; i < len && at < (int)sizeof path - 8; i++)
		at += snprintf(path + at, sizeof path - (size_t)at, "%02x", id[i]);
	snprintf(path + at, sizeof path - (size_t)at, ".debug");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	bool ok = elf && elf_kind(elf) == ELF_K_ELF && read_symbols(elf, SHT_SYMTAB, m);
	elf_end(elf);
	close(fd);
	return ok;
}

/* The symbols of an ELF image, when it is the one that was loaded (the
 * build ids match). */
static void read_image(Elf *elf, struct module *m)
{
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		m->state = NATSYM_UNREADABLE;
		return;
	}
	uint8_t id[BUILD_ID_MAX];
	size_t len = elf_build_id(elf, id);
	if (m->build_id_len && (len != m->build_id_len || memcmp(id, m->build_id, len) != 0))
		m->state = NATSYM_REPLACED;
	else if (read_symbols(elf, SHT_SYMTAB, m) || read_debug_file(id, len, m))
		m->state = NATSYM_SYMBOLS;
	else {
		read_symbols(elf, SHT_DYNSYM, m); /* none at all: every function by address */
		m->state = NATSYM_EXPORTS;
	}
}

static void load_file(struct module *m)
{
	/* a log may name any file: never wait on a FIFO or read a device */
	int fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		m->state = NATSYM_MISSING;
		return;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		m->state = NATSYM_UNREADABLE;
		close(fd);
		return;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	read_image(elf, m);
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
static void load_vdso(struct module *m)
{
	uint8_t *image;
	size_t size = own_vdso(&image);
	if (!size || !m->build_id_len) {
		m->state = NATSYM_MISSING;
		free(image);
		return;
	}
	Elf *elf = elf_memory((char *)image, size);
	read_image(elf, m);
	elf_end(elf);
	free(image);
	if (m->state == NATSYM_REPLACED || m->state == NATSYM_UNREADABLE)
		m->state = NATSYM_MISSING; /* another kernel's: not to be had here */
}

static void load(struct module *m)
{
	if (strchr(m->path, '/'))
		load_file(m);
	else
		load_vdso(m); /* the one module logged without a file; a relative path is never opened */
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
	load(m);
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
	if (!strcmp(file, "libclrjit.so")) {
		/* all of it is the JIT, and its functions have no names */
		snprintf(out, outlen, "[JIT compilation]");
		return;
	}
	const struct module *m = module_of(ns, path, build_id, build_id_len);
	const char *name = m->state == NATSYM_SYMBOLS || m->state == NATSYM_EXPORTS ? symbol_at(m, file_address) : NULL;
	if (name)
		snprintf(out, outlen, "%s!%s", file, name);
	else
		snprintf(out, outlen, "%s+0x%" PRIx64, file, file_address);
}

size_t natsym_modules(const struct natsym *ns)
{
	return ns ? ns->n : 0;
}

void natsym_module(const struct natsym *ns, size_t i, const char **path, enum natsym_state *state)
{
	*path = ns->mods[i].path;
	*state = ns->mods[i].state;
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

const char *natsym_state_text(enum natsym_state state)
{
	return (unsigned)state < sizeof states / sizeof *states ? states[state].text : "";
}
