/* Runtime events as they arrive: GC, exceptions, JIT, modules, threads,
 * dials; filterable; follows the tail unless scrolled up. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "uisession.h"
#include "xalloc.h"

static const struct column columns[] = {
	{"time s", 9, true}, {"kind", 9, false}, {"event", 0, false},
};

static void update(struct ui_session *s)
{
	struct prof_process *p = ui_current(s);
	s->nevent_rows = 0;
	if (p) {
		xgrow(&s->event_rows, &s->event_rows_cap, p->nlog + 1, sizeof *s->event_rows);
		for (size_t i = 0; i < p->nlog; i++) {
			if (s->hidden_event_kinds & (1u << p->log[i].kind))
				continue;
			if (s->filter[0] && !strstr(p->log[i].text, s->filter))
				continue;
			s->event_rows[s->nevent_rows++] = (uint32_t)i;
		}
	}
	s->events_lv.cols = columns;
	s->events_lv.ncols = sizeof columns / sizeof *columns;
	s->events_lv.follow = true;
	listview_set_rows(&s->events_lv, s->nevent_rows);
}

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct ui_session *s = ctx;
	const struct prof_event_line *e = &ui_current(s)->log[s->event_rows[row]];
	switch (col) {
	case 0: snprintf(buf, n, "%.3f", (double)e->time_us / 1e6); break;
	case 1: snprintf(buf, n, "%s", prof_event_kind_name(e->kind)); break;
	default: snprintf(buf, n, "%s", e->text); break;
	}
}

static enum ui_style style(void *ctx, size_t row)
{
	struct ui_session *s = ctx;
	uint8_t kind = ui_current(s)->log[s->event_rows[row]].kind;
	return kind == PEV_EXCEPTION || kind == PEV_MESSAGE ? UI_WARN : kind == PEV_GC ? UI_HOT : UI_NORMAL;
}

static void draw(struct ui_session *s, struct canvas *c, int y, int height)
{
	listview_draw(&s->events_lv, c, y, height, cell, style, s);
}

static int key(struct ui_session *s, int k)
{
	if (listview_key(&s->events_lv, k))
		return KEY_HANDLED | KEY_REDRAW;
	return KEY_IGNORED;
}

static struct listview *list(struct ui_session *s)
{
	return &s->events_lv;
}

const struct view_ops view_events = {"Events", "GC, exceptions, JIT, modules, threads and dials as they happen", update,
				     draw, key, list};
