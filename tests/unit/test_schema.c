/* The record table (common/schema.h) against the bytes and the manual:
 *   - every kind is encoded from known values and compared with its
 *     payload written out in hex (a golden), so that a change to the code
 *     that moves a byte of the session format fails here;
 *   - every golden reads back, field by field, as the table describes it
 *     (so the hand-written codecs agree with the table too);
 *   - clrscope-session(5) lists every kind with its number and its fields
 *     in order, with their types, and marks the optional ones. */
#include "check.h"
#include "common/recordinfo.h"
#include "common/records.h"

static struct cs_str S(const char *s)
{
	return (struct cs_str){s, strlen(s)};
}

static void enc_hello(struct cs_out *o)
{
	struct cs_hello h = {4242, 7, 1700000000123456789ull, CS_LOAD_ATTACH, 997, S("0.1"), S("CoreCLR 10"),
			     S("app --x"), S("/cs.1"), 0x1ff, 7, S("A.*")};
	cs_hello_encode(o, &h);
}

static void enc_thread(struct cs_out *o)
{
	cs_thread_encode(o, &(struct cs_thread){300, 0x7f00112233ull, 4243, S("worker"), S(".NET TP Worker")});
}

static void enc_frames(struct cs_out *o)
{
	cs_frame_def_encode(o, &(struct cs_frame_def){16, S("A.M"), S("a.dll")});
	cs_frame_def_encode(o, &(struct cs_frame_def){200, S("[native]"), S("")});
}

static void enc_stacks(struct cs_out *o)
{
	cs_stack_def_encode(o, &(struct cs_stack_def){1, 0, 16});
	cs_stack_def_encode(o, &(struct cs_stack_def){130, 1, 200});
}

static void enc_samples(struct cs_out *o)
{
	cs_tick_encode(o, 1000, 42000, 2);
	cs_sample_encode(o, 1, 5);
	cs_sample_encode(o, 300, 130);
	cs_tick_encode(o, 5, 0, 0);
}

static void enc_ticks(struct cs_out *o)
{
	cs_tick_encode(o, 1000, 0, 2);
	cs_sample_encode(o, 1, cs_tick_stack_state(5, false));
	cs_sample_encode(o, 2, cs_tick_stack_state(130, true));
}

static void enc_status(struct cs_out *o)
{
	struct cs_status s = {123456, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1ull << 35, 15, 16, 17, 18, 19,
			      20, 21, 22, 23, 24, 25, 300, 27, 28, 29};
	cs_status_encode(o, &s);
}

static void enc_message(struct cs_out *o)
{
	cs_message_encode(o, &(struct cs_message){77, CS_LEVEL_WARNING, S("disk full")});
}

static void enc_end(struct cs_out *o)
{
	cs_message_encode(o, &(struct cs_message){99, CS_END_DETACH, S("detaching")});
}

static void enc_dials(struct cs_out *o)
{
	cs_dials_ack_encode(o, &(struct cs_dials_ack){5000, 3, CS_DIALS_PARTIAL, S("sampling=on rate=500"), S("no hooks")});
}

static const struct cs_dials acked = {.sampling = true, .sampler = CS_SAMPLER_SIGNAL, .rate_hz = 500,
				       .events = CS_EV_GC | CS_EV_JIT, .flush_ms = 100, .instrument = false,
				       .allocations = true, .snapshots = 2, .validate = 1000};

static void enc_dials_fields(struct cs_out *o)
{
	cs_dials_ack_encode(o, &(struct cs_dials_ack){5000, 4, CS_DIALS_APPLIED, S("sampling=on"), S(""), true, acked});
}

static void enc_gc(struct cs_out *o)
{
	struct cs_gc g = {.start_us = 10, .duration_us = 2500, .pause_us = 1500, .generation = 2, .reason = CS_GC_INDUCED,
			  .ngens = CS_GC_GENERATIONS, .gen_bytes = {1048576, 2, 3, 4, 5}, .cause = 12,
			  .type = CS_GC_BLOCKING, .promoted_bytes = 4096, .pinned_objects = 7};
	cs_gc_encode(o, &g);
}

static void enc_gc_unknown_sizes(struct cs_out *o)
{
	cs_gc_encode(o, &(struct cs_gc){.start_us = 1, .duration_us = 2, .generation = 0});
}

static void enc_exception(struct cs_out *o)
{
	cs_event_encode(o, CS_REC_EXCEPTION,
			&(struct cs_event){.time_us = 5, .thread_ref = 2, .id = 9, .text = S("E"), .message = S("boom")});
}

static void enc_catch(struct cs_out *o)
{
	cs_event_encode(o, CS_REC_CATCH, &(struct cs_event){.time_us = 6, .thread_ref = 2, .id = 17});
}

static void enc_jit(struct cs_out *o)
{
	cs_event_encode(o, CS_REC_JIT, &(struct cs_event){.time_us = 7, .id = 16, .duration_us = 1250});
}

static void enc_module(struct cs_out *o)
{
	cs_event_encode(o, CS_REC_MODULE, &(struct cs_event){.time_us = 8, .kind = CS_ASSEMBLY, .text = S("app")});
}

