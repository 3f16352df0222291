#include "ui/treerows.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/labels.h"
#include "ui/session_screen.h"
#include "util/xalloc.h"

void tree_rows_free(struct tree_rows *t)
{
	calltree_free(&t->calls);
	free(t->open);
	free(t->visible);
	free(t->depth);
	*t = (struct tree_rows){.open_new = t->open_new};
}

void tree_rows_forget(struct tree_rows *t)
{
	t->calls.n = 0;
	t->placed = 0;
	if (t->open)
		memset(t->open, 0, t->open_cap * sizeof *t->open);
}

void tree_rows_recount(struct tree_rows *t)
{
	calltree_recount(&t->calls);
}

/* The children of node in decreasing total, and the open ones' below them. */
static void add_visible(struct tree_rows *t, uint32_t node, uint16_t depth)
{
	uint32_t kids[CALLTREE_KIDS_MAX];
	size_t n = calltree_kids(&t->calls, node, kids);
	for (size_t i = 0; i < n; i++) {
		xgrow(&t->visible, &t->visible_cap, t->nvisible + 1, sizeof *t->visible);
		xgrow(&t->depth, &t->depth_cap, t->nvisible + 1, sizeof *t->depth);
		t->visible[t->nvisible] = kids[i];
		t->depth[t->nvisible++] = depth;
		if (t->open[kids[i]])
			add_visible(t, kids[i], (uint16_t)(depth + 1));
	}
}

static void flatten(struct tree_rows *t, struct view *v)
{
	t->nvisible = 0;
	if (t->calls.n)
		add_visible(t, 0, 0);
	view_set_rows(v, t->nvisible);
}

void tree_rows_show(struct tree_rows *t, struct view *v)
{
	xgrow(&t->open, &t->open_cap, t->calls.n, sizeof *t->open);
	for (; t->placed < t->calls.n; t->placed++)
		t->open[t->placed] = t->open_new;
	flatten(t, v);
}

const struct calltree_node *tree_rows_node(const struct tree_rows *t, uint32_t item)
{
	return &t->calls.nodes[t->visible[item]];
}

void tree_rows_name(const struct tree_rows *t, const struct prof_process *p, uint32_t item, char *buf, size_t n)
{
	uint32_t node = t->visible[item];
	const struct calltree_node *c = &t->calls.nodes[node];
	int depth = t->depth[item];
	const char *mark = c->first_child ? (t->open[node] ? "- " : "+ ") : "  ";
	const char *name = c->function < p->nfunctions ? p->functions[c->function].name : cs_label(CS_LABEL_UNKNOWN);
	snprintf(buf, n, "%*s%s%s", depth * 2 > 60 ? 60 : depth * 2, "", mark, name);
}

enum ui_style tree_rows_style(const struct tree_rows *t, const struct prof_process *p, uint32_t item)
{
	return view_function_style(p, tree_rows_node(t, item)->function);
}

bool tree_rows_key(struct tree_rows *t, struct view_ctx *c, int k)
{
	uint32_t row;
	if (!view_selected(c->v, &row))
		return false;
	uint32_t node = t->visible[row];
	const struct calltree_node *nodes = t->calls.nodes;
	enum view_tree_move move = view_tree_key(k, t->open[node], nodes[node].parent != 0);
	if (move == TREE_UP) {
		for (size_t r = 0; r < t->nvisible; r++)
			if (t->visible[r] == nodes[node].parent)
				c->v->lv.cursor = r;
		return true;
	}
	if (move != TREE_NO_KEY) {
		t->open[node] = move == TREE_OPEN;
		flatten(t, c->v);
		return true;
	}
	switch (k) {
	case 'S':
		if (nodes[node].function != UINT32_MAX)
			session_screen_show_source(c->s, nodes[node].function);
		return true;
	case 'H':
		/* hot path: open the heaviest child, and its heaviest, ... */
		for (uint32_t n = node; n;) {
			t->open[n] = true;
			uint32_t best = 0;
			for (uint32_t ch = nodes[n].first_child; ch; ch = nodes[ch].next)
				if (!best || nodes[ch].total > nodes[best].total)
					best = ch;
			n = best;
		}
		flatten(t, c->v);
		return true;
	}
	return false;
}
