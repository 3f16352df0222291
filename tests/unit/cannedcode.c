#include "cannedcode.h"

#include <string.h>

#include "agent/unwind/nativeframe.h"
#include "agent/unwind/x64frame.h"

#define REGIONS 64
#define PROLOG_BYTES 96 /* as the code map reads a body's prolog */
#define EPILOG_BYTES 48 /* ... and an epilog */
#define REFUTED_MAX 64

static struct {
	struct canned_code code[REGIONS];
	struct code_body body[REGIONS];
	uint32_t n;
	uint32_t walk_epoch, dynamic_epoch;
	uint64_t refuted[REFUTED_MAX];
	uint32_t nrefuted;
} cc;

struct canned_calls canned_calls;

void canned_reset(void)
{
	memset(&cc, 0, sizeof cc);
	memset(&canned_calls, 0, sizeof canned_calls);
	cc.walk_epoch = cc.dynamic_epoch = 1;
}

static int region_of(uint64_t addr)
{
	for (uint32_t i = 0; i < cc.n; i++)
		if (addr >= cc.code[i].start && addr - cc.code[i].start < cc.code[i].len)
			return (int)i;
	return -1;
}

bool canned_add(const struct canned_code *c)
{
	if (cc.n == REGIONS || !c->len || c->start + c->len < c->start || c->nrules > CANNED_RULES)
		return false;
	for (uint32_t i = 0; i < cc.n; i++)
		if (c->start < cc.code[i].start + cc.code[i].len && cc.code[i].start < c->start + c->len)
			return false;
	struct canned_code *k = &cc.code[cc.n];
	*k = *c;
	for (uint32_t r = 0; r < k->nrules; r++)
		k->rules[r].rule.fn_start = k->start;
	struct code_body *b = &cc.body[cc.n];
	memset(b, 0, sizeof *b);
	if (k->kind == CANNED_MANAGED) {
		b->start = k->start;
		b->end = k->start + k->len;
		b->fn = k->fn;
		b->dynamic_epoch = k->dynamic ? cc.dynamic_epoch : 0;
		b->decoded = x64_decode_prolog(k->bytes, k->len < PROLOG_BYTES ? k->len : PROLOG_BYTES, &b->prolog);
	}
	cc.n++;
	return true;
}

const struct code_body *canned_body(uint64_t ip)
{
	int i = region_of(ip);
	return i >= 0 && cc.code[i].kind == CANNED_MANAGED && cc.body[i].decoded ? &cc.body[i] : NULL;
}

FunctionID canned_fn_at(uint64_t ip)
{
	int i = region_of(ip);
	return i >= 0 && cc.code[i].kind == CANNED_MANAGED ? cc.code[i].fn : 0;
}

void canned_new_walk_epoch(void)
{
	cc.walk_epoch++;
}

void canned_new_dynamic_epoch(void)
{
	cc.dynamic_epoch++;
}

/* The bytes [addr, addr + n) when one piece of code holds them all. */
static int canned_read(uint64_t addr, void *buf, size_t n)
{
	canned_calls.reads++;
	int i = region_of(addr);
	if (i < 0 || n > cc.code[i].len - (addr - cc.code[i].start))
		return -1;
	memcpy(buf, cc.code[i].bytes + (addr - cc.code[i].start), n);
	return 0;
}

/* The native rule at ip, or NULL. */
static const struct eh_rule *rule_at(const struct canned_code *c, uint64_t ip)
{
	const struct eh_rule *rule = NULL;
	for (uint32_t r = 0; r < c->nrules && c->rules[r].from <= ip - c->start; r++)
		rule = &c->rules[r].rule;
	return rule;
}

static struct code_at canned_at(uint64_t ip, bool check_epilog)
{
	canned_calls.at++;
	int i = region_of(ip);
	if (i < 0)
		return (struct code_at){0};
	const struct canned_code *c = &cc.code[i];
	struct code_at at = {.code = true};
	switch (c->kind) {
	case CANNED_UNKNOWN:
		return (struct code_at){.unknown = true};
	case CANNED_STUB:
		return at;
	case CANNED_MANAGED:
		at.fn = c->fn;
		at.body = &cc.body[i];
		at.dynamic = c->dynamic;
		if (check_epilog) {
			uint8_t code[EPILOG_BYTES];
			uint64_t left = at.body->end - ip;
			size_t len = left < sizeof code ? (size_t)left : sizeof code;
			struct x64_epilog e;
			at.epilog = canned_read(ip, code, len) == 0 && x64_decode_epilog(code, len, &e);
		}
		return at;
	case CANNED_NATIVE: {
		at.in_module = true;
		const struct eh_rule *rule = rule_at(c, ip);
		if (rule) {
			at.native_known = true;
			at.rule = *rule;
			at.hijack_pushes = (uint8_t)nativeframe_hijack_pushes(c->bytes, c->len < 24 ? c->len : 24);
		}
		return at;
	}
	}
	return at;
}

