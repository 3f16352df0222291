#include "common/records.h"

static void put_cs_str(struct cs_out *o, struct cs_str s)
{
	cs_put_strn(o, s.p ? s.p : "", s.p ? s.len : 0);
}

static struct cs_str get_cs_str(struct cs_in *in)
{
	struct cs_str s;
	s.len = cs_get_str(in, &s.p);
	return s;
}

void cs_hello_encode(struct cs_out *o, const struct cs_hello *h)
{
	cs_put_u32(o, h->pid);
	cs_put_u32(o, h->ppid);
	cs_put_u64(o, h->start_unix_ns);
	cs_put_u8(o, h->load_mode);
	cs_put_u32(o, h->rate_hz);
	put_cs_str(o, h->agent_version);
	put_cs_str(o, h->runtime_version);
	put_cs_str(o, h->command_line);
	put_cs_str(o, h->control);
	cs_put_varint(o, h->events);
	cs_put_varint(o, h->features);
	put_cs_str(o, h->patterns);
}

bool cs_hello_decode(const uint8_t *p, size_t n, struct cs_hello *h)
{
	struct cs_in in;
	cs_in_init(&in, p, n);
	h->pid = cs_get_u32(&in);
	h->ppid = cs_get_u32(&in);
	h->start_unix_ns = cs_get_u64(&in);
	h->load_mode = cs_get_u8(&in);
	h->rate_hz = cs_get_u32(&in);
	h->agent_version = get_cs_str(&in);
	h->runtime_version = get_cs_str(&in);
	h->command_line = get_cs_str(&in);
	/* fields added after 1.0: absent in older logs */
	h->control = (struct cs_str){"", 0};
	h->events = 0;
	h->features = 0;
	h->patterns = (struct cs_str){"", 0};
	if (!in.bad && cs_in_left(&in)) {
		h->control = get_cs_str(&in);
		h->events = (uint32_t)cs_get_varint(&in);
	}
	if (!in.bad && cs_in_left(&in)) {
		h->features = (uint32_t)cs_get_varint(&in);
		h->patterns = get_cs_str(&in);
	}
	return !in.bad;
}

void cs_thread_encode(struct cs_out *o, const struct cs_thread *t)
{
	cs_put_varint(o, t->ref);
	cs_put_u64(o, t->runtime_id);
	cs_put_u32(o, t->os_tid);
	put_cs_str(o, t->name);
}

bool cs_thread_decode(const uint8_t *p, size_t n, struct cs_thread *t)
{
	struct cs_in in;
	cs_in_init(&in, p, n);
	t->ref = cs_get_varint(&in);
	t->runtime_id = cs_get_u64(&in);
	t->os_tid = cs_get_u32(&in);
	t->name = get_cs_str(&in);
	return !in.bad;
}

void cs_frame_def_encode(struct cs_out *o, const struct cs_frame_def *f)
{
	cs_put_varint(o, f->id);
	put_cs_str(o, f->name);
	put_cs_str(o, f->module);
}

void cs_stack_def_encode(struct cs_out *o, const struct cs_stack_def *s)
{
	cs_put_varint(o, s->id);
	cs_put_varint(o, s->parent);
	cs_put_varint(o, s->frame);
}

void cs_code_path_encode(struct cs_out *o, const struct cs_code_path *c)
{
	cs_put_varint(o, c->ref);
	put_cs_str(o, c->path);
}

void cs_frame_code_encode(struct cs_out *o, const struct cs_frame_code *c)
{
	cs_put_varint(o, c->frame);
	cs_put_varint(o, c->token);
	cs_put_varint(o, c->path_ref);
}

void cs_native_frame_encode(struct cs_out *o, const struct cs_native_frame *f)
{
	cs_put_varint(o, f->frame);
	cs_put_varint(o, f->path_ref);
	cs_put_varint(o, f->file_address);
	put_cs_str(o, f->build_id);
}

void cs_stack_il_encode(struct cs_out *o, const struct cs_stack_il *s)
{
	cs_put_varint(o, s->stack);
	cs_put_varint(o, s->il_offset);
}

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

static bool list_more(struct cs_list *l)
{
	return !l->in.bad && cs_in_left(&l->in) > 0;
}

