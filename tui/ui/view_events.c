/* Runtime events as they arrive: GC, exceptions, JIT, modules, threads,
 * dials; filterable; follows the tail unless scrolled up. */
#include <stdio.h>
#include <string.h>

#include "ui/session_screen.h"

static const struct column columns[] = {
	{"time s", 9, true}, {"kind", 9, false}, {"event", 0, false},
};

/* An event in words.  shown is the process whose log holds it (a merged
 * log's events name the process they came from, whose tables they index). */
static void event_text(const struct prof_process *shown, const struct prof_event *e, char *out, size_t n)
{
	const struct prof_process *p = e->from ? e->from : shown;
	int at = e->from ? snprintf(out, n, "pid %u: ", p->pid) : 0;
	if (at < 0 || (size_t)at >= n)
		return;
	out += at;
	n -= (size_t)at;
	unsigned long long thread = (unsigned long long)e->thread;
	const char *text = e->text ? e->text : "";
	switch (e->kind) {
	case PEV_GC: {
		const struct prof_gc *g = &p->gcs[e->ref];
		uint64_t heap = 0;
		for (int i = 0; i < CS_GC_GENERATIONS; i++)
			heap += g->gen_bytes[i];
		const char *type = cs_gc_type_name(g->type);
		snprintf(out, n, "GC gen%u %s%s%s: pause %.2f ms, took %.2f ms, heap after %.1f MiB", g->generation,
			 prof_gc_reason(g), type[0] ? " " : "", type, (double)g->pause_us / 1000.0,
			 (double)g->duration_us / 1000.0, (double)heap / 1048576.0);
		break;
	}
	case PEV_EXCEPTION:
		snprintf(out, n, "%s thrown on thread %llu%s%s", p->exception_types[e->ref].name, thread, e->text ? ": " : "",
			 text);
		break;
	case PEV_CATCH: snprintf(out, n, "caught in %s on thread %llu", prof_frame_name(p, e->ref), thread); break;
	case PEV_JIT:
		snprintf(out, n, "compiled %s in %.2f ms", prof_frame_name(p, e->ref), (double)e->value / 1000.0);
		break;
	case PEV_MODULE:
		snprintf(out, n, "%s %s", e->variant == CS_ASSEMBLY ? "assembly" : "module", p->modules[e->ref].name);
		break;
	case PEV_THREAD:
		snprintf(out, n, "thread %llu (os %llu) %s%s", thread, (unsigned long long)e->value,
			 e->variant == CS_THREAD_CREATED	? "started"
			 : e->variant == CS_THREAD_DESTROYED ? "ended"
							     : "named ",
			 text);
		break;
	case PEV_DIALS: {
		static const char *const status[] = {"applied", "rejected", "applied in part"};
		const struct prof_dials_ack *a = &p->dials[e->ref];
		snprintf(out, n, "dials generation %llu %s: %s%s%s", (unsigned long long)a->generation,
			 a->status < 3 ? status[a->status] : "?", a->effective, a->error[0] ? "; " : "", a->error);
		break;
	}
	case PEV_MESSAGE: snprintf(out, n, "agent: %s", text); break;
	case PEV_CONTENTION:
	case PEV_WAIT:
		snprintf(out, n, "waited %.3f ms %s on thread %llu", (double)e->value / 1e6,
			 e->kind == PEV_CONTENTION ? "for a lock"
			 : e->variant == 1	   ? "in Monitor.Wait"
						   : "on a wait handle",
			 thread);
		break;
	case PEV_THREADPOOL:
		if (e->variant == CS_POOL_ADJUSTED)
			snprintf(out, n, "thread pool: %llu workers (%s)", (unsigned long long)e->value,
				 cs_pool_reason_name((uint8_t)e->value2));
		else
			snprintf(out, n, "thread pool worker %s: %llu active",
				 e->variant == CS_POOL_WORKER_STARTED ? "started" : "stopped", (unsigned long long)e->value);
		break;
	default: snprintf(out, n, "%s", text); break;
	}
}

/* Its rows are the process's event log. */
static size_t count(struct view_ctx *c)
{
	return c->p->nlog;
}

static bool match(struct view_ctx *c, uint32_t item, const char *filter)
{
	char text[700];
	event_text(c->p, &c->p->log[item], text, sizeof text);
	return strstr(text, filter) != NULL;
}

static void cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct prof_event *e = &c->p->log[item];
	switch (col) {
	case 0: snprintf(buf, n, "%.3f", (double)e->time_us / 1e6); break;
	case 1: snprintf(buf, n, "%s", prof_event_kind_name(e->kind)); break;
	default: event_text(c->p, e, buf, n); break;
	}
}

static enum ui_style style(struct view_ctx *c, uint32_t item)
{
	uint8_t kind = c->p->log[item].kind;
	return kind == PEV_EXCEPTION || kind == PEV_MESSAGE ? UI_WARN : kind == PEV_GC ? UI_HOT : UI_NORMAL;
}

const struct view_ops view_events = {
	.name = "Events",
	.title = "GC, exceptions, JIT, modules, threads and dials as they happen",
	VIEW_COLUMNS(columns), .follow = true, .count = count, .match = match,
	.cell = cell, .style = style,
};
