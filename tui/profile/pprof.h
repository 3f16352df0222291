/* The pprof export: a Profile message of google/pprof's profile.proto,
 * gzip-compressed, as go tool pprof, Grafana Pyroscope and the other
 * continuous profilers read it. */
#ifndef CLRSCOPE_PPROF_H
#define CLRSCOPE_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"

/* Encodes the per-thread counts (the session was read with by_thread) of
 * the processes selected (pid 0: every one) as one Profile message; *out
 * is malloc'd.  Returns how many processes it holds, or -1 with err. */
int pprof_encode(const struct prof_recording *s, uint32_t pid, uint8_t **out, size_t *len, char *err, size_t errlen);

/* pprof_encode, gzip-compressed, written to f. */
int pprof_write(FILE *f, const struct prof_recording *s, uint32_t pid, char *err, size_t errlen);

/* The same into the file path, whole or not at all (a new file renamed
 * into place, 0600), for collectors that pick files up. */
int pprof_write_file(const char *path, const struct prof_recording *s, uint32_t pid, char *err, size_t errlen);

#endif
