#include "agent/sampling/kernelsamples.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_DATA_PAGES 32 /* a power of two: 128 KiB, three samples of 32 KiB and most of a fourth */
#define PAGE 4096ul
#define RING_BYTES ((1 + RING_DATA_PAGES) * PAGE)

/* perf's x86-64 register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
#define REG_BP 6
#define REG_SP 7
#define REG_IP 8

bool ks_open(struct ks_thread *t, pid_t tid, uint64_t period_ns, char *why, size_t whylen)
{
	*t = (struct ks_thread){0};
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period_ns;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = 1ull << REG_BP | 1ull << REG_SP | 1ull << REG_IP;
	a.sample_stack_user = KS_STACK_BYTES;
	a.exclude_kernel = 1; /* (the user registers are what a sample needs) */
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "perf_event_open: %s", strerror(errno));
		return false;
	}
	void *ring = mmap(NULL, RING_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		snprintf(why, whylen, "mapping its ring: %s", strerror(errno));
		close(fd);
		return false;
	}
	*t = (struct ks_thread){fd + 1, ring, period_ns};
	return true;
}

void ks_close(struct ks_thread *t)
{
	if (t->ring)
		munmap(t->ring, RING_BYTES);
	if (t->fd)
		close(t->fd - 1);
	*t = (struct ks_thread){0};
}

bool ks_set_period(struct ks_thread *t, uint64_t period_ns)
{
	if (!t->fd || t->period_ns == period_ns)
		return t->fd != 0;
	uint64_t p = period_ns;
	if (ioctl(t->fd - 1, PERF_EVENT_IOC_PERIOD, &p) != 0)
		return false;
	t->period_ns = period_ns;
	return true;
}

/* n bytes of the ring's data from offset at (which wraps) into out. */
static void ring_copy(const uint8_t *data, uint64_t at, void *out, size_t n)
{
	const size_t size = RING_DATA_PAGES * PAGE;
	size_t from = (size_t)(at % size), first = n < size - from ? n : size - from;
	memcpy(out, data + from, first);
	memcpy((uint8_t *)out + first, data, n - first);
}

/* The sample at offset at (its header read): its registers and stack,
 * as laid out for the sample_type ks_open asks for. */
static bool parse_sample(const uint8_t *data, uint64_t at, uint32_t size, struct ks_sample *out, uint8_t *stack,
			 uint32_t cap)
{
	uint64_t off = at + sizeof(struct perf_event_header), end = at + size;
	uint64_t word[4];
	if (end - off < 8 * 3)
		return false;
	ring_copy(data, off + 8, &out->time_ns, 8); /* after pid and tid */
	ring_copy(data, off + 16, &word[0], 8);     /* the registers' ABI */
	off += 24;
	out->user = word[0] == PERF_SAMPLE_REGS_ABI_64;
	if (word[0] != PERF_SAMPLE_REGS_ABI_NONE) {
		if (end - off < 8 * 3)
			return false;
		ring_copy(data, off, word, 8 * 3); /* in the order of their numbers: bp, sp, ip */
		out->bp = word[0];
		out->sp = word[1];
		out->ip = word[2];
		off += 24;
	}
	uint64_t stack_size = 0, dyn = 0;
	if (end - off < 8)
		return false;
	ring_copy(data, off, &stack_size, 8);
	off += 8;
	if (stack_size) {
		if (end - off < stack_size + 8)
			return false;
		ring_copy(data, off + stack_size, &dyn, 8);
		if (dyn > stack_size)
			return false;
	}
	out->len = (uint32_t)(dyn < cap ? dyn : cap);
	ring_copy(data, off, stack, out->len);
	return true;
}

uint32_t ks_drain(struct ks_thread *t, struct ks_sample *out, uint8_t *stack, uint32_t cap, uint64_t *lost)
{
	if (!t->ring)
		return 0;
	struct perf_event_mmap_page *meta = t->ring;
	const uint8_t *data = (const uint8_t *)t->ring + PAGE;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail;
	uint64_t latest = UINT64_MAX;
	uint32_t n = 0, latest_size = 0;
	while (tail < head) {
		struct perf_event_header h;
		ring_copy(data, tail, &h, sizeof h);
		if (h.size < sizeof h || h.size > head - tail)
			break; /* cannot be: the rest is unreadable */
		if (h.type == PERF_RECORD_SAMPLE) {
			latest = tail;
			latest_size = h.size;
			n++;
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
			uint64_t count;
			ring_copy(data, tail + sizeof h + 8, &count, 8);
			*lost += count;
		}
		tail += h.size;
	}
	if (latest != UINT64_MAX && !parse_sample(data, latest, latest_size, out, stack, cap))
		n = 0;
	/* the kernel may reuse the space once the tail passes it */
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	return latest == UINT64_MAX ? 0 : n;
}
