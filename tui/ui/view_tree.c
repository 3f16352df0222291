/* The call tree: functions merged along stacks, root first, with
 * expand/collapse and hot path expansion. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/session_screen.h"
#include "util/xalloc.h"

/* Functions merged along paths, root first. */
struct tree_node {
	uint32_t function;
	uint32_t parent;            /* node index; 0 = the root */
	uint32_t first_child, next; /* children as a linked list */
	uint64_t total, self;
	bool expanded;
};

struct tree {
	struct tree_node *nodes; /* kept between updates: what is open stays open */
	size_t nnodes, nodes_cap;
	uint32_t *rows; /* visible nodes, in order */
	uint16_t *depth;
	size_t nrows, rows_cap, depth_cap;
	struct listview lv;
};

static const struct column columns[] = {
	{"total%", 6, true}, {"self%", 6, true}, {"samples", 8, true}, {"call tree", 0, false},
};

static uint32_t child_of(struct tree *s, uint32_t node, uint32_t function)
{
	for (uint32_t c = s->nodes[node].first_child; c; c = s->nodes[c].next)
		if (s->nodes[c].function == function)
			return c;
	xgrow(&s->nodes, &s->nodes_cap, s->nnodes + 1, sizeof *s->nodes);
	uint32_t n = (uint32_t)s->nnodes++;
	s->nodes[n] = (struct tree_node){function, node, 0, s->nodes[node].first_child, 0, 0, false};
	s->nodes[node].first_child = n;
	return n;
}

static void count_path(void *ctx, const uint32_t *functions, size_t depth, uint64_t c)
{
	struct tree *s = ctx;
	uint32_t node = 0;
	s->nodes[0].total += c;
	for (size_t d = 0; d < depth; d++) {
		node = child_of(s, node, functions[d]);
		s->nodes[node].total += c;
	}
	s->nodes[node].self += c;
}

/* Recounts the tree from the stacks, keeping nodes (and what is expanded). */
static void build(struct tree *s, struct prof_process *p)
{
	if (!s->nnodes) {
		xgrow(&s->nodes, &s->nodes_cap, 1, sizeof *s->nodes);
		s->nodes[0] = (struct tree_node){UINT32_MAX, 0, 0, 0, 0, 0, true};
		s->nnodes = 1;
	}
	for (size_t i = 0; i < s->nnodes; i++)
		s->nodes[i].total = s->nodes[i].self = 0;
	prof_each_stack(p, count_path, s);
}

/* Children in decreasing total, without sorting the lists themselves. */
static void add_visible(struct tree *s, uint32_t node, uint16_t depth)
{
	uint32_t kids[256];
	size_t n = 0;
	for (uint32_t c = s->nodes[node].first_child; c && n < 256; c = s->nodes[c].next)
		if (s->nodes[c].total)
			kids[n++] = c;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && s->nodes[kids[j]].total > s->nodes[kids[j - 1]].total; j--) {
			uint32_t t = kids[j];
			kids[j] = kids[j - 1];
			kids[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		xgrow(&s->rows, &s->rows_cap, s->nrows + 1, sizeof *s->rows);
		xgrow(&s->depth, &s->depth_cap, s->nrows + 1, sizeof *s->depth);
		s->rows[s->nrows] = kids[i];
		s->depth[s->nrows++] = depth;
		if (s->nodes[kids[i]].expanded)
			add_visible(s, kids[i], (uint16_t)(depth + 1));
	}
}

static void flatten(struct tree *s)
{
	s->nrows = 0;
	if (s->nnodes)
		add_visible(s, 0, 0);
	listview_set_rows(&s->lv, s->nrows);
}

static void *create(void)
{
	struct tree *t = xcalloc(1, sizeof *t);
	t->lv.cols = columns;
	t->lv.ncols = sizeof columns / sizeof *columns;
	return t;
}

static void destroy(void *priv)
{
	struct tree *t = priv;
	if (t) {
		free(t->nodes);
		free(t->rows);
		free(t->depth);
	}
	free(t);
}

static void process_changed(struct view *v)
{
	((struct tree *)v->priv)->nnodes = 0; /* another process: another tree */
}

static void update(struct view *v, struct session_screen *session)
{
	struct tree *s = v->priv;
	struct prof_process *p = ui_samples(session);
	if (!p) {
		s->nrows = 0;
		listview_set_rows(&s->lv, 0);
		return;
	}
	build(s, p);
	flatten(s);
}

struct cell_context {
	struct tree *t;
	struct prof_process *p;
};

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	const struct cell_context *cc = ctx;
	struct tree *s = cc->t;
	struct prof_process *p = cc->p;
	const struct tree_node *t = &s->nodes[s->rows[row]];
	double all = s->nodes[0].total ? (double)s->nodes[0].total : 1.0;
	switch (col) {
	case 0: snprintf(buf, n, "%.1f", 100.0 * (double)t->total / all); break;
	case 1: snprintf(buf, n, "%.1f", 100.0 * (double)t->self / all); break;
	case 2: snprintf(buf, n, "%" PRIu64, t->total); break;
	default: {
		int depth = s->depth[row];
		const char *mark = t->first_child ? (t->expanded ? "- " : "+ ") : "  ";
		const char *name = t->function < p->nfunctions ? p->functions[t->function].name : "[unknown]";
		snprintf(buf, n, "%*s%s%s", depth * 2 > 60 ? 60 : depth * 2, "", mark, name);
	}
	}
}

static void draw(struct view *v, struct session_screen *session, struct canvas *c, int y, int height)
{
	struct cell_context cc = {v->priv, ui_samples(session)};
	listview_draw(&cc.t->lv, c, y, height, cell, NULL, &cc);
}

static bool key(struct view *v, struct session_screen *session, int k)
{
	struct tree *s = v->priv;
	if (listview_key(&s->lv, k))
		return true;
	if (s->lv.cursor >= s->nrows)
		return false;
	uint32_t node = s->rows[s->lv.cursor];
	switch (k) {
	case '\n':
	case KEY_ENTER:
	case KEY_RIGHT:
	case 'l':
	case KEY_LEFT:
		if (k == KEY_LEFT && !s->nodes[node].expanded && s->nodes[node].parent) {
			/* on a closed node, Left goes up to its parent */
			for (size_t r = 0; r < s->nrows; r++)
				if (s->rows[r] == s->nodes[node].parent)
					s->lv.cursor = r;
			return true;
		}
		s->nodes[node].expanded = k == KEY_LEFT ? false : k == KEY_RIGHT || k == 'l' ? true : !s->nodes[node].expanded;
		flatten(s);
		return true;
	case 'S':
		if (s->nodes[node].function != UINT32_MAX)
			session_screen_show_source(session, s->nodes[node].function);
		return true;
	case 'H':
		/* hot path: open the heaviest child, and its heaviest, ... */
		for (uint32_t n = node; n;) {
			s->nodes[n].expanded = true;
			uint32_t best = 0;
			for (uint32_t c = s->nodes[n].first_child; c; c = s->nodes[c].next)
				if (!best || s->nodes[c].total > s->nodes[best].total)
					best = c;
			n = best;
		}
		flatten(s);
		return true;
	}
	return false;
}

static struct listview *list(struct view *v)
{
	return &((struct tree *)v->priv)->lv;
}

const struct view_ops view_tree = {
	.name = "Tree",
	.title = "the call tree, root first: Enter opens and closes, H opens the hot path",
	.create = create,
	.destroy = destroy,
	.update = update,
	.draw = draw,
	.key = key,
	.list = list,
	.process_changed = process_changed,
};
