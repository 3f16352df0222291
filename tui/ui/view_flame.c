/* The flame graph as an icicle: the root (or the frame zoomed into) on the
 * top line across the whole width, each frame's callees below it, widths
 * proportional to samples, heaviest first.  Arrows move between frames,
 * Enter zooms into one, Backspace or u zooms out, '/' searches.  After
 * ':diff DIR' it is a differential flame graph: each frame coloured by how
 * its share of the samples moved against DIR (red: grew, blue: shrank,
 * deeper for more; '+' and '-' marks without colour). */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/labels.h"
#include "ui/calltree.h"
#include "ui/session_screen.h"
#include "ui/view_diff.h"
#include "ui/view_flame.h"
#include "util/strmap.h"
#include "util/xalloc.h"

struct flame {
	struct calltree calls; /* kept between updates */
	uint64_t *base;        /* by node: the same path's samples in the base compared with (':diff') */
	bool *match;           /* by node: its name holds the search text */
	size_t base_cap, match_cap;
	uint32_t zoom;     /* the frame drawn across the whole width */
	uint32_t selected; /* the frame under the cursor */
	char search[128];
	bool plain;         /* ':flame plain': namespace colours even with a base */
	bool diff;          /* a base is compared with (and not plain): colours by change */
	uint64_t base_root; /* the base's samples */
	const char *base_dir;
	size_t matches;
	int top, rows, cols; /* where the graph was drawn last, for clicks */
	uint32_t *by_name;   /* function -> the shown process's first function of its name */
	size_t nby_name, by_name_cap;
};

/* ---- the tree of frames ---- */

/* A block is a name: functions the model keeps apart but names alike (a
 * method of that name in two assemblies) are one block, as in the folded
 * stacks, and the base's frames find theirs by name. */
static void index_names(struct flame *f, const struct prof_process *p, struct strmap *names)
{
	strmap_init(names);
	xgrow(&f->by_name, &f->by_name_cap, p->nfunctions ? p->nfunctions : 1, sizeof *f->by_name);
	f->nby_name = p->nfunctions;
	for (size_t i = 0; i < p->nfunctions; i++) {
		const char *name = p->functions[i].name;
		f->by_name[i] = (uint32_t)i;
		if (name && !strmap_get(names, name, strlen(name), &f->by_name[i]))
			strmap_add(names, name, strlen(name), (uint32_t)i);
	}
}

static void count_path(void *ctx, const uint32_t *functions, size_t depth, uint64_t count)
{
	struct flame *f = ctx;
	uint32_t node = 0;
	f->calls.nodes[0].total += count;
	for (size_t d = 0; d < depth; d++) {
		node = calltree_child(&f->calls, node, functions[d] < f->nby_name ? f->by_name[functions[d]] : functions[d]);
		f->calls.nodes[node].total += count;
	}
}

/* The base's stacks, their functions named as the shown process names
 * them (by name, as the Diff view matches them): a path leaves the tree at
 * its first function the shown process does not have. */
struct base_count {
	struct flame *f;
	const uint32_t *to_shown; /* base function -> shown function, UINT32_MAX: none */
	size_t nfunctions;
};

static void count_base_path(void *ctx, const uint32_t *functions, size_t depth, uint64_t count)
{
	struct base_count *b = ctx;
	struct flame *f = b->f;
	uint32_t node = 0;
	f->base[0] += count;
	for (size_t d = 0; d < depth; d++) {
		uint32_t fn = functions[d] < b->nfunctions ? b->to_shown[functions[d]] : UINT32_MAX;
		if (fn == UINT32_MAX)
			return;
		node = calltree_child(&f->calls, node, fn);
		xgrow(&f->base, &f->base_cap, f->calls.n, sizeof *f->base);
		f->base[node] += count;
	}
}

static void count_base(struct flame *f, const struct strmap *names, const struct prof_process *base)
{
	uint32_t *to_shown = xcalloc(base->nfunctions ? base->nfunctions : 1, sizeof *to_shown);
	for (size_t i = 0; i < base->nfunctions; i++) {
		const char *name = base->functions[i].name;
		if (!name || !strmap_get(names, name, strlen(name), &to_shown[i]))
			to_shown[i] = UINT32_MAX;
	}
	struct base_count b = {f, to_shown, base->nfunctions};
	prof_each_stack(base, count_base_path, &b);
	free(to_shown);
	f->base_root = f->base[0];
}

/* ---- names and colours ---- */

static const char *full_name(const struct prof_process *p, const struct calltree_node *n)
{
	if (n->function == UINT32_MAX)
		return "all";
	return n->function < p->nfunctions ? p->functions[n->function].name : cs_label(CS_LABEL_UNKNOWN);
}

