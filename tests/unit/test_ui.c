/* The terminal UI's layout and widgets, drawn on an in-memory canvas:
 * no terminal involved. */
#include <curses.h>
#include <locale.h>
#include <stdlib.h>

#include "check.h"
#include "common/newsession.h"
#include "common/session.h"
#include "profile/merge.h"
#include "testutil.h"
#include "ui/canvas.h"
#include "ui/commands.h"
#include "ui/help.h"
#include "ui/listview.h"
#include "ui/screen.h"
#include "ui/session_screen.h"
#include "util/xalloc.h"

static struct cs_str S(const char *s)
{
	return (struct cs_str){s, strlen(s)};
}

/* What a fake process recorded before its samples: its HELLO, threads,
 * frames and stacks. */
struct fake_process {
	uint32_t pid, rate_hz;
	const struct cs_thread *threads;
	int nthreads;
	const struct cs_frame_def *frames;
	int nframes;
	const struct cs_stack_def *stacks;
	int nstacks;
};

/* Writes fp's first segment in the session dir: those records, then one
 * SAMPLES record of the ticks encoded in samples. */
static void write_fake_process(const char *dir, const struct fake_process *fp, const struct cs_out *samples)
{
	char err[256], proc[512];
	cs_proc_dir_create(dir, (pid_t)fp->pid, proc, sizeof proc, err, sizeof err);
	uint8_t buf[8192], payload[2048];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_hello h = {fp->pid, 1, 0, CS_LOAD_STARTUP, fp->rate_hz, S("0.1.0"), S("CoreCLR 10"),
			     S("dotnet app.dll"), S("/x"), 0};
	cs_hello_encode(&p, &h);
	put_record(&o, CS_REC_HELLO, p.buf, p.len);
	for (int i = 0; i < fp->nthreads; i++) {
		cs_out_init(&p, payload, sizeof payload);
		cs_thread_encode(&p, &fp->threads[i]);
		put_record(&o, CS_REC_THREAD, p.buf, p.len);
	}
	cs_out_init(&p, payload, sizeof payload);
	for (int i = 0; i < fp->nframes; i++)
		cs_frame_def_encode(&p, &fp->frames[i]);
	put_record(&o, CS_REC_FRAMES, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	for (int i = 0; i < fp->nstacks; i++)
		cs_stack_def_encode(&p, &fp->stacks[i]);
	put_record(&o, CS_REC_STACKS, p.buf, p.len);
	put_record(&o, CS_REC_SAMPLES, samples->buf, samples->len);
	write_segment(proc, 1, buf, o.len);
}

static void canvas_text_cuts_by_width(void)
{
	struct canvas c;
	canvas_init_memory(&c, 3, 10);
	CHECK_EQ_U(canvas_text(&c, 0, 0, 10, UI_NORMAL, false, "héllo wörld, too long"), 10);
	CHECK_EQ_U(canvas_text(&c, 1, 0, 5, UI_NORMAL, false, "日本語テキスト"), 4); /* wide: 2 columns each */
	canvas_text_right(&c, 2, 0, 10, UI_HOT, "42");
	char *dump = canvas_dump(&c);
	CHECK_STR(dump, "héllo wörl\n日本\n        42\n");
	CHECK(canvas_style_at(&c, 2, 9) == UI_HOT);
	free(dump);
	CHECK_EQ_U(text_width("日本a"), 5);
	canvas_free_memory(&c);
}

static const struct column cols[] = {{"n", 3, true}, {"name", 0, false}};

static void cell(void *ctx, size_t row, int col, char *buf, size_t n)
{
	(void)ctx;
	if (col == 0)
		snprintf(buf, n, "%zu", row);
	else
		snprintf(buf, n, "row %zu", row);
}

static void listview_scrolls(void)
{
	struct canvas c;
	canvas_init_memory(&c, 5, 20);
	struct listview lv = {cols, 2, 0, 0, 0, 0, false};
	listview_set_rows(&lv, 10);
	listview_draw(&lv, &c, 0, 5, cell, NULL, NULL);
	char *dump = canvas_dump(&c);
	CHECK_STR(dump, "  n name\n  0 row 0\n  1 row 1\n  2 row 2\n  3 row 3\n");
	free(dump);
	CHECK(canvas_style_at(&c, 1, 5) == UI_SELECTED);
	for (int i = 0; i < 6; i++)
		listview_key(&lv, 'j');
	listview_draw(&lv, &c, 0, 5, cell, NULL, NULL);
	dump = canvas_dump(&c);
	CHECK_STR(dump, "  n name\n  3 row 3\n  4 row 4\n  5 row 5\n  6 row 6\n");
	free(dump);
	CHECK(canvas_style_at(&c, 4, 5) == UI_SELECTED);
	listview_key(&lv, 'G');
	CHECK_EQ_U(lv.cursor, 9);
	listview_key(&lv, 'g');
	CHECK_EQ_U(lv.cursor, 0);
	CHECK(listview_click(&lv, 2) && lv.cursor == 2);
	canvas_free_memory(&c);
}

/* A small session on disk: Main -> Work (30 samples), Main -> Idle (10);
 * a second process (pid) has the same functions under other ids. */
static void make_process(const char *dir, uint32_t pid)
{
	uint64_t base = pid == 777 ? 16 : 40; /* ids differ between processes */
	struct cs_frame_def f[] = {{base, S("App.Main"), S("app.dll")}, {base + 1, S("App.Work"), S("app.dll")},
				   {base + 2, S("App.Idle"), S("app.dll")}};
	struct cs_stack_def st[] = {{1, 0, base}, {2, 1, base + 1}, {3, 1, base + 2}};
	uint8_t payload[2048];
	struct cs_out p;
	cs_out_init(&p, payload, sizeof payload);
	for (int i = 0; i < 40; i++) {
		cs_put_varint(&p, 10000), cs_put_varint(&p, 50000), cs_put_varint(&p, 1);
		cs_put_varint(&p, 1), cs_put_varint(&p, i < 30 ? 2 : 3);
	}
	write_fake_process(dir, &(struct fake_process){pid, 100, NULL, 0, f, 3, st, 3}, &p);
}

static void make_session(const char *dir)
{
	char err[256];
	cs_session_create(dir, "app", "dotnet app.dll", (char[512]){0}, 512, err, sizeof err);
	make_process(dir, 777);
}

/* The session screen on the session in dir, read and its views built. */
static void screen_open(struct session_screen *s, const char *dir)
{
	memset(s, 0, sizeof *s);
	session_screen_init(s);
	char err[256];
	CHECK(prof_recording_open(&s->model, dir, err, sizeof err) == 0);
	CHECK(session_screen_refresh(s));
	session_screen_update_views(s);
}

static struct listview *shown_list(struct session_screen *s)
{
	struct view *v = ui_shown_view(s);
	return view_list(v);
}

/* Clicks every line of the screen in view v: a click that selects a row
 * selects the row drawn on that line; returns how many did. */
static int click_every_line(struct session_screen *s, enum view_id v, struct canvas *c)
{
	int selected = 0;
	session_screen_show(s, v);
	for (int y = 0; y < c->rows; y++) {
		canvas_clear(c);
		screen_draw_session(s, c);
		if (!session_screen_click(s, y, 0))
			continue;
		selected++;
		canvas_clear(c);
		screen_draw_session(s, c);
		CHECK(canvas_style_at(c, y, 0) == UI_SELECTED);
	}
	return selected;
}

static void session_screen_layout(void)
{
	char *base = make_temp_dir();
	char dir[600];
	snprintf(dir, sizeof dir, "%s/s", base);
	make_session(dir);
	struct session_screen s;
	screen_open(&s, dir);

	struct canvas c;
	canvas_init_memory(&c, 24, 100);
	screen_draw_session(&s, &c);
	char *dump = canvas_dump(&c);
	CHECK(strstr(dump, " clrscope 1 Functions 2 Tree 3 Callers 4 Events 5 Threads 6 Processes 7 Calls 8 Heap 9 Allocs "
			   "0 GC") == dump);
	CHECK(strstr(dump, "pid 777") != NULL);
	/* the hottest function first, with its share */
	CHECK(strstr(dump, " self% total%     self    total function\n  75.0   75.0       30       30 App.Work  [app.dll]\n") != NULL);
	CHECK(strstr(dump, "samples/s ") != NULL);
	CHECK(strstr(dump, " live | cpu time | 40 samples/s | 40 samples | dropped 0 | suspend 50 us | 100 Hz requested") !=
	      NULL);
	free(dump);

	/* the tree, opened along the hot path */
	session_screen_show(&s, VIEW_TREE);
	session_screen_key(&s, 'H');
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "- App.Main\n") != NULL);
	CHECK(strstr(dump, "\n 100.0    0.0       40 - App.Main\n") != NULL);
	CHECK(strstr(dump, "\n  75.0   75.0       30     App.Work\n") != NULL);
	free(dump);

	/* callers of Work */
	session_screen_show(&s, VIEW_FUNCTIONS);
	shown_list(&s)->cursor = 0;
	session_screen_key(&s, '\n');
	CHECK(s.shown == VIEW_CALLERS);
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "App.Work: 30 samples, 30 in itself") != NULL);
	CHECK(strstr(dump, "caller         30   100.0 App.Main") != NULL);
	free(dump);

	/* the mouse: every view, every line (a click once indexed a table of
	 * six lists with any view's number) */
	for (enum view_id v = 0; v < VIEW_COUNT; v++)
		click_every_line(&s, v, &c);
	CHECK_EQ_U(click_every_line(&s, VIEW_FUNCTIONS, &c), 3); /* Work, Main, Idle */
	CHECK_EQ_U(click_every_line(&s, VIEW_CALLERS, &c), 1);   /* Main, the caller, under the title line */
	CHECK(click_every_line(&s, VIEW_THREADS, &c) >= 1);
	session_screen_show(&s, VIEW_FUNCTIONS);
	canvas_free_memory(&c);

	/* small terminals degrade without losing the essentials */
	static const int sizes[][2] = {{10, 40}, {5, 20}, {3, 10}, {1, 1}};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		canvas_init_memory(&c, sizes[i][0], sizes[i][1]);
		for (int v = 0; v < VIEW_COUNT; v++) {
			session_screen_show(&s, (enum view_id)v);
			canvas_clear(&c);
			screen_draw_session(&s, &c);
		}
		dump = canvas_dump(&c);
		if (sizes[i][0] >= 5)
			CHECK(strstr(dump, " clrscope") == dump);
		free(dump);
		canvas_free_memory(&c);
	}
	/* ASCII stand-ins without UTF-8 */
	canvas_init_memory(&c, 24, 60);
	c.ascii = true;
	session_screen_show(&s, VIEW_FUNCTIONS);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	for (const char *q = dump; *q; q++)
		CHECK((unsigned char)*q < 0x80);
	free(dump);
	canvas_free_memory(&c);

	/* a second process: the Processes view offers them all, merged */
	make_process(dir, 778);
	CHECK(session_screen_refresh(&s));
	session_screen_update_views(&s);
	session_screen_show(&s, VIEW_PROCESSES);
	shown_list(&s)->cursor = 0;
	session_screen_key(&s, '\n');
	CHECK(s.all && s.shown == VIEW_FUNCTIONS);
	canvas_init_memory(&c, 24, 100);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "  75.0   75.0       60       60 App.Work  [app.dll]\n") != NULL);
	CHECK(strstr(dump, "  25.0   25.0       20       20 App.Idle  [app.dll]\n") != NULL);
	CHECK(strstr(dump, " 80 samples") != NULL);
	free(dump);
	canvas_free_memory(&c);
	session_screen_free(&s);
	remove_tree(base);
}