static void enc_thread_event(struct cs_out *o)
{
	cs_event_encode(o, CS_REC_THREAD_EVENT,
			&(struct cs_event){.time_us = 9, .kind = CS_THREAD_NAMED, .thread_ref = 1, .os_tid = 4242,
					   .text = S("w")});
}

static void enc_contention(struct cs_out *o)
{
	cs_event_encode(o, CS_REC_CONTENTION,
			&(struct cs_event){.time_us = 10, .thread_ref = 3, .id = 12, .wait_ns = 25000000});
}

static void enc_wait(struct cs_out *o)
{
	cs_event_encode(o, CS_REC_WAIT,
			&(struct cs_event){.time_us = 10, .thread_ref = 3, .id = 12, .wait_ns = 25000000, .kind = 1});
}

static void enc_threadpool(struct cs_out *o)
{
	cs_event_encode(o, CS_REC_THREADPOOL,
			&(struct cs_event){.time_us = 11, .kind = CS_POOL_ADJUSTED, .workers = 8,
					   .reason = CS_POOL_STARVATION});
}

static void enc_alloc_sample(struct cs_out *o)
{
	cs_event_encode(o, CS_REC_ALLOC_SAMPLE,
			&(struct cs_event){.time_us = 12, .thread_ref = 1, .id = 4, .size = 24, .weight = 102412,
					   .text = S("T")});
}

static void enc_calls(struct cs_out *o)
{
	cs_calls_head_encode(o, &(struct cs_calls_head){1234, 1, 2, 600, 3, 4});
	cs_call_entry_encode(o, &(struct cs_call_entry){17, 100000, 5000000, 4000000});
	cs_call_entry_encode(o, &(struct cs_call_entry){18, 1, 2, 1});
}

static void enc_heap(struct cs_out *o)
{
	struct cs_heap_head h = {.time_us = 9, .seq = 2, .part = 1, .parts = 3, .pause_us = 700, .objects = 5000,
				 .bytes = 160000, .types = 40, .roots = {17, 1, 14, 2}, .walk = CS_HEAP_WALK_GC};
	cs_heap_head_encode(o, &h);
	cs_heap_entry_encode(o, &(struct cs_type_count){0, S("T"), 1234, 39488});
}

static void enc_heap_suspended(struct cs_out *o)
{
	struct cs_heap_head h = {.time_us = 9, .seq = 3, .part = 0, .parts = 1, .pause_us = 70, .objects = 5,
				 .bytes = 160, .types = 1, .walk = CS_HEAP_WALK_SUSPENDED};
	cs_heap_head_encode(o, &h);
	cs_heap_entry_encode(o, &(struct cs_type_count){0, S("U"), 5, 160});
}

static void enc_allocs(struct cs_out *o)
{
	cs_allocs_head_encode(o, &(struct cs_allocs_head){55, 3, 1});
	cs_alloc_entry_encode(o, &(struct cs_type_count){7, S("T"), 12, 384});
}

static void enc_holds(struct cs_out *o)
{
	cs_hold_encode(o, &(struct cs_hold){3, 77, 1000000, 1000, 50});
}

static void enc_frame_code(struct cs_out *o)
{
	cs_frame_code_encode(o, &(struct cs_frame_code){16, 0x06000002, 1});
}

static void enc_stack_il(struct cs_out *o)
{
	cs_stack_il_encode(o, &(struct cs_stack_il){2, 17});
	cs_stack_il_encode(o, &(struct cs_stack_il){4, CS_IL_EPILOG});
}

static void enc_thread_cpu(struct cs_out *o)
{
	cs_thread_cpu_head_encode(o, 100000);
	cs_thread_cpu_encode(o, &(struct cs_thread_cpu){1, 123456789});
	cs_thread_cpu_encode(o, &(struct cs_thread_cpu){2, 5});
}

static void enc_code_path(struct cs_out *o)
{
	cs_code_path_encode(o, &(struct cs_code_path){1, S("/a.dll")});
}

static void enc_native_frame(struct cs_out *o)
{
	cs_native_frame_encode(o, &(struct cs_native_frame){200, 2, 0x1234, {"\x01\x02", 2}});
}

static void enc_logical(struct cs_out *o)
{
	cs_logical_encode(o, &(struct cs_logical){300, 17});
}

static void enc_awaits(struct cs_out *o)
{
	cs_awaits_head_encode(o, &(struct cs_awaits_head){.time_us = 5000, .seq = 1, .pause_us = 900, .suspended = 10003,
							  .chains = 10001, .unresolved = 1, .lost = 0, .walk = CS_HEAP_WALK_GC});
	cs_await_group_encode(o, &(struct cs_await_group){400, 10000});
	cs_await_group_encode(o, &(struct cs_await_group){401, 1});
}

static void enc_cpu_owed(struct cs_out *o)
{
	cs_cpu_owed_encode(o, &(struct cs_cpu_owed){3, 77, 1000999, 4});
}

