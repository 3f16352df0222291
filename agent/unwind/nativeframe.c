#include "agent/unwind/nativeframe.h"

#include <string.h>

/* Register numbers as instructions encode them (REX adds 8). */
#define SP 4
#define BP 5
#define MAX_LEN 15 /* the longest x86 instruction */

struct dec {
	const uint8_t *c;
	size_t n, i;
	bool opsize, addrsize, rep, repne;
	uint8_t rex; /* 0: none */
};

struct modrm {
	uint8_t mod, reg, rm; /* reg and rm with their REX (or VEX) extension */
	bool sp_base;         /* a memory operand [rsp + disp], no index */
	int64_t disp;
};

static bool rex_w(const struct dec *d)
{
	return (d->rex & 8) != 0;
}

/* A little-endian signed immediate of k (1, 2, 4 or 8) bytes. */
static bool imm(struct dec *d, size_t k, int64_t *v)
{
	if (d->i + k > d->n)
		return false;
	const uint8_t *p = d->c + d->i;
	uint64_t u = 0;
	for (size_t b = 0; b < k; b++)
		u |= (uint64_t)p[b] << (8 * b);
	if (k < 8 && (u >> (8 * k - 1)) & 1)
		u |= ~(uint64_t)0 << (8 * k);
	*v = (int64_t)u;
	d->i += k;
	return true;
}

static bool skip_imm(struct dec *d, size_t k)
{
	int64_t v;
	return imm(d, k, &v);
}

static size_t immz(const struct dec *d)
{
	return d->opsize ? 2 : 4;
}

static bool modrm(struct dec *d, struct modrm *m)
{
	if (d->i >= d->n)
		return false;
	uint8_t b = d->c[d->i++], rm = b & 7;
	m->mod = b >> 6;
	m->reg = (uint8_t)(((b >> 3) & 7) | (d->rex & 4 ? 8 : 0));
	m->rm = (uint8_t)(rm | (d->rex & 1 ? 8 : 0));
	m->sp_base = false;
	m->disp = 0;
	if (m->mod == 3)
		return true;
	bool disp32 = false;
	if (rm == 4) {
		if (d->i >= d->n)
			return false;
		uint8_t sib = d->c[d->i++], base = sib & 7;
		uint8_t index = (uint8_t)(((sib >> 3) & 7) | (d->rex & 2 ? 8 : 0));
		if (base == 5 && m->mod == 0)
			disp32 = true; /* no base */
		else
			m->sp_base = (base | (d->rex & 1 ? 8 : 0)) == SP && index == SP && !d->addrsize;
	} else if (rm == 5 && m->mod == 0) {
		disp32 = true; /* rip-relative */
	}
	if (m->mod == 1)
		return imm(d, 1, &m->disp);
	if (m->mod == 2 || disp32)
		return imm(d, 4, &m->disp);
	return true;
}

/* The instruction may write register r (with its extension). */
static void dest(struct x64_insn *o, uint8_t r)
{
	o->writes_sp |= r == SP;
	o->writes_fp |= r == BP;
}

static void dest_rm(struct x64_insn *o, const struct modrm *m)
{
	if (m->mod == 3)
		dest(o, m->rm);
}

/* add/sub rsp, imm (group 1 with a register operand) */
static void group1(const struct dec *d, const struct modrm *m, int64_t v, struct x64_insn *o)
{
	uint8_t op = m->reg & 7;
	if (op == 7)
		return; /* cmp */
	dest_rm(o, m);
	if (m->mod == 3 && m->rm == SP && rex_w(d) && (op == 0 || op == 5)) {
		o->kind = X64_I_ADD_SP;
		o->imm = op == 0 ? v : -v;
	}
}

