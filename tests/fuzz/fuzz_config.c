/* libFuzzer target for the config file parser (tui/util/config.c): the
 * input is the file.  Whatever it holds, loading it
 *   - succeeds (it is the user's own private file), counting each bad line
 *     once and warning about it on exactly one line;
 *   - leaves every setting valid (in range, events a dials list without
 *     changes or blanks, app_dir and symbols absolute, in file order);
 *   - gives settings that, written back in the file's own syntax, load to
 *     the same settings with no bad line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dials.h"
#include "common/session.h"
#include "fuzz_tmp.h"
#include "util/config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[4096 + 16];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	snprintf(path, sizeof path, "%s/config", fuzz_tmp_dir());
	/* the same expansion of ~ and the same colour every run */
	setenv("HOME", "/home/fuzz", 1);
	unsetenv("NO_COLOR");
	return 0;
}

/* Loads the file; the warnings go to *warnings. */
static int load(struct config *c, char **warnings)
{
	size_t len;
	FILE *warn = open_memstream(warnings, &len);
	if (!warn)
		abort();
	int bad = config_load_file(c, path, warn);
	fclose(warn);
	return bad;
}

static size_t count_lines(const char *s, size_t n)
{
	size_t lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += s[i] == '\n';
	return lines + (n && s[n - 1] != '\n');
}

static void check_valid(const struct config *c, size_t lines)
{
	if (c->rate < CS_RATE_MIN || c->rate > CS_RATE_MAX || c->history_size > CONFIG_HISTORY_MAX)
		abort();
	if (c->events[0]) {
		if (strpbrk(c->events, "+- \t"))
			abort();
		struct cs_dials d;
		char assignment[sizeof c->events + 8], err[256];
		cs_dials_default(&d, CS_RATE_DEFAULT);
		snprintf(assignment, sizeof assignment, "events=%s", c->events);
		if (cs_dials_assign(&d, assignment, err, sizeof err) != 0)
			abort();
	}
	if (c->napp_dirs + c->nsymbol_dirs > lines)
		abort();
	for (size_t i = 0; i < c->nsymbol_dirs; i++)
		if (c->symbol_dirs[i][0] != '/')
			abort();
	for (size_t i = 0; i < c->napp_dirs; i++) {
		if (c->app_dirs[i][0] != '/' || c->app_dir_lines[i] == 0 || c->app_dir_lines[i] > lines)
			abort();
		if (i && c->app_dir_lines[i] <= c->app_dir_lines[i - 1])
			abort();
	}
}

/* c in the file's syntax. */
static char *config_text(const struct config *c, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (!f)
		abort();
	fprintf(f, "# written back\nrate = %u\ncolor = %s\nhistory_size = %u\n", c->rate, c->color ? "yes" : "no",
		c->history_size);
	if (c->events[0])
		fprintf(f, "events = %s\n", c->events);
	for (size_t i = 0; i < c->napp_dirs; i++)
		fprintf(f, "app_dir = %s\n", c->app_dirs[i]);
	for (size_t i = 0; i < c->nsymbol_dirs; i++)
		fprintf(f, "symbols = %s\n", c->symbol_dirs[i]);
	fclose(f);
	return text;
}

static void check_round_trip(const struct config *c)
{
	size_t len;
	char *text = config_text(c, &len), *warnings = NULL;
	fuzz_write_file(path, text, len);
	struct config back;
	int bad = load(&back, &warnings);
	if (bad != 0) {
		fprintf(stderr, "config: settings written back do not load:\n%s%s", text, warnings);
		abort();
	}
	bool same = back.rate == c->rate && back.color == c->color && back.history_size == c->history_size &&
		    !strcmp(back.events, c->events) && back.napp_dirs == c->napp_dirs &&
		    back.nsymbol_dirs == c->nsymbol_dirs;
	for (size_t i = 0; same && i < c->napp_dirs; i++)
		same = !strcmp(back.app_dirs[i], c->app_dirs[i]);
	for (size_t i = 0; same && i < c->nsymbol_dirs; i++)
		same = !strcmp(back.symbol_dirs[i], c->symbol_dirs[i]);
	if (!same) {
		fprintf(stderr, "config: settings written back load differently:\n%s", text);
		abort();
	}
	config_free(&back);
	free(warnings);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_write_file(path, data, size);
	struct config c;
	char *warnings = NULL;
	int bad = load(&c, &warnings);
	size_t lines = count_lines((const char *)data, size);
	if (bad < 0 || (size_t)bad > lines || count_lines(warnings, strlen(warnings)) != (size_t)bad) {
		fprintf(stderr, "config: %d bad lines of %zu, warnings:\n%s", bad, lines, warnings);
		abort();
	}
	check_valid(&c, lines);
	check_round_trip(&c);
	config_free(&c);
	free(warnings);
	return 0;
}
