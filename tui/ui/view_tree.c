/* The call tree: functions merged along stacks, root first, with
 * expand/collapse and hot path expansion. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uisession.h"
#include "xalloc.h"

static const struct column columns[] = {
	{"total%", 6, true}, {"self%", 6, true}, {"samples", 8, true}, {"call tree", 0, false},
};

static uint32_t child_of(struct ui_session *s, uint32_t node, uint32_t function)
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
	struct ui_session *s = ctx;
	uint32_t node = 0;
	s->nodes[0].total += c;
	for (size_t d = 0; d < depth; d++) {
		node = child_of(s, node, functions[d]);
		s->nodes[node].total += c;
	}
	s->nodes[node].self += c;
}

/* Recounts the tree from the stacks, keeping nodes (and what is expanded). */
static void build(struct ui_session *s, struct prof_process *p)
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
static void add_visible(struct ui_session *s, uint32_t node, uint16_t depth)
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
		xgrow(&s->tree_rows, &s->tree_rows_cap, s->ntree_rows + 1, sizeof *s->tree_rows);
		xgrow(&s->tree_depth, &s->tree_depth_cap, s->ntree_rows + 1, sizeof *s->tree_depth);
		s->tree_rows[s->ntree_rows] = kids[i];
		s->tree_depth[s->ntree_rows++] = depth;
		if (s->nodes[kids[i]].expanded)
			add_visible(s, kids[i], (uint16_t)(depth + 1));
	}
}

static void flatten(struct ui_session *s)
{
	s->ntree_rows = 0;
	if (s->nnodes)
		add_visible(s, 0, 0);
	s->tree_lv.cols = columns;
	s->tree_lv.ncols = sizeof columns / sizeof *columns;
	listview_set_rows(&s->tree_lv, s->ntree_rows);
}

static void update(struct ui_session *s)
{
	struct prof_process *p = ui_current(s);
	if (!p) {
		s->ntree_rows = 0;
		listview_set_rows(&s->tree_lv, 0);
		return;
	}
	build(s, p);
	flatten(s);
}

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct ui_session *s = ctx;
	struct prof_process *p = ui_current(s);
	const struct tree_node *t = &s->nodes[s->tree_rows[row]];
	double all = s->nodes[0].total ? (double)s->nodes[0].total : 1.0;
	switch (col) {
	case 0: snprintf(buf, n, "%.1f", 100.0 * (double)t->total / all); break;
	case 1: snprintf(buf, n, "%.1f", 100.0 * (double)t->self / all); break;
	case 2: snprintf(buf, n, "%" PRIu64, t->total); break;
	default: {
		int depth = s->tree_depth[row];
		const char *mark = t->first_child ? (t->expanded ? "- " : "+ ") : "  ";
		const char *name = t->function < p->nfunctions ? p->functions[t->function].name : "[unknown]";
		snprintf(buf, n, "%*s%s%s", depth * 2 > 60 ? 60 : depth * 2, "", mark, name);
	}
	}
}

static void draw(struct ui_session *s, struct canvas *c, int y, int height)
{
	listview_draw(&s->tree_lv, c, y, height, cell, NULL, s);
}

static int key(struct ui_session *s, int k)
{
	if (listview_key(&s->tree_lv, k))
		return KEY_HANDLED | KEY_REDRAW;
	if (s->tree_lv.cursor >= s->ntree_rows)
		return KEY_IGNORED;
	uint32_t node = s->tree_rows[s->tree_lv.cursor];
	switch (k) {
	case '\n':
	case KEY_ENTER:
	case KEY_RIGHT:
	case 'l':
	case KEY_LEFT:
		if (k == KEY_LEFT && !s->nodes[node].expanded && s->nodes[node].parent) {
			/* on a closed node, Left goes up to its parent */
			for (size_t r = 0; r < s->ntree_rows; r++)
				if (s->tree_rows[r] == s->nodes[node].parent)
					s->tree_lv.cursor = r;
			return KEY_HANDLED | KEY_REDRAW;
		}
		s->nodes[node].expanded = k == KEY_LEFT ? false : k == KEY_RIGHT || k == 'l' ? true : !s->nodes[node].expanded;
		flatten(s);
		return KEY_HANDLED | KEY_REDRAW;
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
		return KEY_HANDLED | KEY_REDRAW;
	}
	return KEY_IGNORED;
}

static struct listview *list(struct ui_session *s)
{
	return &s->tree_lv;
}

const struct view_ops view_tree = {"Tree", "the call tree, root first: Enter opens and closes, H opens the hot path", update,
				   draw, key, list};
