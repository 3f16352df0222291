/* The terminal UI's entry points: clrscope (the targets screen), open,
 * launch and attach (straight to a session). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "common/dials.h"
#include "common/session.h"
#include "ui/loop.h"
#include "util/config.h"

void cmd_open_usage(FILE *f)
{
	fprintf(f, "usage: clrscope open [--symbols DIR]... DIR\n"
		   "\n"
		   "Shows a session in the terminal UI: live while its programs run, or long after.\n"
		   "      --symbols DIR  also look for native modules' debug files in DIR, by debug\n"
		   "                     link and build id (repeatable)\n"
		   "  -h, --help         show this help\n");
}

void cmd_launch_usage(FILE *f)
{
	fprintf(f, "usage: clrscope launch [-o DIR] [--rate HZ] [--events LIST] [--instrument PATTERN]...\n"
		   "                       [--allocations] [--heap-snapshots] -- COMMAND [ARG...]\n"
		   "\n"
		   "Starts COMMAND under the profiler and shows it live in the terminal UI.  Its\n"
		   "output goes to output.log in the session directory, not to the screen.\n"
		   "  -o, --output DIR   session directory (default: a new one)\n"
		   "  -r, --rate HZ      samples per second, %d to %d (default %d, or the config file's rate)\n"
		   "  -e, --events LIST  runtime events: gc, exceptions, jit, modules, threads,\n"
		   "                     contention, waits, threadpool, allocsamples, all, none\n"
		   "  -i, --instrument PATTERN\n"
		   "                     count and time every call of the matching functions (repeatable)\n"
		   "  -A, --allocations  count allocations by type\n"
		   "  -H, --heap-snapshots\n"
		   "                     heap snapshots by a forced full GC with roots (background GC off)\n"
		   "      --symbols DIR  also look for native modules' debug files in DIR, by debug\n"
		   "                     link and build id (repeatable)\n"
		   "  -h, --help         show this help\n",
		CS_RATE_MIN, CS_RATE_MAX, CS_RATE_DEFAULT);
}

void cmd_attach_usage(FILE *f)
{
	fprintf(f, "usage: clrscope attach [-o DIR] [--rate HZ] [--events LIST] PID\n"
		   "\n"
		   "Attaches to the running .NET process PID and shows it live in the terminal UI;\n"
		   "'d' detaches (the process keeps running), 'a' attaches again.\n"
		   "  -o, --output DIR   session directory (default: a new one)\n"
		   "  -r, --rate HZ      samples per second, %d to %d (default %d, or the config file's rate)\n"
		   "  -e, --events LIST  runtime events: gc, exceptions, jit, modules, threads,\n"
		   "                     contention, waits, threadpool, allocsamples, all, none\n"
		   "      --symbols DIR  also look for native modules' debug files in DIR, by debug\n"
		   "                     link and build id (repeatable)\n"
		   "  -h, --help         show this help\n",
		CS_RATE_MIN, CS_RATE_MAX, CS_RATE_DEFAULT);
}

/* Options shared by launch and attach; returns -1 after a usage error. */
static int parse_session_options(const char *name, int argc, char **argv, struct loop_options *o, int *status)
{
	static const struct option options[] = {
		{"output", required_argument, NULL, 'o'},     {"rate", required_argument, NULL, 'r'},
		{"events", required_argument, NULL, 'e'},     {"instrument", required_argument, NULL, 'i'},
		{"allocations", no_argument, NULL, 'A'},      {"heap-snapshots", no_argument, NULL, 'H'},
		{"symbols", required_argument, NULL, 'Y'},    {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+o:r:e:i:AHh", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->dir = optarg;
			break;
		case 'r':
			if (parse_u32(optarg, CS_RATE_MIN, CS_RATE_MAX, &o->rate) < 0) {
				*status = cmd_usage_error(name, "--rate wants a whole number of Hz from %d to %d, not '%s'",
							  CS_RATE_MIN, CS_RATE_MAX, optarg);
				return -1;
			}
			break;
		case 'e':
			if (parse_events_option(name, optarg) != 0) {
				*status = EXIT_USAGE;
				return -1;
			}
			o->events = optarg;
			break;
		case 'i':
			if (add_instrument_pattern(name, &o->features, optarg) != 0) {
				*status = EXIT_USAGE;
				return -1;
			}
			break;
		case 'A':
			o->features.allocations = true;
			break;
		case 'Y':
			if (add_symbols_option(name, optarg) != 0) {
				*status = EXIT_USAGE;
				return -1;
			}
			break;
		case 'H':
			o->features.heap_snapshots = true;
			break;
		case 'h':
			if (!strcmp(name, "launch"))
				cmd_launch_usage(stdout);
			else
				cmd_attach_usage(stdout);
			*status = 0;
			return -1;
		default:
			*status = cmd_usage_error(name, "unknown option");
			return -1;
		}
	}
	return 0;
}

/* The default rate and events, from the config file (cfg must outlive o;
 * options parsed afterwards override them). */
static void config_defaults_into(struct loop_options *o, struct config *cfg)
{
	config_load(cfg, stderr);
	config_free(cfg); /* (only the rate and events are wanted: the symbols keys are use_symbol_dirs's) */
	o->rate = cfg->rate;
	o->events = cfg->events[0] ? cfg->events : NULL;
}

int cmd_ui(int argc, char **argv)
{
	(void)argc, (void)argv;
	struct loop_options o = {.start = LOOP_TARGETS};
	struct config cfg;
	config_defaults_into(&o, &cfg);
	use_symbol_dirs();
	return loop_main(&o);
}

int cmd_open(int argc, char **argv)
{
	static const struct option options[] = {
		{"symbols", required_argument, NULL, 'Y'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case 'Y':
			if (add_symbols_option("open", optarg) != 0)
				return EXIT_USAGE;
			break;
		case 'h':
			cmd_open_usage(stdout);
			return 0;
		default:
			return cmd_usage_error("open", "unknown option");
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error("open", "give one session directory");
	struct loop_options o = {.start = LOOP_OPEN, .dir = argv[optind]};
	struct config cfg;
	config_defaults_into(&o, &cfg);
	use_symbol_dirs();
	return loop_main(&o);
}

int cmd_launch(int argc, char **argv)
{
	struct loop_options o = {.start = LOOP_LAUNCH};
	struct config cfg;
	config_defaults_into(&o, &cfg);
	int status;
	if (parse_session_options("launch", argc, argv, &o, &status) < 0)
		return status;
	use_symbol_dirs();
	if (optind >= argc)
		return cmd_usage_error("launch", "no command to run: clrscope launch [OPTIONS] -- COMMAND [ARG...]");
	o.command = argv + optind;
	return loop_main(&o);
}

int cmd_attach(int argc, char **argv)
{
	struct loop_options o = {.start = LOOP_ATTACH};
	struct config cfg;
	config_defaults_into(&o, &cfg);
	int status;
	if (parse_session_options("attach", argc, argv, &o, &status) < 0)
		return status;
	use_symbol_dirs();
	if ((status = refuse_features_on_attach("attach", &o.features)) != 0)
		return status;
	unsigned pid;
	if (optind != argc - 1 || parse_u32(argv[optind], 1, 0x7fffffff, &pid) < 0)
		return cmd_usage_error("attach", "give the pid of one running .NET process");
	o.pid = (pid_t)pid;
	return loop_main(&o);
}
