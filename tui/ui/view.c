#include "ui/view.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/labels.h"
#include "util/xalloc.h"

static bool is_list(const struct view *v)
{
	return v->ops->columns != NULL;
}

static struct view_ctx context(struct view *v, struct session_screen *s)
{
	return (struct view_ctx){v, v->priv, s, v->ops->samples ? v->host->samples(s) : v->host->current(s)};
}

void view_init(struct view *v, const struct view_ops *ops, const struct view_host *host)
{
	*v = (struct view){.ops = ops, .host = host, .dirty = true};
	if (ops->private_size)
		v->priv = xcalloc(1, ops->private_size);
	v->lv.cols = ops->columns;
	v->lv.ncols = ops->ncolumns;
	v->lv.follow = ops->follow;
	if (ops->init)
		ops->init(v->priv);
}

void view_free(struct view *v)
{
	if (!v->ops)
		return;
	if (v->ops->done)
		v->ops->done(v->priv);
	free(v->priv);
	free(v->rows);
	*v = (struct view){0};
}

static int compare_items(const void *a, const void *b, void *ctx)
{
	struct view_ctx *c = ctx;
	return c->v->ops->compare(c, *(const uint32_t *)a, *(const uint32_t *)b);
}

/* The items that are rows and pass the filter, in the view's order. */
static void choose_rows(struct view_ctx *c)
{
	struct view *v = c->v;
	const struct view_ops *ops = v->ops;
	size_t items = c->p ? ops->count(c) : 0, n = 0;
	const char *filter = ops->match ? v->host->filter(c->s) : NULL;
	if (filter && !filter[0])
		filter = NULL;
	xgrow(&v->rows, &v->rows_cap, items + 1, sizeof *v->rows);
	for (size_t i = 0; i < items; i++)
		if ((!ops->keep || ops->keep(c, (uint32_t)i)) && (!filter || ops->match(c, (uint32_t)i, filter)))
			v->rows[n++] = (uint32_t)i;
	if (ops->compare && n)
		qsort_r(v->rows, n, sizeof *v->rows, compare_items, c);
	listview_set_rows(&v->lv, n);
}

void view_set_rows(struct view *v, size_t n)
{
	xgrow(&v->rows, &v->rows_cap, n + 1, sizeof *v->rows);
	for (size_t i = 0; i < n; i++)
		v->rows[i] = (uint32_t)i;
	listview_set_rows(&v->lv, n);
}

void view_update(struct view *v, struct session_screen *s)
{
	struct view_ctx c = context(v, s);
	v->dirty = false;
	if (v->ops->update)
		v->ops->update(&c);
	if (is_list(v) && v->ops->count)
		choose_rows(&c);
}

void view_process_changed(struct view *v)
{
	if (v->ops->process_changed)
		v->ops->process_changed(v->priv);
}

static void cell_of_row(void *ctx, size_t row, int col, char *buf, size_t n)
{
	struct view_ctx *c = ctx;
	c->v->ops->cell(c, c->v->rows[row], col, buf, n);
}

enum ui_style view_function_style(const struct prof_process *p, uint32_t function)
{
	if (function >= p->nfunctions || p->functions[function].module[0])
		return UI_NORMAL;
	const char *name = p->functions[function].name;
	bool marker = strncmp(name, "[await", 6) == 0 || !strcmp(name, cs_label(CS_LABEL_WHEN_ALL)) ||
		      !strcmp(name, cs_label(CS_LABEL_BLOCKING_WAIT));
	return marker ? UI_DIM : UI_NORMAL;
}

static enum ui_style style_of_row(void *ctx, size_t row)
{
	struct view_ctx *c = ctx;
	return c->v->ops->style(c, c->v->rows[row]);
}

void view_draw_list(struct view_ctx *c, struct canvas *cv, int y, int height)
{
	listview_draw(&c->v->lv, cv, y, height, cell_of_row, c->v->ops->style ? style_of_row : NULL, c);
}

void view_draw(struct view *v, struct session_screen *s, struct canvas *cv, int y, int height)
{
	struct view_ctx c = context(v, s);
	if (v->ops->draw) {
		v->ops->draw(&c, cv, y, height);
		return;
	}
	int used = v->ops->header ? v->ops->header(&c, cv, y, height) : 0;
	if (used >= 0)
		view_draw_list(&c, cv, y + used, height - used);
}

/* 's': the next of the view's orders. */
static void next_sort(struct view *v, struct session_screen *s)
{
	int n = 0;
	while (v->ops->sorts[n])
		n++;
	v->sort = (v->sort + 1) % n;
	view_update(v, s);
	v->host->message(s, false, "sorted by %s", v->ops->sorts[v->sort]);
}

bool view_key(struct view *v, struct session_screen *s, int key)
{
	if (is_list(v)) {
		if (listview_key(&v->lv, key))
			return true;
		if (key == 's' && v->ops->sorts) {
			next_sort(v, s);
			return true;
		}
	}
	struct view_ctx c = context(v, s);
	return v->ops->key && v->ops->key(&c, key);
}

bool view_click(struct view *v, struct session_screen *s, int y, int x)
{
	if (v->ops->click) {
		struct view_ctx c = context(v, s);
		return v->ops->click(&c, y, x);
	}
	return is_list(v) && listview_click_screen(&v->lv, y);
}

void view_search(struct view *v, struct session_screen *s, const char *text)
{
	struct view_ctx c = context(v, s);
	if (v->ops->search)
		v->ops->search(&c, text);
}

int view_explain(struct canvas *cv, int y, int height, const char *const *lines)
{
	for (int i = 0; lines[i] && i < height; i++)
		canvas_text(cv, y + i, 1, cv->cols - 1, i ? UI_NORMAL : UI_HEADER, false, lines[i]);
	return -1;
}

struct listview *view_list(struct view *v)
{
	return is_list(v) ? &v->lv : NULL;
}

enum view_tree_move view_tree_key(int k, bool open, bool has_parent)
{
	switch (k) {
	case '\n':
	case KEY_ENTER: return open ? TREE_CLOSE : TREE_OPEN;
	case KEY_RIGHT:
	case 'l': return TREE_OPEN;
	case KEY_LEFT: return !open && has_parent ? TREE_UP : TREE_CLOSE;
	default: return TREE_NO_KEY;
	}
}

bool view_selected(const struct view *v, uint32_t *item)
{
	if (v->lv.cursor >= v->lv.nrows)
		return false;
	*item = v->rows[v->lv.cursor];
	return true;
}
