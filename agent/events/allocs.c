#include "agent/events/allocs.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/events/classcount.h"
#include "agent/events/events.h"
#include "agent/log/logwriter.h"
#include "agent/symbols/symbols.h"
#include "common/logfmt.h"
#include "common/records.h"

#define TABLE_SLOTS (16u * 1024u)
#define OBJECT_ALIGN 8u
#define EVERY_NS (1000u * 1000000u)
#define RECORD_BYTES (32u << 10)

static struct {
	bool configured;
	atomic_bool recording;
	struct cc_table table;
	/* sampler thread */
	uint64_t *written; /* by slot: the count last written */
	uint64_t last_ns, last_gcs;
	uint32_t last_drop_epoch;
	uint8_t last_recording;
} a;

int allocs_configure(bool on, char *why, size_t whylen)
{
	a.configured = false;
	if (!on)
		return 0;
	if (!a.table.slots && cc_init(&a.table, TABLE_SLOTS) < 0) {
		snprintf(why, whylen, "out of memory for the allocation table");
		return -1;
	}
	free(a.written);
	a.written = calloc(cc_capacity(&a.table), sizeof *a.written);
	if (!a.written) {
		snprintf(why, whylen, "out of memory for the allocation table");
		return -1;
	}
	cc_clear(&a.table);
	a.configured = true;
	atomic_store(&a.recording, true);
	return 0;
}

bool allocs_configured(void)
{
	return a.configured;
}

DWORD allocs_mask_bits(void)
{
	return a.configured ? COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_MONITOR_OBJECT_ALLOCATED : 0;
}

static HRESULT on_object_allocated(ICorProfilerCallback11 *self, ObjectID obj, ClassID cls)
{
	(void)self;
	if (!atomic_load_explicit(&a.recording, memory_order_relaxed))
		return S_OK;
	SIZE_T size = 0;
	ICorProfilerInfo10 *info = g_agent.info;
	if (FAILED(info->vtbl->GetObjectSize2(info, obj, &size)))
		size = 0;
	cc_add(&a.table, cls, ((uint64_t)size + OBJECT_ALIGN - 1) & ~(uint64_t)(OBJECT_ALIGN - 1));
	return S_OK;
}

void allocs_install_callbacks(struct ICorProfilerCallback11Vtbl *vtbl)
{
	vtbl->ObjectAllocated = on_object_allocated;
}

void allocs_set_recording(bool on)
{
	atomic_store(&a.recording, on);
}

bool allocs_recording(void)
{
	return a.configured && atomic_load(&a.recording);
}

struct allocs_out {
	struct cs_out o;
	size_t at;
	struct cs_allocs_head head;
	uint32_t nentries;
};

static void begin(struct allocs_out *w)
{
	w->at = cs_record_begin(&w->o);
	cs_allocs_head_encode(&w->o, &w->head);
	w->nentries = 0;
}

static void finish(struct allocs_out *w)
{
	if (cs_record_end(&w->o, w->at, CS_REC_ALLOCS))
		lw_append(w->o.buf, w->o.len, 1);
	w->o.len = 0;
	w->o.overflow = false;
}

void allocs_drain(bool force)
{
	if (!a.configured)
		return;
	uint64_t now = agent_mono_ns();
	uint64_t gcs = events_gc_count();
	uint8_t recording = atomic_load(&a.recording);
	if (!force && gcs == a.last_gcs && now - a.last_ns < EVERY_NS)
		return;
	/* after a drop every type is restated: the lost record may have held it */
	bool everything = lw_drop_epoch() != a.last_drop_epoch || recording != a.last_recording;
	a.last_ns = now;
	a.last_gcs = gcs;
	a.last_drop_epoch = lw_drop_epoch();
	a.last_recording = recording;

	static uint8_t buf[RECORD_BYTES];
	struct allocs_out w = {.head = {.time_us = agent_now_us(), .gcs = gcs, .recording = recording}};
	cs_out_init(&w.o, buf, sizeof buf);
	begin(&w);
	uint32_t written = 0;
	for (uint32_t i = 0; i < cc_capacity(&a.table); i++) {
		struct cc_slot *s = &a.table.slots[i];
		ClassID cls = atomic_load_explicit(&s->cls, memory_order_acquire);
		uint64_t count = atomic_load_explicit(&s->count, memory_order_relaxed);
		if (!cls || (count == a.written[i] && !everything))
			continue;
		char name[1024];
		sym_class_name(cls, name, sizeof name);
		struct cs_type_count e = {i + 1, {name, strlen(name)}, count,
					  atomic_load_explicit(&s->bytes, memory_order_relaxed)};
		size_t before = w.o.len;
		cs_alloc_entry_encode(&w.o, &e);
		if (w.o.overflow) {
			w.o.len = before;
			w.o.overflow = false;
			finish(&w);
			begin(&w);
			cs_alloc_entry_encode(&w.o, &e);
		}
		a.written[i] = count;
		written++;
	}
	/* an empty record still says "a GC happened" and the recording state */
	if (written || gcs || everything)
		finish(&w);
	uint64_t dropped = atomic_exchange(&a.table.dropped, 0);
	if (dropped)
		lw_message(CS_LEVEL_WARNING, "allocation counting: table full, %llu allocations of new types not counted",
			   (unsigned long long)dropped);
}
