/* clrscope diff: two sessions compared, function by function (text, json)
 * or stack by stack (collapsed, the two-count input of a differential
 * flame graph); with --heap, their latest heap snapshots, type by type
 * and path by path. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "profile/diff.h"
#include "profile/export.h"
#include "profile/heapsummary.h"
#include "profile/merge.h"
#include "util/json.h"

enum diff_format { DIFF_TEXT, DIFF_JSON, DIFF_COLLAPSED };

void cmd_diff_usage(FILE *f)
{
	fprintf(f, "usage: clrscope diff [--format text|json|collapsed] [--heap] [--top N] [--symbols DIR]... BASE NEW\n"
		   "\n"
		   "Compares two sessions (directories written by record, launch or the UI): for\n"
		   "each function its share of the samples, self and total, in BASE and in NEW,\n"
		   "and the change in percentage points, largest change first.  Sessions of\n"
		   "several processes are compared as one; functions are matched by name.\n"
		   "\n"
		   "  -f, --format FMT  text (the default), json, or collapsed: every stack with\n"
		   "                    its samples in BASE and in NEW ('stack base new'), the\n"
		   "                    input of flamegraph.pl's differential flame graphs\n"
		   "                    (difffolded.pl's output format)\n"
		   "      --heap        compares the latest heap snapshots instead (those with an\n"
		   "                    object graph): objects, bytes and retained bytes by type and\n"
		   "                    by path from the roots, most changed bytes first\n"
		   "  -n, --top N       functions listed in text (default 30)\n"
		   "      --symbols DIR also look for native modules' debug files in DIR, by\n"
		   "                    debug link and build id (repeatable)\n"
		   "  -h, --help        show this help\n");
}

/* Opens and reads one side; -1 when it cannot be compared (said why). */
static int open_side(struct prof_recording *s, const char *dir)
{
	char err[1024];
	if (prof_recording_open(s, dir, err, sizeof err) < 0) {
		cmd_error("%s", err);
		return -1;
	}
	prof_recording_update(s, true);
	if (!s->nprocs) {
		cmd_error("%s has no profiled process: the agent never reported in", dir);
		prof_recording_free(s);
		return -1;
	}
	return 0;
}

static void write_text(FILE *f, const struct prof_diff *d, const char *base, const char *new_, size_t top)
{
	fprintf(f, "base: %s (%" PRIu64 " samples)\nnew:  %s (%" PRIu64 " samples)\n\n", base, d->base_samples,
		new_, d->new_samples);
	fprintf(f, "%7s %7s %8s   %7s %7s %8s  %s\n", "total", "", "", "self", "", "", "");
	fprintf(f, "%7s %7s %8s   %7s %7s %8s  %s\n", "base%", "new%", "change", "base%", "new%", "change",
		"function");
	for (size_t i = 0; i < d->nrows && i < top; i++) {
		const struct diff_row *r = &d->rows[i];
		fprintf(f, "%7.2f %7.2f %+8.2f   %7.2f %7.2f %+8.2f  %s\n", r->base.total_pct, r->new_.total_pct,
			r->delta_total_pct, r->base.self_pct, r->new_.self_pct, r->delta_self_pct, r->name);
	}
	if (d->nrows > top)
		fprintf(f, "(%zu more functions; --top N shows more)\n", d->nrows - top);
}

static void write_side_json(FILE *f, const char *key, const struct diff_share *s)
{
	fprintf(f, "\"%s\":{\"self_pct\":%.4f,\"total_pct\":%.4f}", key, s->self_pct, s->total_pct);
}

static void write_json(FILE *f, const struct prof_diff *d, const char *base, const char *new_)
{
	fputs("{\"format\":\"clrscope-diff\",\"version\":1,\"base\":{\"dir\":", f);
	json_string(f, base);
	fprintf(f, ",\"samples\":%" PRIu64 "},\"new\":{\"dir\":", d->base_samples);
	json_string(f, new_);
	fprintf(f, ",\"samples\":%" PRIu64 "},\"functions\":[", d->new_samples);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		json_string(f, r->name);
		fputc(',', f);
		write_side_json(f, "base", &r->base);
		fputc(',', f);
		write_side_json(f, "new", &r->new_);
		fprintf(f, ",\"delta_self_pct\":%.4f,\"delta_total_pct\":%.4f}", r->delta_self_pct, r->delta_total_pct);
	}
	fputs("]}\n", f);
}

