/* The kinds of the runtime's stubs (code it generates outside every
 * module: precodes, virtual stub dispatch, dynamic helpers, copied write
 * barriers, ...) as the runtime itself tells them in its perf map.
 *
 * When clrscope launches the program it asks the runtime for a perf map
 * (DOTNET_PerfMapEnabled=3) in the session directory
 * (DOTNET_PerfMapJitDumpPath); the runtime writes a line for each method
 * it compiles and for each stub or block of stubs it makes, "ADDR SIZE
 * stub TYPE<KIND>".  The agent opens that file as soon as it is there and
 * unlinks it at once (the runtime writes on through its open file; nothing
 * is left behind, even if the program is killed), and reads the stubs'
 * lines as samples need them.  Where there is no such map (an attached
 * program, a user's own DOTNET_PerfMapEnabled), nothing tells: the caller
 * keeps its [runtime stub].  Sampler thread only. */
#ifndef CLRSCOPE_AGENT_STUBNAMES_H
#define CLRSCOPE_AGENT_STUBNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

#define STUBNAMES_KINDS 32 /* kinds told apart; more share the last */
#define STUBNAMES_KIND_MAX 48

/* Opens the map if clrscope asked the runtime for one in session_dir (for
 * process pid) and it is there yet; called again until it is. */
void stubnames_open(const char *session_dir, int pid) AGENT_HIDDEN;
void stubnames_close(void) AGENT_HIDDEN;
/* The kind of the stub at addr (an index below STUBNAMES_KINDS), reading
 * what the runtime wrote since the last look (at most every 50 ms); -1
 * when the map says nothing of addr. */
int stubnames_kind_at(uint64_t addr) AGENT_HIDDEN;
/* A kind's name, "VSD_ResolveStub", "DynamicHelper", ... */
const char *stubnames_kind_name(int kind) AGENT_HIDDEN;

/* One line of a perf map (without its newline): a stub's range and kind
 * (the name between the last '<' and the '>' that ends the line); false
 * for a method's line or anything else. */
bool stubnames_parse(const char *line, size_t len, uint64_t *start, uint64_t *size, char *kind,
		     size_t kindlen) AGENT_HIDDEN;

#endif
