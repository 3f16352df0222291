/* Native functions' names from their modules: this program's own static
 * functions (its full symbol table), the burn library's export, the vDSO
 * (no file: this process's own), and every fallback (a missing file,
 * another build, a FIFO, a file that is not ELF) named by address without
 * hanging or crashing.
 *
 *   test_natsym LIBCLRSCOPEBURN1 */
#include <dlfcn.h>
#include <inttypes.h>
#include <link.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "profile/natsym.h"

static const char *burn_lib;

__attribute__((noinline)) static int a_static_function(int x)
{
	return x * 3 + 1;
}

static enum natsym_state state_of(const struct natsym *ns, const char *path)
{
	for (size_t i = 0; i < natsym_modules(ns); i++) {
		const char *p;
		enum natsym_state st;
		natsym_module(ns, i, &p, &st);
		if (!strcmp(p, path))
			return st;
	}
	return (enum natsym_state)-1;
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

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_natsym LIBCLRSCOPEBURN1\n");
		return 2;
	}
	burn_lib = argv[1];
	RUN(own_static_function);
	RUN(exported_function);
	RUN(vdso_function);
	RUN(fallbacks);
	return CHECK_DONE();
}
