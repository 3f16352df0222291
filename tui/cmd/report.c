/* clrscope report: a recorded (or live, or crashed) session as a profile. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "profile/export.h"
#include "profile/pprof.h"
#include "profile/profile.h"

void cmd_report_usage(FILE *f)
{
	fprintf(f, "usage: clrscope report [--format FMT] [--time cpu|wall] [--lines] [--heap] [--retention TYPE] [--awaits]\n"
		   "                       [--top N] [--pid PID] [--thread TID] [--from SEC] [--to SEC]\n"
		   "                       [--stacks logical|physical] [--symbols DIR]... DIR\n"
		   "\n"
		   "Reads the session directory DIR (live, finished or crashed: whatever the agent\n"
		   "flushed) and prints its profile.\n"
		   "\n"
		   "  -f, --format FMT  text (top functions per process, the default), collapsed\n"
		   "                    (folded stacks for flamegraph.pl), json (clrscope-session(5)),\n"
		   "                    speedscope (a file speedscope.app opens) or pprof (gzipped\n"
		   "                    profile.proto for go tool pprof, Pyroscope; binary)\n"
		   "  -w, --time TIME   cpu (the default): samples of threads running on a CPU; wall:\n"
		   "                    every thread's samples, waiting ones too\n"
		   "  -l, --lines       source lines from the program's PDBs: text lists the hottest\n"
		   "                    lines and those of the top methods, json a \"lines\" list per\n"
		   "                    function, collapsed and speedscope name frames \"Name (File.cs:42)\"\n"
		   "                    (pprof always carries lines)\n"
		   "      --heap        text: the latest heap snapshot instead of the profile: types\n"
		   "                    with their retained bytes, the largest retained subtrees, and\n"
		   "                    what grew since the snapshot before\n"
		   "      --retention TYPE  the paths from the roots to the objects of TYPE in the\n"
		   "                    latest snapshot, grouped (text; json adds \"retention\")\n"
		   "      --awaits      text: the latest awaits snapshot instead of the profile: the\n"
		   "                    async chains waiting, grouped, outermost method first (json\n"
		   "                    always has \"awaits\"); fails when there is none\n"
		   "  -n, --top N       functions listed per process (text: 30 by default; json: all)\n"
		   "  -p, --pid PID     only the process PID\n"
		   "  -t, --thread TID  only the samples of the thread with OS thread id TID\n"
		   "      --from SEC    only samples taken SEC seconds or more after the agent started\n"
		   "      --to SEC      only samples taken before SEC seconds after the agent started\n"
		   "      --stacks KIND logical (the default): a sample in an async method resumed after\n"
		   "                    an await goes on past an [await] frame into the methods that\n"
		   "                    await it; physical: the thread's own stack (the dispatch loop)\n"
		   "      --symbols DIR also look for native modules' debug files in DIR, by\n"
		   "                    debug link and build id (repeatable; CLRSCOPE_SYMBOLS and\n"
		   "                    the config file's symbols keys add more)\n"
		   "  -h, --help        show this help\n");
}

/* Damage worth knowing about goes to stderr when stdout is machine-readable. */
static void warn_damage(const struct prof_recording *s, const struct export_options *o)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct prof_process *p = s->procs[i];
		if (o->pid && p->pid != o->pid)
			continue;
		if (p->reader.torn_bytes)
			cmd_error("pid %" PRIu32 ": the log ends in a torn record (%" PRIu64
				  " bytes: the agent stopped mid-write); everything before it was read",
				  p->pid, p->reader.torn_bytes);
		if (p->reader.skipped_bytes)
			cmd_error("pid %" PRIu32 ": skipped %" PRIu64 " damaged bytes in the log", p->pid,
				  p->reader.skipped_bytes);
		if (p->error[0])
			cmd_error("%s: %s", p->dir, p->error);
	}
}

/* Segment names taken by something else (a symbolic link, a FIFO ...) were
 * skipped: said whatever the format, as the text report has no line for it. */
static void warn_refused_segments(const struct prof_recording *s, const struct export_options *o)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct prof_process *p = s->procs[i];
		if ((!o->pid || p->pid == o->pid) && p->reader.refused_segments)
			cmd_error("%s: %u segment name%s held something other than a segment; %s", p->dir,
				  p->reader.refused_segments, p->reader.refused_segments == 1 ? "" : "s", p->reader.note);
	}
}

/* The pprof export to stdout: the number of processes selected, or 0 (and
 * *rc 1, said) when writing failed. */
static size_t write_pprof(const struct prof_recording *s, uint32_t pid, int *rc)
{
	size_t selected = 0;
	for (size_t i = 0; i < s->nprocs; i++)
		selected += !pid || s->procs[i]->pid == pid;
	if (!selected)
		return 0;
	char err[512];
	if (pprof_write(stdout, s, pid, err, sizeof err) < 0) {
		cmd_error("cannot write the pprof profile: %s", err);
		*rc = 1;
	}
	return selected;
}

/* The processes selected (pid 0: all) that have an awaits snapshot; a
 * pid not in the session counts as having one, for the error that says so. */
static size_t selected_with_awaits(const struct prof_recording *s, uint32_t pid)
{
	size_t n = 0, selected = 0;
	for (size_t i = 0; i < s->nprocs; i++)
		if (!pid || s->procs[i]->pid == pid) {
			selected++;
			n += prof_latest_awaits(s->procs[i]) != NULL;
		}
	return selected ? n : 1;
}

