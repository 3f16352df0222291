/* A minimal test harness: CHECK records a failure and carries on, so one
 * run shows every broken assertion; a test binary exits 1 if any failed.
 * SKIP_PART says why a part of the test cannot run here: the binary then
 * exits 77, which ctest counts as skipped (SKIP_RETURN_CODE). */
#ifndef CLRSCOPE_CHECK_H
#define CLRSCOPE_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures, check_skips;

#define CHECK(cond)                                                                    \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures++;                                              \
		}                                                                      \
	} while (0)

#define CHECK_EQ_U(a, b)                                                                         \
	do {                                                                                     \
		uint64_t va_ = (uint64_t)(a), vb_ = (uint64_t)(b);                               \
		if (va_ != vb_) {                                                                \
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%" PRIu64 " != %" PRIu64 ")\n", \
				__FILE__, __LINE__, #a, #b, va_, vb_);                           \
			check_failures++;                                                        \
		}                                                                                \
	} while (0)

#define CHECK_STR(a, b)                                                                         \
	do {                                                                                    \
		const char *sa_ = (a), *sb_ = (b);                                              \
		if (strcmp(sa_, sb_) != 0) {                                                    \
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s (\"%s\" != \"%s\")\n", __FILE__, \
				__LINE__, #a, #b, sa_, sb_);                                    \
			check_failures++;                                                       \
		}                                                                               \
	} while (0)

#define SKIP_PART(...)                         \
	do {                                   \
		printf("skip - ");             \
		printf(__VA_ARGS__);           \
		printf("\n");                  \
		check_skips++;                 \
	} while (0)

#define RUN(test)                                  \
	do {                                       \
		int before_ = check_failures;      \
		test();                            \
		printf("%s %s\n", check_failures == before_ ? "ok" : "FAIL", #test); \
	} while (0)

#define CHECK_DONE()                                                                   \
	(check_failures ? (fprintf(stderr, "%d check(s) failed\n", check_failures), 1)     \
	 : check_skips	? (printf("%d part(s) skipped\n", check_skips), 77)                 \
			: 0)

#endif
