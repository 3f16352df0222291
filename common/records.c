#include "common/records.h"

/* ---- one writer, reader and empty value per wire type ---- */

/* (a layout uses some of them) */
#define WIRE_FN __attribute__((unused)) static inline

WIRE_FN void put_u8(struct cs_out *o, uint8_t v)
{
	cs_put_u8(o, v);
}

WIRE_FN void put_u32(struct cs_out *o, uint32_t v)
{
	cs_put_u32(o, v);
}

WIRE_FN void put_u64(struct cs_out *o, uint64_t v)
{
	cs_put_u64(o, v);
}

WIRE_FN void put_varint(struct cs_out *o, uint64_t v)
{
	cs_put_varint(o, v);
}

WIRE_FN void put_v32(struct cs_out *o, uint32_t v)
{
	cs_put_varint(o, v);
}

WIRE_FN void put_str(struct cs_out *o, struct cs_str s)
{
	cs_put_strn(o, s.p ? s.p : "", s.p ? s.len : 0);
}

WIRE_FN uint8_t get_u8(struct cs_in *in)
{
	return cs_get_u8(in);
}

WIRE_FN uint32_t get_u32(struct cs_in *in)
{
	return cs_get_u32(in);
}

WIRE_FN uint64_t get_u64(struct cs_in *in)
{
	return cs_get_u64(in);
}

WIRE_FN uint64_t get_varint(struct cs_in *in)
{
	return cs_get_varint(in);
}

/* a varint that must fit 32 bits: more is damage */
WIRE_FN uint32_t get_v32(struct cs_in *in)
{
	uint64_t v = cs_get_varint(in);
	if (v > UINT32_MAX)
		in->bad = true;
	return (uint32_t)v;
}

WIRE_FN struct cs_str get_str(struct cs_in *in)
{
	struct cs_str s;
	s.len = cs_get_str(in, &s.p);
	return s;
}

WIRE_FN uint8_t none_u8(void)
{
	return 0;
}

WIRE_FN uint32_t none_u32(void)
{
	return 0;
}

WIRE_FN uint64_t none_u64(void)
{
	return 0;
}

WIRE_FN uint64_t none_varint(void)
{
	return 0;
}

WIRE_FN uint32_t none_v32(void)
{
	return 0;
}

WIRE_FN struct cs_str none_str(void)
{
	return (struct cs_str){"", 0};
}

/* ---- the checks the table names ---- */

static inline bool always_valid(const void *s)
{
	(void)s;
	return true;
}

/* an empty run, one longer than the agent writes, no period or a spacing
 * no rate gives: damage */
static bool hold_valid(const struct cs_hold *h)
{
	return h->count != 0 && h->count <= CS_HOLD_MAX_COUNT && h->period_us != 0 &&
	       h->period_us <= CS_HOLD_MAX_PERIOD_US;
}

static bool cpu_owed_valid(const struct cs_cpu_owed *c)
{
	return c->count != 0 && c->count <= CS_CPU_OWED_MAX_COUNT;
}

/* ---- the code the table makes ----
 *
 * write_LAYOUT(o, s, groups) writes the fields in order, and of the
 * OPTIONAL groups the first `groups` (fewer: the record of a writer that
 * predates the others).
 * read_LAYOUT(in, s) zeroes *s, reads the fields in order, and returns how
 * many OPTIONAL groups the payload held; a group it ends before reads as
 * 0 and empty strings.  Damage (a short payload, a v32 past 32 bits, a
 * failed check) sets in->bad. */

#define PUT_ALWAYS(wire, member) put_##wire(o, s->member);
#define PUT_OPTIONAL(wire, member) \
	present = groups > 0;      \
	groups--;                  \
	PUT_WITH(wire, member)
#define PUT_WITH(wire, member) \
	if (present)           \
		put_##wire(o, s->member);
#define PUT_FIELD(presence, wire, name, member, doc) PUT_##presence(wire, member)

#define GET_ALWAYS(wire, member) s->member = get_##wire(in);
#define GET_OPTIONAL(wire, member)                \
	present = !in->bad && cs_in_left(in) > 0; \
	groups += present;                        \
	GET_WITH(wire, member)
#define GET_WITH(wire, member) s->member = present ? get_##wire(in) : none_##wire();
#define GET_FIELD(presence, wire, name, member, doc) GET_##presence(wire, member)

