#include "agent/unwind/r2r.h"

#include "common/wire.h"

#define RTR_SIGNATURE 0x00525452u /* "RTR" */
#define RTR_SECTION_RUNTIME_FUNCTIONS 102u
#define MAX_SECTIONS 64

static bool rd32(r2r_read_fn *read, uint64_t addr, uint32_t *v)
{
	uint8_t b[4];
	if (read(addr, b, 4) != 0)
		return false;
	*v = cs_load_u32(b);
	return true;
}

static bool rd16(r2r_read_fn *read, uint64_t addr, uint16_t *v)
{
	uint8_t b[2];
	if (read(addr, b, 2) != 0)
		return false;
	*v = cs_load_u16(b);
	return true;
}

bool r2r_open(uint64_t base, r2r_read_fn *read, struct r2r_image *out)
{
	out->base = base;
	out->functions = 0;
	out->count = 0;
	uint16_t mz, magic;
	uint32_t pe_off, pe_sig, cli_rva, native_rva, sig, nsections;
	/* DOS header -> PE header -> the optional header's CLI directory (14) */
	if (!rd16(read, base, &mz) || mz != 0x5A4D || !rd32(read, base + 0x3C, &pe_off) || pe_off > 0x1000 ||
	    !rd32(read, base + pe_off, &pe_sig) || pe_sig != 0x00004550)
		return false;
	uint64_t opt = base + pe_off + 24;
	if (!rd16(read, opt, &magic) || magic != 0x20B) /* PE32+ */
		return false;
	if (!rd32(read, opt + 112 + 14 * 8, &cli_rva) || !cli_rva)
		return false;
	/* IMAGE_COR20_HEADER: ManagedNativeHeader at 0x40 -> READYTORUN_HEADER */
	if (!rd32(read, base + cli_rva + 0x40, &native_rva) || !native_rva || !rd32(read, base + native_rva, &sig) ||
	    sig != RTR_SIGNATURE || !rd32(read, base + native_rva + 8 + 4, &nsections) || nsections > MAX_SECTIONS)
		return false;
	uint64_t sections = base + native_rva + 16;
	for (uint32_t i = 0; i < nsections; i++) {
		uint32_t type, rva, size;
		if (!rd32(read, sections + i * 12, &type) || !rd32(read, sections + i * 12 + 4, &rva) ||
		    !rd32(read, sections + i * 12 + 8, &size))
			return false;
		if (type == RTR_SECTION_RUNTIME_FUNCTIONS && rva && size >= 12) {
			out->functions = base + rva;
			out->count = size / 12; /* BeginAddress, EndAddress, UnwindData */
			return true;
		}
	}
	return false;
}

bool r2r_range_of(const struct r2r_image *img, uint64_t ip, r2r_read_fn *read, uint64_t *start, uint64_t *end)
{
	if (!img->functions || ip < img->base || ip - img->base >= UINT32_MAX)
		return false;
	uint32_t rva = (uint32_t)(ip - img->base);
	uint32_t lo = 0, hi = img->count;
	while (hi - lo > 1) { /* the last entry that begins at or before rva */
		uint32_t mid = lo + (hi - lo) / 2, begin;
		if (!rd32(read, img->functions + (uint64_t)mid * 12, &begin))
			return false;
		if (begin <= rva)
			lo = mid;
		else
			hi = mid;
	}
	uint32_t begin, finish;
	if (!rd32(read, img->functions + (uint64_t)lo * 12, &begin) ||
	    !rd32(read, img->functions + (uint64_t)lo * 12 + 4, &finish) || rva < begin || rva >= finish)
		return false;
	*start = img->base + begin;
	*end = img->base + finish;
	return true;
}
