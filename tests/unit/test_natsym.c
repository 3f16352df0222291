/* Native functions' names from their modules: this program's own static
 * functions (its full symbol table), the burn library's export, a stripped
 * copy's debug file wherever gdb would find it (by its debug link beside
 * it, in .debug/, in a symbol directory; by build id in a symbol
 * directory; for a module gone from disk), refused when it is not the
 * module's (another CRC, another build id), the vDSO (no file: this
 * process's own), and every fallback (a missing file, another build, a
 * FIFO, a file that is not ELF) named by address without hanging or
 * crashing.
 *
 *   test_natsym LIBCLRSCOPEBURN1 LIBCLRSCOPEBURNSTRIPPED (its .dbg beside it) */
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "profile/natsym.h"

static const char *burn_lib, *stripped_lib;

__attribute__((noinline)) static int a_static_function(int x)
{
	return x * 3 + 1;
}

static bool info_of(const struct natsym *ns, const char *path, struct natsym_module_info *out)
{
	for (size_t i = 0; i < natsym_modules(ns); i++) {
		natsym_module(ns, i, out);
		if (!strcmp(out->path, path))
			return true;
	}
	return false;
}

static enum natsym_state state_of(const struct natsym *ns, const char *path)
{
	struct natsym_module_info m;
	return info_of(ns, path, &m) ? m.state : (enum natsym_state)-1;
}

/* Where a function of a loaded module is in its file's own addresses. */
static uint64_t file_address(const void *fn, char *path, size_t n)
{
	Dl_info info;
	CHECK(dladdr(fn, &info) != 0);
	char *full = info.dli_fname ? realpath(info.dli_fname, NULL) : NULL;
	snprintf(path, n, "%s", full ? full : "");
	free(full);
	return (uint64_t)(uintptr_t)fn - (uint64_t)(uintptr_t)info.dli_fbase;
}

static void own_static_function(void)
{
	char path[4096] = "", name[512], want[600];
	ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);
	CHECK(len > 0);
	path[len > 0 ? len : 0] = 0;
	Dl_info info;
	CHECK(dladdr((void *)a_static_function, &info) != 0);
	uint64_t at = (uint64_t)(uintptr_t)a_static_function - (uint64_t)(uintptr_t)info.dli_fbase;
	struct natsym *ns = natsym_new();
	natsym_name(ns, path, at, NULL, 0, name, sizeof name);
	CHECK_STR(name, "test_natsym!a_static_function");
	CHECK(state_of(ns, path) == NATSYM_SYMBOLS);
	/* another build of the file: not its symbols */
	uint8_t other[20];
	memset(other, 0xab, sizeof other);
	natsym_name(ns, path, at, other, sizeof other, name, sizeof name);
	snprintf(want, sizeof want, "test_natsym+0x%" PRIx64, at);
	CHECK_STR(name, want);
	/* an address in no function: by address too */
	natsym_name(ns, path, 0x10, NULL, 0, name, sizeof name);
	CHECK_STR(name, "test_natsym+0x10");
	natsym_free(ns);
	CHECK(a_static_function(1) == 4);
}

static void exported_function(void)
{
	void *h = dlopen(burn_lib, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL);
	if (!h)
		return;
	void *fn = dlsym(h, "clrscope_native_burn");
	CHECK(fn != NULL);
	char path[4096], name[512];
	uint64_t at = file_address(fn, path, sizeof path);
	struct natsym *ns = natsym_new();
	natsym_name(ns, path, at, NULL, 0, name, sizeof name);
	CHECK_STR(name, "libclrscopeburn1.so!clrscope_native_burn");
	natsym_free(ns);
	dlclose(h);
}

/* The build id of the loaded object whose load address is base, from its
 * notes in memory. */
struct build_id {
	uintptr_t base;
	uint8_t id[32];
	size_t len;
};

static int find_build_id(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	struct build_id *b = ctx;
	if (info->dlpi_addr != b->base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (ph->p_type == PT_NOTE && p + sizeof(ElfW(Nhdr)) <= end) {
			ElfW(Nhdr) nh;
			memcpy(&nh, p, sizeof nh);
			const uint8_t *desc = p + sizeof nh + ((nh.n_namesz + 3) & ~3u);
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= sizeof b->id && desc + nh.n_descsz <= end) {
				memcpy(b->id, desc, nh.n_descsz);
				b->len = nh.n_descsz;
				return 1;
			}
			p = desc + ((nh.n_descsz + 3) & ~3u);
		}
	}
	return 1;
}