static bool one_byte(struct dec *d, uint8_t op, struct x64_insn *o)
{
	struct modrm m;
	int64_t v;
	uint8_t lo = op & 7;
	if (op < 0x40) {
		bool cmp = (op & 0xF8) == 0x38;
		if (lo <= 3) {
			if (!modrm(d, &m))
				return false;
			if (!cmp && lo <= 1)
				dest_rm(o, &m);
			else if (!cmp)
				dest(o, m.reg);
			return true;
		}
		if (lo == 4)
			return skip_imm(d, 1);
		if (lo == 5)
			return skip_imm(d, immz(d));
		return false; /* (26 2E 36 3E are prefixes; the rest invalid in 64-bit code) */
	}
	if (op >= 0x50 && op <= 0x5F) {
		o->writes_sp = true;
		if (d->opsize)
			return true; /* a 16-bit push or pop: not a prolog's */
		o->kind = op < 0x58 ? X64_I_PUSH : X64_I_POP;
		if (op >= 0x58)
			dest(o, (uint8_t)(lo | (d->rex & 1 ? 8 : 0)));
		return true;
	}
	if (op >= 0x70 && op <= 0x7F) {
		o->kind = X64_I_BRANCH;
		return skip_imm(d, 1);
	}
	if (op >= 0x90 && op <= 0x97) {
		if (op != 0x90 || (d->rex & 1)) { /* xchg rax, r */
			dest(o, (uint8_t)(lo | (d->rex & 1 ? 8 : 0)));
			dest(o, 0);
		}
		return true;
	}
	if (op >= 0xB0 && op <= 0xBF) {
		dest(o, (uint8_t)(lo | (d->rex & 1 ? 8 : 0)));
		return skip_imm(d, op < 0xB8 ? 1 : rex_w(d) ? 8 : immz(d));
	}
	switch (op) {
	case 0x63: /* movsxd */
	case 0x8A:
	case 0x8B:
		if (!modrm(d, &m))
			return false;
		dest(o, m.reg);
		if (op == 0x8B && rex_w(d) && m.mod == 3 && m.reg == BP && m.rm == SP)
			o->kind = X64_I_SET_FP; /* mov rbp, rsp */
		return true;
	case 0x68:
	case 0x6A:
		o->kind = d->opsize ? X64_I_OTHER : X64_I_PUSH;
		o->writes_sp = true;
		return skip_imm(d, op == 0x68 ? immz(d) : 1);
	case 0x69:
	case 0x6B:
		if (!modrm(d, &m))
			return false;
		dest(o, m.reg);
		return skip_imm(d, op == 0x69 ? immz(d) : 1);
	case 0x6C:
	case 0x6D:
	case 0x6E:
	case 0x6F:
	case 0x98:
	case 0x99:
	case 0x9B:
	case 0x9E:
	case 0x9F:
	case 0xA4:
	case 0xA5:
	case 0xA6:
	case 0xA7:
	case 0xAA:
	case 0xAB:
	case 0xAC:
	case 0xAD:
	case 0xAE:
	case 0xAF:
	case 0xD7:
	case 0xEC:
	case 0xED:
	case 0xEE:
	case 0xEF:
	case 0xF5:
	case 0xF8:
	case 0xF9:
	case 0xFA:
	case 0xFB:
	case 0xFC:
	case 0xFD:
		return true; /* registers other than rsp and rbp, or flags */
	case 0x80:
	case 0x81:
	case 0x83:
		if (!modrm(d, &m) || !imm(d, op == 0x81 ? immz(d) : 1, &v))
			return false;
		group1(d, &m, v, o);
		return true;
	case 0x84:
	case 0x85:
	case 0x8E:
		return modrm(d, &m); /* test; mov to a segment register */
	case 0x86:
	case 0x87:
		if (!modrm(d, &m))
			return false;
		dest(o, m.reg);
		dest_rm(o, &m);
		return true;
	case 0x88:
	case 0x89:
	case 0x8C:
		if (!modrm(d, &m))
			return false;
		dest_rm(o, &m);
		if (op == 0x89 && rex_w(d) && m.mod == 3 && m.reg == SP && m.rm == BP)
			o->kind = X64_I_SET_FP; /* mov rbp, rsp */
		return true;
	case 0x8D: /* lea */
		if (!modrm(d, &m) || m.mod == 3)
			return false;
		dest(o, m.reg);
		if (rex_w(d) && m.sp_base && (m.reg == BP || m.reg == SP)) {
			o->kind = m.reg == BP ? X64_I_SET_FP : X64_I_ADD_SP;
			o->imm = m.disp;
		}
		return true;
	case 0x8F: /* pop r/m (other forms are AMD's XOP) */
		if (!modrm(d, &m) || (m.reg & 7))
			return false;
		o->writes_sp = true;
		dest_rm(o, &m);
		return true;
	case 0x9C:
	case 0x9D: /* pushf, popf */
		o->writes_sp = true;
		return true;
	case 0xA0:
	case 0xA1:
	case 0xA2:
	case 0xA3:
		return skip_imm(d, d->addrsize ? 4 : 8); /* mov with a full address */
	case 0xA8:
		return skip_imm(d, 1);
	case 0xA9:
		return skip_imm(d, immz(d));
	case 0xC0:
	case 0xC1:
	case 0xD0:
	case 0xD1:
	case 0xD2:
	case 0xD3:
		if (!modrm(d, &m))
			return false;
		dest_rm(o, &m);
		return op >= 0xD0 || skip_imm(d, 1);
	case 0xC2:
	case 0xC3:
	case 0xCA:
	case 0xCB:
	case 0xCF:
		o->kind = X64_I_BRANCH;
		o->writes_sp = true;
		return op != 0xC2 && op != 0xCA ? true : skip_imm(d, 2);
	case 0xC6:
	case 0xC7:
		if (!modrm(d, &m) || (m.reg & 7))
			return false; /* (xabort, xbegin) */
		dest_rm(o, &m);
		return skip_imm(d, op == 0xC6 ? 1 : immz(d));
	case 0xC8:
	case 0xC9: /* enter, leave */
		o->writes_sp = o->writes_fp = true;
		return op == 0xC9 || skip_imm(d, 3);
	case 0xCC:
	case 0xF1:
	case 0xF4:
		o->kind = X64_I_BRANCH; /* traps, hlt */
		return true;
	case 0xCD:
		o->kind = X64_I_BRANCH;
		return skip_imm(d, 1);
	case 0xD8:
	case 0xD9:
	case 0xDA:
	case 0xDB:
	case 0xDC:
	case 0xDD:
	case 0xDE:
	case 0xDF:
		return modrm(d, &m); /* x87 */
	case 0xE0:
	case 0xE1:
	case 0xE2:
	case 0xE3:
	case 0xEB:
		o->kind = X64_I_BRANCH;
		return skip_imm(d, 1);
	case 0xE4:
	case 0xE5:
	case 0xE6:
	case 0xE7:
		return skip_imm(d, 1);
	case 0xE8:
		o->kind = X64_I_CALL;
		return skip_imm(d, 4);
	case 0xE9:
		o->kind = X64_I_BRANCH;
		return skip_imm(d, 4);
	case 0xF6:
	case 0xF7:
		if (!modrm(d, &m))
			return false;
		if ((m.reg & 7) <= 1) /* test */
			return skip_imm(d, op == 0xF6 ? 1 : immz(d));
		if ((m.reg & 7) <= 3) /* not, neg (the rest write rax and rdx) */
			dest_rm(o, &m);
		return true;
	case 0xFE:
	case 0xFF:
		if (!modrm(d, &m))
			return false;
		switch (m.reg & 7) {
		case 0:
		case 1:
			dest_rm(o, &m);
			return true;
		case 2:
		case 3:
			if (op == 0xFE)
				return false;
			o->kind = X64_I_CALL;
			return true;
		case 4:
		case 5:
			if (op == 0xFE)
				return false;
			o->kind = X64_I_BRANCH;
			return true;
		case 6:
			if (op == 0xFE)
				return false;
			o->kind = d->opsize ? X64_I_OTHER : X64_I_PUSH;
			o->writes_sp = true;
			return true;
		default:
			return false;
		}
	default:
		return false;
	}
}