/* "Clrscope.TestApps.Program+Worker.Heavy" -> "Worker.Heavy": the method
 * and its type without namespace or enclosing types, what fits a block. */
static const char *short_name(const char *name)
{
	const char *m = strrchr(name, '.');
	if (!m || m == name)
		return name;
	const char *t = m - 1;
	if (*t == '.' && t > name) /* a constructor: "String..ctor" */
		t--;
	while (t > name && t[-1] != '.' && t[-1] != '+')
		t--;
	return t;
}

/* One of four colours by namespace (the name's first two parts), so the
 * program's own frames stand apart from the framework's. */
static enum ui_style namespace_style(const char *name)
{
	uint32_t h = 2166136261u;
	int dots = 0;
	for (const char *c = name; *c && *c != '+' && *c != '('; c++) {
		if (*c == '.' && ++dots == 2)
			break;
		h = (h ^ (unsigned char)*c) * 16777619u;
	}
	return (enum ui_style)(UI_FLAME1 + h % 4);
}

/* ---- the view ---- */

static void done(void *priv)
{
	struct flame *f = priv;
	calltree_free(&f->calls);
	free(f->base);
	free(f->match);
	free(f->by_name);
}

static void process_changed(void *priv)
{
	struct flame *f = priv;
	f->calls.n = 0; /* another process: another graph */
	f->zoom = f->selected = 0;
}

static void mark_matches(struct flame *f, const struct prof_process *p)
{
	f->matches = 0;
	xgrow(&f->match, &f->match_cap, f->calls.n, sizeof *f->match);
	for (size_t i = 0; i < f->calls.n; i++) {
		const struct calltree_node *n = &f->calls.nodes[i];
		f->match[i] = f->search[0] && n->total && strstr(full_name(p, n), f->search);
		f->matches += f->match[i];
	}
}

static void update(struct view_ctx *c)
{
	struct flame *f = c->priv;
	struct prof_process *p = c->p;
	calltree_recount(&f->calls);
	if (f->base)
		memset(f->base, 0, f->base_cap * sizeof *f->base);
	struct prof_process *base = view_diff_base(&c->s->views[VIEW_DIFF], &f->base_dir);
	f->diff = base && p && !f->plain;
	f->base_root = 0;
	if (!p)
		return;
	struct strmap names;
	index_names(f, p, &names);
	prof_each_stack(p, count_path, f);
	xgrow(&f->base, &f->base_cap, f->calls.n, sizeof *f->base); /* a base count for every node (xgrow zeroes) */
	if (f->diff)
		count_base(f, &names, base);
	strmap_free(&names);
	mark_matches(f, p);
}

/* How a frame's share of all samples moved against the base, in points. */
static double change_points(const struct flame *f, uint32_t node)
{
	const struct calltree_node *root = &f->calls.nodes[0];
	double now = root->total ? 100.0 * (double)f->calls.nodes[node].total / (double)root->total : 0.0;
	double then = f->base_root ? 100.0 * (double)f->base[node] / (double)f->base_root : 0.0;
	return now - then;
}

/* Red for a share that grew, blue for one that shrank, three depths by
 * how far (under half a point is noise at these counts: grey). */
static enum ui_style change_style(double points)
{
	double a = points < 0 ? -points : points;
	int level = a < 0.5 ? 0 : a < 5 ? 1 : a < 15 ? 2 : 3;
	if (!level)
		return UI_SAME;
	return (enum ui_style)((points > 0 ? UI_GROW1 : UI_SHRINK1) + level - 1);
}

/* Without colour the change is marked in the block: "+", "++", "+++" (or
 * '-'), nothing for a share that held. */
static const char *change_mark(enum ui_style style)
{
	switch (style) {
	case UI_GROW1: return "+";
	case UI_GROW2: return "++";
	case UI_GROW3: return "+++";
	case UI_SHRINK1: return "-";
	case UI_SHRINK2: return "--";
	case UI_SHRINK3: return "---";
	default: return "";
	}
}

struct layout {
	struct flame *f;
	struct prof_process *p;
	struct canvas *c;
	int top, rows; /* the lines of the graph */
	uint64_t scale; /* samples across the whole width: the zoomed frame's */
};

static int column_at(uint64_t samples, int cols, uint64_t scale)
{
	return (int)(samples * (uint64_t)cols / scale);
}

static int column_of(const struct layout *l, uint64_t samples)
{
	return column_at(samples, l->c->cols, l->scale);
}

/* Draws a frame as a block starting at samples start, then its callees
 * below it, side by side. */
