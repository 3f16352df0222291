/* The record table (common/schema.h) as data: every kind's number, name
 * and fields, for tools that print records and for the tests that hold
 * the manual page and the encoders to the table.  Not for the agent. */
#ifndef CLRSCOPE_RECORDINFO_H
#define CLRSCOPE_RECORDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/records.h"

enum cs_wire { CS_WIRE_u8, CS_WIRE_u32, CS_WIRE_u64, CS_WIRE_varint, CS_WIRE_v32, CS_WIRE_str, CS_WIRE_count };
enum cs_presence { CS_ALWAYS, CS_OPTIONAL, CS_WITH, CS_EACH };

struct cs_field_info {
	const char *name;
	enum cs_wire wire;
	enum cs_presence presence;
	const char *doc;
};

struct cs_layout_info {
	const char *name;
	const struct cs_field_info *fields;
	size_t nfields;
};

struct cs_kind_info {
	uint16_t type;
	const char *name; /* "HELLO" */
	const char *doc;
	const struct cs_layout_info *head, *entry; /* nfields 0: none */
};

extern const struct cs_kind_info cs_kinds[];
extern const size_t cs_nkinds;

/* The kind of a record type, or NULL for a type the table does not have. */
const struct cs_kind_info *cs_kind_info(uint16_t type);
/* "u8", "varint", ...: the wire type's name in clrscope-session(5) (a v32
 * and a count are varints there). */
const char *cs_wire_doc_name(enum cs_wire wire);

/* One value of a payload, as cs_record_walk finds it.  entry is -1 in the
 * head, else the entry's index; an OPTIONAL group the payload ends before
 * is not visited. */
struct cs_field_value {
	const struct cs_field_info *field;
	long entry;
	size_t offset;   /* where the value starts in the payload */
	uint64_t u;      /* integers */
	struct cs_str s; /* strings */
};

/* Reads a payload of the given type as the table describes it, calling
 * visit (when not NULL) for every value in order.  Returns false for a
 * type the table does not have and for a payload that does not fit the
 * table; *trailing (when not NULL) gets the bytes after a head-only
 * payload's fields (a newer writer's, which readers ignore). */
bool cs_record_walk(uint16_t type, const uint8_t *p, size_t n,
		    void (*visit)(void *ctx, const struct cs_field_value *v), void *ctx, size_t *trailing);

/* Prints a record on one line: "HELLO pid=4242 ... " with lists' entries
 * in braces and strings quoted (bytes outside printable ASCII as \xNN). */
void cs_record_print(FILE *f, uint16_t type, const uint8_t *p, size_t n);

#endif
