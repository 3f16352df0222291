/* The agent's x64 prolog and epilog decoder on the encodings the .NET JIT
 * writes (taken from DOTNET_JitDisasm listings of the test apps). */
#include <stdint.h>

#include "agent/unwind/x64frame.h"
#include "check.h"

/* Tier0: push rbp; sub rsp, 112; lea rbp, [rsp+0x70]; vxorps ... */
static void tier0_frame(void)
{
	static const uint8_t code[] = {0x55, 0x48, 0x83, 0xEC, 0x70, 0x48, 0x8D, 0x6C, 0x24, 0x70,
				       0xC5, 0x39, 0x57, 0xC0};
	struct x64_prolog p;
	CHECK(x64_decode_prolog(code, sizeof code, &p));
	CHECK(!p.osr);
	const struct x64_frame_state *body = x64_prolog_state_at(&p, 100);
	CHECK(body->fp_set && body->fp_saved);
	CHECK_EQ_U((uint64_t)(int64_t)body->sp, (uint64_t)(int64_t)-120);
	CHECK_EQ_U((uint64_t)(int64_t)body->fp, (uint64_t)(int64_t)-8); /* rbp points at the saved rbp */
	CHECK_EQ_U((uint64_t)(int64_t)body->fp_slot, (uint64_t)(int64_t)-8);
	/* inside the prolog: after push rbp only */
	const struct x64_frame_state *mid = x64_prolog_state_at(&p, 1);
	CHECK(!mid->fp_set && mid->fp_saved);
	CHECK_EQ_U((uint64_t)(int64_t)mid->sp, (uint64_t)(int64_t)-8);
	CHECK(x64_prolog_state_at(&p, 0)->sp == 0);
}

/* Tier1, frameless: push rax (8 bytes of frame); mov edi, 30; call ... */
static void frameless(void)
{
	static const uint8_t code[] = {0x50, 0xBF, 0x1E, 0x00, 0x00, 0x00, 0xFF, 0x15, 0, 0, 0, 0};
	struct x64_prolog p;
	CHECK(x64_decode_prolog(code, sizeof code, &p));
	const struct x64_frame_state *body = x64_prolog_state_at(&p, 6);
	CHECK(!body->fp_set && !body->fp_saved);
	CHECK_EQ_U((uint64_t)(int64_t)body->sp, (uint64_t)(int64_t)-8);
	/* a leaf with no prolog at all */
	static const uint8_t leaf[] = {0x8B, 0xC7, 0xC3};
	CHECK(x64_decode_prolog(leaf, sizeof leaf, &p));
	CHECK(x64_prolog_state_at(&p, 2)->sp == 0);
}

/* OSR: mov rax, [rbp]; push rax; mov rbp, rsp; mov eax, [rbp+0x34] */
static void osr(void)
{
	static const uint8_t code[] = {0x48, 0x8B, 0x45, 0x00, 0x50, 0x48, 0x8B, 0xEC, 0x8B, 0x45, 0x34};
	struct x64_prolog p;
	CHECK(x64_decode_prolog(code, sizeof code, &p));
	CHECK(p.osr);
	const struct x64_frame_state *body = x64_prolog_state_at(&p, 20);
	CHECK(body->fp_set && body->fp_saved);
	CHECK_EQ_U((uint64_t)(int64_t)body->fp_slot, (uint64_t)(int64_t)-8); /* the copy of Tier0's saved rbp */
	CHECK_EQ_U((uint64_t)(int64_t)body->fp, (uint64_t)(int64_t)-8);
}