static void enc_heap_nodes(struct cs_out *o)
{
	uint64_t prev = 0;
	cs_graph_part_encode(o, &(struct cs_graph_part){2, 4096});
	cs_graph_node_encode(o, &prev, &(struct cs_graph_node){0x7f0000001000, 3, 24, 1});
	cs_graph_node_encode(o, &prev, &(struct cs_graph_node){0x7f0000001018, 0, 1056, 0});
	cs_graph_node_encode(o, &prev, &(struct cs_graph_node){0x7f0000000ff0, 1, 32, 2});
}

static void enc_heap_edges(struct cs_out *o)
{
	uint64_t prev = 0;
	cs_graph_part_encode(o, &(struct cs_graph_part){2, 0});
	cs_graph_edge_encode(o, &prev, 0x7f0000001018);
	cs_graph_edge_encode(o, &prev, 0x7f0000001000);
}

static void enc_heap_roots(struct cs_out *o)
{
	uint64_t prev = 0;
	cs_graph_part_encode(o, &(struct cs_graph_part){2, 0});
	cs_graph_root_encode(o, &prev, &(struct cs_graph_root){CS_ROOT_STACK, 0, 0x7f0000001000, 0x7f1000, 0});
	cs_graph_root_encode(o, &prev,
			     &(struct cs_graph_root){CS_ROOT_HANDLE, CS_GRAPH_ROOT_PINNING, 0x7f0000000ff0, 0x5000, 0});
	cs_graph_root_encode(o, &prev,
			     &(struct cs_graph_root){CS_GRAPH_ROOT_DEPENDENT, 0, 0x7f0000001000, 0x5008, 0x7f0000001018});
}

static void enc_heap_statics(struct cs_out *o)
{
	cs_graph_part_encode(o, &(struct cs_graph_part){2, 0});
	cs_graph_static_encode(o, &(struct cs_graph_static){0x7f20, 0x7f0000001000, 0, S("App.Registry"), S("s_all")});
}

static void enc_heap_methods(struct cs_out *o)
{
	cs_graph_part_encode(o, &(struct cs_graph_part){2, 0});
	cs_graph_method_encode(o, &(struct cs_graph_method){0x7f1000, S("App.Main")});
}

static void enc_heap_types(struct cs_out *o)
{
	cs_graph_part_encode(o, &(struct cs_graph_part){2, 0});
	cs_graph_type_encode(o, &(struct cs_graph_type){0, S("App.Session[]")});
	cs_graph_type_encode(o, &(struct cs_graph_type){1, S("App.Session")});
}

static void enc_heap_graph(struct cs_out *o)
{
	cs_graph_head_encode(o, &(struct cs_graph_head){9, 2, 7000, 3, 2, 3, 1, 1, 2, 0});
}

struct golden {
	uint16_t type;
	void (*encode)(struct cs_out *o);
	const char *hex;
};

static const struct golden goldens[] = {
	{CS_REC_HELLO, enc_hello, "921000000700000015cd853dfe9c971702e503000003302e310a436f7265434c5220313007617070202d2d78052f63732e31ff030703412e2a"},
	{CS_REC_THREAD, enc_thread, "ac02332211007f0000009310000006776f726b65720e2e4e455420545020576f726b6572"},
	{CS_REC_FRAMES, enc_frames, "1003412e4d05612e646c6cc801085b6e61746976655d00"},
	{CS_REC_STACKS, enc_stacks, "010010820101c801"},
	{CS_REC_SAMPLES, enc_samples, "e80790c802020105ac028201050000"},
	{CS_REC_STATUS, enc_status, "40e20100000000000102030405060708090a0b0c0d8080808080010f10111213141516171819ac021b1c1d"},
	{CS_REC_MESSAGE, enc_message, "4d0000000000000002096469736b2066756c6c"},
	{CS_REC_END, enc_end, "63000000000000000209646574616368696e67"},
	{CS_REC_DIALS, enc_dials, "881300000000000003021473616d706c696e673d6f6e20726174653d353030086e6f20686f6f6b73"},
	{CS_REC_DIALS, enc_dials_fields, "881300000000000004000b73616d706c696e673d6f6e000101f4030564000102e80700"},
	{CS_REC_GC, enc_gc, "0a00000000000000c413dc0b020105808040020304050c01802007"},
	{CS_REC_GC, enc_gc_unknown_sizes, "0100000000000000020000000000000000"},
	{CS_REC_EXCEPTION, enc_exception, "05000000000000000209014504626f6f6d"},
	{CS_REC_CATCH, enc_catch, "06000000000000000211"},
	{CS_REC_JIT, enc_jit, "070000000000000010e209"},
	{CS_REC_MODULE, enc_module, "08000000000000000203617070"},
	{CS_REC_THREAD_EVENT, enc_thread_event, "09000000000000000301921000000177"},
	{CS_REC_CALLS, enc_calls, "d2040000000000000102d804030411a08d06c096b1028092f40112010201"},
	{CS_REC_HEAP, enc_heap, "0900000000000000020103bc05882780e209280411010e020154d209c0b402"},
	{CS_REC_HEAP, enc_heap_suspended, "09000000000000000300014605a0010100015505a001"},
	{CS_REC_ALLOCS, enc_allocs, "370000000000000003010701540c8003"},
	{CS_REC_CONTENTION, enc_contention, "0a00000000000000030cc0f0f50b"},
	{CS_REC_WAIT, enc_wait, "0a00000000000000030cc0f0f50b01"},
	{CS_REC_THREADPOOL, enc_threadpool, "0b00000000000000030806"},
	{CS_REC_ALLOC_SAMPLE, enc_alloc_sample, "0c000000000000000104188ca0060154"},
	{CS_REC_HOLDS, enc_holds, "034dc0843de80732"},
	{CS_REC_FRAME_CODE, enc_frame_code, "108280803001"},
	{CS_REC_STACK_IL, enc_stack_il, "021104fdffffff0f"},
	{CS_REC_TICKS, enc_ticks, "e8070002010a028502"},
	{CS_REC_THREAD_CPU, enc_thread_cpu, "a08601000000000001959aef3a0205"},
	{CS_REC_CODE_PATH, enc_code_path, "01062f612e646c6c"},
	{CS_REC_NATIVE_FRAME, enc_native_frame, "c80102b424020102"},
	{CS_REC_CPU_OWED, enc_cpu_owed, "034da78c3d04"},
	{CS_REC_LOGICAL, enc_logical, "ac0211"},
	{CS_REC_AWAITS, enc_awaits, "8813000000000000018407934e914e0100009003904e910301"},
	{CS_REC_HEAP_NODES, enc_heap_nodes, "0280208088808080f8070318010600a0080009012002"},
	{CS_REC_HEAP_EDGES, enc_heap_edges, "02008688808080f80705"},
	{CS_REC_HEAP_ROOTS, enc_heap_roots, "020000008088808080f80780a0fc030002010380a0010004000488a00106"},
	{CS_REC_HEAP_STATICS, enc_heap_statics, "0200a0fe0180a0808080e01f000c4170702e526567697374727905735f616c6c"},
	{CS_REC_HEAP_METHODS, enc_heap_methods, "020080a0fc03084170702e4d61696e"},
	{CS_REC_HEAP_TYPES, enc_heap_types, "0200000d4170702e53657373696f6e5b5d010b4170702e53657373696f6e"},
	{CS_REC_HEAP_GRAPH, enc_heap_graph, "090000000000000002d83603020301010200"},
};
#define NGOLDENS (sizeof goldens / sizeof *goldens)

