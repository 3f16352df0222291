/* The agent's reading of a native frame at a call from its code, on
 * functions of the .NET 10 runtime's own libraries (copied from objdump -d,
 * with the unwind rules readelf --debug-dump=frames-interp gives for them)
 * and on forms it must refuse; and its instruction decoder against Zydis
 * over every instruction of glibc and of the runtime's libraries. */
#include <elf.h>
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>

#include <Zydis/Zydis.h>

#include "agent/unwind/nativeframe.h"
#include "check.h"

/* libSystem.Native.so, SystemNative_WaitForSocketEvents from its start to
 * the call to epoll_wait (0x52 bytes): push rbp; mov rbp,rsp; four pushes;
 * two branches forward to an early exit; the call.  At the call the rule
 * is CFA = rbp + 16. */
static const uint8_t wait_for_socket_events[] = {
	0x55, 0x48, 0x89, 0xe5, 0x41, 0x57, 0x41, 0x56, 0x41, 0x54, 0x53, 0x48, 0x85, 0xf6, 0x0f, 0x94, 0xc0,
	0x48, 0x85, 0xd2, 0x0f, 0x94, 0xc1, 0x08, 0xc1, 0xb8, 0x15, 0x00, 0x01, 0x00, 0x0f, 0x85, 0xcd, 0x00,
	0x00, 0x00, 0x48, 0x89, 0xd3, 0x83, 0x3a, 0x00, 0x0f, 0x88, 0xc1, 0x00, 0x00, 0x00, 0x49, 0x89, 0xf6,
	0x49, 0x89, 0xfc, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8b, 0x13, 0x44, 0x89,
	0xe7, 0x4c, 0x89, 0xf6, 0xb9, 0xff, 0xff, 0xff, 0xff, 0xe8, 0xfe, 0x4c, 0x00, 0x00,
};

/* SystemNative_Read to its call to read (0x2e bytes) */
static const uint8_t read_fn[] = {
	0x55, 0x48, 0x89, 0xe5, 0x41, 0x57, 0x41, 0x56, 0x41, 0x54, 0x53, 0x85, 0xd2, 0x78, 0x33, 0x48,
	0x89, 0xf3, 0x49, 0x89, 0xfe, 0x41, 0x89, 0xd7, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x44, 0x89, 0xf7, 0x48, 0x89, 0xde, 0x4c, 0x89, 0xfa, 0xe8, 0x02, 0x81, 0x00, 0x00,
};

/* libcoreclr.so's yield: push rbp; mov rbp,rsp; call sched_yield */
static const uint8_t yield_fn[] = {0x55, 0x48, 0x89, 0xe5, 0xe8, 0x57, 0xcf, 0x03, 0x00};

static void runtime_functions(void)
{
	int32_t off = 0;
	/* rbp = entry - 8, rsp at the call = entry - 40: the CFA (entry + 8)
	 * is rsp + 48 */
	CHECK(nativeframe_cfa_at_call(wait_for_socket_events, sizeof wait_for_socket_events,
				      sizeof wait_for_socket_events, 16, &off));
	CHECK_EQ_U(off, 48);
	off = 0;
	CHECK(nativeframe_cfa_at_call(read_fn, sizeof read_fn, sizeof read_fn, 16, &off));
	CHECK_EQ_U(off, 48);
	off = 0;
	CHECK(nativeframe_cfa_at_call(yield_fn, sizeof yield_fn, sizeof yield_fn, 16, &off));
	CHECK_EQ_U(off, 16);
}

