#include "agent/walkprobe.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdlib.h>

#define PROBE_GAP_NS 250000000ull /* a replay at most this often: reading 64 MiB takes milliseconds */
#define EVICT_BYTES (64u << 20) /* twice the L3 of the machines measured, and 16384 pages */

static struct figures {
	uint64_t walks, walk_ns;    /* every walk, as the sampler made it */
	uint64_t probed, probed_ns; /* the walks replayed, as made */
	uint64_t replay_ns[PROBE_REPLAYS];
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
	f.probed++;
	f.probed_ns += walk_ns;
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
	f.replay_ns[kind] += ns;
}

void walkprobe_restart(void)
{
	atomic_store(&restart, true);
}

void walkprobe_report(void)
{
	double n = f.probed ? (double)f.probed : 1.0;
	agent_debug("walkprobe: %llu walks, %.0f ns each; %llu replayed (%.0f ns each as made): warm %.0f ns, "
		    "then cold: code %.0f, addresses %.0f, bodies %.0f, trail %.0f, stack copy %.0f, all %.0f",
		    (unsigned long long)f.walks, f.walks ? (double)f.walk_ns / (double)f.walks : 0.0,
		    (unsigned long long)f.probed, (double)f.probed_ns / n, (double)f.replay_ns[PROBE_WARM] / n,
		    (double)f.replay_ns[PROBE_CODE] / n, (double)f.replay_ns[PROBE_ADDRESSES] / n,
		    (double)f.replay_ns[PROBE_BODIES] / n, (double)f.replay_ns[PROBE_TRAIL] / n,
		    (double)f.replay_ns[PROBE_STACK] / n, (double)f.replay_ns[PROBE_ALL] / n);
}
