/* Native frames by their DWARF call frame information (.eh_frame, found
 * through .eh_frame_hdr's sorted table), which every module compiled for
 * C++ exceptions carries, glibc and the runtime included: where the
 * caller's stack pointer, return address and rbp are at an instruction,
 * whether or not the function keeps a frame pointer.  Only the rules a
 * profiler needs (CFA from rsp or rbp, rbp and the return address saved
 * relative to it); anything else (expressions, other registers as CFA) is
 * "not known", never a guess.  Memory is read through a callback that
 * cannot fault. */
#ifndef CLRSCOPE_AGENT_EHFRAME_H
#define CLRSCOPE_AGENT_EHFRAME_H

#include <stdbool.h>
#include <stdint.h>

#define EH_REG_RBP 6
#define EH_REG_RSP 7

struct eh_rule {
	uint8_t cfa_reg;   /* EH_REG_RSP or EH_REG_RBP */
	int32_t cfa_off;   /* CFA = reg + cfa_off */
	bool cfa_deref;    /* CFA = [reg + cfa_off] + cfa_add (a realigned stack that saved
			      its entry stack pointer, as OpenSSL's AVX2 code does) */
	int32_t cfa_add;
	bool rbp_saved;    /* rbp was saved at CFA + rbp_off */
	int32_t rbp_off;
	int32_t ra_off;    /* the return address is at CFA + ra_off */
	bool outermost;    /* the return address is undefined: the thread's first frame */
	uint64_t fn_start; /* where the function (its FDE) starts, for naming it */
};

/* Reads n bytes at addr; 0 on success. */
typedef int eh_read_fn(uint64_t addr, void *buf, uint32_t n);

/* The rule at pc (for a return address, the caller passes the address of
 * the call, one byte back) of a module whose .eh_frame_hdr is mapped at
 * hdr; false when the module has no entry for pc or the rule is not one
 * this decoder follows. */
bool eh_rule_at(uint64_t hdr, uint64_t pc, eh_read_fn *read, struct eh_rule *out);

#endif
