#include "ui/screen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/records.h"

/* Below this many lines the timeline strip goes. */
#define TIMELINE_MIN_ROWS 12

static bool has_timeline(int rows)
{
	return rows >= TIMELINE_MIN_ROWS;
}

int screen_view_height(int rows)
{
	int h = rows - SCREEN_VIEW_TOP - 2 - (has_timeline(rows) ? 1 : 0);
	return h > 1 ? h : 1;
}

/* " 1 Functions " for the view key 1; tight: "1 Functions "; a view
 * without a key (Tab or ':view' reach it) has only its name. */
static void tab_label(enum view_id id, bool tight, char *out, size_t n)
{
	int key = ui_view_key(id);
	const char *pad = tight ? "" : " ";
	if (key)
		snprintf(out, n, "%s%c %s ", pad, key, ui_view(id)->name);
	else
		snprintf(out, n, "%s%s ", pad, ui_view(id)->name);
}

static int tab_width(enum view_id id, bool tight)
{
	char tab[40];
	tab_label(id, tight, tab, sizeof tab);
	return text_width(tab);
}

static void draw_tabs(struct session_screen *s, struct canvas *c)
{
	canvas_fill(c, 0, 0, c->cols, UI_STATUS);
	const char *brand = " clrscope ", *more = c->ascii ? "< " : "\u2026 ";
	int wide = text_width(brand);
	for (int i = 0; i < VIEW_COUNT; i++)
		wide += tab_width(i, false);
	bool tight = wide > c->cols; /* drop the padding before cutting tabs off */
	/* the shown tab stays on screen: the first tabs give way to it */
	int first = 0, upto = text_width(brand);
	for (int i = 0; i <= (int)s->shown; i++)
		upto += tab_width(i, tight);
	while (first < (int)s->shown && upto + text_width(more) > c->cols)
		upto -= tab_width(first++, tight);
	int x = canvas_text(c, 0, 0, c->cols, UI_STATUS, false, brand);
	if (first)
		x += canvas_text(c, 0, x, c->cols - x, UI_STATUS, false, more);
	char tab[40];
	for (int i = first; i < VIEW_COUNT && x < c->cols; i++) {
		tab_label(i, tight, tab, sizeof tab);
		x += canvas_text(c, 0, x, c->cols - x, i == (int)s->shown ? UI_SELECTED : UI_STATUS, false, tab);
	}
}

static const char *state_text(struct session_screen *s, struct prof_process *p, char *buf, size_t n)
{
	if (!p || !p->have_hello)
		return s->state == TARGET_EXITED ? (snprintf(buf, n, "exited %d before the agent started", s->exit_status), buf)
						 : "starting";
	if (p->ended && p->end_reason == CS_END_DETACH)
		return "detached";
	if (p->ended && p->end_reason == CS_END_SIZE_CAP)
		return "full: the session reached its size cap";
	if (s->state == TARGET_EXITED) {
		snprintf(buf, n, "exited %d", s->exit_status);
		return buf;
	}
	if (p->ended)
		return "ended";
	return s->state == TARGET_NONE ? "live" : "running";
}

