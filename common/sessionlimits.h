/* What bounds a session, for both halves: its size cap and its closed mark.
 *
 *   SESSION/max-size   decimal bytes all its process directories may take
 *                      together; written by clrscope, read by each agent
 *   SESSION/closed     made when the recording ended (or the cap was
 *                      reached): an agent starting later (a descendant that
 *                      outlived 'record') does not profile its process
 *
 * A reused session directory of a finished recording stays closed until
 * clrscope opens it for a new recording (cs_session_reopen). */
#ifndef CLRSCOPE_SESSIONLIMITS_H
#define CLRSCOPE_SESSIONLIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CS_SESSION_MAX_SIZE "max-size"
#define CS_SESSION_CLOSED "closed"
/* The default cap: this share of the space free where the session lives
 * (the default root is a small tmpfs shared by the whole login). */
#define CS_MAX_SIZE_FREE_SHARE 4
#define CS_MAX_SIZE_MIN (1u << 20)

/* A quarter of the space free on the file system of path, at least
 * CS_MAX_SIZE_MIN; 0 when it cannot be told. */
uint64_t cs_default_max_size(const char *path);
/* Writes the cap (new file + rename); -1 and err on failure. */
int cs_session_write_max_size(int session_fd, uint64_t bytes, char *err, size_t errlen);
/* The same on a session directory's path (clrscope's side). */
int cs_session_set_max_size(const char *session, uint64_t bytes, char *err, size_t errlen);
/* The cap, 0 when there is none (or it is unreadable). */
uint64_t cs_session_read_max_size(int session_fd);
/* Makes the closed mark (an existing one is fine); -1 on failure. */
int cs_session_close(int session_fd);
/* Removes the closed mark, for a new recording into the same directory. */
void cs_session_reopen(int session_fd);
bool cs_session_closed(int session_fd);
/* The bytes the session's process directories take (their regular files). */
uint64_t cs_session_bytes(int session_fd);

/* "64K", "10M", "2G", "123" (bytes): -1 if malformed or 0. */
int cs_parse_size(const char *s, uint64_t *out);

#endif
