/* clrscope ps: the user's running .NET processes, and whether clrscope
 * could attach to them. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "live/procs.h"
#include "util/json.h"

void cmd_ps_usage(FILE *f)
{
	fprintf(f, "usage: clrscope ps [--json] [--pid PID]\n"
		   "\n"
		   "Lists your running .NET processes: their runtime version, whether clrscope can\n"
		   "attach to them (and if not, why), whether clrscope is recording them, and\n"
		   "their command line.\n"
		   "\n"
		   "  -j, --json     a JSON array instead of a table\n"
		   "  -p, --pid PID  only process PID, in detail; says why when it is not a .NET\n"
		   "                 process of yours\n"
		   "  -h, --help     show this help\n");
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void json_field(FILE *f, const char *name, const char *value, bool comma)
{
	fprintf(f, "\"%s\": ", name);
	if (value)
		json_string(f, value);
	else
		fputs("null", f);
	if (comma)
		fputs(", ", f);
}

static void print_json(FILE *f, const struct dotnet_proc *p, size_t n, bool detail)
{
	fputs(detail ? "" : "[", f);
	for (size_t i = 0; i < n; i++) {
		const struct dotnet_proc *q = &p[i];
		fprintf(f, "%s{\"pid\": %d, ", detail ? "" : i ? ",\n " : "\n ", (int)q->pid);
		json_field(f, "runtime", q->runtime, true);
		fprintf(f, "\"attach\": %s, ", q->attachable ? "true" : "false");
		json_field(f, "reason", q->attachable ? NULL : q->reason, true);
		fprintf(f, "\"profiled\": %s, ", q->profiled ? "true" : "false");
		if (detail) {
			fprintf(f, "\"agent_loaded\": %s, ", q->agent_loaded ? "true" : "false");
			json_field(f, "socket", q->socket, true);
			json_field(f, "os", q->info.os, true);
			json_field(f, "arch", q->info.arch, true);
			json_field(f, "entrypoint_assembly", q->info.entrypoint_assembly, true);
			json_field(f, "runtime_command_line", q->info.command_line, true);
			json_field(f, "runtime_error", q->info_error, true);
		}
		json_field(f, "command", q->command, false);
		fputs("}", f);
	}
	fputs(detail ? "\n" : n ? "\n]\n" : "]\n", f);
}

static void print_table(FILE *f, const struct dotnet_proc *p, size_t n)
{
	int wpid = 3, wrt = 7, watt = 6;
	char att[512];
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(NULL, 0, "%d", (int)p[i].pid);
		wpid = w > wpid ? w : wpid;
		w = (int)strlen(or_dash(p[i].runtime));
		wrt = w > wrt ? w : wrt;
		w = p[i].attachable ? 3 : snprintf(att, sizeof att, "no: %s", p[i].reason);
		watt = w > watt ? w : watt;
	}
	fprintf(f, "%*s  %-*s  %-*s  %-8s  %s\n", wpid, "PID", wrt, "RUNTIME", watt, "ATTACH", "PROFILED", "COMMAND");
	for (size_t i = 0; i < n; i++) {
		if (p[i].attachable)
			snprintf(att, sizeof att, "yes");
		else
			snprintf(att, sizeof att, "no: %s", p[i].reason);
		fprintf(f, "%*d  %-*s  %-*s  %-8s  %s\n", wpid, (int)p[i].pid, wrt, or_dash(p[i].runtime), watt, att,
			p[i].profiled ? "yes" : "no", p[i].command);
	}
}

static void print_detail(FILE *f, const struct dotnet_proc *p)
{
	char cookie[40];
	const uint8_t *c = p->info.cookie;
	snprintf(cookie, sizeof cookie, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", c[3],
		 c[2], c[1], c[0], c[5], c[4], c[7], c[6], c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15]);
	fprintf(f, "pid:         %d\n", (int)p->pid);
	fprintf(f, "command:     %s\n", p->command);
	fprintf(f, "runtime:     %s\n", or_dash(p->runtime));
	if (p->info.version) {
		fprintf(f, "os/arch:     %s/%s\n", or_dash(p->info.os), or_dash(p->info.arch));
		fprintf(f, "entry point: %s\n", or_dash(p->info.entrypoint_assembly));
		fprintf(f, "cookie:      %s\n", cookie);
	}
	fprintf(f, "socket:      %s\n", or_dash(p->socket));
	if (p->attachable)
		fprintf(f, "attach:      yes\n");
	else
		fprintf(f, "attach:      no: %s\n", p->reason);
	fprintf(f, "profiled:    %s\n", p->profiled	  ? "yes (clrscope's agent is recording)"
					 : p->agent_loaded ? "no (clrscope's agent is loaded but idle: detached, or its attach failed)"
							   : "no");
	if (p->info_error)
		fprintf(f, "note:        %s\n", p->info_error);
}

int cmd_ps(int argc, char **argv)
{
	static const struct option options[] = {
		{"json", no_argument, NULL, 'j'},
		{"pid", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	unsigned pid = 0;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "jp:h", options, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'p':
			if (parse_u32(optarg, 1, 0x7fffffff, &pid) < 0)
				return cmd_usage_error("ps", "--pid wants a process id, not '%s'", optarg);
			break;
		case 'h':
			cmd_ps_usage(stdout);
			return 0;
		default:
			return cmd_usage_error("ps", "unknown option");
		}
	}
	if (optind != argc)
		return cmd_usage_error("ps", "unexpected argument '%s'", argv[optind]);

	int rc = 0;
	if (pid) {
		struct dotnet_proc p;
		char err[2048];
		if (procs_get((pid_t)pid, &p, err, sizeof err) < 0) {
			cmd_error("%s", err);
			return 1;
		}
		if (json)
			print_json(stdout, &p, 1, true);
		else
			print_detail(stdout, &p);
		procs_clear(&p);
	} else {
		struct dotnet_proc *procs;
		size_t n = procs_list(&procs);
		if (json)
			print_json(stdout, procs, n, false);
		else if (n)
			print_table(stdout, procs, n);
		if (!n)
			cmd_error("no .NET processes of yours are running");
		procs_free(procs, n);
	}
	if (fflush(stdout) != 0) {
		cmd_error("cannot write the list: %s", strerror(errno));
		rc = 1;
	}
	return rc;
}