static void to_hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

/* Every golden encodes to its bytes. */
static void golden_bytes(void)
{
	for (size_t i = 0; i < NGOLDENS; i++) {
		uint8_t buf[512];
		char hex[2 * sizeof buf + 1];
		struct cs_out o;
		cs_out_init(&o, buf, sizeof buf);
		goldens[i].encode(&o);
		CHECK(!o.overflow);
		to_hex(buf, o.len, hex);
		if (strcmp(hex, goldens[i].hex) != 0) {
			fprintf(stderr, "golden %zu (type %u):\n  got  %s\n  want %s\n", i, goldens[i].type, hex,
				goldens[i].hex);
			check_failures++;
		}
	}
}

/* The table's own rules: numbers and names once each, an EACH field
 * after a count, WITH after OPTIONAL, nothing ALWAYS after OPTIONAL. */
static void table_rules(void)
{
	for (size_t i = 0; i < cs_nkinds; i++) {
		const struct cs_kind_info *k = &cs_kinds[i];
		CHECK(k->type > 0);
		for (size_t j = 0; j < i; j++)
			CHECK(cs_kinds[j].type != k->type && strcmp(cs_kinds[j].name, k->name) != 0);
		CHECK(cs_kind_info(k->type) == k);
		const struct cs_layout_info *parts[] = {k->head, k->entry};
		CHECK(k->head->nfields || k->entry->nfields);
		for (size_t part = 0; part < 2; part++) {
			const struct cs_layout_info *l = parts[part];
			bool optional = false;
			for (size_t f = 0; f < l->nfields; f++) {
				enum cs_presence pr = l->fields[f].presence;
				if (pr == CS_EACH)
					CHECK(f > 0 && (l->fields[f - 1].wire == CS_WIRE_count ||
							l->fields[f - 1].presence == CS_EACH));
				if (pr == CS_WITH)
					CHECK(optional);
				if (pr == CS_ALWAYS)
					CHECK(!optional);
				optional |= pr == CS_OPTIONAL;
				/* an optional field in a list's entries could not be told
				 * from the next entry */
				if (part == 1)
					CHECK(pr != CS_OPTIONAL);
			}
		}
	}
	CHECK(cs_kind_info(0) == NULL && cs_kind_info(999) == NULL);
}

/* Every kind has a golden, and every golden reads back by the table with
 * no byte left over. */
static void every_kind(void)
{
	for (size_t k = 0; k < cs_nkinds; k++) {
		bool found = false;
		for (size_t i = 0; i < NGOLDENS; i++)
			found |= goldens[i].type == cs_kinds[k].type;
		if (!found) {
			fprintf(stderr, "record kind %s has no golden\n", cs_kinds[k].name);
			check_failures++;
		}
	}
	for (size_t i = 0; i < NGOLDENS; i++) {
		uint8_t buf[512];
		struct cs_out o;
		cs_out_init(&o, buf, sizeof buf);
		goldens[i].encode(&o);
		size_t trailing = 99;
		if (!cs_record_walk(goldens[i].type, buf, o.len, NULL, NULL, &trailing) || trailing != 0) {
			fprintf(stderr, "golden %zu (type %u) does not read as the table says:\n  ", i, goldens[i].type);
			cs_record_print(stderr, goldens[i].type, buf, o.len);
			check_failures++;
		}
	}
}

