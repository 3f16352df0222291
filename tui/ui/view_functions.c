/* Top functions: self and total time per function, sortable, filterable. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ui/session_screen.h"

enum functions_sort { SORT_SELF, SORT_TOTAL, SORT_NAME };

static const struct column columns[] = {
	{"self%", 6, true}, {"total%", 6, true}, {"self", 8, true}, {"total", 8, true}, {"function", 0, false},
};
static const char *const sorts[] = {"self", "total", "name", NULL};

static void update(struct view_ctx *c)
{
	if (c->p)
		prof_compute(c->p);
}

static size_t count(struct view_ctx *c)
{
	return c->p->nfunctions;
}

static bool keep(struct view_ctx *c, uint32_t item)
{
	return c->p->functions[item].total != 0;
}

static bool match(struct view_ctx *c, uint32_t item, const char *filter)
{
	return strstr(c->p->functions[item].name, filter) != NULL;
}

static int compare(struct view_ctx *c, uint32_t a, uint32_t b)
{
	const struct prof_function *x = &c->p->functions[a], *y = &c->p->functions[b];
	switch ((enum functions_sort)c->v->sort) {
	case SORT_TOTAL:
		if (x->total != y->total)
			return x->total > y->total ? -1 : 1;
		break;
	case SORT_NAME:
		return strcmp(x->name, y->name);
	case SORT_SELF:
		if (x->self != y->self)
			return x->self > y->self ? -1 : 1;
		if (x->total != y->total)
			return x->total > y->total ? -1 : 1;
		break;
	}
	return strcmp(x->name, y->name);
}

static void cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct prof_function *f = &c->p->functions[item];
	double all = c->p->samples ? (double)c->p->samples : 1.0;
	switch (col) {
	case 0: snprintf(buf, n, "%.1f", 100.0 * (double)f->self / all); break;
	case 1: snprintf(buf, n, "%.1f", 100.0 * (double)f->total / all); break;
	case 2: snprintf(buf, n, "%" PRIu64, f->self); break;
	case 3: snprintf(buf, n, "%" PRIu64, f->total); break;
	default: snprintf(buf, n, "%s%s%s%s", f->name, f->module[0] ? "  [" : "", f->module, f->module[0] ? "]" : ""); break;
	}
}

static enum ui_style style(struct view_ctx *c, uint32_t item)
{
	return view_function_style(c->p, item);
}

/* Enter: the callers of the function under the cursor; S: its source. */
static bool key(struct view_ctx *c, int k)
{
	uint32_t function;
	bool row = view_selected(c->v, &function);
	switch (k) {
	case 'S':
		if (row)
			session_screen_show_source(c->s, function);
		return true;
	case '\n':
	case KEY_ENTER:
		if (row) {
			c->s->focus = function;
			c->s->views[VIEW_CALLERS].dirty = true;
			session_screen_show(c->s, VIEW_CALLERS);
		}
		return true;
	}
	return false;
}

const struct view_ops view_functions = {
	.name = "Functions",
	.title = "where time goes: self and total per function",
	.samples = true, .update = update,
	VIEW_COLUMNS(columns), .count = count, .keep = keep, .match = match, .compare = compare, .sorts = sorts,
	.cell = cell,
	.style = style,
	.key = key,
};