static void draw_node(const struct layout *l, uint32_t node, uint64_t start, int depth)
{
	const struct calltree_node *n = &l->f->calls.nodes[node];
	int x0 = column_of(l, start), x1 = column_of(l, start + n->total);
	if (depth >= l->rows || x1 <= x0)
		return;
	int y = l->top + depth, width = x1 - x0;
	const char *name = full_name(l->p, n);
	enum ui_style by_change = l->f->diff ? change_style(change_points(l->f, node)) : UI_NORMAL;
	enum ui_style style = node == l->f->selected ? UI_SELECTED
			      : l->f->match[node]	 ? UI_HOT
			      : l->f->diff		 ? by_change
			      : view_function_style(l->p, n->function) == UI_DIM ? UI_DIM
									 : namespace_style(name);
	canvas_fill(l->c, y, x0, width, style);
	const char *mark = l->f->diff && !l->c->color ? change_mark(by_change) : "";
	int used = canvas_text(l->c, y, x0, width - 1, style, false, mark);
	canvas_text(l->c, y, x0 + used, width - 1 - used, style, false, short_name(name));
	/* the block's right edge, so blocks stay apart without colour */
	canvas_text(l->c, y, x1 - 1, 1, style, false, l->c->ascii ? "|" : "\u2595");
	uint32_t kids[CALLTREE_KIDS_MAX];
	size_t nkids = calltree_kids(&l->f->calls, node, kids);
	for (size_t i = 0; i < nkids; i++) {
		draw_node(l, kids[i], start, depth + 1);
		start += l->f->calls.nodes[kids[i]].total;
	}
}

/* "all > Main > Run > Heavy": the path from the root to the zoomed frame. */
static void breadcrumb(const struct flame *f, const struct prof_process *p, bool ascii, char *out, size_t n)
{
	uint32_t path[64];
	size_t depth = 0;
	for (uint32_t node = f->zoom; depth < 64; node = f->calls.nodes[node].parent) {
		path[depth++] = node;
		if (!node)
			break;
	}
	size_t len = 0;
	out[0] = 0;
	for (size_t i = depth; i-- > 0 && len < n;)
		len += (size_t)snprintf(out + len, n - len, "%s%s", i + 1 == depth ? "" : ascii ? " > " : " \u203a ",
					short_name(full_name(p, &f->calls.nodes[path[i]])));
}

static void draw(struct view_ctx *vc, struct canvas *c, int y, int height)
{
	struct flame *f = vc->priv;
	struct prof_process *p = vc->p;
	if (!p || f->calls.n < 2 || !f->calls.nodes[0].total) {
		canvas_text(c, y, 1, c->cols - 1, UI_DIM, false, "no samples yet");
		return;
	}
	if (f->zoom >= f->calls.n || !f->calls.nodes[f->zoom].total)
		f->zoom = 0;
	if (f->selected >= f->calls.n || !calltree_inside(&f->calls, f->selected, f->zoom))
		f->selected = f->zoom;
	char line[1024];
	breadcrumb(f, p, c->ascii, line, sizeof line);
	if (f->diff) {
		size_t len = strlen(line);
		snprintf(line + len, sizeof line - len, "   (against %s: %s)", f->base_dir,
			 c->color ? "red grew, blue shrank" : "+ grew, - shrank");
	}
	canvas_text(c, y, 0, c->cols, UI_HEADER, true, line);
	struct layout l = {f, p, c, y + 1, height - 2, f->calls.nodes[f->zoom].total};
	f->top = l.top, f->rows = l.rows, f->cols = c->cols;
	if (l.rows > 0)
		draw_node(&l, f->zoom, 0, 0);
	if (height < 2)
		return;
	const struct calltree_node *sel = &f->calls.nodes[f->selected];
	int len = snprintf(line, sizeof line, "%s: %" PRIu64 " samples, %.1f%% of all", full_name(p, sel), sel->total,
			   100.0 * (double)sel->total / (double)f->calls.nodes[0].total);
	if (f->diff && len > 0 && (size_t)len < sizeof line)
		len += snprintf(line + len, sizeof line - (size_t)len, "; base %.1f%% (%+.1f points)",
				f->base_root ? 100.0 * (double)f->base[f->selected] / (double)f->base_root : 0.0,
				change_points(f, f->selected));
	if (f->search[0] && len > 0 && (size_t)len < sizeof line)
		snprintf(line + len, sizeof line - (size_t)len, "  (%zu frame%s match '%s')", f->matches,
			 f->matches == 1 ? "" : "s", f->search);
	canvas_text(c, y + height - 1, 0, c->cols, UI_DIM, true, line);
}

/* The next (dir 1) or previous (dir -1) callee of the selected frame's caller. */
static void move_sideways(struct flame *f, int dir)
{
	if (f->selected == f->zoom)
		return;
	uint32_t kids[CALLTREE_KIDS_MAX];
	size_t n = calltree_kids(&f->calls, f->calls.nodes[f->selected].parent, kids);
	for (size_t i = 0; i < n; i++)
		if (kids[i] == f->selected) {
			if (dir > 0 && i + 1 < n)
				f->selected = kids[i + 1];
			else if (dir < 0 && i > 0)
				f->selected = kids[i - 1];
			return;
		}
}