/* Where a payload's OPTIONAL groups start. */
struct group_starts {
	size_t at[16];
	size_t n;
};

static void note_group(void *ctx, const struct cs_field_value *v)
{
	struct group_starts *g = ctx;
	if (v->field->presence == CS_OPTIONAL && g->n < 16)
		g->at[g->n++] = v->offset;
}

/* Whether a head-only payload holds every OPTIONAL group of its kind. */
static bool all_groups(uint16_t type, const uint8_t *p, size_t n)
{
	const struct cs_layout_info *head = cs_kind_info(type)->head;
	struct group_starts g = {{0}, 0};
	size_t groups = 0;
	for (size_t f = 0; f < head->nfields; f++)
		groups += head->fields[f].presence == CS_OPTIONAL;
	return cs_record_walk(type, p, n, note_group, &g, NULL) && g.n == groups;
}

/* A whole payload of the given type read with records.h's functions, as
 * the reader does: true when it decodes without damage. */
static bool c_decode(uint16_t type, const uint8_t *p, size_t n)
{
	struct cs_list l;
	struct cs_in in;
	cs_list_init(&l, p, n);
	cs_in_init(&in, p, n);
	switch (type) {
	case CS_REC_HELLO:
		return cs_hello_decode(p, n, &(struct cs_hello){0});
	case CS_REC_THREAD:
		return cs_thread_decode(p, n, &(struct cs_thread){0});
	case CS_REC_STATUS:
		return cs_status_decode(p, n, &(struct cs_status){0});
	case CS_REC_MESSAGE:
	case CS_REC_END:
		return cs_message_decode(p, n, &(struct cs_message){0});
	case CS_REC_DIALS:
		return cs_dials_ack_decode(p, n, &(struct cs_dials_ack){0});
	case CS_REC_GC:
		return cs_gc_decode(p, n, &(struct cs_gc){0});
	case CS_REC_EXCEPTION:
	case CS_REC_CATCH:
	case CS_REC_JIT:
	case CS_REC_MODULE:
	case CS_REC_THREAD_EVENT:
	case CS_REC_CONTENTION:
	case CS_REC_WAIT:
	case CS_REC_THREADPOOL:
	case CS_REC_ALLOC_SAMPLE:
		return cs_event_decode(type, p, n, &(struct cs_event){0});
	case CS_REC_FRAMES:
		while (cs_next_frame_def(&l, &(struct cs_frame_def){0}))
			;
		return !cs_list_bad(&l);
	case CS_REC_STACKS:
		while (cs_next_stack_def(&l, &(struct cs_stack_def){0}))
			;
		return !cs_list_bad(&l);
	case CS_REC_CODE_PATH:
		while (cs_next_code_path(&l, &(struct cs_code_path){0}))
			;
		return !cs_list_bad(&l);
	case CS_REC_FRAME_CODE:
		while (cs_next_frame_code(&l, &(struct cs_frame_code){0}))
			;
		return !cs_list_bad(&l);
	case CS_REC_STACK_IL:
		while (cs_next_stack_il(&l, &(struct cs_stack_il){0}))
			;
		return !cs_list_bad(&l);
	case CS_REC_NATIVE_FRAME:
		while (cs_next_native_frame(&l, &(struct cs_native_frame){0}))
			;
		return !cs_list_bad(&l);
	case CS_REC_HOLDS:
		while (cs_next_hold(&l, &(struct cs_hold){0}))
			;
		return !cs_list_bad(&l);
	case CS_REC_CPU_OWED:
		while (cs_next_cpu_owed(&l, &(struct cs_cpu_owed){0}))
			;
		return !cs_list_bad(&l);
	case CS_REC_LOGICAL:
		while (cs_next_logical(&l, &(struct cs_logical){0}))
			;
		return !cs_list_bad(&l);
	case CS_REC_SAMPLES:
	case CS_REC_TICKS: {
		if (type == CS_REC_TICKS)
			cs_list_init_ticks(&l, p, n);
		struct cs_tick t;
		uint64_t thread, stack;
		while (cs_next_tick(&l, &t))
			while (cs_next_sample(&l, &thread, &stack))
				;
		return !cs_list_bad(&l);
	}
	case CS_REC_THREAD_CPU: {
		uint64_t time_us;
		if (!cs_thread_cpu_begin(&l, p, n, &time_us))
			return false;
		while (cs_next_thread_cpu(&l, &(struct cs_thread_cpu){0}))
			;
		return !cs_list_bad(&l);
	}
	case CS_REC_CALLS:
		if (!cs_calls_head_decode(&in, &(struct cs_calls_head){0}))
			return false;
		while (cs_next_call_entry(&in, &(struct cs_call_entry){0}))
			;
		return !in.bad;
	case CS_REC_AWAITS:
		if (!cs_awaits_head_decode(&in, &(struct cs_awaits_head){0}))
			return false;
		while (cs_next_await_group(&in, &(struct cs_await_group){0}))
			;
		return !in.bad;
	case CS_REC_HEAP:
		if (!cs_heap_head_decode(&in, &(struct cs_heap_head){0}))
			return false;
		while (cs_next_heap_entry(&in, &(struct cs_type_count){0}))
			;
		return !in.bad;
	case CS_REC_HEAP_NODES:
	case CS_REC_HEAP_EDGES:
	case CS_REC_HEAP_ROOTS: {
		if (!cs_graph_part_decode(&in, &(struct cs_graph_part){0}))
			return false;
		struct cs_graph_cursor c;
		cs_graph_cursor_init(&c, &in);
		if (type == CS_REC_HEAP_NODES)
			while (cs_next_graph_node(&c, &(struct cs_graph_node){0}))
				;
		else if (type == CS_REC_HEAP_EDGES)
			while (cs_next_graph_edge(&c, &(struct cs_graph_edge){0}))
				;
		else
			while (cs_next_graph_root(&c, &(struct cs_graph_root){0}))
				;
		return !c.in.bad;
	}
	case CS_REC_HEAP_STATICS:
	case CS_REC_HEAP_METHODS:
	case CS_REC_HEAP_TYPES:
		if (!cs_graph_part_decode(&in, &(struct cs_graph_part){0}))
			return false;
		if (type == CS_REC_HEAP_STATICS)
			while (cs_next_graph_static(&in, &(struct cs_graph_static){0}))
				;
		else if (type == CS_REC_HEAP_METHODS)
			while (cs_next_graph_method(&in, &(struct cs_graph_method){0}))
				;
		else
			while (cs_next_graph_type(&in, &(struct cs_graph_type){0}))
				;
		return !in.bad;
	case CS_REC_HEAP_GRAPH:
		return cs_graph_head_decode(p, n, &(struct cs_graph_head){0});
	case CS_REC_ALLOCS:
		if (!cs_allocs_head_decode(&in, &(struct cs_allocs_head){0}))
			return false;
		while (cs_next_alloc_entry(&in, &(struct cs_type_count){0}))
			;
		return !in.bad;
	default:
		fprintf(stderr, "test_schema: no decoder for record type %u here\n", type);
		check_failures++;
		return false;
	}
}