/* A process whose log ended at the session's size cap says so on the
 * status bar and in the Processes view. */
static void full_session_is_shown(void)
{
	char *base = make_temp_dir();
	char dir[600], proc[700];
	snprintf(dir, sizeof dir, "%s/s", base);
	make_session(dir);
	snprintf(proc, sizeof proc, "%s/777", dir);
	uint8_t buf[512], payload[256];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	cs_out_init(&p, payload, sizeof payload);
	static const char why[] = "the session reached its size cap of 64 KiB (max-size); recording stopped";
	cs_message_encode(&p, &(struct cs_message){.time_us = 900000, .level = CS_END_SIZE_CAP, .text = {why, strlen(why)}});
	put_record(&o, CS_REC_END, p.buf, p.len);
	write_segment(proc, 2, buf, o.len);
	struct session_screen s;
	screen_open(&s, dir);
	struct canvas c;
	canvas_init_memory(&c, 24, 100);
	screen_draw_session(&s, &c);
	char *dump = canvas_dump(&c);
	CHECK(strstr(dump, " full: the session reached its size cap") != NULL);
	free(dump);
	session_screen_show(&s, VIEW_PROCESSES);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, " full ") != NULL);
	free(dump);
	canvas_free_memory(&c);
	session_screen_free(&s);
	remove_tree(base);
}

/* The help's three columns as the screen shows them: each column's pieces
 * joined over the lines (a piece after one ending in '|' continues the same
 * word), cut where the header puts the columns. */
struct help_columns {
	char keys[8192], command[8192], what[16384], views[2048];
};

static void join(char *to, size_t n, const char *piece, size_t len)
{
	while (len && piece[len - 1] == ' ')
		len--;
	while (len && *piece == ' ')
		piece++, len--;
	if (!len)
		return;
	size_t at = strlen(to);
	if (at && to[at - 1] != '|' && at + 1 < n)
		to[at++] = ' ';
	snprintf(to + at, n - at, "%.*s", (int)len, piece);
}

static void help_columns(const char *dump, struct help_columns *h)
{
	memset(h, 0, sizeof *h);
	const char *line = strchr(dump, '\n') + 1; /* the header, under the title */
	const char *cmd_x = strstr(line, "prompt command"), *what_x = strstr(line, "what it does");
	CHECK(cmd_x && what_x);
	size_t x1 = (size_t)(cmd_x - line), x2 = (size_t)(what_x - line);
	bool in_views = false;
	for (line = strchr(line, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
		size_t len = strcspn(line, "\n");
		in_views = in_views || !strncmp(line, " views:", 7);
		if (in_views) {
			join(h->views, sizeof h->views, line, len);
		} else {
			join(h->keys, sizeof h->keys, line, len < x1 ? len : x1);
			if (len > x1)
				join(h->command, sizeof h->command, line + x1, (len < x2 ? len : x2) - x1);
			if (len > x2)
				join(h->what, sizeof h->what, line + x2, len - x2);
		}
		if (!line[len])
			break;
	}
}

static int help_width;

static void no_wider(void *ctx, enum ui_style style, const char *text)
{
	(void)ctx, (void)style;
	CHECK(text_width(text) <= help_width);
}

/* Every command's keys, prompt command and what it does, and every view,
 * whole at 80 and 120 columns (and no line of the help wider than those). */
static void help_fits_the_width(void)
{
	static const int widths[] = {80, 120};
	for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) {
		help_width = widths[i];
		help_lines(help_width, no_wider, NULL);
		struct canvas c;
		canvas_init_memory(&c, 200, help_width);
		CHECK(help_draw(&c, 0) == 0);
		char *dump = canvas_dump(&c);
		CHECK(strstr(dump, " clrscope help: any key goes back\n") == dump);
		struct help_columns *h = xmalloc(sizeof *h);
		help_columns(dump, h);
		char text[512];
		for (const struct ui_command *cmd = ui_commands; cmd->name; cmd++) {
			commands_keys(cmd, text, sizeof text);
			CHECK(strstr(h->keys, text) != NULL);
			snprintf(text, sizeof text, ":%s%s%s", cmd->name, cmd->args[0] ? " " : "", cmd->args);
			if (!strstr(h->command, text))
				fprintf(stderr, "%d columns: '%s' is not whole in\n%s\n", help_width, text, h->command);
			CHECK(strstr(h->command, text) != NULL);
			CHECK(strstr(h->what, cmd->help) != NULL);
		}
		for (const struct ui_key_help *k = ui_keys; k->keys; k++) {
			CHECK(strstr(h->keys, k->keys) != NULL);
			CHECK(strstr(h->what, k->help) != NULL);
		}
		for (int v = 0; v < VIEW_COUNT; v++)
			CHECK(strstr(h->views, ui_view((enum view_id)v)->name) != NULL);
		free(h);
		free(dump);
		canvas_free_memory(&c);
	}
}

