#include "agent/unwind/walkprobe.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_GAP_NS 250000000ull /* a replay at most this often: reading 64 MiB takes milliseconds */
#define EVICT_BYTES (64u << 20) /* twice a 32 MiB L3, and 16384 pages: more than the TLB holds */

#define KEPT 512 /* replays kept for the medians (a replay the sampler thread was
		    preempted in, or that met a page not yet mapped, weighs little there) */

static struct figures {
	uint64_t walks, walk_ns; /* every walk, as the sampler made it */
	uint32_t probed;         /* the walks replayed */
	uint32_t made_ns[KEPT], replay_ns[PROBE_REPLAYS][KEPT];
	uint64_t last_ns;
} f;
static uint64_t text_lo, text_hi; /* the agent's executable segment */
static volatile uint8_t *other;   /* EVICT_BYTES to read */
static atomic_bool restart;

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uint64_t base = *(uint64_t *)arg;
	if (info->dlpi_addr != base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			text_lo = info->dlpi_addr + ph->p_vaddr;
			text_hi = text_lo + ph->p_memsz;
		}
	}
	return 1;
}

bool walkprobe_due(uint64_t walk_ns)
{
	if (atomic_exchange(&restart, false))
		f = (struct figures){0};
	f.walks++;
	f.walk_ns += walk_ns;
	uint64_t now = agent_mono_ns();
	if (now - f.last_ns < PROBE_GAP_NS)
		return false;
	f.last_ns = now;
	f.made_ns[f.probed % KEPT] = walk_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)walk_ns;
	f.probed++;
	return true;
}

void walkprobe_flush(const void *at, size_t len)
{
	const char *c = (const char *)((uintptr_t)at & ~(uintptr_t)63);
	for (; c < (const char *)at + len; c += 64)
		__builtin_ia32_clflush(c);
	__builtin_ia32_mfence();
}

void walkprobe_evict(enum walkprobe_replay kind)
{
	if (kind == PROBE_CODE) {
		if (!text_lo) {
			Dl_info self;
			uint64_t base;
			if (dladdr((void *)walkprobe_evict, &self) && (base = (uint64_t)(uintptr_t)self.dli_fbase))
				dl_iterate_phdr(find_text, &base);
		}
		if (text_lo)
			walkprobe_flush((const void *)(uintptr_t)text_lo, text_hi - text_lo);
	} else if (kind == PROBE_ALL) {
		if (!other)
			other = malloc(EVICT_BYTES);
		for (uint32_t i = 0; other && i < EVICT_BYTES; i += 64)
			other[i]++;
	}
}

void walkprobe_replayed(enum walkprobe_replay kind, uint64_t ns)
{
	if (f.probed)
		f.replay_ns[kind][(f.probed - 1) % KEPT] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

void walkprobe_restart(void)
{
	atomic_store(&restart, true);
}

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static uint32_t median(const uint32_t *v, uint32_t n)
{
	static uint32_t sorted[KEPT];
	if (!n)
		return 0;
	memcpy(sorted, v, n * sizeof *v);
	qsort(sorted, n, sizeof *sorted, by_value);
	return sorted[n / 2];
}

void walkprobe_report(void)
{
	uint32_t n = f.probed < KEPT ? f.probed : KEPT;
	uint32_t r[PROBE_REPLAYS];
	for (int k = 0; k < PROBE_REPLAYS; k++)
		r[k] = median(f.replay_ns[k], n);
	agent_debug("walkprobe: %llu walks, %.0f ns each; %u replayed, medians: %u ns as made, warm %u, "
		    "then cold: code %u, addresses %u, bodies %u, trail %u, stack copy %u, all %u",
		    (unsigned long long)f.walks, f.walks ? (double)f.walk_ns / (double)f.walks : 0.0, f.probed,
		    median(f.made_ns, n), r[PROBE_WARM], r[PROBE_CODE], r[PROBE_ADDRESSES], r[PROBE_BODIES],
		    r[PROBE_TRAIL], r[PROBE_STACK], r[PROBE_ALL]);
}
