/* Files for the fuzzers that must read from disk (sessions, the config). */
#ifndef CLRSCOPE_FUZZ_TMP_H
#define CLRSCOPE_FUZZ_TMP_H

#include <stddef.h>

/* A private directory in $TMPDIR (or /tmp), made on first use and removed
 * with its files when the fuzzer exits normally (a crash leaves it). */
const char *fuzz_tmp_dir(void);

/* Replaces the file at path with a new one (0600) holding data; aborts
 * on failure. */
void fuzz_write_file(const char *path, const void *data, size_t size);

#endif
