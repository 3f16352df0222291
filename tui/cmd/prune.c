/* clrscope prune: removes old sessions from the default session root. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "common/namedevent.h"
#include "common/session.h"
#include "util/age.h"
#include "util/config.h"
#include "util/prune.h"

void cmd_prune_usage(FILE *f)
{
	fprintf(f, "usage: clrscope prune [--older-than AGE] [--dry-run]\n"
		   "\n"
		   "Removes the sessions under the default session root ($XDG_RUNTIME_DIR/clrscope,\n"
		   "or $TMPDIR/clrscope-UID) that nothing has written to for AGE: finished\n"
		   "recordings (a recording agent writes every second).  Sessions recorded with\n"
		   "-o elsewhere are never touched.  'record' and the terminal UI do the same on\n"
		   "their own for sessions older than the config file's prune_after (default 7d).\n"
		   "Control semaphores (/dev/shm) left by agents of processes that are gone are\n"
		   "removed too.\n"
		   "\n"
		   "  -a, --older-than AGE  90s, 30m, 12h, 7d or 2w (default: prune_after, or 7d)\n"
		   "  -n, --dry-run         only list what would go\n"
		   "  -h, --help            show this help\n");
}

int cmd_prune(int argc, char **argv)
{
	static const struct option options[] = {
		{"older-than", required_argument, NULL, 'a'},
		{"dry-run", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct config cfg;
	config_load(&cfg, stderr);
	config_free(&cfg);
	long age = cfg.prune_after_s > 0 ? cfg.prune_after_s : PRUNE_DEFAULT_AGE_S;
	bool dry_run = false;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "a:nh", options, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (age_parse(optarg, &age) < 0)
				return cmd_usage_error("prune", "--older-than wants an age such as 90s, 30m, 12h or 7d, "
								"not '%s'", optarg);
			break;
		case 'n':
			dry_run = true;
			break;
		case 'h':
			cmd_prune_usage(stdout);
			return 0;
		default:
			return cmd_usage_error("prune", "unknown option");
		}
	}
	if (optind != argc)
		return cmd_usage_error("prune", "unexpected argument '%s'", argv[optind]);
	char root[4096], err[4200];
	if (cs_session_root(root, sizeof root, err, sizeof err) < 0) {
		cmd_error("%s", err);
		return 1;
	}
	int n = prune_sessions(root, age, dry_run, stdout, err, sizeof err);
	if (n < 0) {
		cmd_error("%s", err);
		return 1;
	}
	int sems = dry_run ? 0 : cs_namedevent_sweep();
	if (sems)
		fprintf(stderr, "clrscope: removed %d control semaphore%s of processes that are gone\n", sems,
			sems == 1 ? "" : "s");
	char text[32];
	age_format(age, text, sizeof text);
	fprintf(stderr, "clrscope: %s %d session%s older than %s under %s\n", dry_run ? "would remove" : "removed", n,
		n == 1 ? "" : "s", text, root);
	return 0;
}
