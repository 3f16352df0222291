#include "agent/unwind/memread.h"

#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static pid_t self;

void memread_init(void)
{
	self = getpid();
}

int memread(uint64_t addr, void *buf, size_t n)
{
	struct iovec local = {buf, n}, remote = {(void *)(uintptr_t)addr, n};
	return process_vm_readv(self, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

size_t memread_prefix(uint64_t addr, void *buf, size_t n)
{
	struct iovec local = {buf, n}, remote = {(void *)(uintptr_t)addr, n};
	ssize_t got = process_vm_readv(self, &local, 1, &remote, 1, 0); /* short at an unreadable page */
	return got > 0 ? (size_t)got : 0;
}

/* Words close together are read as one range: the kernel pins a page per
 * range, and the parked proofs read many words a tick, so one range per
 * word would pin a page per word. */
#define WORDS_GAP 512     /* a gap this small is read through, not split at */
#define WORDS_SPAN 16384  /* bytes read in all, at most */
#define WORDS_MAX 1024    /* IOV_MAX */

static int read_each(const uint64_t *addrs, uint64_t *words, uint32_t n)
{
	static struct iovec remote[WORDS_MAX];
	for (uint32_t i = 0; i < n; i++)
		remote[i] = (struct iovec){(void *)(uintptr_t)addrs[i], 8};
	struct iovec local = {words, (size_t)n * 8};
	return process_vm_readv(self, &local, 1, remote, n, 0) == (ssize_t)n * 8 ? 0 : -1;
}

int memread_words(const uint64_t *addrs, uint64_t *words, uint32_t n)
{
	static uint8_t span[WORDS_SPAN];
	static uint32_t at[WORDS_MAX]; /* each word's offset in span */
	static struct iovec local[WORDS_MAX], remote[WORDS_MAX];
	if (n > WORDS_MAX)
		return -1;
	/* ranges in the order the words come (a walk reads up its stack):
	 * [lo, hi) is the one being built, at span + base */
	uint32_t nio = 0, base = 0;
	uint64_t lo = 0, hi = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = addrs[i];
		if (nio && a >= lo && a <= hi + WORDS_GAP && a + 8 - lo <= WORDS_SPAN - base) {
			if (a + 8 > hi)
				hi = a + 8;
		} else {
			if (nio) {
				remote[nio - 1].iov_len = local[nio - 1].iov_len = hi - lo;
				base += (uint32_t)(hi - lo);
			}
			if (base + 8 > WORDS_SPAN || a + 8 < a)
				return read_each(addrs, words, n); /* too spread out */
			lo = a;
			hi = a + 8;
			local[nio] = (struct iovec){span + base, 8};
			remote[nio++] = (struct iovec){(void *)(uintptr_t)a, 8};
		}
		at[i] = base + (uint32_t)(a - lo);
	}
	if (!nio)
		return 0;
	remote[nio - 1].iov_len = local[nio - 1].iov_len = hi - lo;
	if (process_vm_readv(self, local, nio, remote, nio, 0) != (ssize_t)(base + (hi - lo)))
		return read_each(addrs, words, n); /* a gap read through held an unreadable page */
	for (uint32_t i = 0; i < n; i++)
		memcpy(&words[i], span + at[i], 8);
	return 0;
}

uint32_t memread_pages(uint64_t addr, uint8_t *buf, uint32_t len)
{
	enum { PAGE = 4096, IOVS = MEMREAD_COPY_MAX / PAGE + 1 };
	struct iovec local[IOVS], remote[IOVS];
	if (len > MEMREAD_COPY_MAX)
		len = MEMREAD_COPY_MAX;
	int n = 0;
	for (uint32_t at = 0; at < len && n < IOVS; n++) {
		uint32_t chunk = PAGE - (uint32_t)((addr + at) & (PAGE - 1));
		if (chunk > len - at)
			chunk = len - at;
		local[n] = (struct iovec){buf + at, chunk};
		remote[n] = (struct iovec){(void *)(uintptr_t)(addr + at), chunk};
		at += chunk;
	}
	/* syscall() is variadic: every argument a full long */
	long got = syscall(SYS_process_vm_readv, (long)self, local, (unsigned long)n, remote, (unsigned long)n, 0ul);
	return got > 0 ? (uint32_t)got : 0;
}