/* clock_gettime runs in the vDSO, which has no file: its functions are
 * named from this process's vDSO, as the kernel's .dynsym names them (the
 * global __vdso_clock_gettime, not its weak alias clock_gettime), when the
 * build id is this vDSO's, and by address when it is another kernel's. */
static void vdso_function(void)
{
	void *vdso = dlopen("linux-vdso.so.1", RTLD_NOLOAD | RTLD_LAZY);
	CHECK(vdso != NULL);
	if (!vdso)
		return;
	void *fn = dlvsym(vdso, "__vdso_clock_gettime", "LINUX_2.6");
	Dl_info info;
	CHECK(fn && dladdr(fn, &info) && info.dli_fbase);
	if (!fn || !info.dli_fbase)
		return;
	uint64_t at = (uint64_t)(uintptr_t)fn - (uint64_t)(uintptr_t)info.dli_fbase;
	struct build_id b = {(uintptr_t)info.dli_fbase, {0}, 0};
	dl_iterate_phdr(find_build_id, &b);
	CHECK(b.len > 0);
	char name[512], want[128];
	struct natsym *ns = natsym_new();
	natsym_name(ns, "linux-vdso.so.1", at, b.id, b.len, name, sizeof name);
	CHECK_STR(name, "linux-vdso.so.1!__vdso_clock_gettime");
	CHECK(state_of(ns, "linux-vdso.so.1") == NATSYM_EXPORTS);
	b.id[0] ^= 0xff; /* another kernel's vDSO */
	natsym_name(ns, "linux-vdso.so.1", at, b.id, b.len, name, sizeof name);
	snprintf(want, sizeof want, "linux-vdso.so.1+0x%" PRIx64, at);
	CHECK_STR(name, want);
	natsym_free(ns);
	ns = natsym_new();
	natsym_name(ns, "linux-vdso.so.1", at, b.id, b.len, name, sizeof name);
	CHECK(state_of(ns, "linux-vdso.so.1") == NATSYM_MISSING);
	natsym_name(ns, "linux-vdso.so.1", at, NULL, 0, name, sizeof name); /* unchecked: not named */
	CHECK_STR(name, want);
	natsym_free(ns);
	dlclose(vdso);
}

static void fallbacks(void)
{
	char dir[] = "/tmp/test_natsym.XXXXXX", path[256], name[512];
	CHECK(mkdtemp(dir) != NULL);
	struct natsym *ns = natsym_new();

	snprintf(path, sizeof path, "%s/libmissing.so", dir);
	natsym_name(ns, path, 0x1234, NULL, 0, name, sizeof name);
	CHECK_STR(name, "libmissing.so+0x1234");
	CHECK(state_of(ns, path) == NATSYM_MISSING);

	snprintf(path, sizeof path, "%s/libfifo.so", dir);
	CHECK(mkfifo(path, 0600) == 0);
	natsym_name(ns, path, 0x10, NULL, 0, name, sizeof name); /* must not wait for a writer */
	CHECK_STR(name, "libfifo.so+0x10");
	CHECK(state_of(ns, path) == NATSYM_UNREADABLE);
	unlink(path);

	snprintf(path, sizeof path, "%s/libtext.so", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("not an ELF file\n", f);
		fclose(f);
	}
	natsym_name(ns, path, 0x20, NULL, 0, name, sizeof name);
	CHECK_STR(name, "libtext.so+0x20");
	CHECK(state_of(ns, path) == NATSYM_UNREADABLE);
	unlink(path);

	/* a directory, and a truncated name */
	natsym_name(ns, dir, 0x30, NULL, 0, name, sizeof name);
	CHECK(state_of(ns, dir) == NATSYM_UNREADABLE);
	char tiny[8];
	natsym_name(ns, "/no/such/libverylongname.so", 0x40, NULL, 0, tiny, sizeof tiny);
	CHECK(strlen(tiny) == sizeof tiny - 1);
	rmdir(dir);
	natsym_free(ns);
}

/* ---- debug files ---- */

/* The value of the symbol name in the ELF file at path (its .symtab), and
 * the file's build id; 0 when it has none. */