#define CODE_STRUCT(layout, type, check) CODE_CODE(layout, type, check)
#define CODE_CODE(layout, type, check)                                                                         \
	__attribute__((unused)) static void write_##layout(struct cs_out *o, const struct type *s, int groups) \
	{                                                                                                      \
		bool present = true;                                                                           \
		CS_FIELDS_##layout(PUT_FIELD)                                                                  \
		(void)present;                                                                                 \
		(void)groups;                                                                                  \
	}                                                                                                      \
	__attribute__((unused)) static int read_##layout(struct cs_in *in, struct type *s)                     \
	{                                                                                                      \
		bool present = true;                                                                           \
		int groups = 0;                                                                                \
		*s = (struct type){0};                                                                         \
		CS_FIELDS_##layout(GET_FIELD)                                                                  \
		if (!in->bad && !check(s))                                                                     \
			in->bad = true;                                                                        \
		(void)present;                                                                                 \
		return groups;                                                                                 \
	}
#define CODE_HAND(layout, type, check)
#define CODE(layout, type, code, api, check) CODE_##code(layout, type, check)
CS_LAYOUTS(CODE)

static bool list_more(struct cs_list *l)
{
	return !l->in.bad && cs_in_left(&l->in) > 0;
}

#define ENCODER(layout, type)                                             \
	void cs_##layout##_encode(struct cs_out *o, const struct type *s) \
	{                                                                 \
		write_##layout(o, s, INT32_MAX);                          \
	}
#define API_PAYLOAD(layout, type)                                             \
	ENCODER(layout, type)                                                 \
	bool cs_##layout##_decode(const uint8_t *p, size_t n, struct type *s) \
	{                                                                     \
		struct cs_in in;                                              \
		cs_in_init(&in, p, n);                                        \
		read_##layout(&in, s);                                        \
		return !in.bad;                                               \
	}
#define API_LIST(layout, type)                                   \
	ENCODER(layout, type)                                    \
	bool cs_next_##layout(struct cs_list *l, struct type *s) \
	{                                                        \
		if (!list_more(l))                               \
			return false;                            \
		read_##layout(&l->in, s);                        \
		return !l->in.bad;                               \
	}
#define API_IN_HEAD(layout, type)                                   \
	ENCODER(layout, type)                                       \
	bool cs_##layout##_decode(struct cs_in *in, struct type *s) \
	{                                                           \
		read_##layout(in, s);                               \
		return !in->bad;                                    \
	}
#define API_IN_LIST(layout, type)                               \
	ENCODER(layout, type)                                   \
	bool cs_next_##layout(struct cs_in *in, struct type *s) \
	{                                                       \
		if (in->bad || !cs_in_left(in))                 \
			return false;                           \
		read_##layout(in, s);                           \
		return !in->bad;                                \
	}
#define API_INNER(layout, type)
#define API(layout, type, code, api, check) API_##api(layout, type)
CS_LAYOUTS(API)

/* ---- lists ---- */

void cs_list_init(struct cs_list *l, const uint8_t *p, size_t n)
{
	cs_in_init(&l->in, p, n);
	l->time_us = 0;
	l->pending = 0;
	l->with_state = false;
}

void cs_list_init_ticks(struct cs_list *l, const uint8_t *p, size_t n)
{
	cs_list_init(l, p, n);
	l->with_state = true;
}

bool cs_list_bad(const struct cs_list *l)
{
	return l->in.bad;
}

/* ---- SAMPLES and TICKS: counted runs of samples in each tick ---- */

void cs_tick_encode(struct cs_out *o, uint64_t time_delta_us, uint64_t suspend_ns, uint64_t count)
{
	put_varint(o, time_delta_us);
	put_varint(o, suspend_ns);
	put_varint(o, count);
}

void cs_sample_encode(struct cs_out *o, uint64_t thread_ref, uint64_t stack_id)
{
	put_varint(o, thread_ref);
	put_varint(o, stack_id);
}

bool cs_next_tick(struct cs_list *l, struct cs_tick *t)
{
	uint64_t a, b;
	while (l->pending && !l->in.bad) {
		cs_next_sample(l, &a, &b);
	}
	if (!list_more(l))
		return false;
	l->time_us += get_varint(&l->in);
	t->time_us = l->time_us;
	t->suspend_ns = get_varint(&l->in);
	t->count = get_varint(&l->in);
	/* each sample takes at least two bytes: a larger count is garbage */
	if (t->count > cs_in_left(&l->in) / 2)
		l->in.bad = true;
	l->pending = l->in.bad ? 0 : t->count;
	return !l->in.bad;
}

bool cs_next_sample_state(struct cs_list *l, uint64_t *thread_ref, uint64_t *stack_id, bool *off_cpu)
{
	if (!l->pending || l->in.bad)
		return false;
	l->pending--;
	*thread_ref = get_varint(&l->in);
	uint64_t v = get_varint(&l->in);
	*off_cpu = l->with_state && (v & 1u);
	*stack_id = l->with_state ? v >> 1 : v;
	if (l->in.bad)
		l->pending = 0;
	return !l->in.bad;
}

