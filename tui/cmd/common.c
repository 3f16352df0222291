#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void ignore_signal(int sig)
{
	(void)sig;
}

#include "cmd/cmd.h"
#include "common/dials.h"
#include "common/session.h"
#include "profile/natsym.h"
#include "util/config.h"
#include "util/xalloc.h"

void cmd_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("clrscope: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int cmd_usage_error(const char *command, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "clrscope %s: ", command);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (see 'clrscope %s --help')\n", command);
	va_end(ap);
	return EXIT_USAGE;
}

int parse_u32(const char *s, unsigned long min, unsigned long max, unsigned *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-')
		return -1;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int parse_seconds(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

void watch_signals(const int *sigs, size_t n, sigset_t *watched, sigset_t *old)
{
	sigemptyset(watched);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ignore_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < n; i++) {
		sigaddset(watched, sigs[i]);
		/* An ignored signal is dropped even while blocked: a handler
		 * (never run, the signal stays blocked) keeps it pending for
		 * sigtimedwait. */
		if (sigs[i] != SIGCHLD)
			sigaction(sigs[i], &sa, NULL);
	}
	sigprocmask(SIG_BLOCK, watched, old);
}

int parse_seconds_or_zero(const char *s, double *out)
{
	if (!strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	return parse_seconds(s, out);
}

int parse_events_option(const char *command, const char *list)
{
	struct cs_dials check;
	char assignment[300], why[300];
	if (list[0] == '+' || list[0] == '-')
		return cmd_usage_error(command, "--events wants a list of kinds: gc,jit,... (no + or -)");
	cs_dials_default(&check, CS_RATE_DEFAULT);
	snprintf(assignment, sizeof assignment, "events=%s", list);
	if (cs_dials_assign(&check, assignment, why, sizeof why) < 0)
		return cmd_usage_error(command, "--events wants a list of kinds: %s", why);
	return 0;
}

int add_instrument_pattern(const char *command, struct startup_features *f, const char *pattern)
{
	char err[512];
	if (startup_features_add_pattern(f, pattern, err, sizeof err) < 0)
		return cmd_usage_error(command, "%s", err);
	return 0;
}

int refuse_features_on_attach(const char *command, const struct startup_features *f)
{
	if (f->patterns[0])
		return cmd_usage_error(command, "--instrument cannot be used when attaching: the runtime lets a profiler "
						"hook functions only when the program starts under it.  Start it with: "
						"clrscope %s --instrument PATTERN -- COMMAND",
				       strcmp(command, "attach") ? command : "launch");
	if (f->allocations)
		return cmd_usage_error(command, "--allocations cannot be used when attaching: allocation counting "
						"can only be turned on when the program starts.  Start it with: "
						"clrscope %s --allocations -- COMMAND",
				       strcmp(command, "attach") ? command : "launch");
	if (f->heap_snapshots)
		return cmd_usage_error(command, "--heap-snapshots cannot be used when attaching: it turns background GC "
						"off, which only a program starting under the profiler allows.  Start it "
						"with: clrscope %s --heap-snapshots -- COMMAND",
				       strcmp(command, "attach") ? command : "launch");
	return 0;
}

/* The --symbols directories given, then all of them (use_symbol_dirs). */
static char **symbol_dirs;
static size_t nsymbol_dirs;

static void add_symbol_dir(const char *dir)
{
	symbol_dirs = xrealloc(symbol_dirs, (nsymbol_dirs + 1) * sizeof *symbol_dirs);
	symbol_dirs[nsymbol_dirs++] = xstrdup(dir);
}

int add_symbols_option(const char *command, const char *dir)
{
	struct stat st;
	char *full = realpath(dir, NULL);
	const char *why = !full ? strerror(errno) : stat(full, &st) != 0 ? strerror(errno)
				  : !S_ISDIR(st.st_mode)  ? "not a directory"
							  : NULL;
	if (!why)
		add_symbol_dir(full);
	free(full);
	return why ? cmd_usage_error(command, "--symbols wants a directory of debug files: %s: %s", dir, why) : 0;
}

void use_symbol_dirs(void)
{
	const char *env = getenv(CLRSCOPE_SYMBOLS_ENV);
	char *list = xstrdup(env ? env : ""), *save = NULL;
	for (char *dir = strtok_r(list, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if (dir[0] == '/')
			add_symbol_dir(dir);
		else
			cmd_error("%s: '%s' is not an absolute path; ignored", CLRSCOPE_SYMBOLS_ENV, dir);
	}
	free(list);
	struct config cfg;
	config_load(&cfg, NULL); /* (its problems are said by the commands that read it for themselves) */
	for (size_t i = 0; i < cfg.nsymbol_dirs; i++)
		add_symbol_dir(cfg.symbol_dirs[i]);
	config_free(&cfg);
	natsym_set_dirs((const char *const *)symbol_dirs, nsymbol_dirs);
}