bool cs_next_frame_def(struct cs_list *l, struct cs_frame_def *f)
{
	if (!list_more(l))
		return false;
	f->id = cs_get_varint(&l->in);
	f->name = get_cs_str(&l->in);
	f->module = get_cs_str(&l->in);
	return !l->in.bad;
}

bool cs_next_stack_def(struct cs_list *l, struct cs_stack_def *s)
{
	if (!list_more(l))
		return false;
	s->id = cs_get_varint(&l->in);
	s->parent = cs_get_varint(&l->in);
	s->frame = cs_get_varint(&l->in);
	return !l->in.bad;
}

bool cs_next_frame_code(struct cs_list *l, struct cs_frame_code *c)
{
	if (!list_more(l))
		return false;
	c->frame = cs_get_varint(&l->in);
	uint64_t token = cs_get_varint(&l->in);
	c->path_ref = cs_get_varint(&l->in);
	if (token > UINT32_MAX)
		l->in.bad = true;
	c->token = (uint32_t)token;
	return !l->in.bad;
}

bool cs_next_native_frame(struct cs_list *l, struct cs_native_frame *f)
{
	if (!list_more(l))
		return false;
	f->frame = cs_get_varint(&l->in);
	f->path_ref = cs_get_varint(&l->in);
	f->file_address = cs_get_varint(&l->in);
	f->build_id = get_cs_str(&l->in);
	return !l->in.bad;
}

bool cs_next_code_path(struct cs_list *l, struct cs_code_path *c)
{
	if (!list_more(l))
		return false;
	c->ref = cs_get_varint(&l->in);
	c->path = get_cs_str(&l->in);
	return !l->in.bad;
}

bool cs_next_stack_il(struct cs_list *l, struct cs_stack_il *s)
{
	if (!list_more(l))
		return false;
	s->stack = cs_get_varint(&l->in);
	uint64_t il = cs_get_varint(&l->in);
	if (il > UINT32_MAX)
		l->in.bad = true;
	s->il_offset = (uint32_t)il;
	return !l->in.bad;
}