static uint64_t elf_facts(const char *path, const char *name, uint8_t *id, size_t *id_len)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	uint64_t value = 0;
	*id_len = 0;
	Elf_Scn *scn = NULL;
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || !(data = elf_getdata(scn, NULL)))
			continue;
		if (sh.sh_type == SHT_SYMTAB && sh.sh_entsize) {
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *n;
				if (gelf_getsym(data, (int)i, &sym) && (n = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
				    !strcmp(n, name))
					value = sym.st_value;
			}
		} else if (sh.sh_type == SHT_NOTE) {
			size_t off = 0, name_off, desc_off;
			GElf_Nhdr nh;
			while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0)
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= 32) {
					memcpy(id, (const uint8_t *)data->d_buf + desc_off, nh.n_descsz);
					*id_len = nh.n_descsz;
				}
		}
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return value;
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	CHECK(in && out);
	char buf[8192];
	size_t n;
	while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
		CHECK(fwrite(buf, 1, n, out) == n);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/* A directory under dir, made. */
static void subdir(char *out, size_t n, const char *dir, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
	CHECK(mkdir(out, 0700) == 0);
}

/* The stripped library at DIR/libclrscopeburnstripped.so, named with the
 * symbol directories dirs: what names burn_inner and where it came from. */
static void name_in(const char *dir, const char *const *dirs, size_t ndirs, const uint8_t *id, size_t id_len,
		    uint64_t at, char *name, size_t n, struct natsym_module_info *info, char *text, size_t tn)
{
	char path[600];
	snprintf(path, sizeof path, "%s/libclrscopeburnstripped.so", dir);
	natsym_set_dirs(dirs, ndirs);
	struct natsym *ns = natsym_new();
	natsym_name(ns, path, at, id, id_len, name, n);
	CHECK(info_of(ns, path, info));
	natsym_module_text(info, text, tn);
	/* (the strings live in ns: kept for the caller in text) */
	info->path = info->debug_file = info->debug_link = info->build_id = "";
	natsym_free(ns);
	natsym_set_dirs(NULL, 0);
}