/* Pushes of callee-saved registers, a 32-bit allocation, lea rbp, [rsp+disp32] */
static void callee_saved(void)
{
	static const uint8_t code[] = {0x55, 0x41, 0x57, 0x53, 0x48, 0x81, 0xEC, 0x00, 0x02, 0x00, 0x00,
				       0x48, 0x8D, 0xAC, 0x24, 0x10, 0x02, 0x00, 0x00, 0x90};
	struct x64_prolog p;
	CHECK(x64_decode_prolog(code, sizeof code, &p));
	const struct x64_frame_state *body = x64_prolog_state_at(&p, 64);
	CHECK_EQ_U((uint64_t)(int64_t)body->sp, (uint64_t)(int64_t)(-24 - 0x200));
	CHECK_EQ_U((uint64_t)(int64_t)body->fp, (uint64_t)(int64_t)-8);
	/* a frame pointer that does not save rbp first is no prolog we follow */
	static const uint8_t bad[] = {0x48, 0x8B, 0xEC, 0x90};
	CHECK(!x64_decode_prolog(bad, sizeof bad, &p));
}

static void epilogs(void)
{
	struct x64_epilog e;
	static const uint8_t tier0[] = {0x48, 0x83, 0xC4, 0x70, 0x5D, 0xC3}; /* add rsp,112; pop rbp; ret */
	CHECK(x64_decode_epilog(tier0, sizeof tier0, &e));
	CHECK_EQ_U(e.nops, 3);
	CHECK(e.op[0].kind == X64_ADD_RSP && e.op[0].imm == 112);
	CHECK(e.op[1].kind == X64_POP_FP && e.op[2].kind == X64_RET);
	static const uint8_t lea[] = {0x48, 0x8D, 0x65, 0xF0, 0x5B, 0x41, 0x5F, 0x5D, 0xC3};
	CHECK(x64_decode_epilog(lea, sizeof lea, &e));
	CHECK(e.op[0].kind == X64_LEA_RSP_FP && e.op[0].imm == -16);
	static const uint8_t tail[] = {0x48, 0x83, 0xC4, 0x08, 0xE9, 0, 0, 0, 0}; /* add rsp,8; jmp rel32 */
	CHECK(x64_decode_epilog(tail, sizeof tail, &e));
	CHECK(e.op[e.nops - 1].kind == X64_TAIL_JMP);
	/* a jump in a body is not an epilog, nor is ordinary code */
	static const uint8_t body_jmp[] = {0xEB, 0x10, 0x90};
	CHECK(!x64_decode_epilog(body_jmp, sizeof body_jmp, &e));
	static const uint8_t jmp_only[] = {0xE9, 0, 0, 0, 0};
	CHECK(!x64_decode_epilog(jmp_only, sizeof jmp_only, &e));
	static const uint8_t code[] = {0x8B, 0x45, 0x34, 0xC3};
	CHECK(!x64_decode_epilog(code, sizeof code, &e));
	static const uint8_t ret[] = {0xC3};
	CHECK(x64_decode_epilog(ret, sizeof ret, &e));
	/* running out of bytes is not an epilog */
	CHECK(!x64_decode_epilog(tier0, 4, &e));
}

static void calls(void)
{
	static const uint8_t rel[] = {0x90, 0xE8, 1, 2, 3, 4};          /* call rel32 */
	static const uint8_t ind[] = {0x90, 0xFF, 0x15, 1, 2, 3, 4};    /* call [rip+disp32] */
	static const uint8_t reg[] = {0x90, 0x41, 0xFF, 0xD3};          /* call r11 */
	static const uint8_t none[] = {0x90, 0x90, 0x48, 0x8B, 0x45, 0x34}; /* mov rax, [rbp+0x34] */
	CHECK(x64_follows_call(rel + sizeof rel - 1, sizeof rel));
	CHECK(x64_follows_call(ind + sizeof ind - 1, sizeof ind));
	CHECK(x64_follows_call(reg + sizeof reg - 1, sizeof reg));
	CHECK(!x64_follows_call(none + sizeof none - 1, sizeof none));
}