static void refusals(void)
{
	int32_t off;
	/* a rule that disagrees with the code */
	CHECK(!nativeframe_cfa_at_call(yield_fn, sizeof yield_fn, sizeof yield_fn, 24, &off));
	/* a return address inside an instruction, or after one that is not a call */
	CHECK(!nativeframe_cfa_at_call(read_fn, sizeof read_fn, sizeof read_fn - 1, 16, &off));
	CHECK(!nativeframe_cfa_at_call(read_fn, sizeof read_fn, 0x29, 16, &off)); /* after mov rdx, r15 */
	/* no frame pointer set: push rbp; call */
	static const uint8_t no_fp[] = {0x55, 0xe8, 0, 0, 0, 0};
	CHECK(!nativeframe_cfa_at_call(no_fp, sizeof no_fp, sizeof no_fp, 16, &off));
	/* the stack realigned: push rbp; mov rbp,rsp; and rsp,-32; call */
	static const uint8_t realigned[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xe4, 0xe0, 0xe8, 0, 0, 0, 0};
	CHECK(!nativeframe_cfa_at_call(realigned, sizeof realigned, sizeof realigned, 16, &off));
	/* an allocation after a branch (alloca): sub rsp,rax */
	static const uint8_t alloca_after_branch[] = {0x55, 0x48, 0x89, 0xe5, 0x74, 0x00, 0x48, 0x29,
						      0xc4, 0xe8, 0,    0,    0,    0};
	CHECK(!nativeframe_cfa_at_call(alloca_after_branch, sizeof alloca_after_branch, sizeof alloca_after_branch,
				       16, &off));
	/* an early exit before the call: pop rbp; ret past the branch */
	static const uint8_t early_exit[] = {0x55, 0x48, 0x89, 0xe5, 0x74, 0x02, 0x5d, 0xc3, 0xe8, 0, 0, 0, 0};
	CHECK(!nativeframe_cfa_at_call(early_exit, sizeof early_exit, sizeof early_exit, 16, &off));
	/* rbp moved after the prolog */
	static const uint8_t fp_moved[] = {0x55, 0x48, 0x89, 0xe5, 0x74, 0x00, 0x48, 0x89, 0xc5, 0xe8, 0, 0, 0, 0};
	CHECK(!nativeframe_cfa_at_call(fp_moved, sizeof fp_moved, sizeof fp_moved, 16, &off));
	/* not code */
	static const uint8_t junk[] = {0x0f, 0x0b, 0xff, 0xff, 0xe8, 0, 0, 0, 0};
	CHECK(!nativeframe_cfa_at_call(junk, sizeof junk, sizeof junk, 16, &off));
	/* more than it reads */
	CHECK(!nativeframe_cfa_at_call(yield_fn, sizeof yield_fn, sizeof yield_fn + 1, 16, &off));
}

/* The prolog's other forms: an allocation before the first branch, and
 * rbp set with lea from rsp (clang's form after an allocation) */
static void prolog_forms(void)
{
	int32_t off = 0;
	/* push rbp; mov rbp,rsp; push rbx; sub rsp,0x18; call: rsp = entry - 40 */
	static const uint8_t allocated[] = {0x55, 0x48, 0x89, 0xe5, 0x53, 0x48, 0x83, 0xec, 0x18, 0xe8, 0, 0, 0, 0};
	CHECK(nativeframe_cfa_at_call(allocated, sizeof allocated, sizeof allocated, 16, &off));
	CHECK_EQ_U(off, 48);
	/* push rbp; push rbx; sub rsp,0x18; lea rbp,[rsp+0x20]; call: rbp = entry - 8 */
	static const uint8_t lea_fp[] = {0x55, 0x53, 0x48, 0x83, 0xec, 0x18, 0x48, 0x8d, 0x6c, 0x24,
					 0x20, 0xe8, 0,    0,    0,    0};
	off = 0;
	CHECK(nativeframe_cfa_at_call(lea_fp, sizeof lea_fp, sizeof lea_fp, 16, &off));
	CHECK_EQ_U(off, 48);
	/* a call before the one asked about leaves rsp where it was */
	static const uint8_t two_calls[] = {0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0, 0x74, 0x00, 0xe8, 0, 0, 0, 0};
	off = 0;
	CHECK(nativeframe_cfa_at_call(two_calls, sizeof two_calls, sizeof two_calls, 16, &off));
	CHECK_EQ_U(off, 16);
}