/* An instruction of the 0F maps (0F, 0F 38, 0F 3A) after its 0F: most
 * are SSE and write vector registers only; those that write a general
 * register say which (cmov, setcc, movzx, bswap, pmovmskb, pextr*...). */
static bool two_byte(struct dec *d, struct x64_insn *o)
{
	struct modrm m;
	if (d->i >= d->n)
		return false;
	uint8_t op = d->c[d->i++];
	if (op == 0x38 || op == 0x3A) {
		if (d->i >= d->n)
			return false;
		uint8_t op3 = d->c[d->i++];
		if (!modrm(d, &m))
			return false;
		if (op == 0x38) {
			if (op3 >= 0xF0) /* movbe, crc32, adcx/adox */
				dest(o, m.reg);
			return true;
		}
		if (op3 >= 0x14 && op3 <= 0x17) /* pextrb/w/d/q, extractps */
			dest_rm(o, &m);
		return skip_imm(d, 1);
	}
	if (op >= 0x80 && op <= 0x8F) {
		o->kind = X64_I_BRANCH;
		return skip_imm(d, 4);
	}
	if (op >= 0xC8 && op <= 0xCF) { /* bswap */
		dest(o, (uint8_t)((op & 7) | (d->rex & 1 ? 8 : 0)));
		return true;
	}
	if (op >= 0x40 && op <= 0x4F) { /* cmovcc */
		if (!modrm(d, &m))
			return false;
		dest(o, m.reg);
		return true;
	}
	if (op >= 0x90 && op <= 0x9F) { /* setcc */
		if (!modrm(d, &m))
			return false;
		dest_rm(o, &m);
		return true;
	}
	switch (op) {
	case 0x05: /* syscall */
	case 0x31: /* rdtsc */
	case 0xA2: /* cpuid */
	case 0x0E:
	case 0x77:
		return true;
	case 0x0B: /* ud2 */
		o->kind = X64_I_BRANCH;
		return true;
	case 0xA0:
	case 0xA1:
	case 0xA8:
	case 0xA9: /* push and pop of fs, gs */
		o->writes_sp = true;
		return true;
	case 0x0D:
	case 0x18:
	case 0x19:
	case 0x1A:
	case 0x1B:
	case 0x1C:
	case 0x1D:
	case 0x1E:
	case 0x1F: /* prefetches, hints, nops, endbr64 */
		return modrm(d, &m);
	case 0x00:
	case 0x01:
	case 0xAE: /* system groups and fences; rdfsbase and the like write a register */
	case 0xC7: /* cmpxchg8b/16b, rdrand, rdseed */
	case 0x90:
	case 0xB0:
	case 0xB1:
	case 0xA3:
	case 0xA5:
	case 0xAB:
	case 0xAD:
	case 0xB3:
	case 0xBB:
		if (!modrm(d, &m))
			return false;
		if (op != 0xA3)
			dest_rm(o, &m);
		return true;
	case 0xA4:
	case 0xAC: /* shld, shrd by an immediate */
		if (!modrm(d, &m))
			return false;
		dest_rm(o, &m);
		return skip_imm(d, 1);
	case 0xBA: /* bt group by an immediate */
		if (!modrm(d, &m) || (m.reg & 7) < 4)
			return false;
		if ((m.reg & 7) > 4)
			dest_rm(o, &m);
		return skip_imm(d, 1);
	case 0xAF:
	case 0xB6:
	case 0xB7:
	case 0xB8:
	case 0xBC:
	case 0xBD:
	case 0xBE:
	case 0xBF:
	case 0x50:
	case 0xD7:
	case 0x2C:
	case 0x2D:
		if (!modrm(d, &m))
			return false;
		dest(o, m.reg);
		return true;
	case 0xC0:
	case 0xC1: /* xadd */
		if (!modrm(d, &m))
			return false;
		dest(o, m.reg);
		dest_rm(o, &m);
		return true;
	case 0xC5: /* pextrw */
		if (!modrm(d, &m))
			return false;
		dest(o, m.reg);
		return skip_imm(d, 1);
	case 0x7E: /* movd/movq r/m, (x)mm; with F3: movq xmm, xmm */
		if (!modrm(d, &m))
			return false;
		if (!d->rep)
			dest_rm(o, &m);
		return true;
	case 0x70:
	case 0x71:
	case 0x72:
	case 0x73:
	case 0xC2:
	case 0xC4:
	case 0xC6: /* SSE with an immediate */
		return modrm(d, &m) && skip_imm(d, 1);
	default:
		break;
	}
	/* SSE, MMX: vector registers only */
	if ((op >= 0x10 && op <= 0x17) || (op >= 0x28 && op <= 0x2F) || (op >= 0x51 && op <= 0x6F) ||
	    (op >= 0x74 && op <= 0x76) || (op >= 0x7C && op <= 0x7F) || (op >= 0xD0 && op <= 0xFE))
		return modrm(d, &m);
	return false;
}

