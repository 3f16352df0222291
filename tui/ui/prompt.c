#include "ui/prompt.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wchar.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "util/xalloc.h"

static struct {
	bool active;
	prompt_done done;
	void *ctx;
	prompt_candidate candidates;
	unsigned char pending[16];
	int npending, next;
	char history[4096]; /* "" when none is kept */
	unsigned history_size;
	char matches[512];
	const char *initial;
} pr;

/* readline asks for bytes: hand it the ones queued from the last key. */
static int feed_getc(FILE *f)
{
	(void)f;
	return pr.next < pr.npending ? pr.pending[pr.next++] : EOF;
}

static int input_available(void)
{
	return pr.next < pr.npending;
}

static void redisplay(void)
{
	/* drawn with the screen (prompt_draw); nothing to do here */
}

static int insert_initial(void)
{
	if (pr.initial) {
		rl_insert_text(pr.initial);
		pr.initial = NULL;
	}
	return 0;
}

static void line_done(char *line)
{
	rl_callback_handler_remove();
	pr.active = false;
	if (line && *line) {
		add_history(line);
		if (pr.history[0])
			append_history(1, pr.history), history_truncate_file(pr.history, (int)pr.history_size);
	}
	prompt_done done = pr.done;
	pr.done = NULL;
	if (done)
		done(line, pr.ctx);
	free(line);
}

static int word_index(const char *line, int upto)
{
	int words = 0;
	bool in_word = false;
	for (int i = 0; i < upto && line[i]; i++) {
		bool space = line[i] == ' ';
		if (!space && !in_word)
			words++;
		in_word = !space;
	}
	return in_word ? words - 1 : words;
}

static int generator_word;

static char *generate(const char *text, int state)
{
	static int index;
	if (!state)
		index = 0;
	const char *c;
	while ((c = pr.candidates(generator_word, rl_line_buffer, index++)))
		if (!strncmp(c, text, strlen(text)))
			return xstrdup(c);
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	(void)end;
	rl_attempted_completion_over = 1; /* never fall back to file names */
	generator_word = word_index(rl_line_buffer, start);
	return rl_completion_matches(text, generate);
}

static void show_matches(char **matches, int n, int longest)
{
	(void)longest;
	size_t len = 0;
	pr.matches[0] = 0;
	for (int i = 1; i <= n && len + 2 < sizeof pr.matches; i++)
		len += (size_t)snprintf(pr.matches + len, sizeof pr.matches - len, "%s%s", i > 1 ? "  " : "", matches[i]);
}

void prompt_init(prompt_candidate candidates, unsigned history_size)
{
	pr.candidates = candidates;
	pr.history_size = history_size;
	pr.history[0] = 0;
	rl_readline_name = "clrscope";
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_change_environment = 0;
	rl_prep_term_function = NULL;
	rl_deprep_term_function = NULL;
	rl_getc_function = feed_getc;
	rl_input_available_hook = input_available;
	rl_redisplay_function = redisplay;
	rl_attempted_completion_function = complete;
	rl_completion_display_matches_hook = show_matches;
	rl_startup_hook = insert_initial;
	rl_instream = stdin;
	static FILE *sink;
	if (!sink)
		sink = fopen("/dev/null", "w"); /* readline must never write to the screen itself */
	rl_outstream = sink ? sink : stderr;
	rl_variable_bind("bell-style", "none");
	using_history();
	stifle_history((int)history_size);
	if (!history_size)
		return; /* none kept: the file is neither read nor written */
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char dir[3500];
	if (state && *state == '/')
		snprintf(dir, sizeof dir, "%s/clrscope", state);
	else if (home && *home == '/')
		snprintf(dir, sizeof dir, "%s/.local/state/clrscope", home);
	else
		return;
	/* make the directory and its parents, private */
	for (char *p = dir + 1; *p; p++) {
		if (*p == '/') {
			*p = 0;
			mkdir(dir, 0700);
			*p = '/';
		}
	}
	mkdir(dir, 0700);
	snprintf(pr.history, sizeof pr.history, "%s/history", dir);
	if (read_history(pr.history) != 0 && errno == ENOENT) {
		FILE *f = fopen(pr.history, "a"); /* so that append_history has a file */
		if (f)
			fclose(f);
	}
	chmod(pr.history, 0600);
}

void prompt_fini(void)
{
	if (pr.active)
		rl_callback_handler_remove();
	pr.active = false;
}

void prompt_open(const char *initial, prompt_done done, void *ctx)
{
	pr.done = done;
	pr.ctx = ctx;
	pr.active = true;
	pr.initial = initial && *initial ? initial : NULL;
	pr.matches[0] = 0;
	rl_callback_handler_install(":", line_done);
	insert_initial();
}

bool prompt_active(void)
{
	return pr.active;
}

static void queue(const char *bytes, int n)
{
	pr.npending = 0;
	pr.next = 0;
	for (int i = 0; i < n && pr.npending < (int)sizeof pr.pending; i++)
		pr.pending[pr.npending++] = (unsigned char)bytes[i];
}

void prompt_key(int key, bool is_function_key)
{
	if (!pr.active)
		return;
	char bytes[16];
	int n = 0;
	if (is_function_key) {
		const char *seq = NULL;
		switch (key) {
		case KEY_LEFT: seq = "\033[D"; break;
		case KEY_RIGHT: seq = "\033[C"; break;
		case KEY_UP: seq = "\033[A"; break;
		case KEY_DOWN: seq = "\033[B"; break;
		case KEY_HOME: seq = "\001"; break;
		case KEY_END: seq = "\005"; break;
		case KEY_BACKSPACE: seq = "\177"; break;
		case KEY_DC: seq = "\004"; break;
		case KEY_ENTER: seq = "\r"; break;
		default: return;
		}
		n = (int)strlen(seq);
		memcpy(bytes, seq, (size_t)n);
	} else if (key == 27) {
		/* Escape abandons the prompt */
		rl_callback_handler_remove();
		pr.active = false;
		prompt_done done = pr.done;
		pr.done = NULL;
		if (done)
			done(NULL, pr.ctx);
		return;
	} else {
		mbstate_t st;
		memset(&st, 0, sizeof st);
		size_t w = wcrtomb(bytes, (wchar_t)key, &st);
		if (w == (size_t)-1)
			return;
		n = (int)w;
		if (n == 1 && bytes[0] == '\n')
			bytes[0] = '\r';
	}
	queue(bytes, n);
	pr.matches[0] = 0;
	while (pr.active && pr.next < pr.npending)
		rl_callback_read_char();
}

int prompt_draw(struct canvas *c, int y)
{
	if (!pr.active)
		return -1;
	char line[1024];
	snprintf(line, sizeof line, "%s%s", rl_prompt ? rl_prompt : ":", rl_line_buffer ? rl_line_buffer : "");
	canvas_text(c, y, 0, c->cols, UI_NORMAL, true, line);
	/* the cursor column is the display width up to rl_point */
	char upto[1024];
	snprintf(upto, sizeof upto, "%s%.*s", rl_prompt ? rl_prompt : ":", rl_point, rl_line_buffer ? rl_line_buffer : "");
	int x = text_width(upto);
	return x < c->cols ? x : c->cols - 1;
}

const char *prompt_matches(void)
{
	return pr.matches;
}