int cmd_report(int argc, char **argv)
{
	static const struct option options[] = {
		{"format", required_argument, NULL, 'f'}, {"top", required_argument, NULL, 'n'},
		{"pid", required_argument, NULL, 'p'}, {"thread", required_argument, NULL, 't'},
		{"from", required_argument, NULL, 'F'}, {"to", required_argument, NULL, 'T'},
		{"lines", no_argument, NULL, 'l'}, {"time", required_argument, NULL, 'w'},
		{"symbols", required_argument, NULL, 'Y'},
		{"heap", no_argument, NULL, 'E'}, {"retention", required_argument, NULL, 'R'},
		{"stacks", required_argument, NULL, 'S'}, {"awaits", no_argument, NULL, 'A'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct export_options o = {EXPORT_TEXT, 0, 0, false, false, NULL, false};
	struct prof_filter filter = {0, 0, 0, false};
	enum prof_time time = PROF_TIME_CPU;
	unsigned v;
	double secs;
	bool pprof = false;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "f:n:p:t:lw:h", options, NULL)) != -1) {
		switch (c) {
		case 'f':
			pprof = strcmp(optarg, "pprof") == 0;
			if (!pprof && export_format_parse(optarg, &o.format) < 0)
				return cmd_usage_error("report", "unknown format '%s' (text, collapsed, json, speedscope or pprof)",
						       optarg);
			break;
		case 'n':
			if (parse_u32(optarg, 1, 1000000, &v) < 0)
				return cmd_usage_error("report", "--top wants a positive number, not '%s'", optarg);
			o.top = v;
			break;
		case 'p':
			if (parse_u32(optarg, 1, 0x7fffffff, &v) < 0)
				return cmd_usage_error("report", "--pid wants a process id, not '%s'", optarg);
			o.pid = v;
			break;
		case 't':
			if (parse_u32(optarg, 1, 0x7fffffff, &v) < 0)
				return cmd_usage_error("report", "--thread wants an OS thread id, not '%s'", optarg);
			filter.os_tid = v;
			break;
		case 'F':
		case 'T':
			if (parse_seconds_or_zero(optarg, &secs) < 0)
				return cmd_usage_error("report", "%s wants a number of seconds, not '%s'",
						       c == 'F' ? "--from" : "--to", optarg);
			if (c == 'F')
				filter.from_us = (uint64_t)(secs * 1e6);
			else
				filter.to_us = (uint64_t)(secs * 1e6);
			break;
		case 'l':
			o.lines = true;
			break;
		case 'S':
			if (prof_stacks_parse(optarg, &filter.physical) < 0)
				return cmd_usage_error("report", "--stacks wants logical or physical, not '%s'", optarg);
			break;
		case 'w':
			if (prof_time_parse(optarg, &time) < 0)
				return cmd_usage_error("report", "--time is cpu or wall, not '%s'", optarg);
			break;
		case 'Y':
			if (add_symbols_option("report", optarg) != 0)
				return EXIT_USAGE;
			break;
		case 'E':
			o.heap = true;
			break;
		case 'R':
			if (!optarg[0])
				return cmd_usage_error("report", "--retention wants a type's name");
			o.retention = optarg;
			break;
		case 'A':
			o.awaits = true;
			break;
		case 'h':
			cmd_report_usage(stdout);
			return 0;
		default:
			return cmd_usage_error("report", "unknown option");
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error("report", optind >= argc ? "which session? give its directory"
								 : "one session directory at a time");
	const char *dir = argv[optind];
	if ((o.heap || o.retention) && (pprof || (o.format != EXPORT_TEXT && o.format != EXPORT_JSON)))
		return cmd_usage_error("report", "--heap and --retention are for the text and json formats");
	if (o.awaits && (pprof || (o.format != EXPORT_TEXT && o.format != EXPORT_JSON)))
		return cmd_usage_error("report", "--awaits is for the text and json formats");
	if (o.awaits && (o.heap || o.retention))
		return cmd_usage_error("report", "--awaits is a text report of its own: not with --heap or --retention");
	use_symbol_dirs();
	if (pprof && isatty(STDOUT_FILENO))
		return cmd_usage_error("report", "pprof is binary (gzip): redirect it to a file, e.g. > profile.pb.gz");
	struct prof_recording s;
	char err[1024];
	if (prof_recording_open(&s, dir, err, sizeof err) < 0) {
		cmd_error("%s", err);
		return 1;
	}
	if (filter.to_us && filter.to_us <= filter.from_us) {
		prof_recording_free(&s);
		return cmd_usage_error("report", "--to must come after --from");
	}
	s.filter = filter;
	s.time = time;
	s.by_thread = pprof;
	prof_recording_update(&s, true);
	int rc = 0;
	if (!s.nprocs) {
		cmd_error("%s has no profiled process: the agent never reported in "
			  "(was the program a .NET program, and did it start?)", dir);
		rc = 1;
	} else if (o.awaits && selected_with_awaits(&s, o.pid) == 0) {
		cmd_error("%s has no awaits snapshot%s; take one with: clrscope dial %s snapshot=awaits", dir,
			  o.pid ? " of that process" : "", dir);
		rc = 1;
	} else if (pprof ? write_pprof(&s, o.pid, &rc) == 0 : export_session(stdout, &s, &o) == 0) {
		cmd_error("no process %u in %s (see 'clrscope report %s' for the pids)", o.pid, dir, dir);
		rc = 1;
	} else {
		if (pprof || o.format != EXPORT_TEXT)
			warn_damage(&s, &o);
		warn_refused_segments(&s, &o);
		for (size_t i = 0; i < s.nprocs; i++) /* unreadable data fails the command */
			if (s.procs[i]->error[0] && (!o.pid || s.procs[i]->pid == o.pid))
				rc = 1;
	}
	if (fflush(stdout) != 0) {
		cmd_error("cannot write the report: %s", strerror(errno));
		rc = 1;
	}
	prof_recording_free(&s);
	return rc;
}