void screen_status_text(struct session_screen *s, char *out, size_t n)
{
	struct prof_process *p = ui_current(s);
	char state[64];
	const char *st = state_text(s, p, state, sizeof state);
	if (!p) {
		snprintf(out, n, " %s | waiting for the agent", st);
		return;
	}
	uint64_t rate = p->nseconds >= 2 ? p->per_second[p->nseconds - 2] : p->nseconds ? p->per_second[0] : 0;
	uint64_t acked = p->ndials ? p->dials[p->ndials - 1].generation : 0;
	char dials[48] = "";
	if (s->dial_requested)
		snprintf(dials, sizeof dials, " | dials %" PRIu64 "/%" PRIu64 "%s", acked, s->dial_requested,
			 acked >= s->dial_requested ? "" : " pending");
	/* the fast unwinder's own check (the validate dial): how many of its
	 * walks the runtime's unwinder repeated, and the share that differed */
	char checks[48] = "";
	if (p->status.stack_checks)
		snprintf(checks, sizeof checks, " | stacks checked %" PRIu64 ", %.1f%% differ", p->status.stack_checks,
			 100.0 * (double)p->status.stack_mismatches / (double)p->status.stack_checks);
	/* what the profiler costs the program now: its threads' and its signal
	 * handler's CPU time between the last two STATUS records */
	char cost[32] = "";
	double share = prof_agent_cpu_share(p, true);
	if (share >= 0)
		snprintf(cost, sizeof cost, " | agent %.1f%% CPU", 100.0 * share);
	/* samples of resumed async methods whose awaiting methods were not
	 * known: their logical stacks begin at [await ?] */
	char unresolved[48] = "";
	if (p->status.async_unresolved)
		snprintf(unresolved, sizeof unresolved, " | async unresolved %" PRIu64, p->status.async_unresolved);
	/* the rate asked for and the ticks the sampler took per second lately */
	char hz[48] = "";
	double achieved = prof_achieved_hz(p, true);
	unsigned requested = p->current_rate_hz ? p->current_rate_hz : p->rate_hz;
	if (requested && achieved >= 0)
		snprintf(hz, sizeof hz, " | %u Hz requested, %.0f achieved", requested, achieved);
	else if (requested)
		snprintf(hz, sizeof hz, " | %u Hz requested", requested);
	char who[32] = "";
	if (p->have_hello)
		snprintf(who, sizeof who, " pid %" PRIu32, p->pid);
	/* the samples counted: in the thread and time range chosen */
	char narrow[160] = "", range[128];
	ui_samples_text(s, range, sizeof range);
	if (range[0])
		snprintf(narrow, sizeof narrow, " | samples of %s", range);
	const struct prof_process *counted = ui_samples(s);
	snprintf(out, n, "%s %s%s | %s | %" PRIu64 " samples/s | %" PRIu64 " samples | dropped %" PRIu64
			 " | suspend %.0f us%s%s%s%s%s%s%s%s%s",
		 who, st, p->features & CS_FEATURE_INSTRUMENT ? " instrumented (no detach)" : p->features & CS_FEATURE_ALLOCATIONS ? " counting allocations (no detach)" : "",
		 p->time == PROF_TIME_CPU ? "cpu time" : "wall time", rate, counted->samples, p->status.dropped_records, prof_suspend_recent_us(p), checks, unresolved, dials, cost, hz, narrow,
		 p->reader.torn_bytes || p->reader.skipped_bytes || p->reader.refused_segments ? " | damaged log" : "", s->filter[0] ? " | filter: " : "",
		 s->filter);
}

/* Samples per second, the newest on the right; the time cursor (moved by
 * '<' '>' or a click) in the selected style, the seconds of the time range
 * counted in the good colour.  Where it is drawn is kept for clicks. */
static void draw_timeline(struct session_screen *s, struct canvas *c, int y)
{
	struct prof_process *p = ui_current(s);
	const char *label = "samples/s ";
	int lw = canvas_text(c, y, 0, c->cols, UI_DIM, false, label);
	canvas_fill(c, y, lw, c->cols - lw, UI_NORMAL);
	if (!p || !p->nseconds)
		return;
	int width = c->cols - lw;
	size_t first = p->nseconds > (size_t)width ? p->nseconds - (size_t)width : 0;
	if (s->time_cursor >= 0 && (size_t)s->time_cursor < first) /* the cursor stays on screen */
		first = (size_t)s->time_cursor;
	size_t end = first + (size_t)width < p->nseconds ? first + (size_t)width : p->nseconds;
	s->timeline_y = y, s->timeline_x0 = lw, s->timeline_cols = width, s->timeline_first = first;
	uint64_t max = 1;
	for (size_t i = first; i < end; i++)
		if (p->per_second[i] > max)
			max = p->per_second[i];
	const struct prof_filter *f = &s->samples;
	bool ranged = f->from_us || f->to_us;
	for (size_t i = first; i < end; i++) {
		bool gc = false;
		for (size_t g = p->ngcs; g-- > 0 && !gc;) {
			size_t sec = (size_t)(p->gcs[g].start_us / 1000000u);
			if (sec < i)
				break;
			gc = sec == i;
		}
		uint64_t at_us = (uint64_t)i * 1000000u;
		bool in_range = ranged && at_us + 1000000u > f->from_us && (!f->to_us || at_us < f->to_us);
		enum ui_style style = (int64_t)i == s->time_cursor ? UI_SELECTED : in_range ? UI_GOOD : gc ? UI_WARN : UI_HOT;
		int level = (int)((p->per_second[i] * 8 + max - 1) / max);
		if ((int64_t)i == s->time_cursor && !level)
			level = 1; /* a cursor on an empty second still shows */
		canvas_level(c, y, lw + (int)(i - first), level, style);
	}
}

