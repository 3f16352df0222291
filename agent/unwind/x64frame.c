#include "agent/unwind/x64frame.h"

#include <string.h>

#include "common/wire.h"

/* Register numbers in the x64 encoding (REX.B adds 8). */
#define REG_RAX 0
#define REG_RSP 4
#define REG_RBP 5

static int32_t imm32(const uint8_t *p)
{
	return (int32_t)cs_load_u32(p);
}

/* No frame the JIT lays out is near 1 GiB: a prolog that claims one is
 * not code this decoder reads (and the offsets stay within int32_t). */
#define X64_FRAME_MAX (1 << 30)

static bool frame_offset(int64_t v, int32_t *out)
{
	if (v > 0 || v < -(int64_t)X64_FRAME_MAX)
		return false;
	*out = (int32_t)v;
	return true;
}

static bool push_step(struct x64_prolog *p, struct x64_frame_state st)
{
	if (p->nsteps >= X64_PROLOG_STEPS)
		return false;
	p->step[p->nsteps++] = st;
	return true;
}

bool x64_decode_prolog(const uint8_t *code, size_t n, struct x64_prolog *out)
{
	memset(out, 0, sizeof *out);
	struct x64_frame_state st = {0};
	push_step(out, st);
	bool copied_fp = false; /* the OSR prolog loaded the Tier0 frame's saved rbp into rax */
	size_t i = 0;
	while (i < n && out->nsteps < X64_PROLOG_STEPS) {
		const uint8_t *c = code + i;
		size_t left = n - i, len = 0;
		if (c[0] >= 0x50 && c[0] <= 0x57) { /* push r */
			len = 1;
			st.sp -= 8;
			if (c[0] - 0x50 == REG_RBP || (copied_fp && c[0] - 0x50 == REG_RAX && !st.fp_saved)) {
				st.fp_saved = true;
				st.fp_slot = st.sp;
			}
		} else if (left >= 2 && c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57) { /* push r8-r15 */
			len = 2;
			st.sp -= 8;
		} else if (left >= 4 && c[0] == 0x48 && c[1] == 0x83 && c[2] == 0xEC) { /* sub rsp, imm8 */
			len = 4;
			if (!frame_offset((int64_t)st.sp - (int8_t)c[3], &st.sp))
				break;
		} else if (left >= 7 && c[0] == 0x48 && c[1] == 0x81 && c[2] == 0xEC) { /* sub rsp, imm32 */
			len = 7;
			if (!frame_offset((int64_t)st.sp - imm32(c + 3), &st.sp))
				break;
		} else if (left >= 5 && c[0] == 0x48 && c[1] == 0x8D && c[2] == 0x6C && c[3] == 0x24) {
			len = 5; /* lea rbp, [rsp+disp8] */
			if (!frame_offset((int64_t)st.sp + (int8_t)c[4], &st.fp))
				break;
			st.fp_set = true;
		} else if (left >= 8 && c[0] == 0x48 && c[1] == 0x8D && c[2] == 0xAC && c[3] == 0x24) {
			len = 8; /* lea rbp, [rsp+disp32] */
			if (!frame_offset((int64_t)st.sp + imm32(c + 4), &st.fp))
				break;
			st.fp_set = true;
		} else if (left >= 3 && c[0] == 0x48 && ((c[1] == 0x8B && c[2] == 0xEC) || (c[1] == 0x89 && c[2] == 0xE5))) {
			len = 3; /* mov rbp, rsp */
			st.fp = st.sp;
			st.fp_set = true;
		} else if (i == 0 && left >= 4 && c[0] == 0x48 && c[1] == 0x8B && c[2] == 0x45 && c[3] == 0x00) {
			len = 4; /* mov rax, [rbp]: the OSR prolog copies the Tier0 frame's saved rbp */
			copied_fp = true;
			out->osr = true;
		} else if (left >= 3 && c[0] == 0xC5 && c[1] == 0xF8 && c[2] == 0x77) {
			len = 3; /* vzeroupper */
		} else if (c[0] == 0x90) {
			len = 1; /* nop */
		} else {
			break;
		}
		i += len;
		/* every instruction ends a step, so that an offset inside the
		 * prolog maps to the frame before that instruction ran */
		st.end = (uint16_t)(i > 0xFFFF ? 0xFFFF : i);
		if (!push_step(out, st))
			return false;
	}
	/* an OSR prolog must save the copy; a frame pointer must save rbp first */
	if (out->osr && !out->step[out->nsteps - 1].fp_saved)
		return false;
	const struct x64_frame_state *body = &out->step[out->nsteps - 1];
	if (body->fp_set && !body->fp_saved)
		return false;
	return true;
}

