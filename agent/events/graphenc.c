#include "agent/events/graphenc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/log/logwriter.h"
#include "common/logfmt.h"

/* A record's bytes: well under the reader's payload limit, and small
 * enough that the log writer's buffer takes many. */
#define RECORD_BYTES (60u << 10)
#define ENTRY_MAX 64u /* the largest entry of the three kinds, and more */
#define CHUNK_BYTES (1u << 20)
#define WRITE_TIMEOUT_MS 10000u /* a writer this slow is stuck: drop rather than hang */

struct chunk {
	struct chunk *next;
	size_t len;
	uint32_t records;
	uint8_t data[CHUNK_BYTES];
};

struct stream {
	uint16_t type;
	struct cs_out o;
	size_t at;
	uint64_t first, n, prev;
	uint8_t buf[RECORD_BYTES + 64];
};

static struct {
	uint64_t seq;
	struct stream streams[GE_STREAMS];
	struct chunk *filling; /* the GC side's */
	struct ge_totals totals;

	/* the queue between the GC side and the pump */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct chunk *head, *tail, *spare;
	size_t held; /* bytes of every chunk taken from memory */
	size_t queued;
	bool stop, pump_started;
	pthread_t pump;
	uint64_t pump_lost; /* records the log writer refused */
} g = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static const uint16_t stream_types[GE_STREAMS] = {CS_REC_HEAP_NODES, CS_REC_HEAP_EDGES, CS_REC_HEAP_ROOTS};

bool ge_write(const void *records, size_t len, uint32_t nrecords)
{
	return lw_append_wait(records, len, nrecords, WRITE_TIMEOUT_MS);
}

/* ---- the pump ---- */

static void *pump_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&g.mu);
	for (;;) {
		while (!g.head && !g.stop)
			pthread_cond_wait(&g.cv, &g.mu);
		struct chunk *c = g.head;
		if (!c)
			break;
		g.head = c->next;
		if (!g.head)
			g.tail = NULL;
		g.queued -= c->len;
		pthread_mutex_unlock(&g.mu);
		bool ok = ge_write(c->data, c->len, c->records);
		pthread_mutex_lock(&g.mu);
		if (!ok)
			g.pump_lost += c->records;
		c->next = g.spare;
		g.spare = c;
	}
	pthread_mutex_unlock(&g.mu);
	return NULL;
}

/* ---- the GC side ---- */

/* A chunk to fill: a spare one, or new memory within the budget. */
static struct chunk *take_chunk(void)
{
	pthread_mutex_lock(&g.mu);
	struct chunk *c = g.spare;
	if (c)
		g.spare = c->next;
	else if (g.held + sizeof *c <= GE_BUDGET_BYTES && (c = malloc(sizeof *c)))
		g.held += sizeof *c;
	pthread_mutex_unlock(&g.mu);
	if (c) {
		c->next = NULL;
		c->len = 0;
		c->records = 0;
	}
	return c;
}

static void queue_chunk(struct chunk *c)
{
	pthread_mutex_lock(&g.mu);
	if (g.tail)
		g.tail->next = c;
	else
		g.head = c;
	g.tail = c;
	g.queued += c->len;
	if (g.queued > g.totals.queued_max)
		g.totals.queued_max = g.queued;
	pthread_cond_signal(&g.cv);
	pthread_mutex_unlock(&g.mu);
}

/* A framed record into the chunk being filled; dropped (and counted)
 * without memory for one. */
static void put_record(const uint8_t *p, size_t len)
{
	if (g.filling && g.filling->len + len > CHUNK_BYTES) {
		queue_chunk(g.filling);
		g.filling = NULL;
	}
	if (!g.filling && !(g.filling = take_chunk())) {
		g.totals.lost_records++;
		return;
	}
	memcpy(g.filling->data + g.filling->len, p, len);
	g.filling->len += len;
	g.filling->records++;
}

static void stream_open(struct stream *s)
{
	cs_out_init(&s->o, s->buf, sizeof s->buf);
	s->at = cs_record_begin(&s->o);
	cs_graph_part_encode(&s->o, &(struct cs_graph_part){g.seq, s->first});
	s->prev = 0;
	s->n = 0;
}

