#ifndef CLRSCOPE_AGENT_MEMREAD_H
#define CLRSCOPE_AGENT_MEMREAD_H

/* Reads of this process's own memory that never fault: code bytes, unwind
 * tables, other threads' stacks, any of which may be unmapped as it is read
 * (process_vm_readv on the process itself). */

#include <stddef.h>
#include <stdint.h>

/* Notes the process id (again after a fork); before any other call. */
void memread_init(void);
/* Reads n bytes at addr (0, or -1 when any of them is unreadable). */
int memread(uint64_t addr, void *buf, size_t n);
/* Reads n bytes at addr up to the first unreadable page: the bytes read. */
size_t memread_prefix(uint64_t addr, void *buf, size_t n);
/* Reads the n (at most 1024) 8-byte words at addrs into words (0 or -1).
 * Words close together are read as one range (the kernel pins each page
 * once instead of once per word); the sampler thread's only. */
int memread_words(const uint64_t *addrs, uint64_t *words, uint32_t n);

#define MEMREAD_COPY_MAX (64u << 10)
/* Copies up to len (at most MEMREAD_COPY_MAX) bytes from addr, page by
 * page in one system call, so that an unreadable page ends the copy there;
 * returns the bytes copied.  Async-signal-safe (the signal handler copies
 * stacks with it). */
uint32_t memread_pages(uint64_t addr, uint8_t *buf, uint32_t len);

#endif