/* The decoders and the table agree on every golden and every prefix of
 * it: both read it, or neither (a prefix that ends at an entry or before
 * an optional group is a whole payload; one that ends inside a field is
 * damage); and a head-only kind's whole payload with a byte more (a
 * newer writer's field) still reads, the byte ignored. */
static void decoders_follow_table(void)
{
	for (size_t i = 0; i < NGOLDENS; i++) {
		uint8_t buf[512];
		struct cs_out o;
		cs_out_init(&o, buf, sizeof buf);
		goldens[i].encode(&o);
		uint16_t type = goldens[i].type;
		for (size_t n = 0; n <= o.len; n++) {
			bool by_table = cs_record_walk(type, buf, n, NULL, NULL, NULL);
			if (c_decode(type, buf, n) != by_table) {
				fprintf(stderr, "golden %zu (type %u), %zu of %zu bytes: the table %s it, the decoder not\n",
					i, type, n, o.len, by_table ? "reads" : "refuses");
				check_failures++;
			}
		}
		CHECK(c_decode(type, buf, o.len));
		if (!cs_kind_info(type)->entry->nfields && all_groups(type, buf, o.len)) {
			size_t trailing = 0;
			buf[o.len] = 0x99;
			CHECK(c_decode(type, buf, o.len + 1));
			CHECK(cs_record_walk(type, buf, o.len + 1, NULL, NULL, &trailing) && trailing == 1);
		}
	}
}

/* Every golden's OPTIONAL groups: the payload cut where a group starts
 * still reads (the record of a writer that predates the group). */
static void optional_groups(void)
{
	size_t groups = 0;
	for (size_t i = 0; i < NGOLDENS; i++) {
		uint8_t buf[512];
		struct cs_out o;
		cs_out_init(&o, buf, sizeof buf);
		goldens[i].encode(&o);
		struct group_starts g = {{0}, 0};
		CHECK(cs_record_walk(goldens[i].type, buf, o.len, note_group, &g, NULL));
		for (size_t k = 0; k < g.n; k++)
			if (!c_decode(goldens[i].type, buf, g.at[k])) {
				fprintf(stderr, "golden %zu (type %u) cut before its optional group at %zu does not read\n", i,
					goldens[i].type, g.at[k]);
				check_failures++;
			}
		groups += g.n;
	}
	/* HELLO 2, THREAD 1, STATUS 17, DIALS 1 (the golden with its fields), GC 1, EXCEPTION 1 */
	CHECK_EQ_U(groups, 2 + 1 + 17 + 1 + 1 + 1);
}

/* The printer shows values by name; damage and a newer writer's bytes are
 * told apart. */