bool cs_next_sample(struct cs_list *l, uint64_t *thread_ref, uint64_t *stack_id)
{
	bool off;
	return cs_next_sample_state(l, thread_ref, stack_id, &off);
}

/* ---- THREAD_CPU: a head of a plain time ---- */

void cs_thread_cpu_head_encode(struct cs_out *o, uint64_t time_us)
{
	write_thread_cpu_head(o, &(struct cs_thread_cpu_head){time_us}, INT32_MAX);
}

bool cs_thread_cpu_begin(struct cs_list *l, const uint8_t *p, size_t n, uint64_t *time_us)
{
	struct cs_thread_cpu_head h;
	cs_list_init(l, p, n);
	read_thread_cpu_head(&l->in, &h);
	*time_us = h.time_us;
	return !l->in.bad;
}

/* ---- DIALS: the dials as fields, or from the line ---- */

void cs_dials_ack_encode(struct cs_out *o, const struct cs_dials_ack *a)
{
	write_dials_ack(o, a, a->has_dials ? 1 : 0);
}

bool cs_dials_ack_decode(const uint8_t *p, size_t n, struct cs_dials_ack *a)
{
	struct cs_in in;
	cs_in_init(&in, p, n);
	a->has_dials = read_dials_ack(&in, a) > 0;
	if (in.bad)
		return false;
	if (!a->has_dials)
		cs_dials_apply_summary(&a->dials, a->effective.p, a->effective.len);
	a->dials.generation = a->generation;
	return true;
}

/* ---- GC: a counted run of heap sizes ---- */

void cs_gc_encode(struct cs_out *o, const struct cs_gc *g)
{
	put_u64(o, g->start_us);
	put_varint(o, g->duration_us);
	put_varint(o, g->pause_us);
	put_u8(o, g->generation);
	put_u8(o, g->reason);
	uint32_t n = g->ngens < CS_GC_GENERATIONS ? g->ngens : CS_GC_GENERATIONS;
	put_varint(o, n);
	for (uint32_t i = 0; i < n; i++)
		put_varint(o, g->gen_bytes[i]);
	put_v32(o, g->cause);
	put_u8(o, g->type);
	put_varint(o, g->promoted_bytes);
	put_varint(o, g->pinned_objects);
}

bool cs_gc_decode(const uint8_t *p, size_t n, struct cs_gc *g)
{
	struct cs_in in;
	cs_in_init(&in, p, n);
	*g = (struct cs_gc){0};
	g->start_us = get_u64(&in);
	g->duration_us = get_varint(&in);
	g->pause_us = get_varint(&in);
	g->generation = get_u8(&in);
	g->reason = get_u8(&in);
	uint64_t count = get_varint(&in);
	for (uint64_t i = 0; i < count && !in.bad; i++) {
		uint64_t bytes = get_varint(&in);
		if (i < CS_GC_GENERATIONS)
			g->gen_bytes[g->ngens++] = bytes;
	}
	if (!in.bad && cs_in_left(&in) > 0) {
		g->cause = get_v32(&in);
		g->type = get_u8(&in);
		g->promoted_bytes = get_varint(&in);
		g->pinned_objects = get_varint(&in);
	}
	return !in.bad;
}

const char *cs_gc_reason_name(uint8_t reason, uint32_t cause)
{
	/* enum gc_reason in the runtime's src/coreclr/gc/gc.h, in order */
	static const char *const causes[] = {
		"alloc_small",      "induced",          "low_memory",    "empty",
		"alloc_large",      "oos_small",        "oos_large",     "induced_noforce",
		"gc_stress",        "induced_low_memory", "induced_compacting", "low_memory_host",
		"pm_full_gc",       "low_memory_host_blocking", "bgc_tuning_small", "bgc_tuning_large",
		"bgc_stepping",     "induced_aggressive",
	};
	if (cause && cause - 1 < sizeof causes / sizeof *causes)
		return causes[cause - 1];
	if (cause)
		return "unknown";
	return reason == CS_GC_INDUCED ? "induced" : "other";
}

const char *cs_gc_type_name(uint8_t type)
{
	switch (type) {
	case CS_GC_BLOCKING:
		return "blocking";
	case CS_GC_BACKGROUND:
		return "background";
	case CS_GC_FOREGROUND:
		return "foreground";
	default:
		return "";
	}
}

/* ---- events: one struct, a layout per kind ---- */

#define EVENT_WRITE_OWN(NAME, head)
#define EVENT_WRITE_EVENT(NAME, head)          \
	case CS_REC_##NAME:                    \
		write_##head(o, e, INT32_MAX); \
		return;
#define EVENT_WRITE(NAME, type, reader, head, entry, doc) EVENT_WRITE_##reader(NAME, head)

