/* The unwinder's source in the agent: code by address from the code map,
 * memory outside the stack copy by memread (unwind.h). */
#include "agent/unwind/codemap.h"
#include "agent/unwind/memread.h"
#include "agent/unwind/unwind.h"

const struct unwind_source unwind_live = {
	.at = codemap_at,
	.code_facts = codemap_code_facts,
	.call_cfa = codemap_call_cfa,
	.call_cfa_refuted = codemap_call_cfa_refuted,
	.walk_epoch = codemap_walk_epoch,
	.dynamic_epoch = codemap_dynamic_epoch,
	.read = memread,
#ifdef CLRSCOPE_WALK_PROBE
	.probe_flush = codemap_probe_flush,
#endif
};