/* The runtime's hijack stub, by its prolog (unixasmhelpers.S): .NET 10's
 * form with push rcx, the earlier one without; anything else is not it. */
static void hijack_stub(void)
{
	static const uint8_t net10[] = {0x50, 0x55, 0x53, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55, 0x41, 0x54,
					0x51, 0x52, 0x50, 0x48, 0x89, 0xe7, 0x48, 0x8d, 0x64, 0x24, 0xe0};
	static const uint8_t net8[] = {0x50, 0x55, 0x53, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55,
				       0x41, 0x54, 0x52, 0x50, 0x48, 0x89, 0xe7};
	CHECK_EQ_U(nativeframe_hijack_pushes(net10, sizeof net10), 10);
	CHECK_EQ_U(nativeframe_hijack_pushes(net8, sizeof net8), 9);
	/* cut short, without the slot's push, with the saved registers out of
	 * order, without mov rdi,rsp */
	CHECK_EQ_U(nativeframe_hijack_pushes(net10, 16), 0);
	CHECK_EQ_U(nativeframe_hijack_pushes(net10 + 1, sizeof net10 - 1), 0);
	static const uint8_t swapped[] = {0x50, 0x53, 0x55, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55,
					  0x41, 0x54, 0x52, 0x50, 0x48, 0x89, 0xe7};
	CHECK_EQ_U(nativeframe_hijack_pushes(swapped, sizeof swapped), 0);
	static const uint8_t no_args[] = {0x50, 0x55, 0x53, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55,
					  0x41, 0x54, 0x52, 0x50, 0x48, 0x89, 0xe5};
	CHECK_EQ_U(nativeframe_hijack_pushes(no_args, sizeof no_args), 0);
	/* JIT_RareDisableHelper: push rax, push rdx, then its allocation */
	static const uint8_t rare_disable[] = {0x50, 0x52, 0x48, 0x8d, 0x64, 0x24, 0xd8};
	CHECK_EQ_U(nativeframe_hijack_pushes(rare_disable, sizeof rare_disable), 0);
}

/* The .text section of an ELF file, read whole. */
static uint8_t *read_text(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *file = size > (long)sizeof(Elf64_Ehdr) ? malloc((size_t)size) : NULL;
	bool ok = file && fread(file, 1, (size_t)size, f) == (size_t)size;
	fclose(f);
	uint8_t *text = NULL;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
	if (ok && eh->e_shoff && eh->e_shstrndx < eh->e_shnum &&
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) <= (uint64_t)size) {
		const Elf64_Shdr *sh = (const Elf64_Shdr *)(file + eh->e_shoff);
		const char *names = (const char *)file + sh[eh->e_shstrndx].sh_offset;
		for (int i = 0; i < eh->e_shnum && !text; i++) {
			if (strcmp(names + sh[i].sh_name, ".text") != 0 || sh[i].sh_offset + sh[i].sh_size > (uint64_t)size)
				continue;
			text = malloc(sh[i].sh_size);
			memcpy(text, file + sh[i].sh_offset, sh[i].sh_size);
			*n = sh[i].sh_size;
		}
	}
	free(file);
	return text;
}

static bool zydis_writes(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, ZydisRegister r)
{
	for (uint8_t i = 0; i < in->operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
		    ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, ops[i].reg.value) == r)
			return true;
	return false;
}

/* Every instruction of a library's code, in a linear sweep that follows
 * Zydis: where the agent's decoder decodes one, the length must be
 * Zydis's, and a write to rsp or rbp Zydis sees must be one it says may
 * happen (a call's own push and pop aside). */
