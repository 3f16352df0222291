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

#include "ui/session_screen.h"
#include "ui/view_diff.h"
#include "ui/view_flame.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define MAX_KIDS 256 /* callees laid out per frame; the lightest beyond are not drawn */

struct flame_node {
	uint32_t function; /* UINT32_MAX: the root */
	uint32_t parent;
	uint32_t first_child, next;
	uint64_t total;
	uint64_t base_total; /* the same path's samples in the base compared with (':diff') */
	bool match; /* its name holds the search text */
};

struct flame {
	struct flame_node *nodes; /* node 0 is the root; kept between updates */
	size_t nnodes, cap;
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

static uint32_t child_of(struct flame *f, uint32_t node, uint32_t function)
{
	for (uint32_t c = f->nodes[node].first_child; c; c = f->nodes[c].next)
		if (f->nodes[c].function == function)
			return c;
	xgrow(&f->nodes, &f->cap, f->nnodes + 1, sizeof *f->nodes);
	uint32_t n = (uint32_t)f->nnodes++;
	f->nodes[n] = (struct flame_node){function, node, 0, f->nodes[node].first_child, 0, 0, false};
	f->nodes[node].first_child = n;
	return n;
}

/* A block is a name: functions the model keeps apart but names alike (the
 * "[native]" of two modules) are one block, as in the folded stacks, and the
 * base's frames find theirs by name. */
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
	f->nodes[0].total += count;
	for (size_t d = 0; d < depth; d++) {
		node = child_of(f, node, functions[d] < f->nby_name ? f->by_name[functions[d]] : functions[d]);
		f->nodes[node].total += count;
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
	f->nodes[0].base_total += count;
	for (size_t d = 0; d < depth; d++) {
		uint32_t fn = functions[d] < b->nfunctions ? b->to_shown[functions[d]] : UINT32_MAX;
		if (fn == UINT32_MAX)
			return;
		node = child_of(f, node, fn);
		f->nodes[node].base_total += count;
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
	f->base_root = f->nodes[0].base_total;
}

/* A frame's callees with samples, heaviest first (the order they are drawn in). */
static size_t kids_of(const struct flame *f, uint32_t node, uint32_t *kids)
{
	size_t n = 0;
	for (uint32_t c = f->nodes[node].first_child; c && n < MAX_KIDS; c = f->nodes[c].next)
		if (f->nodes[c].total)
			kids[n++] = c;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && f->nodes[kids[j]].total > f->nodes[kids[j - 1]].total; j--) {
			uint32_t t = kids[j];
			kids[j] = kids[j - 1];
			kids[j - 1] = t;
		}
	return n;
}

static bool inside(const struct flame *f, uint32_t node, uint32_t ancestor)
{
	for (;; node = f->nodes[node].parent) {
		if (node == ancestor)
			return true;
		if (!node)
			return false;
	}
}

/* ---- names and colours ---- */

static const char *full_name(const struct prof_process *p, const struct flame_node *n)
{
	if (n->function == UINT32_MAX)
		return "all";
	return n->function < p->nfunctions ? p->functions[n->function].name : "[unknown]";
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

static void *create(void)
{
	return xcalloc(1, sizeof(struct flame));
}

static void destroy(void *priv)
{
	struct flame *f = priv;
	if (f) {
		free(f->nodes);
		free(f->by_name);
	}
	free(f);
}

static void process_changed(struct view *v)
{
	struct flame *f = v->priv;
	f->nnodes = 0; /* another process: another graph */
	f->zoom = f->selected = 0;
}

static void mark_matches(struct flame *f, const struct prof_process *p)
{
	f->matches = 0;
	for (size_t i = 0; i < f->nnodes; i++) {
		f->nodes[i].match = f->search[0] && f->nodes[i].total && strstr(full_name(p, &f->nodes[i]), f->search);
		f->matches += f->nodes[i].match;
	}
}

static void update(struct view *v, struct session_screen *s)
{
	struct flame *f = v->priv;
	struct prof_process *p = ui_samples(s);
	if (!f->nnodes) {
		xgrow(&f->nodes, &f->cap, 1, sizeof *f->nodes);
		f->nodes[0] = (struct flame_node){UINT32_MAX, 0, 0, 0, 0, false};
		f->nnodes = 1;
	}
	for (size_t i = 0; i < f->nnodes; i++)
		f->nodes[i].total = f->nodes[i].base_total = 0;
	struct prof_process *base = view_diff_base(&s->views[VIEW_DIFF], &f->base_dir);
	f->diff = base && p && !f->plain;
	f->base_root = 0;
	if (!p)
		return;
	struct strmap names;
	index_names(f, p, &names);
	prof_each_stack(p, count_path, f);
	if (f->diff)
		count_base(f, &names, base);
	strmap_free(&names);
	mark_matches(f, p);
}

/* How a frame's share of all samples moved against the base, in points. */
static double change_points(const struct flame *f, const struct flame_node *n)
{
	double now = f->nodes[0].total ? 100.0 * (double)n->total / (double)f->nodes[0].total : 0.0;
	double then = f->base_root ? 100.0 * (double)n->base_total / (double)f->base_root : 0.0;
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
	const struct flame_node *n = &l->f->nodes[node];
	int x0 = column_of(l, start), x1 = column_of(l, start + n->total);
	if (depth >= l->rows || x1 <= x0)
		return;
	int y = l->top + depth, width = x1 - x0;
	const char *name = full_name(l->p, n);
	enum ui_style by_change = l->f->diff ? change_style(change_points(l->f, n)) : UI_NORMAL;
	enum ui_style style = node == l->f->selected ? UI_SELECTED
			      : n->match		 ? UI_HOT
			      : l->f->diff		 ? by_change
						 : namespace_style(name);
	canvas_fill(l->c, y, x0, width, style);
	const char *mark = l->f->diff && !l->c->color ? change_mark(by_change) : "";
	int used = canvas_text(l->c, y, x0, width - 1, style, false, mark);
	canvas_text(l->c, y, x0 + used, width - 1 - used, style, false, short_name(name));
	/* the block's right edge, so blocks stay apart without colour */
	canvas_text(l->c, y, x1 - 1, 1, style, false, l->c->ascii ? "|" : "\u2595");
	uint32_t kids[MAX_KIDS];
	size_t nkids = kids_of(l->f, node, kids);
	for (size_t i = 0; i < nkids; i++) {
		draw_node(l, kids[i], start, depth + 1);
		start += l->f->nodes[kids[i]].total;
	}
}

/* "all > Main > Run > Heavy": the path from the root to the zoomed frame. */
static void breadcrumb(const struct flame *f, const struct prof_process *p, bool ascii, char *out, size_t n)
{
	uint32_t path[64];
	size_t depth = 0;
	for (uint32_t node = f->zoom; depth < 64; node = f->nodes[node].parent) {
		path[depth++] = node;
		if (!node)
			break;
	}
	size_t len = 0;
	out[0] = 0;
	for (size_t i = depth; i-- > 0 && len < n;)
		len += (size_t)snprintf(out + len, n - len, "%s%s", i + 1 == depth ? "" : ascii ? " > " : " \u203a ",
					short_name(full_name(p, &f->nodes[path[i]])));
}

static void draw(struct view *v, struct session_screen *s, struct canvas *c, int y, int height)
{
	struct flame *f = v->priv;
	struct prof_process *p = ui_samples(s);
	if (!p || f->nnodes < 2 || !f->nodes[0].total) {
		canvas_text(c, y, 1, c->cols - 1, UI_DIM, false, "no samples yet");
		return;
	}
	if (f->zoom >= f->nnodes || !f->nodes[f->zoom].total)
		f->zoom = 0;
	if (f->selected >= f->nnodes || !inside(f, f->selected, f->zoom))
		f->selected = f->zoom;
	char line[1024];
	breadcrumb(f, p, c->ascii, line, sizeof line);
	if (f->diff) {
		size_t len = strlen(line);
		snprintf(line + len, sizeof line - len, "   (against %s: %s)", f->base_dir,
			 c->color ? "red grew, blue shrank" : "+ grew, - shrank");
	}
	canvas_text(c, y, 0, c->cols, UI_HEADER, true, line);
	struct layout l = {f, p, c, y + 1, height - 2, f->nodes[f->zoom].total};
	f->top = l.top, f->rows = l.rows, f->cols = c->cols;
	if (l.rows > 0)
		draw_node(&l, f->zoom, 0, 0);
	if (height < 2)
		return;
	const struct flame_node *sel = &f->nodes[f->selected];
	int len = snprintf(line, sizeof line, "%s: %" PRIu64 " samples, %.1f%% of all", full_name(p, sel), sel->total,
			   100.0 * (double)sel->total / (double)f->nodes[0].total);
	if (f->diff && len > 0 && (size_t)len < sizeof line)
		len += snprintf(line + len, sizeof line - (size_t)len, "; base %.1f%% (%+.1f points)",
				f->base_root ? 100.0 * (double)sel->base_total / (double)f->base_root : 0.0,
				change_points(f, sel));
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
	uint32_t kids[MAX_KIDS];
	size_t n = kids_of(f, f->nodes[f->selected].parent, kids);
	for (size_t i = 0; i < n; i++)
		if (kids[i] == f->selected) {
			if (dir > 0 && i + 1 < n)
				f->selected = kids[i + 1];
			else if (dir < 0 && i > 0)
				f->selected = kids[i - 1];
			return;
		}
}

static bool key(struct view *v, struct session_screen *s, int k)
{
	struct flame *f = v->priv;
	uint32_t kids[MAX_KIDS];
	(void)s;
	if (f->nnodes < 2)
		return false;
	switch (k) {
	case KEY_UP:
	case 'k':
		if (f->selected != f->zoom)
			f->selected = f->nodes[f->selected].parent;
		return true;
	case KEY_DOWN:
	case 'j':
		if (kids_of(f, f->selected, kids))
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
			f->zoom = f->nodes[f->zoom].parent;
		return true;
	}
	return false;
}

/* The frame drawn at column x, depth lines below node (which starts at
 * samples start), as draw_node lays them out; UINT32_MAX when none. */
static uint32_t frame_at(const struct flame *f, uint32_t node, uint64_t start, int depth, int x)
{
	uint64_t scale = f->nodes[f->zoom].total;
	int x0 = column_at(start, f->cols, scale), x1 = column_at(start + f->nodes[node].total, f->cols, scale);
	if (x < x0 || x >= x1)
		return UINT32_MAX;
	if (!depth)
		return node;
	uint32_t kids[MAX_KIDS];
	size_t n = kids_of(f, node, kids);
	for (size_t i = 0; i < n; i++) {
		uint32_t hit = frame_at(f, kids[i], start, depth - 1, x);
		if (hit != UINT32_MAX)
			return hit;
		start += f->nodes[kids[i]].total;
	}
	return UINT32_MAX;
}

/* A click selects the frame under it. */
static bool click(struct view *v, struct session_screen *s, int y, int x)
{
	struct flame *f = v->priv;
	(void)s;
	if (f->nnodes < 2 || !f->cols || f->zoom >= f->nnodes || !f->nodes[f->zoom].total || y < f->top ||
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
static void search(struct view *v, struct session_screen *s, const char *text)
{
	struct flame *f = v->priv;
	struct prof_process *p = ui_samples(s);
	snprintf(f->search, sizeof f->search, "%s", text);
	if (!p)
		return;
	mark_matches(f, p);
	if (!f->search[0] || f->nnodes < 2) {
		session_screen_message(s, false, f->search[0] ? "no samples yet" : "no search");
		return;
	}
	/* depth first, in drawing order */
	uint32_t *stack = NULL, kids[MAX_KIDS];
	size_t depth = 0, cap = 0;
	xgrow(&stack, &cap, 1, sizeof *stack);
	stack[depth++] = 0;
	while (depth) {
		uint32_t node = stack[--depth];
		if (f->nodes[node].match) {
			f->selected = node;
			if (!inside(f, node, f->zoom))
				f->zoom = 0;
			free(stack);
			session_screen_message(s, false, "%zu frame%s match '%s'", f->matches, f->matches == 1 ? "" : "s", f->search);
			return;
		}
		size_t n = kids_of(f, node, kids);
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
	.create = create,
	.destroy = destroy,
	.update = update,
	.draw = draw,
	.key = key,
	.process_changed = process_changed,
	.click = click,
	.search = search,
};