/* On a screen shorter than the help, the keys scroll it to every line,
 * and any other key goes back. */
static void help_scrolls(void)
{
	struct canvas tall, c;
	canvas_init_memory(&tall, 200, 80);
	canvas_init_memory(&c, 24, 80);
	help_draw(&tall, 0);
	char *all = canvas_dump(&tall);
	int top = 0, pages = 0;
	for (;;) {
		CHECK(help_draw(&c, top) == top);
		char *dump = canvas_dump(&c);
		CHECK(strstr(dump, " clrscope help, lines ") == dump);
		/* each line shown is the help's line top + y - 1 */
		const char *line = strchr(dump, '\n') + 1;
		for (int y = 1; y < c.rows && *line; y++) {
			size_t len = strcspn(line, "\n");
			const char *want = all;
			for (int k = 0; k < top + y; k++)
				want = strchr(want, '\n') + 1;
			CHECK(!strncmp(line, want, len) && (want[len] == '\n' || !want[len]));
			line += len + (line[len] == '\n');
		}
		free(dump);
		int next = help_scroll(&c, top, KEY_NPAGE, true);
		CHECK(next >= top);
		pages++;
		if (next == top || pages > 20)
			break;
		top = next;
	}
	CHECK(pages > 1 && pages <= 20);
	CHECK(help_scroll(&c, top, KEY_END, true) == top); /* the last page */
	CHECK(help_scroll(&c, top, KEY_HOME, true) == 0);
	CHECK(help_scroll(&c, 5, 'k', false) == 4 && help_scroll(&c, 5, 'j', false) == 6);
	CHECK(help_scroll(&c, 0, 'x', false) == -1 && help_scroll(&c, 0, '\n', false) == -1);
	CHECK(help_scroll(&tall, 0, KEY_DOWN, true) == -1); /* all of it fits: every key goes back */
	free(all);
	canvas_free_memory(&tall);
	canvas_free_memory(&c);
}

static void command_table_and_completion(void)
{
	const char *want[] = {"rate", "sampling", "events", "detach", "attach", "filter", "export", "open", "help", "quit"};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		bool found = false;
		for (const struct ui_command *c = ui_commands; c->name; c++)
			found |= !strcmp(c->name, want[i]);
		CHECK(found);
	}
	int n = 0;
	while (commands_candidate(0, "", n))
		n++;
	CHECK(n >= 10);
	CHECK_STR(commands_candidate(1, "sampling ", 0), "on");
	CHECK_STR(commands_candidate(1, "sampling ", 1), "off");
	CHECK(commands_candidate(1, "sampling ", 2) == NULL);
	CHECK_STR(commands_candidate(1, "export ", 0), "collapsed");
	CHECK(commands_candidate(1, "detach ", 0) == NULL);
	CHECK(commands_candidate(1, "nosuch ", 0) == NULL);
	bool has_plus_gc = false;
	for (int i = 0; commands_candidate(1, "events ", i); i++)
		has_plus_gc |= !strcmp(commands_candidate(1, "events ", i), "+gc");
	CHECK(has_plus_gc);
	/* ':view' completes the view table's names */
	CHECK_STR(commands_candidate(1, "view ", VIEW_FUNCTIONS), "functions");
	CHECK_STR(commands_candidate(1, "view ", VIEW_LOCKS), "locks");
}

/* Keys reach commands only through the binding table, and help shows what
 * the table says. */
static void key_dispatch_from_the_table(void)
{
	const struct ui_binding *b = commands_binding('G', false, true);
	CHECK(b && !strcmp(b->line, "events toggle gc"));
	CHECK(commands_binding('G', false, false) == NULL); /* the targets screen has no dials */
	b = commands_binding('q', false, false);
	CHECK(b && !strcmp(b->line, "quit"));
	CHECK(commands_binding('\t', true, true) == NULL); /* a character is not a function key */
	/* every binding runs a command of the table */
	for (b = ui_bindings; b->line; b++) {
		bool found = false;
		for (const struct ui_command *c = ui_commands; c->name; c++)
			found |= !strncmp(b->line, c->name, strlen(c->name)) &&
				 (b->line[strlen(c->name)] == ' ' || !b->line[strlen(c->name)]);
		CHECK(found);
	}
	char keys[64];
	for (const struct ui_command *c = ui_commands; c->name; c++) {
		commands_keys(c, keys, sizeof keys);
		if (!strcmp(c->name, "view"))
			CHECK_STR(keys, "Tab S-Tab 1-9 0");
		else if (!strcmp(c->name, "rate"))
			CHECK_STR(keys, "+ = -");
		else if (!strcmp(c->name, "events"))
			CHECK_STR(keys, "G X J M T");
	}
	/* the view keys come from the view table */
	CHECK(ui_view_for_key('1') == VIEW_FUNCTIONS);
	CHECK(ui_view_for_key('0') == VIEW_GC);
	CHECK(ui_view_key(VIEW_LOCKS) == 0);
	CHECK(ui_view_find("locks") == VIEW_LOCKS);
}

/* The flame graph of the small session: Main over Work (30) and Idle (10)
 * side by side, 3:1; moving, zooming, searching; ASCII without UTF-8. */
static void flame_view(void)
{
	char *base = make_temp_dir();
	char dir[600];
	snprintf(dir, sizeof dir, "%s/s", base);
	make_session(dir);
	struct session_screen s;
	screen_open(&s, dir);
	session_screen_show(&s, VIEW_FLAME);
	struct canvas c;
	canvas_init_memory(&c, 24, 100);
	screen_draw_session(&s, &c);
	char *dump = canvas_dump(&c);
	/* the tab line gives way so that the shown tab is on screen */
	CHECK(strstr(dump, " clrscope \u2026 ") == dump);
	CHECK(strstr(dump, "0 GC Locks Flame Diff S") != NULL); /* (the last tab clipped at 100 columns) */
	CHECK(strstr(dump, "\nall\nall") != NULL); /* breadcrumb, then the root's block */
	CHECK(strstr(dump, "\nApp.Main") != NULL);
	/* Work: 75 columns, its right edge at 74; Idle from 75 to 99 */
	const char *row = strstr(dump, "\nApp.Work");
	CHECK(row != NULL);
	if (row) {
		char want[256];
		snprintf(want, sizeof want, "\nApp.Work%*s\u2595App.Idle%*s\u2595\n", 66, "", 16, "");
		CHECK(strncmp(row, want, strlen(want)) == 0);
	}
	CHECK(strstr(dump, "all: 40 samples, 100.0% of all") != NULL);
	CHECK(canvas_style_at(&c, 2, 0) == UI_SELECTED); /* the root */
	free(dump);

	/* Down twice: Main, then its heaviest callee; Right: the next one */
	session_screen_key(&s, KEY_DOWN);
	session_screen_key(&s, KEY_DOWN);
	session_screen_key(&s, KEY_RIGHT);
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "App.Idle: 10 samples, 25.0% of all") != NULL);
	CHECK(canvas_style_at(&c, 4, 80) == UI_SELECTED);
	free(dump);
	/* Enter zooms: Idle across the whole width, the path above */
	session_screen_key(&s, '\n');
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "\nall \u203a App.Main \u203a App.Idle\n") != NULL);
	CHECK(strstr(dump, "App.Work") == NULL);
	free(dump);
	session_screen_key(&s, 'u');
	session_screen_key(&s, KEY_BACKSPACE);
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "\nall\nall") != NULL);
	CHECK(strstr(dump, "App.Work") != NULL);
	free(dump);
	/* a click selects the frame under it: Idle, right of Work */
	CHECK(session_screen_click(&s, 4, 90));
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "App.Idle: 10 samples, 25.0% of all") != NULL);
	free(dump);
	CHECK(!session_screen_click(&s, 6, 10)); /* below the deepest frame */
	/* search: marks and selects */
	struct view *v = ui_shown_view(&s);
	view_search(v, &s, "Work");
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "App.Work: 30 samples, 75.0% of all  (1 frame match 'Work')") != NULL);
	free(dump);
	canvas_free_memory(&c);

	/* ASCII, and small sizes */
	canvas_init_memory(&c, 24, 60);
	c.ascii = true;
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	for (const char *q = dump; *q; q++)
		CHECK((unsigned char)*q < 0x80);
	CHECK(strstr(dump, "App.Work") != NULL && strstr(dump, "|App.Idle") != NULL);
	free(dump);
	canvas_free_memory(&c);
	static const int sizes[][2] = {{10, 40}, {5, 20}, {3, 10}, {1, 1}};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		canvas_init_memory(&c, sizes[i][0], sizes[i][1]);
		screen_draw_session(&s, &c);
		canvas_free_memory(&c);
	}
	session_screen_free(&s);
	remove_tree(base);
}