/* A VEX-encoded (AVX, BMI) instruction after its C4 or C5. */
static bool vex(struct dec *d, uint8_t first, struct x64_insn *o)
{
	if (d->rex || d->opsize || d->rep || d->repne || d->i + (first == 0xC5 ? 1u : 2u) > d->n)
		return false; /* (undefined with those prefixes) */
	uint8_t b1 = d->c[d->i++], map = 1, vvvv, pp;
	d->rex = (uint8_t)(0x40 | (b1 & 0x80 ? 0 : 4));
	if (first == 0xC5) {
		vvvv = (uint8_t)((~b1 >> 3) & 15);
		pp = b1 & 3;
	} else {
		uint8_t b2 = d->c[d->i++];
		d->rex |= (uint8_t)((b1 & 0x40 ? 0 : 2) | (b1 & 0x20 ? 0 : 1));
		map = b1 & 0x1F;
		vvvv = (uint8_t)((~b2 >> 3) & 15);
		pp = b2 & 3;
		if (map < 1 || map > 3)
			return false;
	}
	if (d->i >= d->n)
		return false;
	uint8_t op = d->c[d->i++];
	if (map == 1 && op == 0x77)
		return true; /* vzeroupper, vzeroall */
	struct modrm m;
	if (!modrm(d, &m))
		return false;
	if (map == 2 && op >= 0xF0) { /* BMI: andn, bzhi, pdep, pext, mulx, bextr, shlx, blsr... */
		dest(o, m.reg);
		dest(o, vvvv);
	} else if (map == 1 && (op == 0x50 || op == 0xD7 || op == 0xC5 || op == 0x2C || op == 0x2D)) {
		dest(o, m.reg);
	} else if (map == 1 && op == 0x7E && pp == 1) {
		dest_rm(o, &m);
	} else if (map == 3 && op >= 0x14 && op <= 0x17) {
		dest_rm(o, &m);
	} else if (map == 3 && op == 0xF0) { /* rorx */
		dest(o, m.reg);
	}
	bool has_imm = map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xC2 || op == 0xC4 ||
						  op == 0xC5 || op == 0xC6));
	return !has_imm || skip_imm(d, 1);
}

