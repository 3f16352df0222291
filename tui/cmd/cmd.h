/* The subcommands of clrscope.  Each parses its own arguments and returns
 * the process exit status: 0 success, 1 failure (a message said what to do),
 * 2 usage error (a one-line hint), or the profiled program's own status. */
#ifndef CLRSCOPE_CMD_H
#define CLRSCOPE_CMD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

#include "live/launch.h"

#define EXIT_USAGE 2

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
	const char *summary;
};

int cmd_record(int argc, char **argv);
void cmd_record_usage(FILE *f);
int cmd_ui(int argc, char **argv);
int cmd_open(int argc, char **argv);
void cmd_open_usage(FILE *f);
int cmd_launch(int argc, char **argv);
void cmd_launch_usage(FILE *f);
int cmd_attach(int argc, char **argv);
void cmd_attach_usage(FILE *f);
int cmd_dial(int argc, char **argv);
void cmd_dial_usage(FILE *f);
int cmd_report(int argc, char **argv);
void cmd_report_usage(FILE *f);
int cmd_ps(int argc, char **argv);
int cmd_diff(int argc, char **argv);
void cmd_diff_usage(FILE *f);
int cmd_prune(int argc, char **argv);
void cmd_prune_usage(FILE *f);
void cmd_ps_usage(FILE *f);
int cmd_apps(int argc, char **argv);
void cmd_apps_usage(FILE *f);

/* record's two ways in: a new program (record.c) or a running one
 * (attach.c), and what both say at the end. */
int record_attach(int pid, const char *dir, unsigned rate, const char *events, double duration, double rotate,
		  uint64_t max_size);
/* The recording into session ended: mark it closed (unless follow, so that
 * descendants still running go on recording), and say so when full (the
 * processes that ended at the size cap) is not 0. */
void record_close_session(const char *session, bool follow, size_t full);
/* Reads the session back: the processes that said hello, with *samples
 * their samples and *full those that ended at the size cap. */
size_t record_summarize(const char *dir, uint64_t *samples, size_t *full);

/* Message helpers: "clrscope: ..." on stderr. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cmd_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Blocks sigs (collected with sigtimedwait), making sure none of them is
 * ignored, so that a stop request is never lost. */
void watch_signals(const int *sigs, size_t n, sigset_t *watched, sigset_t *old);

/* Strict number parsing for options: -1 when s is not a number in range. */
int parse_u32(const char *s, unsigned long min, unsigned long max, unsigned *out);
int parse_seconds(const char *s, double *out);
int parse_seconds_or_zero(const char *s, double *out);
/* Checks an --events list (absolute kinds only); 0, or a usage error's status. */
int parse_events_option(const char *command, const char *list);

/* Adds one --symbols DIR (repeatable; made absolute); 0, or a usage
 * error's status when it is not a directory. */
int add_symbols_option(const char *command, const char *dir);
/* Where native modules' debug files are looked for, after the system's:
 * the --symbols directories, then those of CLRSCOPE_SYMBOLS (separated by
 * ':'), then the config file's symbols keys. */
void use_symbol_dirs(void);
#define CLRSCOPE_SYMBOLS_ENV "CLRSCOPE_SYMBOLS"

/* Adds one --instrument pattern; 0, or a usage error's status. */
int add_instrument_pattern(const char *command, struct startup_features *f, const char *pattern);
/* A usage error for features given with --pid / attach; 0 when none were. */
int refuse_features_on_attach(const char *command, const struct startup_features *f);

#endif