/* Two threads and two phases: in the first second worker-a (tid 101) is
 * in Work and worker-b (tid 102) in Idle, ten ticks each; in the second
 * second only worker-a runs, in Idle.  All: Work 10, Idle 20. */
static void make_phases(const char *dir)
{
	char err[256];
	cs_session_create(dir, "app", "dotnet app.dll", (char[512]){0}, 512, err, sizeof err);
	struct cs_thread th[] = {{1, 5001, 101, S("worker-a")}, {2, 5002, 102, S("worker-b")}};
	struct cs_frame_def f[] = {{1, S("App.Main"), S("app.dll")}, {2, S("App.Work"), S("app.dll")},
				   {3, S("App.Idle"), S("app.dll")}};
	struct cs_stack_def st[] = {{1, 0, 1}, {2, 1, 2}, {3, 1, 3}};
	uint8_t payload[2048];
	struct cs_out p;
	cs_out_init(&p, payload, sizeof payload);
	for (int i = 0; i < 20; i++) { /* ticks at 0.05, 0.15, ... 1.95 s */
		cs_put_varint(&p, i ? 100000 : 50000), cs_put_varint(&p, 50000), cs_put_varint(&p, i < 10 ? 2 : 1);
		if (i < 10) {
			cs_put_varint(&p, 1), cs_put_varint(&p, 2);
			cs_put_varint(&p, 2), cs_put_varint(&p, 3);
		} else {
			cs_put_varint(&p, 1), cs_put_varint(&p, 3);
		}
	}
	write_fake_process(dir, &(struct fake_process){900, 10, th, 2, f, 3, st, 3}, &p);
}

/* The Functions view's line of a function ("" when not shown). */
static bool shows(struct session_screen *s, struct canvas *c, const char *text)
{
	canvas_clear(c);
	screen_draw_session(s, c);
	char *dump = canvas_dump(c);
	bool found = strstr(dump, text) != NULL;
	if (!found)
		fprintf(stderr, "wanted '%s' in:\n%s\n", text, dump);
	free(dump);
	return found;
}

static void run_line(struct app *a, const char *line)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", line);
	commands_run_line(a, buf);
}

/* A thread or a time range chosen counts in every sample view: Functions,
 * Tree, Callers, Flame; the status bar says which; Threads marks the
 * thread; the timeline's cursor and marks; clear and 'all' undo it. */
static void sample_filters(void)
{
	char *base = make_temp_dir();
	char dir[600];
	snprintf(dir, sizeof dir, "%s/s", base);
	make_phases(dir);
	struct session_screen *s = xcalloc(1, sizeof *s);
	session_screen_init(s);
	char err[256];
	CHECK(prof_recording_open(&s->model, dir, err, sizeof err) == 0);
	CHECK(session_screen_refresh(s));
	session_screen_update_views(s);
	struct app a;
	memset(&a, 0, sizeof a);
	a.session = s;
	struct canvas c;
	canvas_init_memory(&c, 24, 110);
	CHECK(shows(s, &c, "  66.7   66.7       20       20 App.Idle  [app.dll]\n"));
	CHECK(shows(s, &c, "  33.3   33.3       10       10 App.Work  [app.dll]\n"));
	CHECK(shows(s, &c, "| 30 samples |"));

	/* one thread, by tid: only worker-b's Idle */
	run_line(&a, "thread 102");
	CHECK(!s->message_error);
	CHECK(shows(s, &c, " 100.0  100.0       10       10 App.Idle  [app.dll]\n"));
	CHECK(shows(s, &c, "| 10 samples |"));
	CHECK(shows(s, &c, "samples of thread 102 worker-b"));
	canvas_clear(&c);
	screen_draw_session(s, &c);
	char *dump = canvas_dump(&c);
	CHECK(strstr(dump, "App.Work") == NULL);
	free(dump);
	/* by name, then a time range on top of it: worker-a in the first second */
	run_line(&a, "thread worker-a");
	CHECK(shows(s, &c, "  50.0   50.0       10       10 App.Work  [app.dll]\n"));
	run_line(&a, "range 0 1");
	CHECK(shows(s, &c, " 100.0  100.0       10       10 App.Work  [app.dll]\n"));
	CHECK(shows(s, &c, "samples of thread 101 worker-a, 0.0 s-1.0 s"));
	/* every view counts the same samples */
	session_screen_show(s, VIEW_TREE);
	session_screen_key(s, 'H');
	CHECK(shows(s, &c, "\n 100.0  100.0       10     App.Work\n"));
	session_screen_show(s, VIEW_FLAME);
	CHECK(shows(s, &c, "all: 10 samples, 100.0% of all"));
	canvas_clear(&c);
	screen_draw_session(s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "App.Idle") == NULL && strstr(dump, "\nApp.Work") != NULL);
	free(dump);
	run_line(&a, "thread all");
	CHECK(shows(s, &c, "all: 20 samples, 100.0% of all")); /* the first second: both threads */
	run_line(&a, "range 1 2");
	CHECK(shows(s, &c, "all: 10 samples, 100.0% of all"));
	session_screen_show(s, VIEW_FUNCTIONS);
	CHECK(shows(s, &c, " 100.0  100.0       10       10 App.Idle  [app.dll]\n"));
	CHECK(shows(s, &c, "samples of 1.0 s-2.0 s"));
	session_screen_show(s, VIEW_CALLERS); /* Enter in Functions focused nothing yet: Callers of Idle */
	session_screen_show(s, VIEW_FUNCTIONS);
	view_list(ui_shown_view(s))->cursor = 0;
	session_screen_key(s, '\n');
	CHECK(s->shown == VIEW_CALLERS);
	CHECK(shows(s, &c, "App.Idle: 10 samples, 10 in itself"));
	/* bad input says why and changes nothing */
	run_line(&a, "range 2 1");
	CHECK(s->message_error);
	run_line(&a, "thread nosuch");
	CHECK(s->message_error && strstr(s->message, "no thread 'nosuch'"));
	CHECK(s->samples.from_us == 1000000 && s->samples.to_us == 2000000 && !s->samples.os_tid);
	run_line(&a, "range all");
	CHECK(!s->narrowed);
	session_screen_show(s, VIEW_FUNCTIONS);
	CHECK(shows(s, &c, "| 30 samples |"));

	/* the timeline: a click puts the cursor on a second, [ and ] mark the range there */
	canvas_clear(&c);
	screen_draw_session(s, &c);
	CHECK(s->timeline_cols > 0);
	CHECK(!screen_click_timeline(s, s->timeline_y, 0)); /* the label */
	CHECK(screen_click_timeline(s, s->timeline_y, s->timeline_x0 + 1));
	CHECK(s->time_cursor == 1);
	const struct ui_binding *b = commands_binding('[', false, true);
	CHECK(b && !strcmp(b->line, "range start"));
	run_line(&a, b->line);
	CHECK(s->samples.from_us == 1000000 && !s->samples.to_us);
	CHECK(shows(s, &c, "samples of 1.0 s-end"));
	CHECK(shows(s, &c, " 100.0  100.0       10       10 App.Idle  [app.dll]\n"));
	canvas_clear(&c);
	screen_draw_session(s, &c);
	CHECK(canvas_style_at(&c, s->timeline_y, s->timeline_x0 + 1) == UI_SELECTED); /* the cursor */
	run_line(&a, commands_binding('<', false, true)->line);
	CHECK(s->time_cursor == 0);
	canvas_clear(&c);
	screen_draw_session(s, &c);
	CHECK(canvas_style_at(&c, s->timeline_y, s->timeline_x0 + 1) == UI_GOOD); /* in the range */
	run_line(&a, commands_binding(']', false, true)->line); /* the end before the start: from the beginning */
	CHECK(s->samples.from_us == 0 && s->samples.to_us == 1000000);
	CHECK(shows(s, &c, "  50.0   50.0       10       10 App.Work  [app.dll]\n"));
	run_line(&a, commands_binding('x', false, true)->line);
	CHECK(!s->narrowed && !s->samples.to_us);
	CHECK(shows(s, &c, "| 30 samples |"));

	/* Threads: Enter on a row counts that thread, marked with '*'; Enter again: all */
	session_screen_show(s, VIEW_THREADS);
	struct listview *lv = shown_list(s);
	lv->cursor = 0;
	while (lv->cursor < lv->nrows) {
		session_screen_key(s, '\n');
		if (s->samples.os_tid == 102)
			break;
		session_screen_key(s, '\n');
		lv->cursor++;
	}
	CHECK(s->samples.os_tid == 102);
	CHECK(shows(s, &c, "* worker-b"));
	session_screen_show(s, VIEW_FUNCTIONS);
	CHECK(shows(s, &c, " 100.0  100.0       10       10 App.Idle  [app.dll]\n"));
	session_screen_show(s, VIEW_THREADS);
	session_screen_key(s, '\n');
	CHECK(!s->samples.os_tid);
	/* every line of every view clicked with a filter on */
	run_line(&a, "thread worker-a");
	for (enum view_id v = 0; v < VIEW_COUNT; v++)
		click_every_line(s, v, &c);
	canvas_free_memory(&c);
	session_screen_free(s);
	free(s);
	remove_tree(base);
}