void cs_event_encode(struct cs_out *o, uint16_t type, const struct cs_event *e)
{
	switch (type) {
		CS_RECORD_KINDS(EVENT_WRITE)
	default:
		o->overflow = true; /* not an event type: nothing valid to write */
		return;
	}
}

#define EVENT_READ_OWN(NAME, head)
#define EVENT_READ_EVENT(NAME, head) \
	case CS_REC_##NAME:          \
		read_##head(&in, e); \
		break;
#define EVENT_READ(NAME, type, reader, head, entry, doc) EVENT_READ_##reader(NAME, head)

bool cs_event_decode(uint16_t type, const uint8_t *p, size_t n, struct cs_event *e)
{
	struct cs_in in;
	cs_in_init(&in, p, n);
	*e = (struct cs_event){0};
	switch (type) {
		CS_RECORD_KINDS(EVENT_READ)
	default:
		in.bad = true; /* not an event type */
		break;
	}
	if (!e->text.p)
		e->text = none_str();
	if (!e->message.p)
		e->message = none_str();
	return !in.bad;
}

const char *cs_pool_reason_name(uint8_t reason)
{
	/* ThreadAdjustmentReasonMap in the runtime's ClrEtwAll.man */
	static const char *const names[] = {"warmup",   "initializing", "random_move", "climbing_move",
					    "change_point", "stabilizing", "starvation", "thread_timed_out"};
	return reason < sizeof names / sizeof *names ? names[reason] : "unknown";
}

/* ---- HEAP: root counts whose number says how the heap was walked ---- */

void cs_heap_head_encode(struct cs_out *o, const struct cs_heap_head *h)
{
	put_u64(o, h->time_us);
	put_varint(o, h->seq);
	put_varint(o, h->part);
	put_varint(o, h->parts);
	put_varint(o, h->pause_us);
	put_varint(o, h->objects);
	put_varint(o, h->bytes);
	put_varint(o, h->types);
	int nroots = h->walk == CS_HEAP_WALK_SUSPENDED ? 0 : CS_ROOT_KINDS;
	put_varint(o, (uint64_t)nroots);
	for (int i = 0; i < nroots; i++)
		put_varint(o, h->roots[i]);
}

bool cs_heap_head_decode(struct cs_in *in, struct cs_heap_head *h)
{
	*h = (struct cs_heap_head){0};
	h->time_us = get_u64(in);
	h->seq = get_varint(in);
	h->part = get_varint(in);
	h->parts = get_varint(in);
	h->pause_us = get_varint(in);
	h->objects = get_varint(in);
	h->bytes = get_varint(in);
	h->types = get_varint(in);
	uint64_t nroots = get_varint(in);
	h->walk = nroots ? CS_HEAP_WALK_GC : CS_HEAP_WALK_SUSPENDED;
	for (uint64_t i = 0; i < nroots && !in->bad; i++) {
		uint64_t v = get_varint(in);
		if (i < CS_ROOT_KINDS)
			h->roots[i] = v;
	}
	return !in->bad && h->part < h->parts;
}

/* ---- the heap graph's delta-coded lists ---- */

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static uint64_t get_address(struct cs_in *in, uint64_t *prev)
{
	*prev += (uint64_t)unzigzag(get_varint(in)) * CS_GRAPH_ALIGN;
	return *prev;
}

void cs_graph_cursor_init(struct cs_graph_cursor *c, const struct cs_in *after_head)
{
	c->in = *after_head;
	c->prev = 0;
}

static bool graph_more(struct cs_graph_cursor *c)
{
	return !c->in.bad && cs_in_left(&c->in) > 0;
}

bool cs_next_graph_node(struct cs_graph_cursor *c, struct cs_graph_node *n)
{
	if (!graph_more(c))
		return false;
	n->address = get_address(&c->in, &c->prev);
	n->type = get_varint(&c->in);
	n->size = get_varint(&c->in);
	n->edges = get_varint(&c->in);
	return !c->in.bad;
}

bool cs_next_graph_edge(struct cs_graph_cursor *c, struct cs_graph_edge *e)
{
	if (!graph_more(c))
		return false;
	e->target = get_address(&c->in, &c->prev);
	return !c->in.bad;
}

bool cs_next_graph_root(struct cs_graph_cursor *c, struct cs_graph_root *r)
{
	if (!graph_more(c))
		return false;
	r->kind = get_u8(&c->in);
	r->flags = get_u8(&c->in);
	r->address = get_address(&c->in, &c->prev);
	r->root_id = get_varint(&c->in);
	uint64_t base = c->prev;
	uint64_t value = get_address(&c->in, &base);
	r->value = value == c->prev ? 0 : value;
	return !c->in.bad;
}