/* Both sides' sorted folded lines walked together: "stack base new". */
static void write_collapsed(FILE *f, struct prof_process *base, struct prof_process *new_)
{
	struct export_folded *a, *b;
	size_t na = export_folded_lines(base, &a), nb = export_folded_lines(new_, &b);
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].line, b[j].line);
		const char *line = c <= 0 ? a[i].line : b[j].line;
		uint64_t x = c <= 0 ? a[i].count : 0, y = c >= 0 ? b[j].count : 0;
		fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n", line, x, y);
		i += c <= 0;
		j += c >= 0;
	}
	for (i = 0; i < na; i++)
		free(a[i].line);
	for (j = 0; j < nb; j++)
		free(b[j].line);
	free(a);
	free(b);
}

/* ---- --heap: the latest snapshots with an object graph ---- */

struct heap_side {
	const char *dir;
	const struct prof_process *p;
	const struct prof_heap *h;
	const struct heap_summary *s;
};

/* The latest snapshot with a graph, of the first process that has one. */
static int heap_side(struct prof_recording *rec, const char *dir, struct heap_side *out)
{
	*out = (struct heap_side){.dir = dir};
	char err[300] = "";
	for (size_t i = 0; i < rec->nprocs && !out->s; i++) {
		const struct prof_heap **v;
		size_t n = prof_heap_snapshots(rec->procs[i], true, &v);
		if (n) {
			out->p = rec->procs[i];
			out->h = v[n - 1];
			out->s = prof_heap_summary(rec->procs[i], v[n - 1], err, sizeof err);
		}
		free(v);
	}
	if (out->s)
		return 0;
	cmd_error("%s has no heap snapshot with an object graph%s%s", dir, err[0] ? ": " : "", err);
	return -1;
}

static void heap_delta(FILE *f, uint64_t now, uint64_t before)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%s%" PRIu64, now >= before ? "+" : "-", now >= before ? now - before : before - now);
	fprintf(f, " %12s", buf);
}

static void heap_text_changes(FILE *f, const char *title, struct heap_change *c, size_t n, size_t top)
{
	fprintf(f, "\n%s\n%10s %10s %13s %13s %13s %13s  %s\n", title, "count", "+count", "bytes", "+bytes", "retained",
		"+retained", "");
	size_t shown = 0;
	for (size_t i = 0; i < n && shown < top; i++) {
		if (c[i].after.count == c[i].before.count && c[i].after.bytes == c[i].before.bytes &&
		    c[i].after.retained == c[i].before.retained)
			continue;
		shown++;
		fprintf(f, "%10" PRIu64, c[i].after.count);
		heap_delta(f, c[i].after.count, c[i].before.count);
		fprintf(f, " %13" PRIu64, c[i].after.bytes);
		heap_delta(f, c[i].after.bytes, c[i].before.bytes);
		fprintf(f, " %13" PRIu64, c[i].after.retained);
		heap_delta(f, c[i].after.retained, c[i].before.retained);
		fprintf(f, "  %s\n", c[i].name);
	}
	if (!shown)
		fputs("(none changed)\n", f);
}

static void heap_json_row(FILE *f, const char *key, const struct heap_row *r)
{
	fprintf(f, ",\"%s\":{\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"retained\":%" PRIu64 "}", key, r->count,
		r->bytes, r->retained);
}

static void heap_json_changes(FILE *f, const char *key, const char *name, struct heap_change *c, size_t n)
{
	fprintf(f, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"%s\":", i ? "," : "", name);
		json_string(f, c[i].name);
		heap_json_row(f, "base", &c[i].before);
		heap_json_row(f, "new", &c[i].after);
		fputc('}', f);
	}
	fputc(']', f);
}

static void heap_json_side(FILE *f, const char *key, const struct heap_side *s)
{
	fprintf(f, "\"%s\":{\"dir\":", key);
	json_string(f, s->dir);
	fprintf(f, ",\"pid\":%" PRIu32 ",\"seq\":%" PRIu64 ",\"objects\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
		s->p->pid, s->h->seq, s->s->objects, s->s->bytes);
}

