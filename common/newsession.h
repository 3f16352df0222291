/* A new session directory for a recording: made private, with the marker
 * (session.h) and, since a directory may be reused, open again (no closed
 * mark) under the default size cap (sessionlimits.h).  clrscope's side. */
#ifndef CLRSCOPE_NEWSESSION_H
#define CLRSCOPE_NEWSESSION_H

#include <stddef.h>

/* Creates a new session: dir (if given) or ROOT/YYYYmmdd-HHMMSS-NAME-PID
 * (cs_session_root), its path in out.  Writes the marker file describing
 * command.  -1 with err on failure. */
int cs_session_create(const char *dir, const char *name, const char *command, char *out,
		      size_t n, char *err, size_t errlen);

#endif
