#include "agent/events/heaprecord.h"

#include <stdlib.h>
#include <string.h>

#include "agent/log/logwriter.h"
#include "common/logfmt.h"

#define WRITE_TIMEOUT_MS 10000u

void hp_init(struct heap_parts *w, const struct cs_heap_head *head)
{
	*w = (struct heap_parts){.head = *head};
	w->head.objects = w->head.bytes = w->head.types = 0;
}

bool hp_add(struct heap_parts *w, const char *type, uint64_t count, uint64_t bytes)
{
	uint8_t tmp[1200];
	struct cs_out o;
	cs_out_init(&o, tmp, sizeof tmp);
	struct cs_type_count e = {0, {type, strlen(type)}, count, bytes};
	cs_heap_entry_encode(&o, &e);
	if (o.overflow || !agent_grow(&w->entries, &w->cap, w->len + o.len, 1, 64))
		return false;
	if (w->len + o.len - w->part_start > HP_PART_BYTES) {
		if (!agent_grow(&w->ends, &w->parts_cap, w->nparts + 1, sizeof *w->ends, 64))
			return false;
		w->ends[w->nparts++] = w->len;
		w->part_start = w->len;
	}
	memcpy(w->entries + w->len, tmp, o.len);
	w->len += o.len;
	w->head.types++;
	w->head.objects += count;
	w->head.bytes += bytes;
	return true;
}

void hp_write(struct heap_parts *w, bool wait)
{
	if (agent_grow(&w->ends, &w->parts_cap, w->nparts + 1, sizeof *w->ends, 64))
		w->ends[w->nparts++] = w->len;
	else
		return;
	w->head.parts = w->nparts;
	static uint8_t record[HP_PART_BYTES + 1024];
	size_t from = 0;
	for (size_t i = 0; i < w->nparts; i++) {
		struct cs_out o;
		cs_out_init(&o, record, sizeof record);
		size_t at = cs_record_begin(&o);
		w->head.part = i;
		cs_heap_head_encode(&o, &w->head);
		cs_put_bytes(&o, w->entries + from, w->ends[i] - from);
		if (cs_record_end(&o, at, CS_REC_HEAP)) {
			if (wait)
				lw_append_wait(o.buf, o.len, 1, WRITE_TIMEOUT_MS);
			else
				lw_append(o.buf, o.len, 1);
		}
		from = w->ends[i];
	}
	lw_flush_soon();
}

void hp_free(struct heap_parts *w)
{
	free(w->entries);
	free(w->ends);
	w->entries = NULL;
	w->ends = NULL;
}