static bool key(struct view_ctx *c, int k)
{
	struct flame *f = c->priv;
	uint32_t kids[CALLTREE_KIDS_MAX];
	if (f->calls.n < 2)
		return false;
	switch (k) {
	case KEY_UP:
	case 'k':
		if (f->selected != f->zoom)
			f->selected = f->calls.nodes[f->selected].parent;
		return true;
	case KEY_DOWN:
	case 'j':
		if (calltree_kids(&f->calls, f->selected, kids))
			f->selected = kids[0];
		return true;
	case KEY_LEFT:
		move_sideways(f, -1);
		return true;
	case KEY_RIGHT:
		move_sideways(f, 1);
		return true;
	case '\n':
	case KEY_ENTER:
		f->zoom = f->selected;
		return true;
	case KEY_BACKSPACE:
	case 127:
	case '\b':
	case 'u':
		if (f->zoom)
			f->zoom = f->calls.nodes[f->zoom].parent;
		return true;
	}
	return false;
}

/* The frame drawn at column x, depth lines below node (which starts at
 * samples start), as draw_node lays them out; UINT32_MAX when none. */
static uint32_t frame_at(const struct flame *f, uint32_t node, uint64_t start, int depth, int x)
{
	uint64_t scale = f->calls.nodes[f->zoom].total;
	int x0 = column_at(start, f->cols, scale), x1 = column_at(start + f->calls.nodes[node].total, f->cols, scale);
	if (x < x0 || x >= x1)
		return UINT32_MAX;
	if (!depth)
		return node;
	uint32_t kids[CALLTREE_KIDS_MAX];
	size_t n = calltree_kids(&f->calls, node, kids);
	for (size_t i = 0; i < n; i++) {
		uint32_t hit = frame_at(f, kids[i], start, depth - 1, x);
		if (hit != UINT32_MAX)
			return hit;
		start += f->calls.nodes[kids[i]].total;
	}
	return UINT32_MAX;
}

/* A click selects the frame under it. */
static bool click(struct view_ctx *c, int y, int x)
{
	struct flame *f = c->priv;
	if (f->calls.n < 2 || !f->cols || f->zoom >= f->calls.n || !f->calls.nodes[f->zoom].total || y < f->top ||
	    y >= f->top + f->rows)
		return false;
	uint32_t hit = frame_at(f, f->zoom, 0, y - f->top, x);
	if (hit == UINT32_MAX)
		return false;
	f->selected = hit;
	return true;
}

/* Marks the frames whose name holds text and selects the first, heaviest
 * first from the root; zooms out when it lies outside the zoomed frame. */
static void search(struct view_ctx *c, const char *text)
{
	struct flame *f = c->priv;
	struct session_screen *s = c->s;
	struct prof_process *p = c->p;
	snprintf(f->search, sizeof f->search, "%s", text);
	if (!p)
		return;
	mark_matches(f, p);
	if (!f->search[0] || f->calls.n < 2) {
		session_screen_message(s, false, f->search[0] ? "no samples yet" : "no search");
		return;
	}
	/* depth first, in drawing order */
	uint32_t *stack = NULL, kids[CALLTREE_KIDS_MAX];
	size_t depth = 0, cap = 0;
	xgrow(&stack, &cap, 1, sizeof *stack);
	stack[depth++] = 0;
	while (depth) {
		uint32_t node = stack[--depth];
		if (f->match[node]) {
			f->selected = node;
			if (!calltree_inside(&f->calls, node, f->zoom))
				f->zoom = 0;
			free(stack);
			session_screen_message(s, false, "%zu frame%s match '%s'", f->matches, f->matches == 1 ? "" : "s", f->search);
			return;
		}
		size_t n = calltree_kids(&f->calls, node, kids);
		xgrow(&stack, &cap, depth + n, sizeof *stack);
		for (size_t i = n; i-- > 0;)
			stack[depth++] = kids[i];
	}
	free(stack);
	session_screen_message(s, true, "no frame matches '%s'", f->search);
}

void view_flame_by_change(struct view *v, bool by_change)
{
	((struct flame *)v->priv)->plain = !by_change;
	v->dirty = true;
}

const struct view_ops view_flame = {
	.name = "Flame",
	.title = "the flame graph, root on top: arrows move, Enter zooms in, u zooms out, / searches",
	.private_size = sizeof(struct flame), .samples = true, .done = done, .update = update,
	.process_changed = process_changed,
	.draw = draw,
	.key = key, .click = click, .search = search,
};
