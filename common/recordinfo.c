#include "common/recordinfo.h"

#define FIELD_INFO(presence, wire, name, member, doc) {#name, CS_WIRE_##wire, CS_##presence, doc},
#define LAYOUT_INFO(layout, type, code, api, check)                                                   \
	static const struct cs_field_info fields_##layout[] = {CS_FIELDS_##layout(FIELD_INFO){NULL}}; \
	static const struct cs_layout_info layout_##layout = {#layout, fields_##layout,               \
							      sizeof fields_##layout / sizeof *fields_##layout - 1};
CS_LAYOUTS(LAYOUT_INFO)
static const struct cs_layout_info layout_none = {"none", NULL, 0};

#define KIND_INFO(NAME, type, reader, head, entry, doc) {type, #NAME, doc, &layout_##head, &layout_##entry},
const struct cs_kind_info cs_kinds[] = {CS_RECORD_KINDS(KIND_INFO)};
const size_t cs_nkinds = sizeof cs_kinds / sizeof *cs_kinds;

const struct cs_kind_info *cs_kind_info(uint16_t type)
{
	for (size_t i = 0; i < cs_nkinds; i++)
		if (cs_kinds[i].type == type)
			return &cs_kinds[i];
	return NULL;
}

const char *cs_wire_doc_name(enum cs_wire wire)
{
	switch (wire) {
	case CS_WIRE_u8:
		return "u8";
	case CS_WIRE_u32:
		return "u32";
	case CS_WIRE_u64:
		return "u64";
	case CS_WIRE_str:
		return "str";
	case CS_WIRE_varint:
	case CS_WIRE_v32:
	case CS_WIRE_count:
		return "varint";
	}
	return "?";
}

typedef void visit_fn(void *ctx, const struct cs_field_value *v);

struct walk {
	struct cs_in in;
	const uint8_t *payload;
	visit_fn *visit;
	void *ctx;
};

static bool read_value(struct walk *w, const struct cs_field_info *f, long entry)
{
	struct cs_in *in = &w->in;
	struct cs_field_value v = {f, entry, (size_t)(in->p - w->payload), 0, {"", 0}};
	switch (f->wire) {
	case CS_WIRE_u8:
		v.u = cs_get_u8(in);
		break;
	case CS_WIRE_u32:
		v.u = cs_get_u32(in);
		break;
	case CS_WIRE_u64:
		v.u = cs_get_u64(in);
		break;
	case CS_WIRE_varint:
	case CS_WIRE_count:
		v.u = cs_get_varint(in);
		break;
	case CS_WIRE_v32:
		v.u = cs_get_varint(in);
		if (v.u > UINT32_MAX)
			in->bad = true;
		break;
	case CS_WIRE_str:
		v.s.len = cs_get_str(in, &v.s.p);
		break;
	}
	if (in->bad)
		return false;
	if (w->visit)
		w->visit(w->ctx, &v);
	/* a count's EACH fields come right after it, that many times */
	if (f->wire != CS_WIRE_count)
		return true;
	const struct cs_field_info *first = f + 1, *end = first;
	while (end->name && end->presence == CS_EACH)
		end++;
	/* each value takes a byte at least: a larger count is damage */
	if (end > first && v.u > cs_in_left(in) / (size_t)(end - first))
		return false;
	for (uint64_t k = 0; k < v.u; k++)
		for (const struct cs_field_info *e = first; e < end; e++)
			if (!read_value(w, e, entry))
				return false;
	return true;
}

static bool walk_layout(struct walk *w, const struct cs_layout_info *l, long entry)
{
	bool present = true;
	for (size_t i = 0; i < l->nfields; i++) {
		const struct cs_field_info *f = &l->fields[i];
		if (f->presence == CS_OPTIONAL)
			present = !w->in.bad && cs_in_left(&w->in) > 0;
		if (f->presence == CS_EACH || (f->presence != CS_ALWAYS && !present))
			continue;
		if (!read_value(w, f, entry))
			return false;
	}
	return !w->in.bad;
}

bool cs_record_walk(uint16_t type, const uint8_t *p, size_t n, visit_fn *visit, void *ctx, size_t *trailing)
{
	const struct cs_kind_info *k = cs_kind_info(type);
	if (trailing)
		*trailing = 0;
	if (!k)
		return false;
	struct walk w = {.payload = p, .visit = visit, .ctx = ctx};
	cs_in_init(&w.in, p, n);
	if (!walk_layout(&w, k->head, -1))
		return false;
	if (!k->entry->nfields) {
		if (trailing)
			*trailing = cs_in_left(&w.in);
		return true;
	}
	for (long e = 0; cs_in_left(&w.in) > 0; e++)
		if (!walk_layout(&w, k->entry, e))
			return false;
	return true;
}

struct printer {
	FILE *f;
	long entry;
};

static void print_value(void *ctx, const struct cs_field_value *v)
{
	struct printer *pr = ctx;
	if (v->entry != pr->entry) {
		fputs(pr->entry >= 0 ? "} {" : " {", pr->f);
		pr->entry = v->entry;
	} else {
		fputc(' ', pr->f);
	}
	fprintf(pr->f, "%s=", v->field->name);
	if (v->field->wire != CS_WIRE_str) {
		fprintf(pr->f, "%llu", (unsigned long long)v->u);
		return;
	}
	fputc('"', pr->f);
	for (size_t i = 0; i < v->s.len; i++) {
		unsigned char c = (unsigned char)v->s.p[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			fprintf(pr->f, "\\x%02x", c);
		else
			fputc(c, pr->f);
	}
	fputc('"', pr->f);
}

void cs_record_print(FILE *f, uint16_t type, const uint8_t *p, size_t n)
{
	const struct cs_kind_info *k = cs_kind_info(type);
	if (!k) {
		fprintf(f, "type %u (not in the table): %zu bytes\n", type, n);
		return;
	}
	fputs(k->name, f);
	struct printer pr = {f, -1};
	size_t trailing;
	bool ok = cs_record_walk(type, p, n, print_value, &pr, &trailing);
	if (pr.entry >= 0)
		fputc('}', f);
	if (!ok)
		fputs(" [damaged: the payload does not fit the table]", f);
	else if (trailing)
		fprintf(f, " [%zu bytes more]", trailing);
	fputc('\n', f);
}