bool screen_click_timeline(struct session_screen *s, int y, int x)
{
	if (!s->timeline_cols || y != s->timeline_y || x < s->timeline_x0 || x >= s->timeline_x0 + s->timeline_cols)
		return false;
	struct prof_process *p = ui_current(s);
	size_t sec = s->timeline_first + (size_t)(x - s->timeline_x0);
	if (!p || sec >= p->nseconds)
		return false;
	s->time_cursor = (int64_t)sec;
	return true;
}

/* Milliseconds waited for locks and on wait handles per second, lined up
 * with the samples' seconds; only in a session that has waits. */
static bool has_wait_strip(struct session_screen *s, int rows)
{
	struct prof_process *p = ui_current(s);
	return has_timeline(rows) && rows >= TIMELINE_MIN_ROWS + 2 && p && p->waited_cap;
}

static void draw_wait_strip(struct session_screen *s, struct canvas *c, int y)
{
	struct prof_process *p = ui_current(s);
	const char *label = "waits/s   "; /* as wide as the samples' label */
	int lw = canvas_text(c, y, 0, c->cols, UI_DIM, false, label);
	canvas_fill(c, y, lw, c->cols - lw, UI_NORMAL);
	int width = c->cols - lw;
	size_t n = p->nseconds; /* the samples' seconds set the columns */
	size_t first = n > (size_t)width ? n - (size_t)width : 0;
	uint64_t max = 1;
	for (size_t i = first; i < p->waited_cap && i < n; i++)
		if (p->waited_per_second[i] > max)
			max = p->waited_per_second[i];
	for (size_t i = first; i < p->waited_cap && i < n; i++) {
		uint64_t v = p->waited_per_second[i];
		if (v)
			canvas_level(c, y, lw + (int)(i - first), (int)((v * 8 + max - 1) / max), UI_WARN);
	}
}

void screen_draw_session(struct session_screen *s, struct canvas *c)
{
	s->timeline_cols = 0; /* until the timeline is drawn */
	draw_tabs(s, c);
	bool waits = has_wait_strip(s, c->rows);
	int height = screen_view_height(c->rows) - (waits ? 1 : 0);
	session_screen_show(s, s->shown); /* up to date before it is drawn */
	struct view *v = ui_shown_view(s);
	for (int y = SCREEN_VIEW_TOP; y < SCREEN_VIEW_TOP + height; y++)
		canvas_fill(c, y, 0, c->cols, UI_NORMAL);
	view_draw(v, s, c, SCREEN_VIEW_TOP, height);
	int y = SCREEN_VIEW_TOP + height;
	if (waits)
		draw_wait_strip(s, c, y++);
	if (has_timeline(c->rows))
		draw_timeline(s, c, y++);
	char status[512];
	screen_status_text(s, status, sizeof status);
	canvas_text(c, y++, 0, c->cols, UI_STATUS, true, status);
	canvas_text(c, y, 0, c->cols, s->message_error ? UI_WARN : UI_NORMAL, true, s->message);
}