static void printing(void)
{
	uint8_t buf[512];
	struct cs_out o;
	char text[1024];
	FILE *f = fmemopen(text, sizeof text, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	cs_out_init(&o, buf, sizeof buf);
	enc_frames(&o);
	cs_record_print(f, CS_REC_FRAMES, buf, o.len);
	cs_out_init(&o, buf, sizeof buf);
	enc_message(&o);
	cs_put_u8(&o, 7);
	cs_record_print(f, CS_REC_MESSAGE, buf, o.len);
	cs_record_print(f, CS_REC_MESSAGE, buf, 5);
	cs_record_print(f, 999, buf, 5);
	cs_out_init(&o, buf, sizeof buf);
	enc_samples(&o);
	cs_record_print(f, CS_REC_SAMPLES, buf, o.len);
	fclose(f);
	CHECK_STR(text, "FRAMES {frame_id=16 name=\"A.M\" module=\"a.dll\"} {frame_id=200 name=\"[native]\" module=\"\"}\n"
			"MESSAGE time_us=77 level=2 text=\"disk full\" [1 bytes more]\n"
			"MESSAGE [damaged: the payload does not fit the table]\n"
			"type 999 (not in the table): 5 bytes\n"
			"SAMPLES {time_delta_us=1000 suspend_ns=42000 count=2 thread_ref=1 stack_id=5 thread_ref=300 "
			"stack_id=130} {time_delta_us=5 suspend_ns=0 count=0}\n");
}

/* DIALS: the dials in effect come back as fields; a record without them
 * (an older agent's) gives them from its line, with what the line does not
 * name 0. */
static void dials_fields(void)
{
	uint8_t buf[512];
	struct cs_out o;
	struct cs_dials_ack a;
	cs_out_init(&o, buf, sizeof buf);
	enc_dials_fields(&o);
	CHECK(cs_dials_ack_decode(buf, o.len, &a) && a.has_dials && a.generation == 4);
	CHECK(a.dials.sampling && a.dials.sampler == CS_SAMPLER_SIGNAL && a.dials.rate_hz == 500 &&
	      a.dials.events == (CS_EV_GC | CS_EV_JIT) && a.dials.flush_ms == 100 && !a.dials.instrument &&
	      a.dials.allocations && a.dials.snapshots == 2 && a.dials.validate == 1000 && !a.dials.detach &&
	      a.dials.generation == 4);
	/* the fields win over the line, which here names only sampling */
	CHECK(a.effective.len == strlen("sampling=on"));
	/* a newer agent's fields after them are ignored */
	cs_put_varint(&o, 12345);
	CHECK(cs_dials_ack_decode(buf, o.len, &a) && a.has_dials && a.dials.rate_hz == 500);
	/* cut inside the fields: damage */
	CHECK(!cs_dials_ack_decode(buf, o.len - 3, &a));

	cs_out_init(&o, buf, sizeof buf);
	cs_dials_ack_encode(&o, &(struct cs_dials_ack){
					.time_us = 1, .generation = 2, .status = CS_DIALS_APPLIED,
					.effective = S("sampling=off sampler=kernel rate=50 events=gc,waits flush_ms=20 "
						       "instrument=on allocations=off snapshots=3 validate=7 future=1 detach"),
					.error = S("")});
	CHECK(cs_dials_ack_decode(buf, o.len, &a) && !a.has_dials);
	CHECK(!a.dials.sampling && a.dials.sampler == CS_SAMPLER_KERNEL && a.dials.rate_hz == 50 &&
	      a.dials.events == (CS_EV_GC | CS_EV_WAITS) && a.dials.flush_ms == 20 && a.dials.instrument &&
	      !a.dials.allocations && a.dials.snapshots == 3 && a.dials.validate == 7 && a.dials.detach &&
	      a.dials.generation == 2);
	cs_out_init(&o, buf, sizeof buf);
	cs_dials_ack_encode(&o, &(struct cs_dials_ack){.effective = S("rate=500"), .error = S("")});
	CHECK(cs_dials_ack_decode(buf, o.len, &a) && !a.has_dials && a.dials.rate_hz == 500 && !a.dials.sampling &&
	      a.dials.events == 0 && a.dials.sampler == CS_SAMPLER_SUSPEND && a.dials.flush_ms == 0);
	/* a rate past 32 bits is damage */
	cs_out_init(&o, buf, sizeof buf);
	cs_put_u64(&o, 1), cs_put_varint(&o, 2), cs_put_u8(&o, 0), cs_put_str(&o, ""), cs_put_str(&o, "");
	cs_put_u8(&o, 1), cs_put_u8(&o, CS_SAMPLER_MIXED), cs_put_varint(&o, 1ull << 40);
	CHECK(!cs_dials_ack_decode(buf, o.len, &a));
}

/* ---- the manual page against the table ---- */

struct page_field {
	char name[64];
	char type[16];
	bool optional; /* its text says "Optional" */
};

struct page_kind {
	char name[32];
	unsigned type;
	struct page_field fields[64];
	size_t nfields;
};

/* The words of a ".It Va a , Va b" or ".It Va a , b" line: a, b. */
static size_t item_names(const char *line, char names[][64], size_t max)
{
	size_t n = 0;
	char copy[256];
	snprintf(copy, sizeof copy, "%s", line);
	char *save = NULL;
	for (char *w = strtok_r(copy, " ,", &save); w; w = strtok_r(NULL, " ,", &save))
		if (strcmp(w, ".It") && strcmp(w, "Va") && n < max)
			snprintf(names[n++], 64, "%s", w);
	return n;
}

/* The RECORD TYPES section: its outer list's items are the kinds
 * (".It Li NAME No (type N)"), the items of the lists inside a kind its
 * fields (".It Va name" followed by ".Vt type" per name, or one for all). */
static size_t read_page(const char *path, struct page_kind *kinds, size_t max)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot read %s\n", path);
		check_failures++;
		return 0;
	}
	char line[1024];
	bool in_section = false;
	int depth = 0;
	size_t nkinds = 0, first = 0, nnames = 0;
	bool types_open = false;
	struct page_kind *k = NULL;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, ".Sh ", 4)) {
			in_section = !strcmp(line, ".Sh RECORD TYPES");
			continue;
		}
		if (!in_section)
			continue;
		bool vt = !strncmp(line, ".Vt ", 4);
		if (types_open && !vt) {
			/* one type for all the names, or one each */
			size_t ntypes = k->nfields - first;
			if (ntypes == 1)
				for (size_t i = 1; i < nnames; i++)
					snprintf(k->fields[first + i].type, 16, "%s", k->fields[first].type);
			else if (ntypes != nnames) {
				fprintf(stderr, "%s: %s: %zu names, %zu types\n", path, k->name, nnames, ntypes);
				check_failures++;
			}
			k->nfields = first + nnames;
			types_open = false;
		}
		if (!strncmp(line, ".Bl", 3)) {
			depth++;
		} else if (!strncmp(line, ".El", 3)) {
			depth--;
		} else if (depth == 1 && !strncmp(line, ".It Li ", 7) && nkinds < max) {
			k = &kinds[nkinds++];
			*k = (struct page_kind){0};
			if (sscanf(line, ".It Li %31s No (type %u)", k->name, &k->type) != 2) {
				fprintf(stderr, "%s: a record type item I cannot read: %s\n", path, line);
				check_failures++;
			}
		} else if (depth == 2 && k && !strncmp(line, ".It Va ", 7)) {
			char names[8][64];
			first = k->nfields;
			nnames = item_names(line, names, 8);
			for (size_t i = 0; i < nnames && k->nfields < 64; i++)
				snprintf(k->fields[first + i].name, 64, "%s", names[i]);
			types_open = true;
		} else if (types_open && vt) {
			if (k->nfields < first + nnames) {
				sscanf(line, ".Vt %15s", k->fields[k->nfields].type);
				k->nfields++;
			}
		} else if (depth == 2 && k && k->nfields && strstr(line, "Optional")) {
			k->fields[k->nfields - 1].optional = true;
		}
	}
	fclose(f);
	return nkinds;
}

