/* Reads a session the way clrscope does (common/logfmt and records) and
 * prints, per process, what the benchmarks need and 'clrscope report' does
 * not show: the distribution of the runtime's suspension per tick (median,
 * p99, max), the ticks and samples taken, and the log bytes per sample.
 *
 *   logstats [--after UNIX_SECONDS] SESSION_OR_PROCESS_DIR
 *   logstats --dump SESSION_OR_PROCESS_DIR
 *
 * --after (wall clock, as `date +%s.%N` prints it) measures the steady
 * state: reading starts at the first SAMPLES record whose ticks all come
 * after it, and from there every record counts, so the start-up's
 * definitions and events are left out.  Without it, the whole log counts.
 *
 * Prints a header line, then one line per process:
 *   pid ticks samples seconds suspend_median_us suspend_p99_us suspend_max_us
 *   bytes bytes_per_sample dropped suspended_ticks
 * bytes are whole records (header and payload); dropped is the agent's last
 * count of records it could not write; suspended_ticks, the ticks that suspended the runtime.
 *
 * --dump prints every record instead, one a line, field by field as the
 * record table (common/schema.h) names them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/logfmt.h"
#include "common/recordinfo.h"
#include "common/records.h"
#include "common/session.h"

struct stats {
	uint32_t pid;
	bool counting;            /* the window has started */
	uint64_t after_us;        /* its start, in the log's time */
	uint64_t first_us, last_us;
	uint64_t ticks, samples, bytes, dropped;
	uint64_t *suspend_ns;     /* one per counted tick */
	size_t cap;
};

static void note_suspend(struct stats *st, uint64_t ns)
{
	if (st->ticks == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 4096;
		st->suspend_ns = realloc(st->suspend_ns, st->cap * sizeof *st->suspend_ns);
		if (!st->suspend_ns) {
			perror("logstats");
			exit(1);
		}
	}
	st->suspend_ns[st->ticks] = ns;
}

/* The window opens at the first SAMPLES record that starts at or after
 * after_us; a record straddling the boundary is skipped whole. */
static void read_samples(struct stats *st, const struct cs_record *rec)
{
	struct cs_list l;
	struct cs_tick t;
	if (rec->type == CS_REC_TICKS)
		cs_list_init_ticks(&l, rec->payload, rec->len);
	else
		cs_list_init(&l, rec->payload, rec->len);
	bool first = true;
	while (cs_next_tick(&l, &t)) {
		if (first && !st->counting) {
			if (t.time_us < st->after_us)
				return;
			st->counting = true;
			st->bytes += CS_REC_HEADER_LEN + rec->len;
		}
		first = false;
		if (!st->ticks)
			st->first_us = t.time_us;
		uint64_t thread, stack, n = 0;
		while (cs_next_sample(&l, &thread, &stack))
			n++;
		note_suspend(st, t.suspend_ns);
		st->ticks++;
		st->samples += n;
		st->last_us = t.time_us;
	}
}

static int read_process(const char *dir, uint64_t after_unix_us, struct stats *st)
{
	struct cs_reader r;
	struct cs_record rec;
	if (cs_reader_open(&r, dir) < 0) {
		fprintf(stderr, "logstats: %s: %s\n", dir, r.error);
		return -1;
	}
	int rc;
	while ((rc = cs_reader_next(&r, &rec, true)) == 1) {
		bool counted = st->counting;
		if (rec.type == CS_REC_HELLO) {
			struct cs_hello h;
			if (cs_hello_decode(rec.payload, rec.len, &h)) {
				uint64_t start_us = h.start_unix_ns / 1000;
				st->pid = h.pid;
				st->after_us = after_unix_us > start_us ? after_unix_us - start_us : 0;
			}
		} else if (rec.type == CS_REC_SAMPLES || rec.type == CS_REC_TICKS) {
			read_samples(st, &rec);
		} else if (rec.type == CS_REC_HOLDS && st->counting) {
			/* runs of still threads' samples count as samples */
			struct cs_list l;
			struct cs_hold h;
			cs_list_init(&l, rec.payload, rec.len);
			while (cs_next_hold(&l, &h))
				st->samples += h.count;
		} else if (rec.type == CS_REC_STATUS) {
			struct cs_status s;
			if (cs_status_decode(rec.payload, rec.len, &s))
				st->dropped = s.dropped_records;
		}
		if (counted)
			st->bytes += CS_REC_HEADER_LEN + rec.len;
	}
	if (rc < 0)
		fprintf(stderr, "logstats: %s: %s\n", dir, r.error);
	cs_reader_close(&r);
	return rc < 0 ? -1 : 0;
}