const struct x64_frame_state *x64_prolog_state_at(const struct x64_prolog *p, uint32_t off)
{
	const struct x64_frame_state *st = &p->step[0];
	for (uint8_t k = 1; k < p->nsteps; k++) {
		if (p->step[k].end > off)
			break;
		st = &p->step[k];
	}
	return st;
}

static bool add_op(struct x64_epilog *e, uint8_t kind, int32_t imm)
{
	if (e->nops >= X64_EPILOG_OPS)
		return false;
	e->op[e->nops].kind = kind;
	e->op[e->nops].imm = imm;
	e->nops++;
	return true;
}

bool x64_decode_epilog(const uint8_t *code, size_t n, struct x64_epilog *out)
{
	memset(out, 0, sizeof *out);
	size_t i = 0;
	bool stack_op = false;
	while (i < n && out->nops < X64_EPILOG_OPS - 1) {
		const uint8_t *c = code + i;
		size_t left = n - i;
		if (c[0] == 0xC3 || (c[0] == 0xC2 && left >= 3))
			return add_op(out, X64_RET, 0);
		/* a tail call: jmp rel32, jmp [rip+disp32], jmp reg (with or
		 * without REX) */
		bool jmp = c[0] == 0xE9 || (left >= 2 && c[0] == 0xFF && (c[1] == 0x25 || (c[1] & 0xF8) == 0xE0)) ||
			   (left >= 3 && (c[0] & 0xF0) == 0x40 && c[1] == 0xFF && (c[2] == 0x25 || (c[2] & 0xF8) == 0xE0));
		if (jmp)
			return stack_op && add_op(out, X64_TAIL_JMP, 0);
		if (c[0] >= 0x58 && c[0] <= 0x5F) {
			add_op(out, c[0] - 0x58 == REG_RBP ? X64_POP_FP : X64_POP_OTHER, 0);
			i += 1;
		} else if (left >= 2 && c[0] == 0x41 && c[1] >= 0x58 && c[1] <= 0x5F) {
			add_op(out, X64_POP_OTHER, 0);
			i += 2;
		} else if (left >= 4 && c[0] == 0x48 && c[1] == 0x83 && c[2] == 0xC4) {
			add_op(out, X64_ADD_RSP, (int8_t)c[3]);
			i += 4;
		} else if (left >= 7 && c[0] == 0x48 && c[1] == 0x81 && c[2] == 0xC4) {
			add_op(out, X64_ADD_RSP, imm32(c + 3));
			i += 7;
		} else if (left >= 4 && c[0] == 0x48 && c[1] == 0x8D && c[2] == 0x65) {
			add_op(out, X64_LEA_RSP_FP, (int8_t)c[3]);
			i += 4;
		} else if (left >= 7 && c[0] == 0x48 && c[1] == 0x8D && c[2] == 0xA5) {
			add_op(out, X64_LEA_RSP_FP, imm32(c + 3));
			i += 7;
		} else if (left >= 3 && c[0] == 0x48 && ((c[1] == 0x8B && c[2] == 0xE5) || (c[1] == 0x89 && c[2] == 0xEC))) {
			add_op(out, X64_MOV_RSP_FP, 0);
			i += 3;
		} else if (left >= 3 && c[0] == 0xC5 && c[1] == 0xF8 && c[2] == 0x77) {
			i += 3; /* vzeroupper before leaving */
			continue;
		} else {
			return false;
		}
		stack_op = true;
	}
	return false;
}