bool cs_next_tick(struct cs_list *l, struct cs_tick *t)
{
	uint64_t a, b;
	while (l->pending && !l->in.bad) {
		cs_next_sample(l, &a, &b);
	}
	if (!list_more(l))
		return false;
	l->time_us += cs_get_varint(&l->in);
	t->time_us = l->time_us;
	t->suspend_ns = cs_get_varint(&l->in);
	t->count = cs_get_varint(&l->in);
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
	*thread_ref = cs_get_varint(&l->in);
	uint64_t v = cs_get_varint(&l->in);
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

void cs_thread_cpu_head_encode(struct cs_out *o, uint64_t time_us)
{
	cs_put_u64(o, time_us);
}

void cs_thread_cpu_encode(struct cs_out *o, const struct cs_thread_cpu *t)
{
	cs_put_varint(o, t->thread_ref);
	cs_put_varint(o, t->cpu_ns);
}

bool cs_thread_cpu_begin(struct cs_list *l, const uint8_t *p, size_t n, uint64_t *time_us)
{
	cs_list_init(l, p, n);
	*time_us = cs_get_u64(&l->in);
	return !l->in.bad;
}

bool cs_next_thread_cpu(struct cs_list *l, struct cs_thread_cpu *t)
{
	if (!list_more(l))
		return false;
	t->thread_ref = cs_get_varint(&l->in);
	t->cpu_ns = cs_get_varint(&l->in);
	return !l->in.bad;
}

void cs_hold_encode(struct cs_out *o, const struct cs_hold *h)
{
	cs_put_varint(o, h->thread_ref);
	cs_put_varint(o, h->stack_id);
	cs_put_varint(o, h->first_us);
	cs_put_varint(o, h->period_us);
	cs_put_varint(o, h->count);
}

bool cs_next_hold(struct cs_list *l, struct cs_hold *h)
{
	if (!list_more(l))
		return false;
	h->thread_ref = cs_get_varint(&l->in);
	h->stack_id = cs_get_varint(&l->in);
	h->first_us = cs_get_varint(&l->in);
	h->period_us = cs_get_varint(&l->in);
	h->count = cs_get_varint(&l->in);
	if (h->count == 0 || h->count > CS_HOLD_MAX_COUNT || h->period_us == 0 || h->period_us > CS_HOLD_MAX_PERIOD_US)
		l->in.bad = true;
	return !l->in.bad;
}

void cs_cpu_owed_encode(struct cs_out *o, const struct cs_cpu_owed *c)
{
	cs_put_varint(o, c->thread_ref);
	cs_put_varint(o, c->stack_id);
	cs_put_varint(o, c->time_us);
	cs_put_varint(o, c->count);
}

bool cs_next_cpu_owed(struct cs_list *l, struct cs_cpu_owed *c)
{
	if (!list_more(l))
		return false;
	c->thread_ref = cs_get_varint(&l->in);
	c->stack_id = cs_get_varint(&l->in);
	c->time_us = cs_get_varint(&l->in);
	c->count = cs_get_varint(&l->in);
	if (c->count == 0 || c->count > CS_CPU_OWED_MAX_COUNT)
		l->in.bad = true;
	return !l->in.bad;
}

void cs_status_encode(struct cs_out *o, const struct cs_status *s)
{
	cs_put_u64(o, s->time_us);
	cs_put_varint(o, s->dropped_records);
	cs_put_varint(o, s->dropped_bytes);
	cs_put_varint(o, s->write_errors);
	cs_put_varint(o, s->ticks);
	cs_put_varint(o, s->samples);
	cs_put_varint(o, s->suspend_total_ns);
	cs_put_varint(o, s->suspend_max_ns);
	cs_put_varint(o, s->truncated_stacks);
	cs_put_varint(o, s->failed_walks);
	cs_put_varint(o, s->deferred_walks);
	cs_put_varint(o, s->stack_checks);
	cs_put_varint(o, s->stack_mismatches);
	cs_put_varint(o, s->signals);
	cs_put_varint(o, s->parked_kept);
	cs_put_varint(o, s->sampler_cpu_ns);
	cs_put_varint(o, s->writer_cpu_ns);
	cs_put_varint(o, s->handler_cpu_ns);
	cs_put_varint(o, s->unwind_ns);
	cs_put_varint(o, s->survey_ns);
	cs_put_varint(o, s->signal_ns);
	cs_put_varint(o, s->record_ns);
	cs_put_varint(o, s->signals_waiting);
	cs_put_varint(o, s->waiting_read);
	cs_put_varint(o, s->kernel_samples);
	cs_put_varint(o, s->kernel_lost);
	cs_put_varint(o, s->beyond_copy);
}

/* A field older writers ended the record before: 0 when absent. */
static uint64_t optional_varint(struct cs_in *in)
{
	return in->p < in->end ? cs_get_varint(in) : 0;
}

bool cs_status_decode(const uint8_t *p, size_t n, struct cs_status *s)
{
	struct cs_in in;
	cs_in_init(&in, p, n);
	s->time_us = cs_get_u64(&in);
	s->dropped_records = cs_get_varint(&in);
	s->dropped_bytes = cs_get_varint(&in);
	s->write_errors = cs_get_varint(&in);
	s->ticks = cs_get_varint(&in);
	s->samples = cs_get_varint(&in);
	s->suspend_total_ns = cs_get_varint(&in);
	s->suspend_max_ns = cs_get_varint(&in);
	s->truncated_stacks = cs_get_varint(&in);
	s->failed_walks = cs_get_varint(&in);
	s->deferred_walks = optional_varint(&in);
	s->stack_checks = optional_varint(&in);
	s->stack_mismatches = optional_varint(&in);
	s->signals = optional_varint(&in);
	s->parked_kept = optional_varint(&in);
	s->sampler_cpu_ns = optional_varint(&in);
	s->writer_cpu_ns = optional_varint(&in);
	s->handler_cpu_ns = optional_varint(&in);
	s->unwind_ns = optional_varint(&in);
	s->survey_ns = optional_varint(&in);
	s->signal_ns = optional_varint(&in);
	s->record_ns = optional_varint(&in);
	s->signals_waiting = optional_varint(&in);
	s->waiting_read = optional_varint(&in);
	s->kernel_samples = optional_varint(&in);
	s->kernel_lost = optional_varint(&in);
	s->beyond_copy = optional_varint(&in);
	return !in.bad;
}

void cs_message_encode(struct cs_out *o, const struct cs_message *m)
{
	cs_put_u64(o, m->time_us);
	cs_put_u8(o, m->level);
	put_cs_str(o, m->text);
}

bool cs_message_decode(const uint8_t *p, size_t n, struct cs_message *m)
{
	struct cs_in in;
	cs_in_init(&in, p, n);
	m->time_us = cs_get_u64(&in);
	m->level = cs_get_u8(&in);
	m->text = get_cs_str(&in);
	return !in.bad;
}

void cs_dials_ack_encode(struct cs_out *o, const struct cs_dials_ack *a)
{
	cs_put_u64(o, a->time_us);
	cs_put_varint(o, a->generation);
	cs_put_u8(o, a->status);
	put_cs_str(o, a->effective);
	put_cs_str(o, a->error);
}

bool cs_dials_ack_decode(const uint8_t *p, size_t n, struct cs_dials_ack *a)
{
	struct cs_in in;
	cs_in_init(&in, p, n);
	a->time_us = cs_get_u64(&in);
	a->generation = cs_get_varint(&in);
	a->status = cs_get_u8(&in);
	a->effective = get_cs_str(&in);
	a->error = get_cs_str(&in);
	return !in.bad;
}

void cs_gc_encode(struct cs_out *o, const struct cs_gc *g)
{
	cs_put_u64(o, g->start_us);
	cs_put_varint(o, g->duration_us);
	cs_put_varint(o, g->pause_us);
	cs_put_u8(o, g->generation);
	cs_put_u8(o, g->reason);
	uint32_t n = g->ngens < CS_GC_GENERATIONS ? g->ngens : CS_GC_GENERATIONS;
	cs_put_varint(o, n);
	for (uint32_t i = 0; i < n; i++)
		cs_put_varint(o, g->gen_bytes[i]);
	cs_put_varint(o, g->cause);
	cs_put_u8(o, g->type);
	cs_put_varint(o, g->promoted_bytes);
	cs_put_varint(o, g->pinned_objects);
}

bool cs_gc_decode(const uint8_t *p, size_t n, struct cs_gc *g)
{
	struct cs_in in;
	cs_in_init(&in, p, n);
	g->start_us = cs_get_u64(&in);
	g->duration_us = cs_get_varint(&in);
	g->pause_us = cs_get_varint(&in);
	g->generation = cs_get_u8(&in);
	g->reason = cs_get_u8(&in);
	uint64_t count = cs_get_varint(&in);
	g->ngens = 0;
	for (uint64_t i = 0; i < count && !in.bad; i++) {
		uint64_t bytes = cs_get_varint(&in);
		if (i < CS_GC_GENERATIONS)
			g->gen_bytes[g->ngens++] = bytes;
	}
	for (uint32_t i = g->ngens; i < CS_GC_GENERATIONS; i++)
		g->gen_bytes[i] = 0;
	bool details = in.p < in.end && !in.bad;
	g->cause = details ? (uint32_t)cs_get_varint(&in) : 0;
	g->type = details ? cs_get_u8(&in) : 0;
	g->promoted_bytes = details ? cs_get_varint(&in) : 0;
	g->pinned_objects = details ? cs_get_varint(&in) : 0;
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

const char *cs_pool_reason_name(uint8_t reason)
{
	/* ThreadAdjustmentReasonMap in the runtime's ClrEtwAll.man */
	static const char *const names[] = {"warmup",   "initializing", "random_move", "climbing_move",
					    "change_point", "stabilizing", "starvation", "thread_timed_out"};
	return reason < sizeof names / sizeof *names ? names[reason] : "unknown";
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

void cs_event_encode(struct cs_out *o, uint16_t type, const struct cs_event *e)
{
	cs_put_u64(o, e->time_us);
	switch (type) {
	case CS_REC_EXCEPTION:
		cs_put_varint(o, e->thread_ref);
		cs_put_varint(o, e->id);
		put_cs_str(o, e->text);
		put_cs_str(o, e->message);
		break;
	case CS_REC_CONTENTION:
	case CS_REC_WAIT:
		cs_put_varint(o, e->thread_ref);
		cs_put_varint(o, e->id);
		cs_put_varint(o, e->wait_ns);
		if (type == CS_REC_WAIT)
			cs_put_u8(o, e->kind);
		break;
	case CS_REC_ALLOC_SAMPLE:
		cs_put_varint(o, e->thread_ref);
		cs_put_varint(o, e->id);
		cs_put_varint(o, e->size);
		cs_put_varint(o, e->weight);
		put_cs_str(o, e->text);
		break;
	case CS_REC_THREADPOOL:
		cs_put_u8(o, e->kind);
		cs_put_varint(o, e->workers);
		cs_put_u8(o, e->reason);
		break;
	case CS_REC_CATCH:
		cs_put_varint(o, e->thread_ref);
		cs_put_varint(o, e->id);
		break;
	case CS_REC_JIT:
		cs_put_varint(o, e->id);
		cs_put_varint(o, e->duration_us);
		break;
	case CS_REC_MODULE:
		cs_put_u8(o, e->kind);
		put_cs_str(o, e->text);
		break;
	case CS_REC_THREAD_EVENT:
		cs_put_u8(o, e->kind);
		cs_put_varint(o, e->thread_ref);
		cs_put_u32(o, e->os_tid);
		put_cs_str(o, e->text);
		break;
	default:
		o->overflow = true; /* not an event type: nothing valid to write */
		break;
	}
}

bool cs_event_decode(uint16_t type, const uint8_t *p, size_t n, struct cs_event *e)
{
	struct cs_in in;
	cs_in_init(&in, p, n);
	*e = (struct cs_event){0};
	e->text = (struct cs_str){"", 0};
	e->message = (struct cs_str){"", 0};
	e->time_us = cs_get_u64(&in);
	switch (type) {
	case CS_REC_EXCEPTION:
		e->thread_ref = cs_get_varint(&in);
		e->id = cs_get_varint(&in);
		e->text = get_cs_str(&in);
		if (in.p < in.end && !in.bad)
			e->message = get_cs_str(&in);
		break;
	case CS_REC_CONTENTION:
	case CS_REC_WAIT:
		e->thread_ref = cs_get_varint(&in);
		e->id = cs_get_varint(&in);
		e->wait_ns = cs_get_varint(&in);
		if (type == CS_REC_WAIT)
			e->kind = cs_get_u8(&in);
		break;
	case CS_REC_ALLOC_SAMPLE:
		e->thread_ref = cs_get_varint(&in);
		e->id = cs_get_varint(&in);
		e->size = cs_get_varint(&in);
		e->weight = cs_get_varint(&in);
		e->text = get_cs_str(&in);
		break;
	case CS_REC_THREADPOOL:
		e->kind = cs_get_u8(&in);
		e->workers = cs_get_varint(&in);
		e->reason = cs_get_u8(&in);
		break;
	case CS_REC_CATCH:
		e->thread_ref = cs_get_varint(&in);
		e->id = cs_get_varint(&in);
		break;
	case CS_REC_JIT:
		e->id = cs_get_varint(&in);
		e->duration_us = cs_get_varint(&in);
		break;
	case CS_REC_MODULE:
		e->kind = cs_get_u8(&in);
		e->text = get_cs_str(&in);
		break;
	case CS_REC_THREAD_EVENT:
		e->kind = cs_get_u8(&in);
		e->thread_ref = cs_get_varint(&in);
		e->os_tid = cs_get_u32(&in);
		e->text = get_cs_str(&in);
		break;
	default:
		return false;
	}
	return !in.bad;
}

/* ---- instrumentation and memory ---- */

void cs_calls_head_encode(struct cs_out *o, const struct cs_calls_head *h)
{
	cs_put_u64(o, h->time_us);
	cs_put_u8(o, h->recording);
	cs_put_varint(o, h->hooked);
	cs_put_varint(o, h->examined);
	cs_put_varint(o, h->repaired);
	cs_put_varint(o, h->too_deep);
}

bool cs_calls_head_decode(struct cs_in *in, struct cs_calls_head *h)
{
	h->time_us = cs_get_u64(in);
	h->recording = cs_get_u8(in);
	h->hooked = cs_get_varint(in);
	h->examined = cs_get_varint(in);
	h->repaired = cs_get_varint(in);
	h->too_deep = cs_get_varint(in);
	return !in->bad;
}

void cs_call_entry_encode(struct cs_out *o, const struct cs_call_entry *e)
{
	cs_put_varint(o, e->frame);
	cs_put_varint(o, e->calls);
	cs_put_varint(o, e->inclusive_ns);
	cs_put_varint(o, e->exclusive_ns);
}

bool cs_next_call_entry(struct cs_in *in, struct cs_call_entry *e)
{
	if (in->bad || !cs_in_left(in))
		return false;
	e->frame = cs_get_varint(in);
	e->calls = cs_get_varint(in);
	e->inclusive_ns = cs_get_varint(in);
	e->exclusive_ns = cs_get_varint(in);
	return !in->bad;
}

void cs_heap_head_encode(struct cs_out *o, const struct cs_heap_head *h)
{
	cs_put_u64(o, h->time_us);
	cs_put_varint(o, h->seq);
	cs_put_varint(o, h->part);
	cs_put_varint(o, h->parts);
	cs_put_varint(o, h->pause_us);
	cs_put_varint(o, h->objects);
	cs_put_varint(o, h->bytes);
	cs_put_varint(o, h->types);
	int nroots = h->walk == CS_HEAP_WALK_SUSPENDED ? 0 : CS_ROOT_KINDS;
	cs_put_varint(o, (uint64_t)nroots);
	for (int i = 0; i < nroots; i++)
		cs_put_varint(o, h->roots[i]);
}

bool cs_heap_head_decode(struct cs_in *in, struct cs_heap_head *h)
{
	h->time_us = cs_get_u64(in);
	h->seq = cs_get_varint(in);
	h->part = cs_get_varint(in);
	h->parts = cs_get_varint(in);
	h->pause_us = cs_get_varint(in);
	h->objects = cs_get_varint(in);
	h->bytes = cs_get_varint(in);
	h->types = cs_get_varint(in);
	uint64_t nroots = cs_get_varint(in);
	h->walk = nroots ? CS_HEAP_WALK_GC : CS_HEAP_WALK_SUSPENDED;
	for (uint64_t i = 0; i < nroots && !in->bad; i++) {
		uint64_t v = cs_get_varint(in);
		if (i < CS_ROOT_KINDS)
			h->roots[i] = v;
	}
	for (uint64_t i = nroots; i < CS_ROOT_KINDS; i++)
		h->roots[i] = 0;
	return !in->bad && h->part < h->parts;
}

void cs_heap_entry_encode(struct cs_out *o, const struct cs_type_count *e)
{
	put_cs_str(o, e->type);
	cs_put_varint(o, e->count);
	cs_put_varint(o, e->bytes);
}

bool cs_next_heap_entry(struct cs_in *in, struct cs_type_count *e)
{
	if (in->bad || !cs_in_left(in))
		return false;
	e->type_id = 0;
	e->type = get_cs_str(in);
	e->count = cs_get_varint(in);
	e->bytes = cs_get_varint(in);
	return !in->bad;
}

void cs_allocs_head_encode(struct cs_out *o, const struct cs_allocs_head *h)
{
	cs_put_u64(o, h->time_us);
	cs_put_varint(o, h->gcs);
	cs_put_u8(o, h->recording);
}

bool cs_allocs_head_decode(struct cs_in *in, struct cs_allocs_head *h)
{
	h->time_us = cs_get_u64(in);
	h->gcs = cs_get_varint(in);
	h->recording = cs_get_u8(in);
	return !in->bad;
}

void cs_alloc_entry_encode(struct cs_out *o, const struct cs_type_count *e)
{
	cs_put_varint(o, e->type_id);
	cs_heap_entry_encode(o, e);
}

bool cs_next_alloc_entry(struct cs_in *in, struct cs_type_count *e)
{
	if (in->bad || !cs_in_left(in))
		return false;
	uint64_t id = cs_get_varint(in);
	if (!cs_next_heap_entry(in, e))
		return false;
	e->type_id = id;
	return true;
}