static int dump_process(const char *dir)
{
	struct cs_reader r;
	struct cs_record rec;
	if (cs_reader_open(&r, dir) < 0) {
		fprintf(stderr, "logstats: %s: %s\n", dir, r.error);
		return -1;
	}
	printf("# %s\n", dir);
	int rc;
	while ((rc = cs_reader_next(&r, &rec, true)) == 1)
		cs_record_print(stdout, rec.type, rec.payload, rec.len);
	if (rc < 0)
		fprintf(stderr, "logstats: %s: %s\n", dir, r.error);
	cs_reader_close(&r);
	return rc < 0 ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void print_stats(struct stats *st)
{
	double median = 0, p99 = 0, max = 0;
	if (st->ticks) {
		uint64_t *v = st->suspend_ns;
		size_t n = st->ticks;
		qsort(v, n, sizeof *v, cmp_u64);
		median = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
		p99 = (double)v[(99 * n + 99) / 100 - 1]; /* nearest rank */
		max = (double)v[n - 1];
	}
	uint64_t suspended = 0;
	for (size_t i = 0; i < st->ticks; i++)
		suspended += st->suspend_ns[i] != 0;
	double secs = st->ticks ? (double)(st->last_us - st->first_us) / 1e6 : 0;
	printf("%" PRIu32 " %" PRIu64 " %" PRIu64 " %.3f %.1f %.1f %.1f %" PRIu64 " %.2f %" PRIu64 " %" PRIu64 "\n",
	       st->pid, st->ticks, st->samples, secs, median / 1000, p99 / 1000, max / 1000, st->bytes,
	       st->samples ? (double)st->bytes / (double)st->samples : 0.0, st->dropped, suspended);
}

static int usage(void)
{
	fprintf(stderr, "usage: logstats [--after UNIX_SECONDS] SESSION_OR_PROCESS_DIR\n"
			"       logstats --dump SESSION_OR_PROCESS_DIR\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t after_unix_us = 0;
	bool dump = false;
	int i = 1;
	if (argc == 3 && strcmp(argv[1], "--dump") == 0) {
		dump = true;
		i = 2;
	} else if (argc == 4 && strcmp(argv[1], "--after") == 0) {
		char *end;
		double secs = strtod(argv[2], &end);
		if (*end || !(secs >= 0))
			return usage();
		after_unix_us = (uint64_t)(secs * 1e6);
		i = 3;
	} else if (argc != 2 || argv[1][0] == '-') {
		return usage();
	}
	const char *dir = argv[i];
	char **procs = NULL;
	int n;
	if (cs_dir_kind(dir) == CS_DIR_PROCESS) {
		procs = malloc(sizeof *procs);
		if (!procs || !(procs[0] = strdup(dir))) {
			perror("logstats");
			return 1;
		}
		n = 1;
	} else if ((n = cs_session_processes(dir, &procs)) <= 0) {
		fprintf(stderr, "logstats: %s: no process directories in it\n", dir);
		return 1;
	}
	int rc = 0;
	if (dump) {
		for (int k = 0; k < n; k++)
			if (dump_process(procs[k]) < 0)
				rc = 1;
		cs_free_list(procs, n);
		return rc;
	}
	puts("pid ticks samples seconds suspend_median_us suspend_p99_us suspend_max_us bytes bytes_per_sample dropped "
	     "suspended_ticks");
	for (int k = 0; k < n; k++) {
		struct stats st = {.counting = after_unix_us == 0};
		if (read_process(procs[k], after_unix_us, &st) < 0)
			rc = 1;
		print_stats(&st);
		free(st.suspend_ns);
	}
	cs_free_list(procs, n);
	return rc;
}