static void syscalls(void)
{
	/* glibc's futex wait: mov $0xca,%eax; syscall */
	static const uint8_t futex[] = {0x89, 0xEA, 0xB8, 0xCA, 0x00, 0x00, 0x00, 0x0F, 0x05};
	CHECK(x64_syscall_number(futex + sizeof futex, sizeof futex) == X64_LINUX_FUTEX);
	/* epoll_wait (232): je ...; mov $0xe8,%eax; syscall */
	static const uint8_t epoll[] = {0x74, 0x14, 0xB8, 0xE8, 0x00, 0x00, 0x00, 0x0F, 0x05};
	CHECK(x64_syscall_number(epoll + sizeof epoll, sizeof epoll) == 232);
	CHECK(x64_linux_syscall_waits(232));
	/* mov $0xca,%r8d; syscall: the number is elsewhere */
	static const uint8_t r8[] = {0x90, 0x41, 0xB8, 0xCA, 0x00, 0x00, 0x00, 0x0F, 0x05};
	CHECK(x64_syscall_number(r8 + sizeof r8, sizeof r8) == -1);
	/* xor $0x80,%sil; syscall with no number before it */
	static const uint8_t sil[] = {0x00, 0x00, 0x00, 0x40, 0x80, 0xF6, 0x80, 0x0F, 0x05};
	CHECK(x64_syscall_number(sil + sizeof sil, sizeof sil) == -1);
	/* glibc's __lll_lock_wait: mov $0xca,%eax; xor $0x80,%sil; syscall */
	static const uint8_t lock[] = {0x89, 0xD7, 0xB8, 0xCA, 0x00, 0x00, 0x00, 0x40, 0x80, 0xF6, 0x80, 0x0F, 0x05};
	CHECK(x64_syscall_number(lock + sizeof lock, sizeof lock) == X64_LINUX_FUTEX);
	/* mov $0xca,%eax; mov $0x80,%esi; syscall; and mov $0xca,%eax; xor %edx,%edx; syscall */
	static const uint8_t esi[] = {0x90, 0xB8, 0xCA, 0x00, 0x00, 0x00, 0xBE, 0x80, 0x00, 0x00, 0x00, 0x0F, 0x05};
	CHECK(x64_syscall_number(esi + sizeof esi, sizeof esi) == X64_LINUX_FUTEX);
	static const uint8_t edx[] = {0x90, 0xB8, 0xE8, 0x00, 0x00, 0x00, 0x31, 0xD2, 0x0F, 0x05};
	CHECK(x64_syscall_number(edx + sizeof edx, sizeof edx) == 232);
	/* ... but not an instruction between that writes eax (xor %eax,%eax) */
	static const uint8_t eax[] = {0x90, 0xB8, 0xE8, 0x00, 0x00, 0x00, 0x31, 0xC0, 0x0F, 0x05};
	CHECK(x64_syscall_number(eax + sizeof eax, sizeof eax) == -1);
	/* not after a syscall, or too few bytes */
	CHECK(x64_syscall_number(futex + sizeof futex - 1, sizeof futex - 1) == -1);
	CHECK(x64_syscall_number(futex + sizeof futex, 7) == -1);
	CHECK(x64_syscall_number(futex + sizeof futex, 2) == -1);
	/* send (44), write (1) and futex itself do not wait by their number */
	CHECK(!x64_linux_syscall_waits(44) && !x64_linux_syscall_waits(1) && !x64_linux_syscall_waits(X64_LINUX_FUTEX));
	CHECK(!x64_linux_syscall_waits(-1));
	CHECK(x64_futex_op_waits(0x80) && x64_futex_op_waits(0x189)); /* WAIT | PRIVATE, WAIT_BITSET | PRIVATE | REALTIME */
	CHECK(!x64_futex_op_waits(0x81));                             /* WAKE | PRIVATE */
}

int main(void)
{
	RUN(tier0_frame);
	RUN(frameless);
	RUN(osr);
	RUN(callee_saved);
	RUN(epilogs);
	RUN(calls);
	RUN(syscalls);
	return CHECK_DONE();
}