static void stream_close(struct stream *s)
{
	if (!s->n)
		return;
	if (cs_record_end(&s->o, s->at, s->type))
		put_record(s->o.buf, s->o.len);
	else
		g.totals.lost_records++;
	s->first += s->n;
	stream_open(s);
}

/* The stream with room for one more entry. */
static struct stream *stream_for(enum ge_stream which)
{
	struct stream *s = &g.streams[which];
	if (s->o.len + ENTRY_MAX > RECORD_BYTES)
		stream_close(s);
	s->n++;
	g.totals.entries[which]++;
	return s;
}

void ge_node(const struct cs_graph_node *n)
{
	struct stream *s = stream_for(GE_NODES);
	if (!cs_graph_node_encode(&s->o, &s->prev, n))
		g.totals.misaligned++;
}

void ge_edge(uint64_t target)
{
	struct stream *s = stream_for(GE_EDGES);
	if (!cs_graph_edge_encode(&s->o, &s->prev, target))
		g.totals.misaligned++;
}

void ge_root(const struct cs_graph_root *r)
{
	struct stream *s = stream_for(GE_ROOTS);
	if (!cs_graph_root_encode(&s->o, &s->prev, r))
		g.totals.misaligned++;
}

int ge_start(uint64_t seq, char *why, size_t whylen)
{
	g.seq = seq;
	g.totals = (struct ge_totals){0};
	g.filling = NULL;
	g.pump_lost = 0;
	g.stop = false;
	for (int i = 0; i < GE_STREAMS; i++) {
		g.streams[i].type = stream_types[i];
		g.streams[i].first = 0;
		stream_open(&g.streams[i]);
	}
	if (pthread_create(&g.pump, NULL, pump_main, NULL) != 0) {
		snprintf(why, whylen, "no thread to write it");
		return -1;
	}
	pthread_setname_np(g.pump, "clrscope-graph");
	g.pump_started = true;
	return 0;
}

void ge_finish(struct ge_totals *out)
{
	for (int i = 0; i < GE_STREAMS; i++)
		stream_close(&g.streams[i]);
	if (g.filling && g.filling->len)
		queue_chunk(g.filling);
	else if (g.filling) {
		pthread_mutex_lock(&g.mu);
		g.filling->next = g.spare;
		g.spare = g.filling;
		pthread_mutex_unlock(&g.mu);
	}
	g.filling = NULL;
	pthread_mutex_lock(&g.mu);
	g.stop = true;
	pthread_cond_signal(&g.cv);
	pthread_mutex_unlock(&g.mu);
	if (g.pump_started)
		pthread_join(g.pump, NULL);
	g.pump_started = false;
	/* the memory goes back: a snapshot is rare, and a big one took much */
	while (g.spare) {
		struct chunk *c = g.spare;
		g.spare = c->next;
		free(c);
	}
	g.held = 0;
	g.totals.lost_records += g.pump_lost;
	*out = g.totals;
}

/* ---- lists outside the walk ---- */

static void list_open(struct ge_list *l)
{
	cs_out_init(&l->o, l->buf, sizeof l->buf);
	l->at = cs_record_begin(&l->o);
	cs_graph_part_encode(&l->o, &(struct cs_graph_part){l->seq, l->first});
	l->n = 0;
}

static void list_write(struct ge_list *l)
{
	if (!l->n)
		return;
	if (!cs_record_end(&l->o, l->at, l->type) || !ge_write(l->o.buf, l->o.len, 1))
		l->lost++;
	l->first += l->n;
	list_open(l);
}

void ge_list_begin(struct ge_list *l, uint16_t type, uint64_t seq)
{
	l->type = type;
	l->seq = seq;
	l->first = 0;
	l->lost = 0;
	list_open(l);
}

void ge_list_need(struct ge_list *l, size_t bytes)
{
	if (l->o.len + bytes > l->o.cap)
		list_write(l);
	l->n++;
}

void ge_list_end(struct ge_list *l)
{
	list_write(l);
}