static int write_heap_diff(FILE *f, struct prof_recording *base, struct prof_recording *new_, const char *base_dir,
			   const char *new_dir, enum diff_format format, size_t top)
{
	struct heap_side a, b;
	if (heap_side(base, base_dir, &a) < 0 || heap_side(new_, new_dir, &b) < 0)
		return -1;
	struct heap_change *types, *paths;
	size_t nt = heap_changes(a.s->types, a.s->ntypes, b.s->types, b.s->ntypes, &types);
	size_t np = heap_changes(a.s->paths, a.s->npaths, b.s->paths, b.s->npaths, &paths);
	if (format == DIFF_JSON) {
		fputs("{\"format\":\"clrscope-diff\",\"version\":1,", f);
		heap_json_side(f, "base", &a);
		fputc(',', f);
		heap_json_side(f, "new", &b);
		heap_json_changes(f, "types", "type", types, nt);
		heap_json_changes(f, "paths", "path", paths, np);
		fputs("}\n", f);
	} else {
		const struct heap_side *sides[] = {&a, &b};
		for (int i = 0; i < 2; i++)
			fprintf(f, "%s %s (pid %" PRIu32 ", heap snapshot %" PRIu64 ": %" PRIu64 " objects, %.1f MiB)\n",
				i ? "new: " : "base:", sides[i]->dir, sides[i]->p->pid, sides[i]->h->seq, sides[i]->s->objects,
				(double)sides[i]->s->bytes / 1048576.0);
		heap_text_changes(f, "types, most changed bytes first:", types, nt, top);
		heap_text_changes(f, "paths from the roots, most changed bytes first:", paths, np, top);
	}
	free(types);
	free(paths);
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option options[] = {
		{"format", required_argument, NULL, 'f'},
		{"top", required_argument, NULL, 'n'},
		{"symbols", required_argument, NULL, 'Y'},
		{"heap", no_argument, NULL, 'E'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum diff_format format = DIFF_TEXT;
	size_t top = 30;
	bool heap = false;
	unsigned v;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "f:n:h", options, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") == 0)
				format = DIFF_TEXT;
			else if (strcmp(optarg, "json") == 0)
				format = DIFF_JSON;
			else if (strcmp(optarg, "collapsed") == 0)
				format = DIFF_COLLAPSED;
			else
				return cmd_usage_error("diff", "unknown format '%s' (text, json or collapsed)", optarg);
			break;
		case 'n':
			if (parse_u32(optarg, 1, 1000000, &v) < 0)
				return cmd_usage_error("diff", "--top wants a positive number, not '%s'", optarg);
			top = v;
			break;
		case 'Y':
			if (add_symbols_option("diff", optarg) != 0)
				return EXIT_USAGE;
			break;
		case 'E':
			heap = true;
			break;
		case 'h':
			cmd_diff_usage(stdout);
			return 0;
		default:
			return cmd_usage_error("diff", "unknown option");
		}
	}
	if (argc - optind != 2)
		return cmd_usage_error("diff", "two session directories: BASE and NEW");
	const char *base_dir = argv[optind], *new_dir = argv[optind + 1];
	if (heap && format == DIFF_COLLAPSED)
		return cmd_usage_error("diff", "--heap compares in text or json");
	use_symbol_dirs();
	struct prof_recording base, new_;
	if (open_side(&base, base_dir) < 0)
		return 1;
	if (open_side(&new_, new_dir) < 0) {
		prof_recording_free(&base);
		return 1;
	}
	if (heap) {
		int rc = write_heap_diff(stdout, &base, &new_, base_dir, new_dir, format, top) < 0 ? 1 : 0;
		if (fflush(stdout) != 0) {
			cmd_error("cannot write the diff: %s", strerror(errno));
			rc = 1;
		}
		prof_recording_free(&base);
		prof_recording_free(&new_);
		return rc;
	}
	struct prof_process *base_merged, *new_merged;
	struct prof_process *bp = diff_subject(&base, &base_merged), *np = diff_subject(&new_, &new_merged);
	if (format == DIFF_COLLAPSED) {
		write_collapsed(stdout, bp, np);
	} else {
		struct prof_diff d;
		prof_diff_build(&d, bp, np);
		if (format == DIFF_JSON)
			write_json(stdout, &d, base_dir, new_dir);
		else
			write_text(stdout, &d, base_dir, new_dir, top);
		prof_diff_free(&d);
	}
	int rc = 0;
	if (fflush(stdout) != 0) {
		cmd_error("cannot write the diff: %s", strerror(errno));
		rc = 1;
	}
	prof_merge_free(base_merged);
	prof_merge_free(new_merged);
	prof_recording_free(&base);
	prof_recording_free(&new_);
	return rc;
}