static void manual_page(void)
{
	static struct page_kind page[64];
	size_t npage = read_page(CLRSCOPE_SOURCE_DIR "/man/clrscope-session.5", page, 64);
	CHECK_EQ_U(npage, cs_nkinds);
	for (size_t i = 0; i < npage; i++) {
		const struct page_kind *pk = &page[i];
		const struct cs_kind_info *k = cs_kind_info((uint16_t)pk->type);
		if (!k || strcmp(k->name, pk->name) != 0) {
			fprintf(stderr, "clrscope-session(5): %s (type %u) is not in the table\n", pk->name, pk->type);
			check_failures++;
			continue;
		}
		const struct cs_layout_info *parts[] = {k->head, k->entry};
		size_t at = 0;
		for (size_t part = 0; part < 2; part++)
			for (size_t f = 0; f < parts[part]->nfields; f++, at++) {
				const struct cs_field_info *fi = &parts[part]->fields[f];
				const struct page_field *pf = at < pk->nfields ? &pk->fields[at] : NULL;
				if (!pf || strcmp(pf->name, fi->name) || strcmp(pf->type, cs_wire_doc_name(fi->wire))) {
					fprintf(stderr, "clrscope-session(5): %s field %zu is %s %s there, %s %s in the table\n",
						k->name, at + 1, pf ? pf->type : "(none)", pf ? pf->name : "",
						cs_wire_doc_name(fi->wire), fi->name);
					check_failures++;
				} else if (pf->optional != (fi->presence == CS_OPTIONAL)) {
					fprintf(stderr, "clrscope-session(5): %s %s is %soptional in the table: say so%s\n",
						k->name, fi->name, fi->presence == CS_OPTIONAL ? "" : "not ",
						fi->presence == CS_OPTIONAL ? " (\"Optional\")" : " not");
					check_failures++;
				}
			}
		if (pk->nfields > at) {
			fprintf(stderr, "clrscope-session(5): %s has %zu fields there, %zu in the table\n", k->name,
				pk->nfields, at);
			check_failures++;
		}
	}
}

int main(void)
{
	RUN(golden_bytes);
	RUN(table_rules);
	RUN(every_kind);
	RUN(decoders_follow_table);
	RUN(optional_groups);
	RUN(printing);
	RUN(dials_fields);
	RUN(manual_page);
	return CHECK_DONE();
}
