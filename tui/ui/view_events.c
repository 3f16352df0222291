/* Runtime events as they arrive: GC, exceptions, JIT, modules, threads,
 * dials; filterable; follows the tail unless scrolled up. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/session_screen.h"
#include "util/xalloc.h"

struct events {
	struct listview lv;
	uint32_t *rows; /* indexes into the process's event log */
	size_t nrows, rows_cap;
	uint32_t hidden_kinds; /* bits of prof_event_kind filtered out */
};

static const struct column columns[] = {
	{"time s", 9, true}, {"kind", 9, false}, {"event", 0, false},
};

static void *create(void)
{
	struct events *e = xcalloc(1, sizeof *e);
	e->lv.cols = columns;
	e->lv.ncols = sizeof columns / sizeof *columns;
	e->lv.follow = true;
	return e;
}

static void destroy(void *priv)
{
	struct events *e = priv;
	if (e)
		free(e->rows);
	free(e);
}

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

static void update(struct view *v, struct session_screen *s)
{
	struct events *e = v->priv;
	struct prof_process *p = ui_current(s);
	e->nrows = 0;
	if (p) {
		xgrow(&e->rows, &e->rows_cap, p->nlog + 1, sizeof *e->rows);
		for (size_t i = 0; i < p->nlog; i++) {
			if (e->hidden_kinds & (1u << p->log[i].kind))
				continue;
			if (s->filter[0]) {
				char text[700];
				event_text(p, &p->log[i], text, sizeof text);
				if (!strstr(text, s->filter))
					continue;
			}
			e->rows[e->nrows++] = (uint32_t)i;
		}
	}
	listview_set_rows(&e->lv, e->nrows);
}

struct cell_context {
	struct events *e;
	struct prof_process *p;
};

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	const struct cell_context *cc = ctx;
	const struct prof_event *e = &cc->p->log[cc->e->rows[row]];
	switch (col) {
	case 0: snprintf(buf, n, "%.3f", (double)e->time_us / 1e6); break;
	case 1: snprintf(buf, n, "%s", prof_event_kind_name(e->kind)); break;
	default: event_text(cc->p, e, buf, n); break;
	}
}

static enum ui_style style(void *ctx, size_t row)
{
	const struct cell_context *cc = ctx;
	uint8_t kind = cc->p->log[cc->e->rows[row]].kind;
	return kind == PEV_EXCEPTION || kind == PEV_MESSAGE ? UI_WARN : kind == PEV_GC ? UI_HOT : UI_NORMAL;
}

static void draw(struct view *v, struct session_screen *s, struct canvas *c, int y, int height)
{
	struct cell_context cc = {v->priv, ui_current(s)};
	listview_draw(&cc.e->lv, c, y, height, cell, style, &cc);
}

static bool key(struct view *v, struct session_screen *s, int k)
{
	(void)s;
	return listview_key(&((struct events *)v->priv)->lv, k);
}

static struct listview *list(struct view *v)
{
	return &((struct events *)v->priv)->lv;
}

const struct view_ops view_events = {
	.name = "Events",
	.title = "GC, exceptions, JIT, modules, threads and dials as they happen",
	.create = create,
	.destroy = destroy,
	.update = update,
	.draw = draw,
	.key = key,
	.list = list,
};