/* Main twice: the model keeps "App.Main" of lib.dll (1 sample, the first
 * named so) apart from App.Main of app.dll over Work (10) and Idle (20). */
static void make_two_mains(const char *dir)
{
	char err[256];
	cs_session_create(dir, "app", "dotnet app.dll", (char[512]){0}, 512, err, sizeof err);
	struct cs_frame_def f[] = {{1, S("App.Main"), S("lib.dll")}, {2, S("App.Main"), S("app.dll")},
				   {3, S("App.Work"), S("app.dll")}, {4, S("App.Idle"), S("app.dll")}};
	struct cs_stack_def st[] = {{1, 0, 1}, {2, 0, 2}, {3, 2, 3}, {4, 2, 4}};
	uint8_t payload[2048];
	struct cs_out p;
	cs_out_init(&p, payload, sizeof payload);
	for (int i = 0; i < 31; i++) {
		cs_put_varint(&p, 10000), cs_put_varint(&p, 50000), cs_put_varint(&p, 1);
		cs_put_varint(&p, 1), cs_put_varint(&p, i == 0 ? 1 : i <= 10 ? 3 : 4);
	}
	write_fake_process(dir, &(struct fake_process){901, 100, NULL, 0, f, 4, st, 4}, &p);
}

/* Frames named alike are one block, and the base's frames find it by name:
 * a comparison by function would set the base's Main (the first of its
 * name, lib.dll's) against the shown app.dll's Main and find nothing. */
static void flame_same_names(void)
{
	char *base = make_temp_dir();
	char then[600], now[600], line[700];
	snprintf(then, sizeof then, "%s/then", base);
	snprintf(now, sizeof now, "%s/now", base);
	make_session(then);
	make_two_mains(now);
	struct session_screen s;
	screen_open(&s, now);
	struct app a;
	memset(&a, 0, sizeof a);
	a.session = &s;
	snprintf(line, sizeof line, "diff %s", then);
	run_line(&a, line);
	run_line(&a, "flame");
	struct canvas c;
	canvas_init_memory(&c, 24, 100);
	session_screen_key(&s, KEY_DOWN);
	CHECK(shows(&s, &c, "App.Main: 31 samples, 100.0% of all; base 100.0% (+0.0 points)"));
	session_screen_key(&s, KEY_DOWN);
	CHECK(shows(&s, &c, "App.Idle: 20 samples, 64.5% of all; base 25.0% (+39.5 points)"));
	session_screen_key(&s, KEY_RIGHT);
	CHECK(shows(&s, &c, "App.Work: 10 samples, 32.3% of all; base 75.0% (-42.7 points)"));
	canvas_free_memory(&c);
	session_screen_free(&s);
	remove_tree(base);
}

/* After ':diff', the flame graph colours each frame by how its share
 * moved: the base has Work 75 % and Idle 25 %, the process shown (the
 * phases) Work 33 % and Idle 67 %; without colour '+' and '-' marks. */
static void flame_diff(void)
{
	char *base = make_temp_dir();
	char then[600], now[600];
	snprintf(then, sizeof then, "%s/then", base);
	snprintf(now, sizeof now, "%s/now", base);
	make_session(then);
	make_phases(now);
	struct session_screen *s = xcalloc(1, sizeof *s);
	session_screen_init(s);
	char err[256];
	CHECK(prof_recording_open(&s->model, now, err, sizeof err) == 0);
	CHECK(session_screen_refresh(s));
	session_screen_update_views(s);
	struct app a;
	memset(&a, 0, sizeof a);
	a.session = s;
	char line[700];
	snprintf(line, sizeof line, "diff %s", then);
	run_line(&a, line);
	CHECK(!s->message_error && s->shown == VIEW_DIFF);
	run_line(&a, "flame");
	CHECK(s->shown == VIEW_FLAME);
	struct canvas c;
	canvas_init_memory(&c, 24, 100);
	CHECK(shows(s, &c, "(against "));
	CHECK(shows(s, &c, "+ grew, - shrank)"));
	/* Idle grew 41.7 points: the deepest red, "+++"; Work shrank as much */
	CHECK(shows(s, &c, "\n+++App.Idle"));
	CHECK(shows(s, &c, "---App.Work"));
	canvas_clear(&c);
	screen_draw_session(s, &c);
	char *dump = canvas_dump(&c);
	const char *idle = strstr(dump, "+++App.Idle");
	int row = 0;
	for (const char *q = dump; idle && q < idle; q++)
		row += *q == '\n';
	CHECK(canvas_style_at(&c, row, 5) == UI_GROW3);
	CHECK(canvas_style_at(&c, row, 80) == UI_SHRINK3);
	CHECK(canvas_style_at(&c, row - 1, 5) == UI_SAME); /* Main: 100 % in both */
	free(dump);
	session_screen_key(s, KEY_DOWN);
	session_screen_key(s, KEY_DOWN);
	CHECK(shows(s, &c, "App.Idle: 20 samples, 66.7% of all; base 25.0% (+41.7 points)"));
	session_screen_key(s, KEY_RIGHT);
	CHECK(shows(s, &c, "App.Work: 10 samples, 33.3% of all; base 75.0% (-41.7 points)"));
	/* in colour: no marks, the same styles */
	c.color = true;
	CHECK(shows(s, &c, "\nApp.Idle"));
	CHECK(shows(s, &c, "red grew, blue shrank"));
	CHECK(canvas_style_at(&c, row, 5) == UI_GROW3);
	/* a filter applies to both sides' comparison: worker-a alone, Work 50 % */
	run_line(&a, "thread worker-a");
	c.color = false;
	CHECK(shows(s, &c, "+App.Idle")); /* 50 % against 25 % */
	CHECK(shows(s, &c, "App.Work: 10 samples, 50.0% of all; base 75.0% (-25.0 points)"));
	run_line(&a, "clear");
	/* plain: namespace colours again */
	run_line(&a, "flame plain");
	canvas_clear(&c);
	screen_draw_session(s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "+App.") == NULL && strstr(dump, "-App.") == NULL && strstr(dump, "(against") == NULL);
	free(dump);
	CHECK(canvas_style_at(&c, row, 5) >= UI_FLAME1 && canvas_style_at(&c, row, 5) <= UI_FLAME4);
	run_line(&a, "flame diff");
	CHECK(shows(s, &c, "+++App.Idle"));
	run_line(&a, "flame sideways");
	CHECK(s->message_error);
	canvas_free_memory(&c);
	session_screen_free(s);
	free(s);
	remove_tree(base);
}

