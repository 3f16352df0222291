/* The call tree: functions merged along stacks, root first, with
 * expand/collapse and hot path expansion. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/labels.h"
#include "ui/calltree.h"
#include "ui/session_screen.h"
#include "util/xalloc.h"

struct tree {
	struct calltree calls; /* kept between updates: what is open stays open */
	bool *open;            /* by node */
	size_t open_cap;
	uint32_t *visible; /* the nodes shown, in order: the view's items */
	uint16_t *depth;
	size_t nvisible, visible_cap, depth_cap;
};

static const struct column columns[] = {
	{"total%", 6, true}, {"self%", 6, true}, {"samples", 8, true}, {"call tree", 0, false},
};

/* Recounts the tree from the stacks, keeping nodes (and what is open). */
static void build(struct tree *s, struct prof_process *p)
{
	calltree_recount(&s->calls);
	prof_each_stack(p, calltree_count_stack, &s->calls);
	xgrow(&s->open, &s->open_cap, s->calls.n, sizeof *s->open); /* new nodes closed */
}

/* The children of node in decreasing total, and the open ones' below them. */
static void add_visible(struct tree *s, uint32_t node, uint16_t depth)
{
	uint32_t kids[CALLTREE_KIDS_MAX];
	size_t n = calltree_kids(&s->calls, node, kids);
	for (size_t i = 0; i < n; i++) {
		xgrow(&s->visible, &s->visible_cap, s->nvisible + 1, sizeof *s->visible);
		xgrow(&s->depth, &s->depth_cap, s->nvisible + 1, sizeof *s->depth);
		s->visible[s->nvisible] = kids[i];
		s->depth[s->nvisible++] = depth;
		if (s->open[kids[i]])
			add_visible(s, kids[i], (uint16_t)(depth + 1));
	}
}

static void flatten(struct view *v)
{
	struct tree *s = v->priv;
	s->nvisible = 0;
	if (s->calls.n)
		add_visible(s, 0, 0);
	view_set_rows(v, s->nvisible);
}

static void done(void *priv)
{
	struct tree *t = priv;
	calltree_free(&t->calls);
	free(t->open);
	free(t->visible);
	free(t->depth);
}

/* Another process: another tree, all closed. */
static void process_changed(void *priv)
{
	struct tree *t = priv;
	t->calls.n = 0;
	if (t->open)
		memset(t->open, 0, t->open_cap * sizeof *t->open);
}

static void update(struct view_ctx *c)
{
	if (!c->p) {
		view_set_rows(c->v, 0);
		return;
	}
	build(c->priv, c->p);
	flatten(c->v);
}

static void cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct tree *s = c->priv;
	const struct prof_process *p = c->p;
	uint32_t node = s->visible[item];
	const struct calltree_node *t = &s->calls.nodes[node];
	double all = s->calls.nodes[0].total ? (double)s->calls.nodes[0].total : 1.0;
	switch (col) {
	case 0: snprintf(buf, n, "%.1f", 100.0 * (double)t->total / all); break;
	case 1: snprintf(buf, n, "%.1f", 100.0 * (double)t->self / all); break;
	case 2: snprintf(buf, n, "%" PRIu64, t->total); break;
	default: {
		int depth = s->depth[item];
		const char *mark = t->first_child ? (s->open[node] ? "- " : "+ ") : "  ";
		const char *name = t->function < p->nfunctions ? p->functions[t->function].name : cs_label(CS_LABEL_UNKNOWN);
		snprintf(buf, n, "%*s%s%s", depth * 2 > 60 ? 60 : depth * 2, "", mark, name);
	}
	}
}

static enum ui_style style(struct view_ctx *c, uint32_t item)
{
	const struct tree *s = c->priv;
	return view_function_style(c->p, s->calls.nodes[s->visible[item]].function);
}

static bool key(struct view_ctx *c, int k)
{
	struct tree *s = c->priv;
	uint32_t row;
	if (!view_selected(c->v, &row))
		return false;
	uint32_t node = s->visible[row];
	const struct calltree_node *nodes = s->calls.nodes;
	switch (k) {
	case '\n':
	case KEY_ENTER:
	case KEY_RIGHT:
	case 'l':
	case KEY_LEFT:
		if (k == KEY_LEFT && !s->open[node] && nodes[node].parent) {
			/* on a closed node, Left goes up to its parent */
			for (size_t r = 0; r < s->nvisible; r++)
				if (s->visible[r] == nodes[node].parent)
					c->v->lv.cursor = r;
			return true;
		}
		s->open[node] = k == KEY_LEFT ? false : k == KEY_RIGHT || k == 'l' ? true : !s->open[node];
		flatten(c->v);
		return true;
	case 'S':
		if (nodes[node].function != UINT32_MAX)
			session_screen_show_source(c->s, nodes[node].function);
		return true;
	case 'H':
		/* hot path: open the heaviest child, and its heaviest, ... */
		for (uint32_t n = node; n;) {
			s->open[n] = true;
			uint32_t best = 0;
			for (uint32_t ch = nodes[n].first_child; ch; ch = nodes[ch].next)
				if (!best || nodes[ch].total > nodes[best].total)
					best = ch;
			n = best;
		}
		flatten(c->v);
		return true;
	}
	return false;
}

const struct view_ops view_tree = {
	.name = "Tree",
	.title = "the call tree, root first: Enter opens and closes, H opens the hot path",
	.private_size = sizeof(struct tree), .samples = true, .done = done, .update = update,
	.process_changed = process_changed,
	VIEW_COLUMNS(columns),
	.cell = cell,
	.style = style,
	.key = key,
};
