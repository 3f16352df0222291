/* The latest heap snapshot's object graph (profile/heapanalysis.h):
 * Paths, the grouped paths from the roots to the objects of one type
 * (Enter on a type in Heap), and Dominators, the dominator tree: each row
 * retains the rows below it, the largest first; Enter opens and closes.
 *
 * The analysis is the process's (prof_heap_analysis), one snapshot's at a
 * time: Paths copies what it shows, Dominators checks at each use that
 * the analysis is still the one its rows were made from. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/heapanalysis.h"
#include "ui/session_screen.h"
#include "util/xalloc.h"

/* The latest snapshot with an object graph, analysed; NULL (with why). */
static struct heap_analysis *latest_analysis(struct prof_process *p, const struct prof_heap **h, char *err,
					     size_t errlen)
{
	*h = NULL;
	if (!p) {
		snprintf(err, errlen, "no process shown");
		return NULL;
	}
	const struct prof_heap **v;
	size_t n = prof_heap_snapshots(p, true, &v);
	*h = n ? v[n - 1] : NULL;
	free(v);
	if (!*h) {
		snprintf(err, errlen, "no heap snapshot with an object graph yet (h takes one)");
		return NULL;
	}
	return prof_heap_analysis(p, *h, err, errlen);
}

/* ---- Paths ---- */

struct path_row {
	uint64_t count, bytes, retained;
	char *path;
};

struct paths {
	struct path_row *rows;
	size_t n;
	char type[1024]; /* its full name, as found */
	uint64_t seq, count, bytes, retained;
	char why[300]; /* when there are no rows */
};

static void paths_clear(struct paths *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->rows[i].path);
	free(s->rows);
	s->rows = NULL;
	s->n = 0;
}

static void paths_done(void *priv)
{
	paths_clear(priv);
}

static void paths_update(struct view_ctx *c)
{
	struct paths *s = c->priv;
	paths_clear(s);
	s->why[0] = 0;
	snprintf(s->type, sizeof s->type, "%s", c->s->heap_type);
	const struct prof_heap *h;
	struct heap_analysis *a = latest_analysis(c->p, &h, s->why, sizeof s->why);
	if (!c->s->heap_type[0]) {
		snprintf(s->why, sizeof s->why, "no type chosen: Enter on a type in the Heap view");
		a = NULL;
	}
	uint32_t t = a ? ha_type_named(a, c->s->heap_type) : HG_NO_TYPE;
	if (a && t == HG_NO_TYPE)
		snprintf(s->why, sizeof s->why, "no object of type %s in heap snapshot %" PRIu64, c->s->heap_type, h->seq);
	if (t == HG_NO_TYPE) {
		view_set_rows(c->v, 0);
		return;
	}
	s->seq = h->seq;
	s->count = a->types[t].count;
	s->bytes = a->types[t].bytes;
	s->retained = a->types[t].retained;
	struct ha_path *groups;
	s->n = ha_paths(a, t, &groups);
	s->rows = xmalloc((s->n ? s->n : 1) * sizeof *s->rows);
	char text[4096];
	for (size_t i = 0; i < s->n; i++) {
		ha_path_text(a, groups[i].link, text, sizeof text);
		s->rows[i] = (struct path_row){groups[i].count, groups[i].bytes, groups[i].retained, xstrdup(text)};
	}
	free(groups);
	view_set_rows(c->v, s->n);
}

static const struct column path_columns[] = {
	{"count", 10, true}, {"bytes", 12, true}, {"retained", 12, true}, {"path from a root", 0, false},
};

static void paths_cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct path_row *r = &((struct paths *)c->priv)->rows[item];
	switch (col) {
	case 0: snprintf(buf, n, "%" PRIu64, r->count); break;
	case 1: snprintf(buf, n, "%" PRIu64, r->bytes); break;
	case 2: snprintf(buf, n, "%" PRIu64, r->retained); break;
	default: snprintf(buf, n, "%s", r->path); break;
	}
}