/* Only the shown view is rebuilt when records arrive; the others wait
 * until they are shown. */
static void hidden_views_wait(void)
{
	char *base = make_temp_dir();
	char dir[600];
	snprintf(dir, sizeof dir, "%s/s", base);
	make_session(dir);
	struct session_screen s;
	screen_open(&s, dir);
	CHECK(!s.views[VIEW_FUNCTIONS].dirty);
	for (int v = VIEW_TREE; v < VIEW_COUNT; v++)
		CHECK(s.views[v].dirty);
	session_screen_show(&s, VIEW_TREE);
	CHECK(!s.views[VIEW_TREE].dirty && s.views[VIEW_CALLERS].dirty);
	CHECK_EQ_U(view_list(&s.views[VIEW_TREE])->nrows, 1); /* Main, closed */
	session_screen_free(&s);
	remove_tree(base);
}

/* Locks: contention sites by total wait over the selected one's stack;
 * 'b' switches to the blocking waits. */
static void locks_view(void)
{
	char *base = make_temp_dir();
	char dir[600], proc[700];
	snprintf(dir, sizeof dir, "%s/s", base);
	make_session(dir);
	snprintf(proc, sizeof proc, "%s/777", dir);
	uint8_t buf[1024], payload[256];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	/* Work waits twice for 5 ms, Idle once for 20 ms; one 7 ms wait handle wait in Idle */
	struct cs_event waits[] = {{.time_us = 1, .thread_ref = 1, .id = 2, .wait_ns = 5000000},
				   {.time_us = 2, .thread_ref = 1, .id = 2, .wait_ns = 5000000},
				   {.time_us = 3, .thread_ref = 1, .id = 3, .wait_ns = 20000000}};
	for (int i = 0; i < 3; i++) {
		cs_out_init(&p, payload, sizeof payload);
		cs_event_encode(&p, CS_REC_CONTENTION, &waits[i]);
		put_record(&o, CS_REC_CONTENTION, p.buf, p.len);
	}
	cs_out_init(&p, payload, sizeof payload);
	struct cs_event handle = {.time_us = 4, .thread_ref = 1, .id = 3, .wait_ns = 7000000};
	cs_event_encode(&p, CS_REC_WAIT, &handle);
	put_record(&o, CS_REC_WAIT, p.buf, p.len);
	write_segment(proc, 2, buf, o.len);

	struct session_screen s;
	screen_open(&s, dir);
	session_screen_show(&s, VIEW_LOCKS);
	CHECK_STR(ui_view(VIEW_LOCKS)->name, "Locks");
	struct canvas c;
	canvas_init_memory(&c, 24, 120);
	screen_draw_session(&s, &c);
	char *dump = canvas_dump(&c);
	CHECK(strstr(dump, " 0 GC Locks Flame Diff S") != NULL); /* no digit left for them */
	CHECK(strstr(dump, "lock contention: 3 waits, 30.00 ms in all") != NULL);
	CHECK(strstr(dump, "     20.00       1    20.00 App.Idle <- App.Main\n") != NULL);
	CHECK(strstr(dump, "     10.00       2     5.00 App.Work <- App.Main\n") != NULL);
	CHECK(strstr(dump, "root first:\n App.Main\n App.Idle\n") != NULL);
	CHECK(strstr(dump, "\nwaits/s   █\nsamples/s █\n") != NULL); /* 37 ms waited in second 0 */
	free(dump);
	CHECK_EQ_U(click_every_line(&s, VIEW_LOCKS, &c), 2); /* both sites, below the header line */
	session_screen_key(&s, 'g');
	session_screen_key(&s, 'j'); /* the second site: Work */
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "root first:\n App.Main\n App.Work\n") != NULL);
	free(dump);
	CHECK(session_screen_key(&s, 'b'));
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "blocking wait: 1 waits, 7.00 ms in all") != NULL);
	free(dump);
	canvas_free_memory(&c);
	session_screen_free(&s);
	remove_tree(base);
}

/* Writes one event record of type into segment seq of a process directory. */
static void write_event(const char *proc, uint32_t seq, uint16_t type, const struct cs_event *e)
{
	uint8_t buf[1024], payload[512];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	cs_out_init(&p, payload, sizeof payload);
	cs_event_encode(&p, type, e);
	put_record(&o, type, p.buf, p.len);
	write_segment(proc, seq, buf, o.len);
}

/* Events: the model keeps each event's facts and the view puts them in
 * words; the filter matches those words; the merged log names each event's
 * process and its frames by that process's ids. */
static void events_view(void)
{
	char *base = make_temp_dir();
	char dir[600], proc[700];
	snprintf(dir, sizeof dir, "%s/s", base);
	make_session(dir);
	snprintf(proc, sizeof proc, "%s/777", dir);
	uint8_t buf[2048], payload[512];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	cs_out_init(&p, payload, sizeof payload);
	struct cs_gc gc = {.start_us = 1000, .duration_us = 2500, .pause_us = 1500, .generation = 2,
			   .reason = CS_GC_INDUCED, .ngens = 5, .gen_bytes = {1048576}, .type = CS_GC_BLOCKING};
	cs_gc_encode(&p, &gc);
	put_record(&o, CS_REC_GC, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_dials_ack_encode(&p, &(struct cs_dials_ack){9000, 3, CS_DIALS_PARTIAL, S("rate=500"), S("no hooks")});
	put_record(&o, CS_REC_DIALS, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_message_encode(&p, &(struct cs_message){.time_us = 9500, .level = CS_LEVEL_INFO, .text = S("sampling at 500 Hz")});
	put_record(&o, CS_REC_MESSAGE, p.buf, p.len);
	write_segment(proc, 2, buf, o.len);
	write_event(proc, 3, CS_REC_EXCEPTION,
		    &(struct cs_event){.time_us = 2000, .thread_ref = 1, .text = S("System.InvalidOperationException"),
				       .message = S("bad state")});
	write_event(proc, 4, CS_REC_CATCH, &(struct cs_event){.time_us = 2100, .thread_ref = 1, .id = 17});
	write_event(proc, 5, CS_REC_JIT, &(struct cs_event){.time_us = 3000, .id = 16, .duration_us = 1250});
	write_event(proc, 6, CS_REC_MODULE, &(struct cs_event){.time_us = 4000, .kind = CS_ASSEMBLY, .text = S("app")});
	write_event(proc, 7, CS_REC_THREAD_EVENT,
		    &(struct cs_event){.time_us = 5000, .kind = CS_THREAD_NAMED, .thread_ref = 1, .os_tid = 4242,
				       .text = S("worker")});
	write_event(proc, 8, CS_REC_WAIT, &(struct cs_event){.time_us = 6000, .kind = 1, .thread_ref = 1, .id = 3,
							     .wait_ns = 3500000});
	write_event(proc, 9, CS_REC_THREADPOOL,
		    &(struct cs_event){.time_us = 7000, .kind = CS_POOL_ADJUSTED, .workers = 8,
				       .reason = CS_POOL_STARVATION});

	struct session_screen s;
	screen_open(&s, dir);
	session_screen_show(&s, VIEW_EVENTS);
	struct canvas c;
	canvas_init_memory(&c, 24, 120);
	screen_draw_session(&s, &c);
	char *dump = canvas_dump(&c);
	static const char *const lines[] = {
		"    0.001 gc        GC gen2 induced blocking: pause 1.50 ms, took 2.50 ms, heap after 1.0 MiB\n",
		"    0.002 exception System.InvalidOperationException thrown on thread 1: bad state\n",
		"    0.002 catch     caught in App.Work on thread 1\n",
		"    0.003 jit       compiled App.Main in 1.25 ms\n",
		"    0.004 module    assembly app\n",
		"    0.005 thread    thread 1 (os 4242) named worker\n",
		"    0.006 wait      waited 3.500 ms in Monitor.Wait on thread 1\n",
		"    0.007 threadpoo thread pool: 8 workers (starvation)\n",
		"    0.009 dials     dials generation 3 applied in part: rate=500; no hooks\n",
		"    0.009 message   agent: sampling at 500 Hz\n",
	};
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
		CHECK(strstr(dump, lines[i]) != NULL);
		if (!strstr(dump, lines[i]))
			fprintf(stderr, "missing: %s%s", lines[i], dump);
	}
	free(dump);
	CHECK_EQ_U(shown_list(&s)->nrows, 10);

	/* the filter matches the words the view shows */
	snprintf(s.filter, sizeof s.filter, "Monitor");
	session_screen_update_views(&s);
	CHECK_EQ_U(shown_list(&s)->nrows, 1);
	s.filter[0] = '\0';

	/* merged with a second process, whose frame ids differ */
	make_process(dir, 778);
	char proc2[700];
	snprintf(proc2, sizeof proc2, "%s/778", dir);
	write_event(proc2, 2, CS_REC_JIT, &(struct cs_event){.time_us = 8000, .id = 41, .duration_us = 500});
	s.all = true;
	CHECK(session_screen_refresh(&s));
	session_screen_process_changed(&s);
	session_screen_update_views(&s);
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, " pid 778: compiled App.Work in 0.50 ms\n") != NULL);
	CHECK(strstr(dump, " pid 777: caught in App.Work on thread 1\n") != NULL);
	CHECK(strstr(dump, " pid 777: compiled App.Main in 1.25 ms\n") != NULL);
	free(dump);
	canvas_free_memory(&c);
	session_screen_free(&s);
	remove_tree(base);
}

