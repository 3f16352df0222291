/* clrscope apps: the installed .NET apps you may launch, with the command
 * line of each. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "live/apps.h"
#include "util/json.h"

void cmd_apps_usage(FILE *f)
{
	fprintf(f, "usage: clrscope apps [--json]\n"
		   "\n"
		   "Lists the .NET apps you may launch, each with the command line that starts it,\n"
		   "from: your list ($XDG_CONFIG_HOME/clrscope/apps, lines NAME = COMMAND LINE),\n"
		   ".NET global tools (~/.dotnet/tools), the directories named by app_dir = PATH\n"
		   "lines in $XDG_CONFIG_HOME/clrscope/config, and desktop entries that run\n"
		   "dotnet or an apphost.\n"
		   "\n"
		   "  -j, --json  a JSON array instead of a table\n"
		   "  -h, --help  show this help\n");
}

static void print_table(FILE *f, const struct app_list *l)
{
	int wname = 4;
	for (size_t i = 0; i < l->n; i++) {
		int w = (int)strlen(l->v[i].name);
		wname = w > wname ? w : wname;
	}
	fprintf(f, "%-*s  %-7s  %s\n", wname, "NAME", "SOURCE", "COMMAND");
	for (size_t i = 0; i < l->n; i++)
		fprintf(f, "%-*s  %-7s  %s\n", wname, l->v[i].name, app_source_name(l->v[i].source), l->v[i].command);
}

static void print_json(FILE *f, const struct app_list *l)
{
	fputs("[", f);
	for (size_t i = 0; i < l->n; i++) {
		fputs(i ? ",\n {\"name\": " : "\n {\"name\": ", f);
		json_string(f, l->v[i].name);
		fprintf(f, ", \"source\": \"%s\", \"command\": ", app_source_name(l->v[i].source));
		json_string(f, l->v[i].command);
		fputs(", \"origin\": ", f);
		json_string(f, l->v[i].origin);
		fputs("}", f);
	}
	fputs(l->n ? "\n]\n" : "]\n", f);
}

int cmd_apps(int argc, char **argv)
{
	static const struct option options[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			cmd_apps_usage(stdout);
			return 0;
		default:
			return cmd_usage_error("apps", "unknown option");
		}
	}
	if (optind != argc)
		return cmd_usage_error("apps", "unexpected argument '%s'", argv[optind]);

	struct app_list l;
	int errors = apps_collect(&l, stderr);
	if (json)
		print_json(stdout, &l);
	else if (l.n)
		print_table(stdout, &l);
	if (!l.n) {
		char list[PATH_MAX];
		if (apps_config_path("apps", list, sizeof list) == 0)
			cmd_error("no .NET apps found; list yours in %s as NAME = COMMAND LINE", list);
		else
			cmd_error("no .NET apps found");
	}
	apps_free(&l);
	int rc = errors ? 1 : 0;
	if (fflush(stdout) != 0) {
		cmd_error("cannot write the list: %s", strerror(errno));
		rc = 1;
	}
	return rc;
}
