/* The agent's reads of its own memory that never fault: words read as
 * ranges come back as the words, in any order, across pages and past the
 * range limit; an unreadable word fails the read; copies end at an
 * unreadable page. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent/unwind/memread.h"
#include "check.h"

#define PAGE 4096u
#define PAGES 12u /* page 5 is unreadable */

static uint8_t *area;

static uint64_t value_at(uint64_t addr)
{
	return addr * 0x9E3779B97F4A7C15ull;
}

static uint64_t word(uint32_t page, uint32_t off)
{
	return (uint64_t)(uintptr_t)(area + page * PAGE + off);
}

static void setup(void)
{
	area = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(area != MAP_FAILED);
	for (uint32_t off = 0; off < PAGES * PAGE; off += 8) {
		uint64_t v = value_at((uint64_t)(uintptr_t)(area + off));
		memcpy(area + off, &v, 8);
	}
	CHECK(mprotect(area + 5 * PAGE, PAGE, PROT_NONE) == 0);
	memread_init();
}

/* reads addrs and checks every word against what was written there */
static void expect_words(const uint64_t *addrs, uint32_t n, const char *what)
{
	uint64_t got[1100];
	memset(got, 0, sizeof got);
	int rc = memread_words(addrs, got, n);
	CHECK(rc == 0);
	uint32_t wrong = 0;
	for (uint32_t i = 0; i < n; i++)
		wrong += got[i] != value_at(addrs[i]);
	if (wrong || rc)
		fprintf(stderr, "  (%s: %u of %u words wrong)\n", what, wrong, n);
	CHECK_EQ_U(wrong, 0);
}

static void words(void)
{
	uint64_t a[1100];
	/* a walk's shape: up one page, with repeats and small gaps */
	uint32_t n = 0;
	for (uint32_t off = 16; off < PAGE; off += 8 * (1 + n % 5))
		a[n++] = word(0, off);
	a[n++] = word(0, 16); /* read again */
	a[n++] = word(1, 0);  /* the next page, a small gap on */
	expect_words(a, n, "ascending in one page");
	/* descending: each word its own range */
	n = 0;
	for (int off = 2 * PAGE; off >= 8; off -= 200)
		a[n++] = word(0, (uint32_t)off & ~7u);
	expect_words(a, n, "descending");
	/* far apart (gaps past the read-through limit), across pages 0-4 and 6-11 */
	n = 0;
	for (uint32_t p = 0; p < PAGES; p++)
		if (p != 5)
			for (uint32_t off = 0; off < PAGE; off += 1000)
				a[n++] = word(p, off & ~7u);
	expect_words(a, n, "spread over eleven pages");
	/* a dense run longer than all the ranges may hold: read word by word */
	n = 0;
	for (uint32_t off = 0; off < 5 * PAGE; off += 64)
		a[n++] = word(0, off);
	for (uint32_t off = 0; off < 6 * PAGE; off += 64)
		a[n++] = word(6, off);
	expect_words(a, n, "more than the ranges hold");
	/* a thousand and twenty-four, the most */
	n = 0;
	for (uint32_t i = 0; i < 1024; i++)
		a[n++] = word(i % 2 ? 7 : 0, (i * 8) % PAGE);
	expect_words(a, n, "1024 words");
	uint64_t got[1025];
	CHECK(memread_words(a, got, 1025) == -1);
	CHECK(memread_words(a, got, 0) == 0);
	/* one unreadable word fails the whole read, wherever it is */
	a[0] = word(4, PAGE - 8);
	a[1] = word(5, 0);
	a[2] = word(6, 0);
	CHECK(memread_words(a, got, 3) == -1);
	CHECK(memread_words(a + 1, got, 1) == -1);
	CHECK(memread_words(a, got, 1) == 0 && got[0] == value_at(a[0]));
	a[3] = word(4, PAGE - 16);
	CHECK(memread_words(a + 2, got, 2) == 0 && got[0] == value_at(a[2]) && got[1] == value_at(a[3]));
}

static void copies(void)
{
	static uint8_t buf[MEMREAD_COPY_MAX];
	/* up to the unreadable page, from inside page 3 */
	CHECK_EQ_U(memread_pages(word(3, 100), buf, 3 * PAGE), 2 * PAGE - 100);
	CHECK(memcmp(buf, area + 3 * PAGE + 100, 2 * PAGE - 100) == 0);
	CHECK_EQ_U(memread_pages(word(6, 8), buf, PAGE), PAGE);
	CHECK_EQ_U(memread_pages(word(5, 8), buf, PAGE), 0);
	CHECK_EQ_U(memread_prefix(word(4, 8), buf, 2 * PAGE), PAGE - 8);
	CHECK(memread(word(4, 8), buf, PAGE - 8) == 0 && memcmp(buf, area + 4 * PAGE + 8, PAGE - 8) == 0);
	CHECK(memread(word(4, 8), buf, PAGE) == -1);
}

int main(void)
{
	setup();
	RUN(words);
	RUN(copies);
	return check_failures ? 1 : 0;
}
