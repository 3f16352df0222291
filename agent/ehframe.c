#include "ehframe.h"

#include <string.h>

#define EH_REG_RA 16
#define STATE_STACK 8
#define CHUNK 512

/* A bounded cursor over bytes copied from addr; a read past the end
 * sets bad, checked once the caller is done. */
struct cur {
	const uint8_t *p, *end;
	uint64_t addr; /* of p */
	bool bad;
};

static uint8_t u8(struct cur *c)
{
	if (c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	c->addr++;
	return *c->p++;
}

static uint64_t fixed(struct cur *c, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)u8(c) << (8 * i);
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t b = u8(c);
		v |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static int64_t sleb(struct cur *c)
{
	int64_t v = 0;
	int shift = 0;
	uint8_t b;
	do {
		b = u8(c);
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
	uint64_t at = c->addr, v;
	switch (enc & 0x0F) {
	case 0x00: v = fixed(c, 8); break;
	case 0x01: v = uleb(c); break;
	case 0x02: v = fixed(c, 2); break;
	case 0x03: v = fixed(c, 4); break;
	case 0x04: v = fixed(c, 8); break;
	case 0x09: v = (uint64_t)sleb(c); break;
	case 0x0A: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
	case 0x0B: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
	case 0x0C: v = fixed(c, 8); break;
	default: c->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += at; break;
	default: c->bad = true; /* data- or function-relative: not in .eh_frame */
	}
	if (enc & 0x80)
		c->bad = true; /* indirect: never for code addresses */
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
	uint64_t n = uleb(c);
	const uint8_t *end = c->p + n;
	st->cfa_reg = 0xFF;
	if (n < 3 || end > c->end) {
		c->p = end;
		c->addr += n;
		return;
	}
	struct cur e = {c->p, end, c->addr, false};
	uint8_t op = u8(&e);
	if (op == 0x70 + EH_REG_RSP || op == 0x70 + EH_REG_RBP) {
		int64_t off = sleb(&e);
		if (u8(&e) == 0x06) { /* deref */
			int64_t add = 0;
			bool ok = e.p == e.end;
			if (!ok && u8(&e) == 0x23) { /* plus_uconst */
				add = (int64_t)uleb(&e);
				ok = e.p == e.end;
			}
			if (ok && !e.bad) {
				st->cfa_reg = (uint8_t)(op - 0x70);
				st->cfa_off = off;
				st->cfa_deref = true;
				st->cfa_add = add;
			}
		}
	}
	c->p = end;
	c->addr += n;
}

/* Runs CFA instructions until the location passes pc (stop_at), or to the
 * end; false on anything it does not follow. */
static bool run(struct cur *c, const struct cie *cie, struct regs_state *st, const struct regs_state *initial,
		uint64_t *loc, uint64_t pc)
{
	struct regs_state stack[STATE_STACK];
	int depth = 0;
	while (c->p < c->end && !c->bad) {
		uint8_t op = u8(c), low = op & 0x3F;
		uint64_t delta = 0, reg;
		switch (op & 0xC0) {
		case 0x40: delta = low * cie->code_align; goto advance;
		case 0x80: set_reg(st, low, 1, (int64_t)uleb(c) * cie->data_align); continue;
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
		case 0x02: delta = fixed(c, 1) * cie->code_align; goto advance;
		case 0x03: delta = fixed(c, 2) * cie->code_align; goto advance;
		case 0x04: delta = fixed(c, 4) * cie->code_align; goto advance;
		case 0x05: reg = uleb(c); set_reg(st, reg, 1, (int64_t)uleb(c) * cie->data_align); continue;
		case 0x06:
		case 0x08: reg = uleb(c); set_reg(st, reg, 0, 0); continue; /* restore (approx.), same value */
		case 0x07: reg = uleb(c); set_reg(st, reg, 2, 0); continue; /* undefined */
		case 0x09: reg = uleb(c); uleb(c); set_reg(st, reg, -1, 0); continue; /* in another register */
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
		case 0x0C: st->cfa_reg = (uint8_t)uleb(c); st->cfa_off = (int64_t)uleb(c); st->cfa_deref = false; continue;
		case 0x0D: st->cfa_reg = (uint8_t)uleb(c); st->cfa_deref = false; continue;
		case 0x0E: st->cfa_off = (int64_t)uleb(c); st->cfa_deref = false; continue;
		case 0x0F: def_cfa_expression(c, st); continue;
		case 0x10:
		case 0x16: { reg = uleb(c); uint64_t n = uleb(c); c->p += n; c->addr += n; set_reg(st, reg, -1, 0); continue; }
		case 0x11: reg = uleb(c); set_reg(st, reg, 1, sleb(c) * cie->data_align); continue;
		case 0x12: st->cfa_reg = (uint8_t)uleb(c); st->cfa_off = sleb(c) * cie->data_align; st->cfa_deref = false; continue;
		case 0x13: st->cfa_off = sleb(c) * cie->data_align; st->cfa_deref = false; continue;
		case 0x14: reg = uleb(c); uleb(c); set_reg(st, reg, -1, 0); continue;
		case 0x15: reg = uleb(c); sleb(c); set_reg(st, reg, -1, 0); continue;
		case 0x2E: uleb(c); continue; /* GNU_args_size */
		case 0x2F: reg = uleb(c); set_reg(st, reg, 1, -(int64_t)uleb(c) * cie->data_align); continue;
		default: return false;
		}
	advance:
		*loc += delta;
		if (*loc > pc)
			return true;
	}
	if (c->p > c->end)
		c->bad = true;
	return !c->bad;
}

static bool parse_cie(eh_read_fn *read, uint64_t addr, uint8_t *buf, struct cie *cie)
{
	uint32_t n;
	if (!load(read, addr, buf, &n))
		return false;
	struct cur c = {buf, buf + n, addr, false};
	uint64_t len = fixed(&c, 4);
	if (len == 0 || len == 0xFFFFFFFF || len + 4 > n)
		return false;
	c.end = buf + 4 + len;
	if (fixed(&c, 4) != 0)
		return false; /* not a CIE */
	uint8_t version = u8(&c);
	char aug[8];
	size_t na = 0;
	for (char ch; (ch = (char)u8(&c)) != 0 && !c.bad;) {
		if (na + 1 >= sizeof aug)
			return false;
		aug[na++] = ch;
	}
	aug[na] = 0;
	if (version == 4) {
		u8(&c); /* address size */
		u8(&c); /* segment size */
	}
	cie->code_align = uleb(&c);
	cie->data_align = sleb(&c);
	if (version == 1)
		u8(&c);
	else
		uleb(&c); /* return address register */
	cie->fde_enc = 0;
	cie->augmented = aug[0] == 'z';
	if (cie->augmented) {
		uint64_t alen = uleb(&c);
		const uint8_t *after = c.p + alen;
		for (size_t i = 1; i < na && !c.bad; i++) {
			if (aug[i] == 'R')
				cie->fde_enc = u8(&c);
			else if (aug[i] == 'P')
				encoded(&c, u8(&c));
			else if (aug[i] == 'L')
				u8(&c);
			else if (aug[i] != 'S')
				return false;
		}
		if (after > c.end)
			return false;
		c.addr += (uint64_t)(after - c.p);
		c.p = after;
	} else if (na) {
		return false;
	}
	cie->insns = c.p;
	cie->insns_end = c.end;
	cie->insns_addr = c.addr;
	return !c.bad;
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
	struct cur c = {h + 4, h + sizeof h, hdr + 4, false};
	encoded(&c, enc_frame);
	uint64_t count = encoded(&c, enc_count);
	if (c.bad || count == 0)
		return false;
	uint64_t table = c.addr;
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
	struct cur c = {buf, buf + n, fde_addr, false};
	uint64_t len = fixed(&c, 4);
	if (len == 0 || len == 0xFFFFFFFF || len + 4 > n)
		return false;
	c.end = buf + 4 + len;
	uint64_t cie_ptr_at = c.addr;
	uint64_t cie_off = fixed(&c, 4);
	struct cie cie;
	if (cie_off == 0 || !parse_cie(read, cie_ptr_at - cie_off, cbuf, &cie))
		return false;
	uint64_t start = encoded(&c, cie.fde_enc);
	uint64_t range = encoded(&c, cie.fde_enc & 0x0F);
	if (c.bad || pc < start || pc >= start + range)
		return false;
	if (cie.augmented) {
		uint64_t alen = uleb(&c);
		c.p += alen;
		c.addr += alen;
	}
	struct regs_state st = {.cfa_reg = EH_REG_RSP, .cfa_off = 8, .ra_how = 1, .ra_off = -8}, initial;
	uint64_t loc = start;
	struct cur ci = {cie.insns, cie.insns_end, cie.insns_addr, false};
	if (!run(&ci, &cie, &st, &st, &loc, UINT64_MAX) || ci.bad)
		return false;
	initial = st;
	loc = start;
	if (!run(&c, &cie, &st, &initial, &loc, pc) || c.bad)
		return false;
	if (st.ra_how == 2) { /* by convention, the outermost frame (clone, _start) */
		*out = (struct eh_rule){.outermost = true};
		return true;
	}
	if ((st.cfa_reg != EH_REG_RSP && st.cfa_reg != EH_REG_RBP) || st.ra_how != 1 || st.rbp_how < 0 ||
	    st.rbp_how == 2)
		return false;
	*out = (struct eh_rule){st.cfa_reg, (int32_t)st.cfa_off, st.cfa_deref, (int32_t)st.cfa_add, st.rbp_how == 1,
				(int32_t)st.rbp_off, (int32_t)st.ra_off, false};
	return true;
}