/* Length of an instruction FF /2 (call r/m64) from its ModRM on, or 0. */
static size_t call_rm_len(const uint8_t *m, size_t avail)
{
	if (avail < 1 || ((m[0] >> 3) & 7) != 2)
		return 0;
	uint8_t mod = m[0] >> 6, rm = m[0] & 7;
	size_t len = 1;
	if (mod == 3)
		return len;
	if (rm == 4)
		len++; /* SIB */
	if (mod == 0 && rm == 5)
		return len + 4; /* [rip+disp32] */
	if (mod == 0 && rm == 4 && avail >= 2 && (m[1] & 7) == 5)
		return len + 4; /* SIB with no base: disp32 */
	return len + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

bool x64_follows_call(const uint8_t *before_end, size_t avail)
{
	const uint8_t *end = before_end + 1; /* the return address */
	if (avail >= 5 && end[-5] == 0xE8)
		return true; /* call rel32 */
	for (size_t len = 2; len <= 8 && len <= avail; len++) {
		const uint8_t *c = end - len;
		size_t at = 0;
		if ((c[0] & 0xF0) == 0x40)
			at = 1; /* REX */
		if (c[at] != 0xFF)
			continue;
		size_t mlen = call_rm_len(c + at + 1, len - at - 1);
		if (mlen && at + 1 + mlen == len)
			return true;
	}
	return false;
}

/* mov $imm32,%eax ending at end: its immediate, or -1. */
static int64_t mov_eax_before(const uint8_t *end, size_t avail)
{
	if (avail < 6 || end[-5] != 0xB8)
		return -1;
	if ((end[-6] & 0xF0) == 0x40)
		return -1; /* 41 B8 imm32 is mov $imm,%r8d */
	return (int64_t)((uint32_t)end[-4] | (uint32_t)end[-3] << 8 | (uint32_t)end[-2] << 16 | (uint32_t)end[-1] << 24);
}

/* Whether the len bytes ending at end are one instruction that leaves eax
 * alone, of the forms C libraries put between setting a system call's
 * number and the syscall: xor $imm8,%sil (40 80 F6 ib: a futex operation
 * made private); mov $imm32 to edx, ebx, esi or edi; xor of one register
 * other than eax with itself. */
static bool keeps_eax(const uint8_t *end, size_t len)
{
	const uint8_t *i = end - len;
	switch (len) {
	case 4:
		return i[0] == 0x40 && i[1] == 0x80 && i[2] == 0xF6;
	case 5:
		return i[0] == 0xBA || i[0] == 0xBB || i[0] == 0xBE || i[0] == 0xBF;
	case 2:
		return i[0] == 0x31 && (i[1] & 0xC0) == 0xC0 && (i[1] >> 3 & 7) == (i[1] & 7) && (i[1] & 7) != 0;
	default:
		return false;
	}
}

int64_t x64_syscall_number(const uint8_t *end, size_t avail)
{
	if (avail < 2 || end[-2] != 0x0F || end[-1] != 0x05)
		return -1;
	const uint8_t *at = end - 2;
	size_t left = avail - 2;
	int64_t nr = mov_eax_before(at, left);
	static const size_t between[] = {4, 5, 2};
	for (size_t k = 0; nr < 0 && k < sizeof between / sizeof *between; k++)
		if (left >= between[k] && keeps_eax(at, between[k]))
			nr = mov_eax_before(at - between[k], left - between[k]);
	return nr;
}

bool x64_linux_syscall_waits(int64_t nr)
{
	switch (nr) {
	case 7:   /* poll */
	case 23:  /* select */
	case 24:  /* sched_yield */
	case 34:  /* pause */
	case 35:  /* nanosleep */
	case 61:  /* wait4 */
	case 128: /* rt_sigtimedwait */
	case 130: /* rt_sigsuspend */
	case 208: /* io_getevents */
	case 230: /* clock_nanosleep */
	case 232: /* epoll_wait */
	case 247: /* waitid */
	case 270: /* pselect6 */
	case 271: /* ppoll */
	case 281: /* epoll_pwait */
	case 441: /* epoll_pwait2 */
	case 449: /* futex_waitv */
		return true;
	default:
		return false;
	}
}

bool x64_futex_op_waits(uint64_t op)
{
	switch (op & 0x7F) { /* without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME */
	case 0:  /* FUTEX_WAIT */
	case 6:  /* FUTEX_LOCK_PI */
	case 9:  /* FUTEX_WAIT_BITSET */
	case 11: /* FUTEX_WAIT_REQUEUE_PI */
	case 13: /* FUTEX_LOCK_PI2 */
		return true;
	default:
		return false;
	}
}
