/* Finding the session of a running, profiled process: from a session or
 * process directory, or from a pid, among the sessions under the default
 * session root. */
#ifndef CLRSCOPE_TARGETSESSION_H
#define CLRSCOPE_TARGETSESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "profile/profile.h"

/* Opens the session that target (DIR or PID) names and reads it up to now. */
int target_session_open(struct prof_recording *s, const char *target, char *err, size_t errlen);
/* Whether p is one the target meant (a pid target means that process only). */
bool target_session_wanted(const char *target, const struct prof_process *p);

#endif
