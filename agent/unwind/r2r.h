/* ReadyToRun code by address: a precompiled image (System.Private.CoreLib
 * and the rest of the framework) lists its methods' code ranges in the
 * RuntimeFunctions section of its READYTORUN_HEADER, reached from the PE
 * image's CLI header.  The profiling API names such code but cannot always
 * say where its body starts (a method since recompiled at tier 1 reports
 * only the new body; shared generic code reports none), and the unwinder
 * needs that start to decode the prolog.  Memory is read through a
 * callback that cannot fault. */
#ifndef CLRSCOPE_AGENT_R2R_H
#define CLRSCOPE_AGENT_R2R_H

#include <stdbool.h>
#include <stdint.h>

typedef int r2r_read_fn(uint64_t addr, void *buf, uint32_t n);

struct r2r_image {
	uint64_t base;      /* where the image is loaded (its RVAs count from here) */
	uint64_t functions; /* the RUNTIME_FUNCTION table's address, 0: not a ReadyToRun image */
	uint32_t count;
};

/* Finds the table of the image loaded at base; false when it is not a
 * ReadyToRun image this reader understands. */
bool r2r_open(uint64_t base, r2r_read_fn *read, struct r2r_image *out);
/* The code range [start, end) that holds ip (main body or funclet). */
bool r2r_range_of(const struct r2r_image *img, uint64_t ip, r2r_read_fn *read, uint64_t *start, uint64_t *end);

#endif
