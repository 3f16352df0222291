#include "agent/unwind/ehframe.h"

#include <string.h>

#include "common/wire.h"

#define EH_REG_RA 16
#define STATE_STACK 8
#define CHUNK 512

/* Bytes copied from address base, read with wire.h's reader (a read past
 * the end sets bad, checked once the caller is done); the address of the
 * next byte is derived, for pc-relative pointers. */
struct cur {
	struct cs_in in;
	const uint8_t *start;
	uint64_t base;
};

static void cur_init(struct cur *c, const uint8_t *p, const uint8_t *end, uint64_t addr)
{
	cs_in_init(&c->in, p, (size_t)(end - p));
	c->start = p;
	c->base = addr;
}

static uint64_t cur_addr(const struct cur *c)
{
	return c->base + (uint64_t)(c->in.p - c->start);
}

static void skip(struct cur *c, uint64_t n)
{
	if (n > cs_in_left(&c->in)) {
		c->in.bad = true;
		c->in.p = c->in.end;
	} else {
		c->in.p += n;
	}
}

static int64_t sleb(struct cur *c)
{
	int64_t v = 0;
	int shift = 0;
	uint8_t b;
	do {
		b = cs_get_u8(&c->in);
		v |= (int64_t)((uint64_t)(b & 0x7F) << shift);
		shift += 7;
	} while ((b & 0x80) && shift < 64);
	if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

/* A pointer in the DW_EH_PE encoding enc (absolute or pc-relative). */
static uint64_t encoded(struct cur *c, uint8_t enc)
{
	uint64_t at = cur_addr(c), v;
	switch (enc & 0x0F) {
	case 0x00: v = cs_get_u64(&c->in); break;
	case 0x01: v = cs_get_varint(&c->in); break;
	case 0x02: v = cs_get_u16(&c->in); break;
	case 0x03: v = cs_get_u32(&c->in); break;
	case 0x04: v = cs_get_u64(&c->in); break;
	case 0x09: v = (uint64_t)sleb(c); break;
	case 0x0A: v = (uint64_t)(int64_t)(int16_t)cs_get_u16(&c->in); break;
	case 0x0B: v = (uint64_t)(int64_t)(int32_t)cs_get_u32(&c->in); break;
	case 0x0C: v = cs_get_u64(&c->in); break;
	default: c->in.bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += at; break;
	default: c->in.bad = true; /* data- or function-relative: not in .eh_frame */
	}
	if (enc & 0x80)
		c->in.bad = true; /* indirect: never for code addresses */
	return v;
}

static bool load(eh_read_fn *read, uint64_t addr, uint8_t *buf, uint32_t *n)
{
	for (uint32_t want = CHUNK; want >= 32; want /= 2) {
		if (read(addr, buf, want) == 0) {
			*n = want;
			return true;
		}
	}
	return false;
}

struct regs_state {
	uint8_t cfa_reg;
	int64_t cfa_off;
	bool cfa_deref;
	int64_t cfa_add;
	int8_t rbp_how, ra_how; /* 0 unchanged, 1 saved at CFA+off, 2 undefined, -1 not followed */
	int64_t rbp_off, ra_off;
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	bool augmented;
	const uint8_t *insns, *insns_end;
	uint64_t insns_addr;
};

static void set_reg(struct regs_state *st, uint64_t reg, int8_t how, int64_t off)
{
	if (reg == EH_REG_RBP) {
		st->rbp_how = how;
		st->rbp_off = off;
	} else if (reg == EH_REG_RA) {
		st->ra_how = how;
		st->ra_off = off;
	}
}

/* DW_CFA_def_cfa_expression: only "DW_OP_breg(rsp|rbp) off; DW_OP_deref;
 * [DW_OP_plus_uconst k]" is followed (the CFA saved on a realigned stack);
 * any other expression leaves the CFA unknown. */
static void def_cfa_expression(struct cur *c, struct regs_state *st)
{
	uint64_t n = cs_get_varint(&c->in);
	st->cfa_reg = 0xFF;
	if (n < 3 || n > cs_in_left(&c->in)) {
		skip(c, n);
		return;
	}
	struct cur e;
	cur_init(&e, c->in.p, c->in.p + n, cur_addr(c));
	uint8_t op = cs_get_u8(&e.in);
	if (op == 0x70 + EH_REG_RSP || op == 0x70 + EH_REG_RBP) {
		int64_t off = sleb(&e);
		if (cs_get_u8(&e.in) == 0x06) { /* deref */
			int64_t add = 0;
			bool ok = !cs_in_left(&e.in);
			if (!ok && cs_get_u8(&e.in) == 0x23) { /* plus_uconst */
				add = (int64_t)cs_get_varint(&e.in);
				ok = !cs_in_left(&e.in);
			}
			if (ok && !e.in.bad) {
				st->cfa_reg = (uint8_t)(op - 0x70);
				st->cfa_off = off;
				st->cfa_deref = true;
				st->cfa_add = add;
			}
		}
	}
	skip(c, n);
}

/* Runs CFA instructions until the location passes pc (stop_at), or to the
 * end; false on anything it does not follow. */
static bool run(struct cur *c, const struct cie *cie, struct regs_state *st, const struct regs_state *initial,
		uint64_t *loc, uint64_t pc)
{
	struct regs_state stack[STATE_STACK];
	int depth = 0;
	while (cs_in_left(&c->in) && !c->in.bad) {
		uint8_t op = cs_get_u8(&c->in), low = op & 0x3F;
		uint64_t delta = 0, reg;
		switch (op & 0xC0) {
		case 0x40: delta = low * cie->code_align; goto advance;
		case 0x80: set_reg(st, low, 1, (int64_t)cs_get_varint(&c->in) * cie->data_align); continue;
		case 0xC0:
			if (low == EH_REG_RBP)
				st->rbp_how = initial->rbp_how, st->rbp_off = initial->rbp_off;
			else if (low == EH_REG_RA)
				st->ra_how = initial->ra_how, st->ra_off = initial->ra_off;
			continue;
		}
		switch (op) {
		case 0x00: continue; /* nop */
		case 0x01: *loc = encoded(c, cie->fde_enc); if (*loc > pc) return true; continue;
		case 0x02: delta = cs_get_u8(&c->in) * cie->code_align; goto advance;
		case 0x03: delta = cs_get_u16(&c->in) * cie->code_align; goto advance;
		case 0x04: delta = cs_get_u32(&c->in) * cie->code_align; goto advance;
		case 0x05: reg = cs_get_varint(&c->in); set_reg(st, reg, 1, (int64_t)cs_get_varint(&c->in) * cie->data_align); continue;
		case 0x06:
		case 0x08: reg = cs_get_varint(&c->in); set_reg(st, reg, 0, 0); continue; /* restore (approx.), same value */
		case 0x07: reg = cs_get_varint(&c->in); set_reg(st, reg, 2, 0); continue; /* undefined */
		case 0x09: reg = cs_get_varint(&c->in); cs_get_varint(&c->in); set_reg(st, reg, -1, 0); continue; /* in another register */
		case 0x0A:
			if (depth == STATE_STACK)
				return false;
			stack[depth++] = *st;
			continue;
		case 0x0B:
			if (depth == 0)
				return false;
			*st = stack[--depth];
			continue;
		case 0x0C: st->cfa_reg = (uint8_t)cs_get_varint(&c->in); st->cfa_off = (int64_t)cs_get_varint(&c->in); st->cfa_deref = false; continue;
		case 0x0D: st->cfa_reg = (uint8_t)cs_get_varint(&c->in); st->cfa_deref = false; continue;
		case 0x0E: st->cfa_off = (int64_t)cs_get_varint(&c->in); st->cfa_deref = false; continue;
		case 0x0F: def_cfa_expression(c, st); continue;
		case 0x10:
		case 0x16: { reg = cs_get_varint(&c->in); skip(c, cs_get_varint(&c->in)); set_reg(st, reg, -1, 0); continue; }
		case 0x11: reg = cs_get_varint(&c->in); set_reg(st, reg, 1, sleb(c) * cie->data_align); continue;
		case 0x12: st->cfa_reg = (uint8_t)cs_get_varint(&c->in); st->cfa_off = sleb(c) * cie->data_align; st->cfa_deref = false; continue;
		case 0x13: st->cfa_off = sleb(c) * cie->data_align; st->cfa_deref = false; continue;
		case 0x14: reg = cs_get_varint(&c->in); cs_get_varint(&c->in); set_reg(st, reg, -1, 0); continue;
		case 0x15: reg = cs_get_varint(&c->in); sleb(c); set_reg(st, reg, -1, 0); continue;
		case 0x2E: cs_get_varint(&c->in); continue; /* GNU_args_size */
		case 0x2F: reg = cs_get_varint(&c->in); set_reg(st, reg, 1, -(int64_t)cs_get_varint(&c->in) * cie->data_align); continue;
		default: return false;
		}
	advance:
		*loc += delta;
		if (*loc > pc)
			return true;
	}
	return !c->in.bad;
}

static bool parse_cie(eh_read_fn *read, uint64_t addr, uint8_t *buf, struct cie *cie)
{
	uint32_t n;
	if (!load(read, addr, buf, &n))
		return false;
	struct cur c;
	cur_init(&c, buf, buf + n, addr);
	uint64_t len = cs_get_u32(&c.in);
	if (len == 0 || len == 0xFFFFFFFF || len + 4 > n)
		return false;
	c.in.end = buf + 4 + len;
	if (cs_get_u32(&c.in) != 0)
		return false; /* not a CIE */
	uint8_t version = cs_get_u8(&c.in);
	char aug[8];
	size_t na = 0;
	for (char ch; (ch = (char)cs_get_u8(&c.in)) != 0 && !c.in.bad;) {
		if (na + 1 >= sizeof aug)
			return false;
		aug[na++] = ch;
	}
	aug[na] = 0;
	if (version == 4) {
		cs_get_u8(&c.in); /* address size */
		cs_get_u8(&c.in); /* segment size */
	}
	cie->code_align = cs_get_varint(&c.in);
	cie->data_align = sleb(&c);
	if (version == 1)
		cs_get_u8(&c.in);
	else
		cs_get_varint(&c.in); /* return address register */
	cie->fde_enc = 0;
	cie->augmented = aug[0] == 'z';
	if (cie->augmented) {
		uint64_t alen = cs_get_varint(&c.in);
		if (alen > cs_in_left(&c.in))
			return false;
		const uint8_t *after = c.in.p + alen;
		for (size_t i = 1; i < na && !c.in.bad; i++) {
			if (aug[i] == 'R')
				cie->fde_enc = cs_get_u8(&c.in);
			else if (aug[i] == 'P') /* the personality routine: skipped, whatever its
						   encoding (C++ code's is indirect, 0x9b) */
				encoded(&c, cs_get_u8(&c.in) & 0x0F);
			else if (aug[i] == 'L')
				cs_get_u8(&c.in);
			else if (aug[i] != 'S')
				return false;
		}
		if (c.in.p > after)
			return false;
		c.in.p = after;
	} else if (na) {
		return false;
	}
	cie->insns = c.in.p;
	cie->insns_end = c.in.end;
	cie->insns_addr = cur_addr(&c);
	return !c.in.bad;
}

/* The FDE whose range may hold pc, by binary search of the header's table
 * (only the layout linkers write: datarel sdata4 pairs). */
static bool find_fde(uint64_t hdr, uint64_t pc, eh_read_fn *read, uint64_t *fde)
{
	uint8_t h[4 + 8 + 8];
	if (read(hdr, h, 4) != 0 || h[0] != 1 || h[3] != 0x3B)
		return false;
	uint8_t enc_frame = h[1], enc_count = h[2];
	if (read(hdr + 4, h + 4, 16) != 0)
		return false;
	struct cur c;
	cur_init(&c, h + 4, h + sizeof h, hdr + 4);
	encoded(&c, enc_frame);
	uint64_t count = encoded(&c, enc_count);
	if (c.in.bad || count == 0)
		return false;
	uint64_t table = cur_addr(&c);
	uint64_t lo = 0, hi = count;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		int32_t e[2];
		if (read(table + mid * 8, e, 8) != 0)
			return false;
		if (hdr + (uint64_t)(int64_t)e[0] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	int32_t e[2];
	if (read(table + lo * 8, e, 8) != 0 || hdr + (uint64_t)(int64_t)e[0] > pc)
		return false;
	*fde = hdr + (uint64_t)(int64_t)e[1];
	return true;
}

bool eh_rule_at(uint64_t hdr, uint64_t pc, eh_read_fn *read, struct eh_rule *out)
{
	uint64_t fde_addr;
	if (!find_fde(hdr, pc, read, &fde_addr))
		return false;
	uint8_t buf[CHUNK], cbuf[CHUNK];
	uint32_t n;
	if (!load(read, fde_addr, buf, &n))
		return false;
	struct cur c;
	cur_init(&c, buf, buf + n, fde_addr);
	uint64_t len = cs_get_u32(&c.in);
	if (len == 0 || len == 0xFFFFFFFF || len + 4 > n)
		return false;
	c.in.end = buf + 4 + len;
	uint64_t cie_ptr_at = cur_addr(&c);
	uint64_t cie_off = cs_get_u32(&c.in);
	struct cie cie;
	if (cie_off == 0 || !parse_cie(read, cie_ptr_at - cie_off, cbuf, &cie))
		return false;
	uint64_t start = encoded(&c, cie.fde_enc);
	uint64_t range = encoded(&c, cie.fde_enc & 0x0F);
	if (c.in.bad || pc < start || pc >= start + range)
		return false;
	if (cie.augmented) {
		uint64_t alen = cs_get_varint(&c.in);
		skip(&c, alen);
	}
	struct regs_state st = {.cfa_reg = EH_REG_RSP, .cfa_off = 8, .ra_how = 1, .ra_off = -8}, initial;
	uint64_t loc = start;
	struct cur ci;
	cur_init(&ci, cie.insns, cie.insns_end, cie.insns_addr);
	if (!run(&ci, &cie, &st, &st, &loc, UINT64_MAX) || ci.in.bad)
		return false;
	initial = st;
	loc = start;
	if (!run(&c, &cie, &st, &initial, &loc, pc) || c.in.bad)
		return false;
	if (st.ra_how == 2) { /* by convention, the outermost frame (clone, _start) */
		*out = (struct eh_rule){.outermost = true, .fn_start = start};
		return true;
	}
	if ((st.cfa_reg != EH_REG_RSP && st.cfa_reg != EH_REG_RBP) || st.ra_how != 1 || st.rbp_how < 0 ||
	    st.rbp_how == 2)
		return false;
	*out = (struct eh_rule){st.cfa_reg, (int32_t)st.cfa_off, st.cfa_deref, (int32_t)st.cfa_add, st.rbp_how == 1,
				(int32_t)st.rbp_off, (int32_t)st.ra_off, false, start};
	return true;
}