/* A heap snapshot with its object graph: a static list of two items, each
 * with a 1000-byte payload. */
static void write_heap_graph(const char *proc)
{
	uint8_t buf[4096], payload[1024];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	static const struct {
		uint64_t address, type, size, refs[2];
	} objs[] = {
		{0x1000, 0, 32, {0x1020}},         /* List`1<App.Item> */
		{0x1020, 1, 40, {0x1048, 0x1068}}, /* App.Item[] */
		{0x1048, 2, 32, {0x1100}},         /* App.Item */
		{0x1068, 2, 32, {0x1500}},
		{0x1100, 3, 1024, {0}}, /* System.Byte[] */
		{0x1500, 3, 1024, {0}},
	};
	static const char *const types[] = {"List`1<App.Item>", "App.Item[]", "App.Item", "System.Byte[]"};
	uint64_t prev = 0, edges = 0;
	cs_out_init(&p, payload, sizeof payload);
	cs_graph_part_encode(&p, &(struct cs_graph_part){1, 0});
	for (int i = 0; i < 6; i++) {
		uint64_t n = objs[i].refs[1] ? 2 : objs[i].refs[0] ? 1 : 0;
		cs_graph_node_encode(&p, &prev, &(struct cs_graph_node){objs[i].address, objs[i].type, objs[i].size, n});
	}
	put_record(&o, CS_REC_HEAP_NODES, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_graph_part_encode(&p, &(struct cs_graph_part){1, 0});
	prev = 0;
	for (int i = 0; i < 6; i++)
		for (int k = 0; k < 2 && objs[i].refs[k]; k++, edges++)
			cs_graph_edge_encode(&p, &prev, objs[i].refs[k]);
	put_record(&o, CS_REC_HEAP_EDGES, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_graph_part_encode(&p, &(struct cs_graph_part){1, 0});
	cs_graph_static_encode(&p, &(struct cs_graph_static){0x900, 0x1000, 0, S("App.Registry"), S("s_items")});
	put_record(&o, CS_REC_HEAP_STATICS, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_graph_part_encode(&p, &(struct cs_graph_part){1, 0});
	for (int i = 0; i < 4; i++)
		cs_graph_type_encode(&p, &(struct cs_graph_type){(uint64_t)i, S(types[i])});
	put_record(&o, CS_REC_HEAP_TYPES, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_graph_head_encode(&p, &(struct cs_graph_head){5, 1, 700, 6, edges, 0, 1, 0, 4, 0});
	put_record(&o, CS_REC_HEAP_GRAPH, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_heap_head_encode(&p, &(struct cs_heap_head){.time_us = 5, .seq = 1, .parts = 1, .pause_us = 700, .objects = 6,
						      .bytes = 2184, .types = 4, .roots = {0, 0, 1, 0}});
	static const uint64_t counts[] = {1, 1, 2, 2}, bytes[] = {32, 40, 64, 2048};
	for (int i = 0; i < 4; i++)
		cs_heap_entry_encode(&p, &(struct cs_type_count){0, S(types[i]), counts[i], bytes[i]});
	put_record(&o, CS_REC_HEAP, p.buf, p.len);
	write_segment(proc, 2, buf, o.len);
}

/* Heap with retained bytes, Enter on a type for its paths (Paths), and the
 * dominator tree (Dominators), opened with Enter. */
static void heap_graph_views(void)
{
	char *base = make_temp_dir();
	char dir[600], proc[700];
	snprintf(dir, sizeof dir, "%s/s", base);
	make_session(dir);
	snprintf(proc, sizeof proc, "%s/777", dir);
	write_heap_graph(proc);
	struct session_screen s;
	screen_open(&s, dir);
	session_screen_show(&s, VIEW_HEAP);
	struct canvas c;
	canvas_init_memory(&c, 24, 140);
	screen_draw_session(&s, &c);
	char *dump = canvas_dump(&c);
	CHECK(strstr(dump, "     count    +count        bytes      +bytes     retained   +retained type\n") != NULL);
	CHECK(strstr(dump, "         2         -           64           -         2112           - App.Item\n") != NULL);
	CHECK(strstr(dump, "         1         -           32           -         2184           - List`1<App.Item>\n") != NULL);
	free(dump);
	/* by count (s), App.Item is the first row: Enter shows its paths */
	session_screen_key(&s, 's');
	session_screen_key(&s, 'g');
	CHECK(session_screen_key(&s, '\n'));
	CHECK(s.shown == VIEW_PATHS);
	CHECK_STR(ui_view(VIEW_PATHS)->name, "Paths");
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "App.Item in snapshot 1: 2 objects, 64 bytes, retaining 2112;") != NULL);
	CHECK(strstr(dump, "         2           64         2112 static App.Registry.s_items > List`1<App.Item> > "
			   "App.Item[] > App.Item\n") != NULL);
	free(dump);
	session_screen_show(&s, VIEW_DOMINATORS);
	CHECK_STR(ui_view(VIEW_DOMINATORS)->name, "Dominators");
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "snapshot 1: 6 objects, 2184 bytes;") != NULL);
	CHECK(strstr(dump, "        2184  100.0         32          1 + List`1<App.Item> @1000\n") != NULL);
	free(dump);
	CHECK(session_screen_key(&s, '\n')); /* open the list */
	session_screen_key(&s, 'j');
	CHECK(session_screen_key(&s, KEY_RIGHT)); /* and its array */
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "        2152   98.5         40          2   - App.Item[] @1020\n"
			   "        1056   48.4         32          1     + App.Item @1048\n"
			   "        1056   48.4         32          1     + App.Item @1068\n") != NULL);
	free(dump);
	session_screen_key(&s, 'j');
	CHECK(session_screen_key(&s, 'p')); /* the paths to an item's type */
	CHECK(s.shown == VIEW_PATHS);
	canvas_free_memory(&c);
	session_screen_free(&s);
	remove_tree(base);
}

/* An awaits snapshot in segment seq of proc: Outer -> Middle -> Inner
 * (outer chains), Both -> [WhenAll] -> Inner (10), Delay -> [awaiting
 * DelayPromise] (10) and [blocking wait] -> Inner (1). */
