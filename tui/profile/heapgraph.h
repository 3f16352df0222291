/* The live object graph of a heap snapshot: its records (HEAP_NODES ...
 * HEAP_GRAPH, clrscope-session(5)) kept as they are read, and the graph
 * built from them in compact arrays for the analyses (heapanalysis.h).
 *
 * In the graph, node 0 is a super-root whose successors are the objects
 * the roots hold (static fields, stack frames, strong and pinned handles,
 * the finalization queue); objects 1..n-1 are numbered by address.  As in
 * Eclipse MAT, an object held by a root has no other predecessor: the
 * references to it from other objects are left out, so it is dominated by
 * the super-root alone (whatever else refers to it, the root keeps it).
 * A dependent handle (a ConditionalWeakTable entry) is a reference from
 * its key to its value.  Objects that no reported root reaches (frozen
 * objects, such as string literals and type objects, which the runtime
 * keeps for good) hang from roots of their own, "[no reported root]". */
#ifndef CLRSCOPE_HEAPGRAPH_H
#define CLRSCOPE_HEAPGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/logfmt.h"
#include "common/records.h"

/* ---- the records of one process, by snapshot ---- */

struct hg_bytes { /* a list kind's entries, record after record: varint first, varint length, bytes */
	uint8_t *data;
	size_t len, cap;
};

struct hg_static {
	uint64_t slot, address;
	uint8_t flags;
	char *type, *field;
};

struct hg_method {
	uint64_t id;
	char *name;
};

struct hg_records {
	uint64_t seq;
	bool have_head;
	struct cs_graph_head head;
	struct hg_bytes nodes, edges, roots;
	struct hg_static *statics;
	size_t nstatics, statics_cap;
	struct hg_method *methods;
	size_t nmethods, methods_cap;
	char **types; /* by the agent's type number; NULL: not named */
	size_t ntypes;
};

struct hg_store {
	struct hg_records *snaps;
	size_t n, cap;
};

/* Keeps a record of kinds HEAP_NODES ... HEAP_GRAPH; false when it is
 * damaged (the caller counts it). */
bool hg_store_add(struct hg_store *s, const struct cs_record *rec);
/* The records of snapshot seq, or NULL. */
const struct hg_records *hg_store_find(const struct hg_store *s, uint64_t seq);
void hg_store_free(struct hg_store *s);
/* Whether a snapshot's records all arrived (HEAP_GRAPH read, nothing lost). */
bool hg_records_whole(const struct hg_records *r);

/* ---- the graph ---- */

#define HG_NO_TYPE UINT32_MAX

struct hg_root {
	uint32_t node;
	uint32_t label; /* labels[]: "static Ns.Type.field", "[stack] Ns.Type.Method", "[pinned handle]" ... */
	uint8_t kind;   /* cs_graph_root_kind, or HG_ROOT_STATIC / HG_ROOT_UNREPORTED */
};
enum { HG_ROOT_STATIC = CS_GRAPH_ROOT_KINDS, HG_ROOT_UNREPORTED };

struct heap_graph {
	uint64_t seq;
	uint32_t n;         /* nodes, the super-root included */
	uint64_t *address;  /* by node (0 for the super-root), ascending */
	uint32_t *type;     /* by node: a type_names index (HG_NO_TYPE for the super-root) */
	uint64_t *size;     /* by node: bytes, rounded up to the heap's alignment */
	uint32_t *start;    /* n + 1: node v's references are refs[start[v] .. start[v + 1]) */
	uint32_t *refs;
	struct hg_root *roots; /* in the order paths prefer them: statics, handles, stacks, the queue, other */
	uint32_t nroots;
	char **labels;
	uint32_t nlabels;
	char **type_names;
	uint32_t ntypes;
	uint64_t references; /* as the agent wrote them, all of them */
	/* what could not be placed */
	uint64_t external_refs;    /* references to objects outside the walk (frozen ones) */
	uint64_t unplaced_roots;   /* roots of objects outside the walk */
	uint64_t unreported;       /* objects that head a part no reported root reaches */
	uint64_t weak_roots;       /* weak handles: they hold nothing */
};

/* Builds the graph of a snapshot's records; -1 (with why) when they do
 * not make one (damage: a count that disagrees, a reference past its
 * object's list). */
int hg_build(const struct hg_records *r, struct heap_graph *g, char *err, size_t errlen);
void hg_free(struct heap_graph *g);
/* The node at address (an object's start or inside it), 0 when none. */
uint32_t hg_node_at(const struct heap_graph *g, uint64_t address);

#endif
