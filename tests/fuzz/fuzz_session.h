/* Turning fuzz input into a process directory that the profile model can
 * read, for the targets that start from a session (reader, json). */
#ifndef CLRSCOPE_FUZZ_SESSION_H
#define CLRSCOPE_FUZZ_SESSION_H

#include <stddef.h>
#include <stdint.h>

/* Writes DIR/seg-000001.clog from data and returns DIR (fuzz_tmp_dir).  mode even: data is the raw segment
 * file, header and all; odd: data is chunks of (u8 type, u8 length,
 * payload), framed into valid records so that the decoders see
 * well-formed frames with hostile payloads. */
const char *fuzz_session_write(uint8_t mode, const uint8_t *data, size_t size);

#endif