static void debug_files(void)
{
	char dbg[600], tmp[] = "/tmp/test_natsym.XXXXXX", d[700], u[700], path[900], name[512], text[4096];
	snprintf(dbg, sizeof dbg, "%s.dbg", stripped_lib);
	uint8_t id[32];
	size_t id_len;
	uint64_t at = elf_facts(dbg, "burn_inner", id, &id_len);
	CHECK(at != 0 && id_len > 2);
	CHECK(mkdtemp(tmp) != NULL);
	struct natsym_module_info m;
	const char *link = "libclrscopeburnstripped.so.dbg";

	/* beside it, by its debug link */
	subdir(d, sizeof d, tmp, "beside");
	snprintf(path, sizeof path, "%s/libclrscopeburnstripped.so", d);
	copy_file(stripped_lib, path);
	snprintf(path, sizeof path, "%s/%s", d, link);
	copy_file(dbg, path);
	name_in(d, NULL, 0, id, id_len, at, name, sizeof name, &m, text, sizeof text);
	CHECK_STR(name, "libclrscopeburnstripped.so!burn_inner");
	CHECK(m.state == NATSYM_SYMBOLS && m.source == NATSYM_FROM_DEBUGLINK);
	char want[1200];
	snprintf(want, sizeof want, "symbols from %s (its debug link)", path);
	CHECK_STR(text, want);

	/* in the module's .debug/ */
	subdir(d, sizeof d, tmp, "dotdebug");
	snprintf(path, sizeof path, "%s/libclrscopeburnstripped.so", d);
	copy_file(stripped_lib, path);
	subdir(u, sizeof u, d, ".debug");
	snprintf(path, sizeof path, "%s/%s", u, link);
	copy_file(dbg, path);
	name_in(d, NULL, 0, id, id_len, at, name, sizeof name, &m, text, sizeof text);
	CHECK_STR(name, "libclrscopeburnstripped.so!burn_inner");
	CHECK(m.source == NATSYM_FROM_DEBUGLINK);

	/* nowhere: by address, and the report says what to look for */
	subdir(d, sizeof d, tmp, "alone");
	snprintf(path, sizeof path, "%s/libclrscopeburnstripped.so", d);
	copy_file(stripped_lib, path);
	name_in(d, NULL, 0, id, id_len, at, name, sizeof name, &m, text, sizeof text);
	snprintf(want, sizeof want, "libclrscopeburnstripped.so+0x%" PRIx64, at);
	CHECK_STR(name, want);
	CHECK(m.state == NATSYM_EXPORTS && m.source == NATSYM_FROM_DYNSYM);
	CHECK(strstr(text, "stripped: only exported functions are named") != NULL);
	CHECK(strstr(text, "debug link libclrscopeburnstripped.so.dbg") != NULL);
	char hex[80] = "";
	for (size_t i = 0; i < id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	CHECK(strstr(text, hex) != NULL);

	/* ... in a symbol directory, by its debug link's name */
	subdir(u, sizeof u, tmp, "flat");
	snprintf(path, sizeof path, "%s/%s", u, link);
	copy_file(dbg, path);
	const char *flat[] = {"/nonexistent", u};
	name_in(d, flat, 2, id, id_len, at, name, sizeof name, &m, text, sizeof text);
	CHECK_STR(name, "libclrscopeburnstripped.so!burn_inner");
	CHECK(m.source == NATSYM_FROM_DEBUGLINK);

	/* ... in a symbol directory, by build id */
	char tree[700];
	subdir(tree, sizeof tree, tmp, "tree");
	subdir(u, sizeof u, tree, ".build-id");
	snprintf(path, sizeof path, "%s/%02x", u, id[0]);
	CHECK(mkdir(path, 0700) == 0);
	int at_ = (int)strlen(path);
	at_ += snprintf(path + at_, sizeof path - (size_t)at_, "/");
	for (size_t i = 1; i < id_len; i++)
		at_ += snprintf(path + at_, sizeof path - (size_t)at_, "%02x", id[i]);
	snprintf(path + at_, sizeof path - (size_t)at_, ".debug");
	copy_file(dbg, path);
	const char *trees[] = {tree};
	name_in(d, trees, 1, id, id_len, at, name, sizeof name, &m, text, sizeof text);
	CHECK_STR(name, "libclrscopeburnstripped.so!burn_inner");
	CHECK(m.source == NATSYM_FROM_BUILD_ID);
	snprintf(want, sizeof want, "symbols from %s (its build id)", path);
	CHECK_STR(text, want);
	/* ... also for a module no longer on disk (its build id was logged) */
	char gone[700];
	snprintf(gone, sizeof gone, "%s/gone", tmp);
	name_in(gone, trees, 1, id, id_len, at, name, sizeof name, &m, text, sizeof text);
	CHECK_STR(name, "libclrscopeburnstripped.so!burn_inner");
	CHECK(m.state == NATSYM_SYMBOLS && m.source == NATSYM_FROM_BUILD_ID);
	/* ... but not one of another build under that id */
	uint8_t other[32];
	memcpy(other, id, id_len);
	other[id_len - 1] ^= 1;
	name_in(gone, trees, 1, other, id_len, at, name, sizeof name, &m, text, sizeof text);
	CHECK(m.state == NATSYM_MISSING);
	copy_file("/proc/self/exe", path); /* a file of another build id at the path */
	name_in(gone, trees, 1, id, id_len, at, name, sizeof name, &m, text, sizeof text);
	CHECK(m.state == NATSYM_MISSING);

	/* a debug file beside it whose CRC is not the one linked: refused */
	subdir(d, sizeof d, tmp, "badcrc");
	snprintf(path, sizeof path, "%s/libclrscopeburnstripped.so", d);
	copy_file(stripped_lib, path);
	snprintf(path, sizeof path, "%s/%s", d, link);
	copy_file(dbg, path);
	FILE *f = fopen(path, "ab");
	CHECK(f != NULL);
	if (f) {
		fputc(0, f);
		fclose(f);
	}
	name_in(d, NULL, 0, id, id_len, at, name, sizeof name, &m, text, sizeof text);
	snprintf(want, sizeof want, "libclrscopeburnstripped.so+0x%" PRIx64, at);
	CHECK_STR(name, want);
	CHECK(m.state == NATSYM_EXPORTS);

	char cmd[800];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	CHECK(system(cmd) == 0);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_natsym LIBCLRSCOPEBURN1 LIBCLRSCOPEBURNSTRIPPED\n");
		return 2;
	}
	burn_lib = argv[1];
	stripped_lib = argv[2];
	unsetenv("DEBUGINFOD_URLS"); /* no server is asked here (e2e.debuginfod runs one) */
	RUN(own_static_function);
	RUN(exported_function);
	RUN(debug_files);
	RUN(vdso_function);
	RUN(fallbacks);
	return CHECK_DONE();
}