bool x64_insn_decode(const uint8_t *code, size_t n, struct x64_insn *out)
{
	struct dec d = {code, n < MAX_LEN ? n : MAX_LEN, 0, false, false, false, false, 0};
	*out = (struct x64_insn){0};
	for (;; d.i++) {
		if (d.i >= d.n)
			return false;
		uint8_t b = code[d.i];
		if (b == 0x66)
			d.opsize = true;
		else if (b == 0x67)
			d.addrsize = true;
		else if (b == 0xF2)
			d.repne = true;
		else if (b == 0xF3)
			d.rep = true;
		else if (b != 0xF0 && b != 0x2E && b != 0x36 && b != 0x3E && b != 0x26 && b != 0x64 && b != 0x65)
			break;
	}
	if ((code[d.i] & 0xF0) == 0x40) {
		d.rex = code[d.i++];
		if (d.i >= d.n)
			return false;
	}
	uint8_t op = code[d.i++];
	bool ok = op == 0x0F ? two_byte(&d, out) : op == 0xC4 || op == 0xC5 ? vex(&d, op, out) : one_byte(&d, op, out);
	if (!ok)
		return false;
	out->len = (uint8_t)d.i;
	return true;
}

bool nativeframe_cfa_at_call(const uint8_t *code, size_t n, uint32_t call_end, int32_t cfa_from_fp,
			     int32_t *cfa_from_sp)
{
	if (call_end > n || call_end > NATIVEFRAME_SCAN_MAX)
		return false;
	int64_t sp = 0, fp = 0; /* rsp and rbp as offsets from rsp at the entry */
	bool fp_set = false, straight = true;
	struct x64_insn in;
	for (uint32_t off = 0; off < call_end; off += in.len) {
		if (!x64_insn_decode(code + off, call_end - off, &in))
			return false; /* not code, or the call is not where its return address says */
		if (in.kind == X64_I_CALL) {
			if (off + in.len != call_end)
				continue; /* another call: returns with rsp where it was */
			/* the frame, checked against the unwind table's rule */
			if (!fp_set || fp + cfa_from_fp != 8 || sp > 0 || sp < -((int64_t)1 << 20))
				return false;
			*cfa_from_sp = (int32_t)(8 - sp);
			return true;
		}
		if (straight) {
			/* before the first branch every instruction runs, in order:
			 * the prolog's changes add up */
			switch (in.kind) {
			case X64_I_PUSH:
				sp -= 8;
				break;
			case X64_I_POP:
				if (in.writes_fp)
					return false;
				sp += 8;
				break;
			case X64_I_ADD_SP:
				sp += in.imm;
				break;
			case X64_I_SET_FP:
				if (fp_set)
					return false;
				fp = sp + in.imm;
				fp_set = true;
				break;
			default:
				if (in.writes_sp || in.writes_fp)
					return false;
			}
			straight = in.kind != X64_I_BRANCH;
		} else if (in.writes_sp || in.writes_fp) {
			/* past a branch, another path may reach the call: only code
			 * that moves neither register keeps rsp where the prolog left it */
			return false;
		}
	}
	return false;
}

unsigned nativeframe_hijack_pushes(const uint8_t *code, size_t n)
{
	static const uint8_t slot_and_saved[] = {0x50, 0x55, 0x53, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55, 0x41, 0x54};
	static const uint8_t rdx_rax_args[] = {0x52, 0x50, 0x48, 0x89, 0xe7}; /* push rdx, push rax, mov rdi,rsp */
	size_t at = sizeof slot_and_saved;
	unsigned pushes = 7;
	if (n < at || memcmp(code, slot_and_saved, at) != 0)
		return 0;
	if (at < n && code[at] == 0x51) { /* push rcx */
		at++;
		pushes++;
	}
	if (n - at < sizeof rdx_rax_args || memcmp(code + at, rdx_rax_args, sizeof rdx_rax_args) != 0)
		return 0;
	return pushes + 2;
}
