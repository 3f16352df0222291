/* Where the agent library is: $CLRSCOPE_AGENT, else beside this executable
 * at ../lib/clrscope/ (the same in the build tree and an installed prefix). */
#ifndef CLRSCOPE_AGENTPATH_H
#define CLRSCOPE_AGENTPATH_H

#include <stddef.h>

/* Fills out with an absolute, readable path; -1 and err when there is none. */
int agent_path_find(char *out, size_t n, char *err, size_t errlen);

#endif
