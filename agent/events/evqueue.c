#include "agent/events/evqueue.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define EVQ_BYTES (256u << 10)

static struct {
	pthread_mutex_t mu;
	uint8_t *active, *spare;
	size_t active_len;
	_Atomic uint64_t dropped;
} q = {.mu = PTHREAD_MUTEX_INITIALIZER};

static size_t aligned(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

int evq_init(void)
{
	pthread_mutex_lock(&q.mu);
	if (!q.active)
		q.active = malloc(EVQ_BYTES);
	if (!q.spare)
		q.spare = malloc(EVQ_BYTES);
	q.active_len = 0;
	pthread_mutex_unlock(&q.mu);
	atomic_store(&q.dropped, 0);
	return q.active && q.spare ? 0 : -1;
}

bool evq_push(const struct ev_item *item, const FunctionID *frames, const char *text)
{
	size_t size = aligned(sizeof *item + item->nframes * sizeof *frames + item->text_len);
	pthread_mutex_lock(&q.mu);
	if (!q.active || size > EVQ_BYTES - q.active_len) {
		pthread_mutex_unlock(&q.mu);
		atomic_fetch_add(&q.dropped, 1);
		return false;
	}
	uint8_t *p = q.active + q.active_len;
	memcpy(p, item, sizeof *item);
	if (item->nframes)
		memcpy(p + sizeof *item, frames, item->nframes * sizeof *frames);
	if (item->text_len)
		memcpy(p + sizeof *item + item->nframes * sizeof *frames, text, item->text_len);
	q.active_len += size;
	pthread_mutex_unlock(&q.mu);
	return true;
}

void evq_drain(evq_visit visit, void *ctx)
{
	pthread_mutex_lock(&q.mu);
	uint8_t *data = q.active;
	size_t len = q.active_len;
	q.active = q.spare;
	q.spare = data;
	q.active_len = 0;
	pthread_mutex_unlock(&q.mu);
	for (size_t at = 0; at < len;) {
		struct ev_item item;
		memcpy(&item, data + at, sizeof item);
		const FunctionID *frames = (const FunctionID *)(data + at + sizeof item);
		const char *text = (const char *)(data + at + sizeof item + item.nframes * sizeof(FunctionID));
		visit(&item, frames, text, ctx);
		at += aligned(sizeof item + item.nframes * sizeof(FunctionID) + item.text_len);
	}
}

uint64_t evq_dropped(void)
{
	return atomic_load(&q.dropped);
}
