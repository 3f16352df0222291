#include "records.h"

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

void cs_list_init(struct cs_list *l, const uint8_t *p, size_t n)
{
	cs_in_init(&l->in, p, n);
	l->time_us = 0;
	l->pending = 0;
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

bool cs_next_sample(struct cs_list *l, uint64_t *thread_ref, uint64_t *stack_id)
{
	if (!l->pending || l->in.bad)
		return false;
	l->pending--;
	*thread_ref = cs_get_varint(&l->in);
	*stack_id = cs_get_varint(&l->in);
	if (l->in.bad)
		l->pending = 0;
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
