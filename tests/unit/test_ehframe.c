/* The agent's .eh_frame reader on real code: this test program's own
 * functions and glibc's, found through dl_iterate_phdr as the agent finds
 * them, read through the same kind of no-fault reader. */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "agent/unwind/ehframe.h"
#include "check.h"

static int read_self(uint64_t addr, void *buf, uint32_t n)
{
	struct iovec local = {buf, n}, remote = {(void *)(uintptr_t)addr, n};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

struct find {
	uint64_t pc, hdr;
};

static int find_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct find *f = arg;
	uint64_t hdr = 0;
	bool inside = false;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_GNU_EH_FRAME)
			hdr = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && f->pc >= info->dlpi_addr + ph->p_vaddr &&
		    f->pc < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
			inside = true;
	}
	if (inside)
		f->hdr = hdr;
	return inside;
}

static bool rule_at(uint64_t pc, struct eh_rule *r)
{
	struct find f = {pc, 0};
	dl_iterate_phdr(find_module, &f);
	return f.hdr && eh_rule_at(f.hdr, pc, read_self, r);
}

/* At a function's first instruction the return address was just pushed. */
static void function_entry(void)
{
	struct eh_rule r;
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *fn = libc ? dlsym(libc, "epoll_wait") : NULL;
	CHECK(fn != NULL);
	CHECK(fn && rule_at((uint64_t)(uintptr_t)fn, &r));
	CHECK(r.cfa_reg == EH_REG_RSP && r.cfa_off == 8 && r.ra_off == -8 && !r.rbp_saved && !r.outermost);
	CHECK(rule_at((uint64_t)(uintptr_t)&function_entry, &r));
	CHECK(r.cfa_reg == EH_REG_RSP && r.cfa_off == 8 && r.ra_off == -8);
	if (libc)
		dlclose(libc);
}

/* Inside a caller compiled with a frame pointer (the sanitized build
 * keeps them): the CFA is rbp + 16, rbp saved below the return address. */
__attribute__((noinline)) static uint64_t return_address(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

__attribute__((noinline)) static void framed_caller(uint64_t *ret)
{
	volatile char pad[64];
	pad[0] = 1;
	*ret = return_address() + pad[0] - 1;
}

static void inside_a_frame(void)
{
	uint64_t ret = 0;
	framed_caller(&ret);
	struct eh_rule r;
	CHECK(ret && rule_at(ret - 1, &r));
	CHECK(r.ra_off == -8);
	if (r.cfa_reg == EH_REG_RBP) {
		CHECK(r.cfa_off == 16);
		CHECK(r.rbp_saved && r.rbp_off == -16);
	} else {
		CHECK(r.cfa_reg == EH_REG_RSP && r.cfa_off > 8); /* built without frame pointers */
	}
}

/* C++ code with exception handling: its CIEs name a personality routine
 * through an indirect pointer (augmentation "zPLR", encoding 0x9b).  The
 * runtime (libcoreclr, libclrjit) is such code; every function's first
 * instruction must have its rule (a reader that takes the personality
 * pointer for a code address refuses these CIEs, and then most of
 * libcoreclr has no rule). */
static int each_fde_start(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uint32_t *counts = arg; /* FDEs, with a rule */
	if (!info->dlpi_name || !strstr(info->dlpi_name, "libstdc++.so"))
		return 0;
	uint64_t hdr = 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	const uint8_t *h = (const uint8_t *)(uintptr_t)hdr;
	if (!h || h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b)
		return 1; /* a table this reader (and the agent) does not take */
	uint32_t count;
	memcpy(&count, h + 8, 4);
	for (uint32_t i = 0; i < count; i++) {
		int32_t start;
		memcpy(&start, h + 12 + 8 * (size_t)i, 4);
		struct eh_rule r;
		counts[0]++;
		counts[1] += eh_rule_at(hdr, hdr + (uint64_t)(int64_t)start, read_self, &r);
	}
	return 1;
}

static void cplusplus_functions(void)
{
	void *cxx = dlopen("libstdc++.so.6", RTLD_NOW);
	CHECK(cxx != NULL);
	uint32_t counts[2] = {0, 0};
	dl_iterate_phdr(each_fde_start, counts);
	CHECK(counts[0] > 1000);
	if (counts[1] < counts[0] * 0.99)
		fprintf(stderr, "libstdc++: %u of %u functions have a rule at their start\n", counts[1], counts[0]);
	CHECK(counts[1] >= counts[0] * 0.99);
	if (cxx)
		dlclose(cxx);
}

/* Addresses outside every FDE and unreadable headers are "not known". */
static void unknown(void)
{
	struct eh_rule r;
	struct find f = {(uint64_t)(uintptr_t)&unknown, 0};
	dl_iterate_phdr(find_module, &f);
	CHECK(f.hdr != 0);
	CHECK(!eh_rule_at(f.hdr, 0x1000, read_self, &r));
	CHECK(!eh_rule_at(0x1000, (uint64_t)(uintptr_t)&unknown, read_self, &r));
	static const uint8_t junk[64] = {1, 0x1b, 0x03, 0x3b, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f};
	CHECK(!eh_rule_at((uint64_t)(uintptr_t)junk, (uint64_t)(uintptr_t)&unknown, read_self, &r));
}

int main(void)
{
	RUN(function_entry);
	RUN(inside_a_frame);
	RUN(cplusplus_functions);
	RUN(unknown);
	return CHECK_DONE();
}