static void write_awaits(const char *proc, uint32_t seq, uint64_t outer)
{
	uint8_t buf[2048], payload[1024];
	struct cs_out o, p;
	cs_out_init(&o, buf, sizeof buf);
	static const char *const names[] = {"App.P+<OuterAsync>d__1.MoveNext", "App.P+<MiddleAsync>d__2.MoveNext",
					    "App.P+<InnerAsync>d__3.MoveNext", "App.P+<BothAsync>d__4.MoveNext",
					    "App.P+<DelayAsync>d__5.MoveNext", "[awaiting System.Threading.Tasks.Task+DelayPromise]"};
	cs_out_init(&p, payload, sizeof payload);
	for (int i = 0; i < 6; i++)
		cs_frame_def_encode(&p, &(struct cs_frame_def){30 + (uint64_t)i, S(names[i]), S(i < 5 ? "app.dll" : "")});
	cs_frame_def_encode(&p, &(struct cs_frame_def){CS_FRAME_WHEN_ALL, S("[WhenAll]"), S("")});
	cs_frame_def_encode(&p, &(struct cs_frame_def){CS_FRAME_BLOCKING_WAIT, S("[blocking wait]"), S("")});
	put_record(&o, CS_REC_FRAMES, p.buf, p.len);
	struct cs_stack_def st[] = {{10, 0, 30}, {11, 10, 31}, {12, 11, 32}, {13, 0, 33}, {14, 13, CS_FRAME_WHEN_ALL},
				    {15, 14, 32}, {16, 0, 34}, {17, 16, 35}, {18, 0, CS_FRAME_BLOCKING_WAIT}, {19, 18, 32}};
	cs_out_init(&p, payload, sizeof payload);
	for (size_t i = 0; i < sizeof st / sizeof *st; i++)
		cs_stack_def_encode(&p, &st[i]);
	put_record(&o, CS_REC_STACKS, p.buf, p.len);
	cs_out_init(&p, payload, sizeof payload);
	cs_awaits_head_encode(&p, &(struct cs_awaits_head){.time_us = 2500000, .seq = seq, .pause_us = 1500,
							  .suspended = 3 * outer + 26, .chains = outer + 21});
	cs_await_group_encode(&p, &(struct cs_await_group){17, 10});
	cs_await_group_encode(&p, &(struct cs_await_group){12, outer});
	cs_await_group_encode(&p, &(struct cs_await_group){19, 1});
	cs_await_group_encode(&p, &(struct cs_await_group){15, 10});
	put_record(&o, CS_REC_AWAITS, p.buf, p.len);
	write_segment(proc, seq + 1, buf, o.len);
}

/* The screen line (0 the first) that first holds text; -1: none. */
static int line_of(const char *dump, const char *text)
{
	const char *at = strstr(dump, text);
	int line = 0;
	for (const char *c = dump; at && c < at; c++)
		line += *c == '\n';
	return at ? line : -1;
}

/* Awaits: how to take a snapshot, then the latest one as a tree, open,
 * the markers dim; A is ':snapshot awaits'; a snapshot asked for says on
 * the status bar when it arrives. */
/* The trees' open/close keys, one rule for Tree, Awaits and Dominators:
 * Enter turns a node, Right and l open it, Left closes it, or goes up to
 * its parent when it is closed already (a root stays closed) */
static void tree_keys(void)
{
	CHECK(view_tree_key('\n', false, true) == TREE_OPEN && view_tree_key(KEY_ENTER, true, true) == TREE_CLOSE);
	CHECK(view_tree_key(KEY_RIGHT, false, false) == TREE_OPEN && view_tree_key('l', true, true) == TREE_OPEN);
	CHECK(view_tree_key(KEY_LEFT, true, true) == TREE_CLOSE);
	CHECK(view_tree_key(KEY_LEFT, false, true) == TREE_UP);
	CHECK(view_tree_key(KEY_LEFT, false, false) == TREE_CLOSE);
	CHECK(view_tree_key('p', true, true) == TREE_NO_KEY && view_tree_key('H', false, true) == TREE_NO_KEY);
}

static void awaits_view(void)
{
	char *base = make_temp_dir();
	char dir[600], proc[700];
	snprintf(dir, sizeof dir, "%s/s", base);
	make_session(dir);
	snprintf(proc, sizeof proc, "%s/777", dir);
	struct session_screen s;
	screen_open(&s, dir);
	CHECK(ui_view_find("awaits") == VIEW_AWAITS);
	const struct ui_binding *b = commands_binding('A', false, true);
	CHECK(b && !strcmp(b->line, "snapshot awaits"));
	session_screen_show(&s, VIEW_AWAITS);
	struct canvas c;
	canvas_init_memory(&c, 24, 120);
	screen_draw_session(&s, &c);
	char *dump = canvas_dump(&c);
	CHECK(strstr(dump, "No awaits snapshot yet.\n") != NULL);
	CHECK(strstr(dump, "Press A (or :snapshot awaits) to take one") != NULL);
	free(dump);

	write_awaits(proc, 1, 100);
	session_screen_awaits_asked(&s);
	CHECK(strstr(s.message, "asked for an awaits snapshot") != NULL);
	CHECK(session_screen_refresh(&s));
	session_screen_update_views(&s);
	CHECK(strstr(s.message, "awaits snapshot 1 at 2.50 s: 121 chains pending in 4 groups, 326 async methods") ==
	      s.message);
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "\nawaits snapshot 1 at 2.50 s: 121 chains pending in 4 groups, 326 async methods suspended, "
			   "0 unresolved; paused 1.5 ms\n") != NULL);
	CHECK(strstr(dump, "  chains      % pending async chains, outermost method first\n"
			   "     100   82.6 - App.P+<OuterAsync>d__1.MoveNext\n"
			   "     100   82.6   - App.P+<MiddleAsync>d__2.MoveNext\n"
			   "     100   82.6       App.P+<InnerAsync>d__3.MoveNext\n"
			   "      10    8.3 - App.P+<BothAsync>d__4.MoveNext\n"
			   "      10    8.3   - [WhenAll]\n"
			   "      10    8.3       App.P+<InnerAsync>d__3.MoveNext\n"
			   "      10    8.3 - App.P+<DelayAsync>d__5.MoveNext\n"
			   "      10    8.3     [awaiting System.Threading.Tasks.Task+DelayPromise]\n"
			   "       1    0.8 - [blocking wait]\n"
			   "       1    0.8     App.P+<InnerAsync>d__3.MoveNext\n") != NULL);
	/* the markers dim, the methods not */
	static const struct {
		const char *text;
		bool dim;
	} rows[] = {{"[awaiting System", true}, {"[WhenAll]", true}, {"[blocking wait]", true},
		    {"<DelayAsync>", false}, {"<BothAsync>", false}, {"<OuterAsync>", false}};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		int y = line_of(dump, rows[i].text);
		if (y < 0 || (canvas_style_at(&c, y, 30) == UI_DIM) != rows[i].dim)
			fprintf(stderr, "%s: line %d, style %d\n", rows[i].text, y, y < 0 ? -1 : (int)canvas_style_at(&c, y, 30));
		CHECK(y > 0 && (canvas_style_at(&c, y, 30) == UI_DIM) == rows[i].dim);
	}
	free(dump);
	/* Enter closes the outer chains */
	session_screen_key(&s, 'g');
	CHECK(session_screen_key(&s, '\n'));
	CHECK_EQ_U(view_list(&s.views[VIEW_AWAITS])->nrows, 8);
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "     100   82.6 + App.P+<OuterAsync>d__1.MoveNext\n"
			   "      10    8.3 - App.P+<BothAsync>d__4.MoveNext\n") != NULL);
	free(dump);
	/* a later snapshot replaces it; what was closed stays closed */
	write_awaits(proc, 2, 40);
	CHECK(session_screen_refresh(&s));
	session_screen_update_views(&s);
	canvas_clear(&c);
	screen_draw_session(&s, &c);
	dump = canvas_dump(&c);
	CHECK(strstr(dump, "\nawaits snapshot 2 at 2.50 s: 61 chains pending in 4 groups,") != NULL);
	CHECK(strstr(dump, "      40   65.6 + App.P+<OuterAsync>d__1.MoveNext\n") != NULL);
	free(dump);
	canvas_free_memory(&c);
	session_screen_free(&s);
	remove_tree(base);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	RUN(heap_graph_views);
	RUN(locks_view);
	RUN(canvas_text_cuts_by_width);
	RUN(listview_scrolls);
	RUN(session_screen_layout);
	RUN(full_session_is_shown);
	RUN(command_table_and_completion);
	RUN(help_fits_the_width);
	RUN(help_scrolls);
	RUN(key_dispatch_from_the_table);
	RUN(hidden_views_wait);
	RUN(flame_view);
	RUN(sample_filters);
	RUN(flame_diff);
	RUN(flame_same_names);
	RUN(events_view);
	RUN(awaits_view);
	RUN(tree_keys);
	return CHECK_DONE();
}
