/* libFuzzer target for the dials syntax (common/dials.c): the input is a
 * dials file for cs_dials_parse, and its text up to the first NUL is one
 * assignment for cs_dials_assign.  Both start from two valid states (the
 * agent only ever holds valid ones), and then:
 *   - a failure leaves the state untouched and says why;
 *   - a success leaves every dial in its range;
 *   - cs_dials_format, parsed again from other states, gives the same
 *     dials and the same text (the file says everything the agent reads);
 *   - cs_dials_summary, applied by cs_dials_apply_summary as the reader
 *     does with an answer that holds no fields, gives the same dials. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dials.h"
#include "common/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const struct cs_dials *d)
{
	char text[1024];
	cs_dials_format(d, text, sizeof text);
	fprintf(stderr, "dials: %s\n%s", what, text);
	abort();
}

/* A valid state unlike d in every dial known here but detach, which the
 * file can only turn on: readers of the file start from detach off. */
static void contrary(const struct cs_dials *d, struct cs_dials *out)
{
	*out = *d;
	out->generation = ~d->generation;
	out->sampling = !d->sampling;
	out->sampler = d->sampler == CS_SAMPLER_SIGNAL ? CS_SAMPLER_MIXED : CS_SAMPLER_SIGNAL;
	out->rate_hz = d->rate_hz == CS_RATE_MIN ? CS_RATE_MAX : CS_RATE_MIN;
	out->events = ~d->events & CS_EV_ALL;
	out->flush_ms = d->flush_ms == CS_FLUSH_MS_MIN ? CS_FLUSH_MS_MAX : CS_FLUSH_MS_MIN;
	out->detach = false;
}

/* Field by field, and through their file text for dials added later. */
static bool same_dials(const struct cs_dials *a, const struct cs_dials *b)
{
	char ta[1024], tb[1024];
	cs_dials_format(a, ta, sizeof ta);
	cs_dials_format(b, tb, sizeof tb);
	return !strcmp(ta, tb) && a->generation == b->generation && a->sampling == b->sampling &&
	       a->sampler == b->sampler && a->rate_hz == b->rate_hz && a->events == b->events &&
	       a->flush_ms == b->flush_ms && a->detach == b->detach;
}

static void check_valid(const struct cs_dials *d)
{
	if (d->rate_hz < CS_RATE_MIN || d->rate_hz > CS_RATE_MAX)
		fail("rate out of range", d);
	if (d->flush_ms < CS_FLUSH_MS_MIN || d->flush_ms > CS_FLUSH_MS_MAX)
		fail("flush_ms out of range", d);
	if (d->events & ~(uint32_t)CS_EV_ALL)
		fail("unknown event bits", d);
	if (cs_sampler_parse(cs_sampler_name(d->sampler)) != d->sampler)
		fail("unknown sampler", d);
}

static void check_error(int rc, const char *err, const struct cs_dials *before, const struct cs_dials *after)
{
	if (rc != -1)
		fail("a failure that is not -1", after);
	if (!err[0] || !memchr(err, 0, 256))
		fail("a failure without a message", after);
	if (memcmp(before, after, sizeof *before) != 0)
		fail("a failure changed the dials", after);
}

static void check_format_round_trip(const struct cs_dials *d, const struct cs_dials *start)
{
	char text[1024], again[1024], err[256] = "";
	size_t len = cs_dials_format(d, text, sizeof text);
	if (len == 0 || len >= sizeof text)
		fail("cs_dials_format does not fit", d);
	struct cs_dials back = *start;
	if (cs_dials_parse(&back, text, len, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		fail("cs_dials_parse refuses what cs_dials_format wrote", d);
	}
	if (!same_dials(d, &back))
		fail("the formatted dials parse to other dials", &back);
	size_t len2 = cs_dials_format(&back, again, sizeof again);
	if (len2 != len || memcmp(text, again, len) != 0)
		fail("the formatted dials format to other text", &back);
}

static void check_summary_round_trip(const struct cs_dials *d, const struct cs_dials *start)
{
	char line[512];
	cs_dials_summary(d, line, sizeof line);
	if (strlen(line) + 1 >= sizeof line)
		fail("cs_dials_summary does not fit", d);
	struct cs_dials back = *start;
	back.generation = d->generation; /* the summary has none */
	int words = 0;
	for (const char *c = line; *c; c++)
		words += *c != ' ' && (c == line || c[-1] == ' ');
	if (cs_dials_apply_summary(&back, line, strlen(line)) != words)
		fail("cs_dials_apply_summary refuses a word of cs_dials_summary", d);
	if (!same_dials(d, &back))
		fail("the summary assigns to other dials", &back);
}

/* From a state unlike d in every dial this file knows, and from the
 * default (unlike d in any dial the fuzzer changed, known here or not). */
static void check_round_trips(const struct cs_dials *d)
{
	struct cs_dials start;
	contrary(d, &start);
	check_format_round_trip(d, &start);
	check_summary_round_trip(d, &start);
	cs_dials_default(&start, CS_RATE_DEFAULT);
	check_format_round_trip(d, &start);
	check_summary_round_trip(d, &start);
}

static void check_from(const struct cs_dials *start, const char *text, size_t size, const char *assignment)
{
	struct cs_dials d, before; /* copied bytewise: failures are compared bytewise */
	memcpy(&d, start, sizeof d);
	memcpy(&before, start, sizeof before);
	char err[256] = "";
	int rc = cs_dials_parse(&d, text, size, err, sizeof err);
	if (rc != 0)
		check_error(rc, err, &before, &d);
	else {
		check_valid(&d);
		check_round_trips(&d);
	}

	memcpy(&d, start, sizeof d);
	err[0] = 0;
	rc = cs_dials_assign(&d, assignment, err, sizeof err);
	if (rc != 0)
		check_error(rc, err, &before, &d);
	else {
		check_valid(&d);
		check_round_trips(&d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the file is data itself (libFuzzer's buffer is exactly size bytes, so
	 * ASan sees a read past the end); the assignment is a C string */
	char *assignment = malloc(size + 1);
	if (!assignment)
		abort();
	memcpy(assignment, data, size);
	assignment[size] = 0;

	struct cs_dials start, other;
	cs_dials_default(&start, CS_RATE_DEFAULT);
	contrary(&start, &other);
	check_from(&start, (const char *)data, size, assignment);
	check_from(&other, (const char *)data, size, assignment);
	free(assignment);
	return 0;
}