/* CODE_FOLLOWS_CALL only: the one fact the unwinder asks about. */
static int canned_code_facts(uint64_t addr)
{
	canned_calls.code_facts++;
	uint8_t before[8];
	if (addr < 8 || canned_read(addr - 8, before, sizeof before) != 0)
		return -1;
	return x64_follows_call(before + 7, 8) ? CODE_FOLLOWS_CALL : 0;
}

static bool was_refuted(uint64_t addr)
{
	for (uint32_t i = 0; i < cc.nrefuted; i++)
		if (cc.refuted[i] == addr)
			return true;
	return cc.nrefuted == REFUTED_MAX;
}

/* As the code map's: the frame at a native call in an rbp-based function,
 * from its code, until a walk refutes it. */
static bool call_cfa(uint64_t addr, const struct eh_rule *rule, int32_t *cfa_from_sp)
{
	int i = region_of(addr);
	if (i < 0 || cc.code[i].kind != CANNED_NATIVE || !rule_at(&cc.code[i], addr) || was_refuted(addr))
		return false;
	uint8_t code[NATIVEFRAME_SCAN_MAX];
	uint64_t call_end = addr + 1 - rule->fn_start;
	return rule->cfa_reg == EH_REG_RBP && !rule->cfa_deref && rule->fn_start && addr >= rule->fn_start &&
	       call_end <= sizeof code && canned_read(rule->fn_start, code, (size_t)call_end) == 0 &&
	       nativeframe_cfa_at_call(code, call_end, (uint32_t)call_end, rule->cfa_off, cfa_from_sp);
}

static bool canned_call_cfa(uint64_t addr, const struct eh_rule *rule, int32_t *cfa_from_sp)
{
	canned_calls.call_cfa++;
	return call_cfa(addr, rule, cfa_from_sp);
}

static void canned_call_cfa_refuted(uint64_t addr)
{
	int i = region_of(addr);
	int32_t off;
	if (i < 0 || !rule_at(&cc.code[i], addr) || !call_cfa(addr, rule_at(&cc.code[i], addr), &off))
		return;
	if (canned_calls.refuted < sizeof canned_calls.refuted_addr / sizeof *canned_calls.refuted_addr)
		canned_calls.refuted_addr[canned_calls.refuted] = addr;
	canned_calls.refuted++;
	if (cc.nrefuted < REFUTED_MAX)
		cc.refuted[cc.nrefuted++] = addr;
	cc.walk_epoch++; /* walks kept may have placed a frame by it */
}

static uint32_t canned_walk_epoch(void)
{
	return cc.walk_epoch;
}

static uint32_t canned_dynamic_epoch(void)
{
	return cc.dynamic_epoch;
}

const struct unwind_source canned_source = {
	.at = canned_at,
	.code_facts = canned_code_facts,
	.call_cfa = canned_call_cfa,
	.call_cfa_refuted = canned_call_cfa_refuted,
	.walk_epoch = canned_walk_epoch,
	.dynamic_epoch = canned_dynamic_epoch,
	.read = canned_read,
};

const char *canned_check_walk(const struct unwind_regs *r, const struct stack_copy *s, const struct unwind_out *out)
{
	if (out->n > out->cap)
		return "more frames than the buffer holds";
	switch (out->verdict) {
	case UNWIND_EXACT:
	case UNWIND_NATIVE:
		break;
	case UNWIND_BROKEN:
		if (out->root || out->past_end)
			return "a broken walk that reached its root or the copy's end";
		break;
	case UNWIND_TRUNCATED:
		if (out->past_end)
			return "a truncated walk that ended past the copy";
		break;
	default:
		return "no verdict";
	}
	if (out->root && out->past_end)
		return "a walk both at its root and past the copy";
	bool managed = false;
	for (uint32_t k = 0; k < out->n; k++) {
		if (k && !out->frames[k] && !out->frames[k - 1] && managed)
			return "two [native] frames in a row beyond the first managed one";
		managed |= out->frames[k] != 0;
		if (out->frames[k] && out->addrs && canned_fn_at(out->addrs[k]) != out->frames[k])
			return "a managed frame whose address is outside its function's code";
	}
	if (out->first_managed_sp &&
	    (!managed || out->first_managed_sp < r->sp ||
	     (out->first_managed_sp != r->sp && out->first_managed_sp - s->base >= s->len)))
		return "a first managed frame's stack pointer that is no frame's";
	if (s->log) {
		if (s->log->n > UNWIND_WORDS_MAX)
			return "more words logged than fit";
		for (uint32_t k = 0; k < s->log->n; k++) {
			uint64_t a = s->log->addr[k], v;
			if (s->len < 8 || a < s->base || a - s->base > (uint64_t)s->len - 8 || (a & 7))
				return "a word logged from outside the copy";
			memcpy(&v, s->bytes + (a - s->base), 8);
			if (v != s->log->value[k])
				return "a word logged with another value than the copy's";
		}
	}
	return NULL;
}