static int paths_header(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	const struct paths *s = c->priv;
	if (!s->n) {
		const char *lines[] = {"No paths to show.", s->why,
				       "Enter on a type in the Heap view shows the paths from the roots to its objects.",
				       NULL};
		return view_explain(cv, y, height, lines);
	}
	char head[1400];
	snprintf(head, sizeof head,
		 "%s in snapshot %" PRIu64 ": %" PRIu64 " objects, %" PRIu64 " bytes, retaining %" PRIu64
		 "; each object's shortest path, grouped",
		 s->type, s->seq, s->count, s->bytes, s->retained);
	canvas_text(cv, y, 1, cv->cols - 1, UI_DIM, false, head);
	return 1;
}

const struct view_ops view_paths = {
	.name = "Paths",
	.title = "the paths from the roots to the objects of a type (Enter on a type in Heap)",
	.private_size = sizeof(struct paths), .done = paths_done, .update = paths_update,
	VIEW_COLUMNS(path_columns),
	.cell = paths_cell, .header = paths_header,
};

/* ---- Dominators ---- */

#define CHILDREN_SHOWN 100 /* children listed under an open node; the rest on one line */

struct dom_row {
	uint32_t node;  /* its dominator tree node; for a "more" row, its parent */
	uint16_t depth;
	uint32_t more;  /* a row of the children not listed: how many (0: a node's row) */
	uint64_t more_retained;
};

struct dominators_view {
	uint64_t seq; /* the snapshot the rows are of (0: none) */
	const struct heap_analysis *a;
	uint8_t *open; /* by node */
	struct dom_row *rows;
	size_t n, cap;
	char why[300];
};

static void dom_done(void *priv)
{
	struct dominators_view *s = priv;
	free(s->open);
	free(s->rows);
}

static void process_changed(void *priv)
{
	struct dominators_view *s = priv;
	s->seq = 0;
}

static void add_row(struct dominators_view *s, struct dom_row r)
{
	xgrow(&s->rows, &s->cap, s->n + 1, sizeof *s->rows);
	s->rows[s->n++] = r;
}

/* The children of node (most retained first), and the open ones' below
 * them, without recursion: a stack of the nodes whose children are being
 * listed, each with its next child. */
static void add_children(struct dominators_view *s, uint32_t node)
{
	const struct heap_analysis *a = s->a;
	struct frame {
		uint32_t node, next, shown;
	};
	struct frame *stack = NULL;
	size_t sp = 0, cap = 0;
	xgrow(&stack, &cap, 1, sizeof *stack);
	stack[sp++] = (struct frame){node, a->child_start[node], 0};
	while (sp) {
		struct frame *f = &stack[sp - 1];
		uint32_t end = a->child_start[f->node + 1];
		if (f->next == end) {
			sp--;
			continue;
		}
		if (f->shown == CHILDREN_SHOWN) {
			uint64_t bytes = 0;
			for (uint32_t i = f->next; i < end; i++)
				bytes += a->retained[a->children[i]];
			add_row(s, (struct dom_row){f->node, (uint16_t)(sp - 1), end - f->next, bytes});
			f->next = end;
			continue;
		}
		uint32_t child = a->children[f->next++];
		f->shown++;
		add_row(s, (struct dom_row){child, (uint16_t)(sp - 1), 0, 0});
		if (s->open[child]) {
			xgrow(&stack, &cap, sp + 1, sizeof *stack);
			stack[sp++] = (struct frame){child, a->child_start[child], 0};
		}
	}
	free(stack);
}

static void flatten(struct view *v)
{
	struct dominators_view *s = v->priv;
	s->n = 0;
	if (s->a)
		add_children(s, 0);
	view_set_rows(v, s->n);
}

static void dom_update(struct view_ctx *c)
{
	struct dominators_view *s = c->priv;
	const struct prof_heap *h;
	s->why[0] = 0;
	s->a = latest_analysis(c->p, &h, s->why, sizeof s->why);
	if (!s->a || h->seq != s->seq) { /* another snapshot: all closed */
		free(s->open);
		s->open = s->a ? xcalloc(s->a->g.n, 1) : NULL;
		s->seq = s->a ? h->seq : 0;
	}
	flatten(c->v);
}

/* The analysis the rows were made from, when it is still the process's. */
static const struct heap_analysis *current(struct view_ctx *c)
{
	const struct dominators_view *s = c->priv;
	const struct prof_process *p = c->p;
	return s->a && p && p->analysis == s->a && p->analysis_seq == s->seq ? s->a : NULL;
}

