/* clrscope: a profiler for .NET programs on Linux.  This file only picks
 * the subcommand; each lives in cmd/. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "ui/help.h"

static const struct command commands[] = {
	{"launch", cmd_launch, cmd_launch_usage, "start a .NET program and watch it live (terminal UI)"},
	{"attach", cmd_attach, cmd_attach_usage, "attach to a running .NET process (terminal UI)"},
	{"open", cmd_open, cmd_open_usage, "show a session in the terminal UI"},
	{"record", cmd_record, cmd_record_usage, "run a .NET program under the profiler"},
	{"report", cmd_report, cmd_report_usage, "print the profile of a session"},
	{"diff", cmd_diff, cmd_diff_usage, "compare the profiles of two sessions"},
	{"ps", cmd_ps, cmd_ps_usage, "list your running .NET processes"},
	{"apps", cmd_apps, cmd_apps_usage, "list the .NET apps you may launch"},
	{"dial", cmd_dial, cmd_dial_usage, "change what a running agent records"},
	{"prune", cmd_prune, cmd_prune_usage, "remove old sessions"},
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

static void usage(FILE *f)
{
	fprintf(f, "usage: clrscope [COMMAND [OPTIONS]]\n\n"
		   "Without a command, clrscope opens its terminal UI on your running .NET\n"
		   "processes and installed .NET apps.\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'clrscope COMMAND --help' describes one, clrscope-COMMAND(1) in full.\n"
		   "'clrscope help keys' lists the terminal UI's keys and prompt commands.\n"
		   "Environment: CLRSCOPE_AGENT (the agent library), CLRSCOPE_AGENT_LOG, NO_COLOR,\n"
		   "XDG_RUNTIME_DIR, XDG_CONFIG_HOME, XDG_STATE_HOME; all of them in clrscope(1).\n"
		   "  -h, --help     show this help\n"
		   "  -V, --version  show the version\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return cmd_ui(argc, argv); /* the targets screen */
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0 && strcmp(argv[2], "keys") == 0) {
			help_print(stdout);
			return 0;
		}
		if (argc > 2 && strcmp(name, "help") == 0) {
			for (size_t i = 0; i < NCOMMANDS; i++) {
				if (!strcmp(argv[2], commands[i].name)) {
					commands[i].usage(stdout);
					return 0;
				}
			}
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
		printf("clrscope %s\n", CLRSCOPE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "clrscope: no command '%s' (see 'clrscope --help')\n", name);
	return EXIT_USAGE;
}