static void against_zydis(const char *path)
{
	size_t n = 0;
	uint8_t *text = read_text(path, &n);
	if (!text) {
		SKIP_PART("%s against Zydis: not here", path);
		return;
	}
	ZydisDecoder zd;
	ZydisDecoderInit(&zd, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	uint64_t total = 0, known = 0, bad_len = 0, missed = 0;
	for (size_t off = 0; off < n;) {
		ZydisDecodedInstruction zi;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&zd, text + off, n - off, &zi, ops))) {
			off++;
			continue;
		}
		total++;
		struct x64_insn mine;
		if (x64_insn_decode(text + off, n - off, &mine)) {
			known++;
			bool len_ok = mine.len == zi.length;
			bool sp_ok = mine.kind == X64_I_CALL || !zydis_writes(&zi, ops, ZYDIS_REGISTER_RSP) || mine.writes_sp ||
				     mine.kind == X64_I_PUSH || mine.kind == X64_I_POP || mine.kind == X64_I_ADD_SP;
			bool fp_ok = !zydis_writes(&zi, ops, ZYDIS_REGISTER_RBP) || mine.writes_fp || mine.kind == X64_I_SET_FP;
			if (!len_ok || !sp_ok || !fp_ok) {
				bad_len += !len_ok;
				missed += !sp_ok || !fp_ok;
				if (bad_len + missed <= 10) {
					fprintf(stderr, "%s+0x%zx: length %u (Zydis %u), sp %d fp %d:", path, off, mine.len,
						zi.length, sp_ok, fp_ok);
					for (unsigned b = 0; b < zi.length; b++)
						fprintf(stderr, " %02x", text[off + b]);
					fprintf(stderr, "\n");
				}
			}
		}
		off += zi.length;
	}
	printf("# %s: %llu instructions, %.2f%% decoded, %llu lengths wrong, %llu writes missed\n", path,
	       (unsigned long long)total, total ? 100.0 * (double)known / (double)total : 0.0,
	       (unsigned long long)bad_len, (unsigned long long)missed);
	CHECK(total > 1000);
	CHECK_EQ_U(bad_len, 0);
	CHECK_EQ_U(missed, 0);
	CHECK(known >= total * 97 / 100); /* (what it does not know: AVX-512, 3DNow!, system code) */
	free(text);
}

static void real_libraries(void)
{
	against_zydis("/lib/x86_64-linux-gnu/libc.so.6");
	const char *roots[] = {getenv("DOTNET_ROOT"), "/usr/share/dotnet", "/usr/lib/dotnet", "/usr/local/share/dotnet"};
	for (size_t r = 0; r < sizeof roots / sizeof *roots; r++) {
		char pattern[512];
		glob_t g;
		if (!roots[r])
			continue;
		snprintf(pattern, sizeof pattern, "%s/shared/Microsoft.NETCore.App/*/libcoreclr.so", roots[r]);
		if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc) {
			char dir[512];
			snprintf(dir, sizeof dir, "%s", g.gl_pathv[g.gl_pathc - 1]);
			*strrchr(dir, '/') = 0;
			char lib[600];
			const char *names[] = {"libcoreclr.so", "libclrjit.so", "libSystem.Native.so"};
			for (size_t k = 0; k < 3; k++) {
				snprintf(lib, sizeof lib, "%s/%s", dir, names[k]);
				against_zydis(lib);
			}
			/* the hijack stub's prolog: once in the runtime's code */
			snprintf(lib, sizeof lib, "%s/libcoreclr.so", dir);
			size_t n = 0, stubs = 0;
			uint8_t *text = read_text(lib, &n);
			for (size_t off = 0; text && off < n; off++)
				stubs += nativeframe_hijack_pushes(text + off, n - off) != 0;
			printf("# %s: %zu hijack stub prologs\n", lib, stubs);
			CHECK_EQ_U(stubs, 1);
			free(text);
			globfree(&g);
			return;
		}
		globfree(&g);
	}
	SKIP_PART("the .NET runtime's libraries against Zydis: no runtime found");
}

int main(void)
{
	RUN(runtime_functions);
	RUN(refusals);
	RUN(prolog_forms);
	RUN(hijack_stub);
	RUN(real_libraries);
	return CHECK_DONE();
}