static const struct column dom_columns[] = {
	{"retained", 12, true}, {"%", 6, true}, {"bytes", 10, true}, {"dominated", 10, true}, {"object", 0, false},
};

static void dom_cell(struct view_ctx *c, uint32_t item, int col, char *buf, size_t n)
{
	const struct dominators_view *s = c->priv;
	const struct heap_analysis *a = current(c);
	if (!a)
		return;
	const struct dom_row *r = &s->rows[item];
	uint64_t retained = r->more ? r->more_retained : a->retained[r->node];
	double all = a->retained[0] ? (double)a->retained[0] : 1.0;
	switch (col) {
	case 0: snprintf(buf, n, "%" PRIu64, retained); break;
	case 1: snprintf(buf, n, "%.1f", 100.0 * (double)retained / all); break;
	case 2:
		if (!r->more)
			snprintf(buf, n, "%" PRIu64, a->g.size[r->node]);
		break;
	case 3:
		if (!r->more)
			snprintf(buf, n, "%" PRIu32, a->child_start[r->node + 1] - a->child_start[r->node]);
		break;
	default: {
		int indent = r->depth * 2 > 60 ? 60 : r->depth * 2;
		if (r->more) {
			snprintf(buf, n, "%*s  (%" PRIu32 " more)", indent, "", r->more);
			break;
		}
		bool leaf = a->child_start[r->node] == a->child_start[r->node + 1];
		snprintf(buf, n, "%*s%s%s @%" PRIx64, indent, "", leaf ? "  " : s->open[r->node] ? "- " : "+ ",
			 a->g.type_names[a->g.type[r->node]], a->g.address[r->node]);
	}
	}
}

static int dom_header(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	const struct dominators_view *s = c->priv;
	const struct heap_analysis *a = current(c);
	if (!a) {
		const char *lines[] = {"No dominator tree to show.", s->why[0] ? s->why : "the snapshot changed: press a key",
				       NULL};
		return view_explain(cv, y, height, lines);
	}
	char head[300];
	snprintf(head, sizeof head,
		 "snapshot %" PRIu64 ": %" PRIu64 " objects, %" PRIu64 " bytes; each object retains those below it "
		 "(Enter: open, Left: up, p: paths to its type)",
		 s->seq, a->objects, a->bytes);
	canvas_text(cv, y, 1, cv->cols - 1, UI_DIM, false, head);
	return 1;
}

static bool dom_key(struct view_ctx *c, int k)
{
	struct dominators_view *s = c->priv;
	const struct heap_analysis *a = current(c);
	uint32_t item;
	if (!a) {
		dom_update(c);
		return true;
	}
	if (!view_selected(c->v, &item))
		return false;
	const struct dom_row *r = &s->rows[item];
	uint32_t node = r->node;
	if (r->more) /* a "more" row: its keys do nothing */
		return k == 'p' || view_tree_key(k, false, false) != TREE_NO_KEY;
	enum view_tree_move move = view_tree_key(k, s->open[node], a->dom.idom[node] != 0);
	if (move == TREE_UP) { /* (a node's parent is its dominator) */
		for (size_t i = item; i-- > 0;)
			if (!s->rows[i].more && s->rows[i].node == a->dom.idom[node]) {
				c->v->lv.cursor = i;
				break;
			}
		return true;
	}
	if (move != TREE_NO_KEY) {
		s->open[node] = move == TREE_OPEN;
		flatten(c->v);
		return true;
	}
	switch (k) {
	case 'p':
		session_screen_show_paths(c->s, a->g.type_names[a->g.type[node]]);
		return true;
	}
	return false;
}

static void dom_draw(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	struct dominators_view *s = c->priv;
	if (s->a && !current(c))
		dom_update(c); /* another snapshot's analysis was made meanwhile */
	int used = dom_header(c, cv, y, height);
	if (used >= 0)
		view_draw_list(c, cv, y + used, height - used);
}

const struct view_ops view_dominators = {
	.name = "Dominators",
	.title = "the latest heap snapshot's dominator tree: what retains the memory; Enter opens and closes",
	.private_size = sizeof(struct dominators_view), .done = dom_done, .update = dom_update,
	.process_changed = process_changed,
	VIEW_COLUMNS(dom_columns),
	.cell = dom_cell, .header = dom_header, .draw = dom_draw, .key = dom_key,
};
