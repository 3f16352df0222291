#include "check.h"
#include "common/dials.h"

static void assignments(void)
{
	struct cs_dials d;
	char err[300];
	cs_dials_default(&d, 200);
	CHECK(d.sampler == CS_SAMPLER_MIXED); /* the default */
	CHECK(cs_dials_assign(&d, "rate=1000", err, sizeof err) == 0 && d.rate_hz == 1000);
	CHECK(cs_dials_assign(&d, "rate=0", err, sizeof err) == -1 && d.rate_hz == 1000);
	CHECK(strstr(err, "rate is a whole number") != NULL);
	CHECK(cs_dials_assign(&d, "rate=10001", err, sizeof err) == -1);
	CHECK(cs_dials_assign(&d, "rate=12x", err, sizeof err) == -1);
	CHECK(cs_dials_assign(&d, "sampling=off", err, sizeof err) == 0 && !d.sampling);
	CHECK(cs_dials_assign(&d, "sampling=maybe", err, sizeof err) == -1);
	CHECK(cs_dials_assign(&d, "sampler=signal", err, sizeof err) == 0 && d.sampler == CS_SAMPLER_SIGNAL);
	CHECK(cs_dials_assign(&d, "sampler=fast", err, sizeof err) == -1 && d.sampler == CS_SAMPLER_SIGNAL);
	CHECK(strstr(err, "mixed, kernel, suspend or signal") != NULL);
	CHECK(cs_dials_assign(&d, "sampler=suspend", err, sizeof err) == 0 && d.sampler == CS_SAMPLER_SUSPEND);
	CHECK(cs_dials_assign(&d, "sampler=mixed", err, sizeof err) == 0 && d.sampler == CS_SAMPLER_MIXED);
	CHECK(cs_dials_assign(&d, "flush_ms=9", err, sizeof err) == -1);
	CHECK(cs_dials_assign(&d, "flush_ms=50", err, sizeof err) == 0 && d.flush_ms == 50);
	CHECK(cs_dials_assign(&d, "detach", err, sizeof err) == 0 && d.detach);
	CHECK(cs_dials_assign(&d, "colour=red", err, sizeof err) == -1 && strstr(err, "unknown dial") != NULL);
	CHECK(cs_dials_assign(&d, "rate", err, sizeof err) == -1 && strstr(err, "needs a value") != NULL);
	CHECK(cs_dials_assign(&d, "=5", err, sizeof err) == -1);
	/* recording switches and the snapshot request */
	CHECK(cs_dials_assign(&d, "instrument=off", err, sizeof err) == 0 && !d.instrument);
	CHECK(cs_dials_assign(&d, "allocations=off", err, sizeof err) == 0 && !d.allocations);
	CHECK(cs_dials_assign(&d, "allocations=maybe", err, sizeof err) == -1 && strstr(err, "allocations is on or off"));
	uint32_t before = d.snapshots;
	CHECK(cs_dials_assign(&d, "snapshot=heap", err, sizeof err) == 0 && d.snapshots == before + 1);
	CHECK(cs_dials_assign(&d, "snapshot=stack", err, sizeof err) == -1 && d.snapshots == before + 1);
	CHECK(cs_dials_assign(&d, "snapshots=7", err, sizeof err) == 0 && d.snapshots == 7);
	CHECK(cs_dials_assign(&d, "snapshots=-1", err, sizeof err) == -1 && d.snapshots == 7);
	/* the fast walks' check: a count, 0 for never, bounded */
	CHECK(d.validate == CS_VALIDATE_DEFAULT);
	CHECK(cs_dials_assign(&d, "validate=0", err, sizeof err) == 0 && d.validate == 0);
	CHECK(cs_dials_assign(&d, "validate=50", err, sizeof err) == 0 && d.validate == 50);
	CHECK(cs_dials_assign(&d, "validate=2000000", err, sizeof err) == -1 && d.validate == 50 &&
	      strstr(err, "validate is how many"));
	CHECK(cs_dials_assign(&d, "validate=often", err, sizeof err) == -1 && d.validate == 50);
}

static void events_lists(void)
{
	struct cs_dials d;
	char err[300], text[128];
	cs_dials_default(&d, 200);
	CHECK_EQ_U(d.events, CS_EV_ALL);
	CHECK(cs_dials_assign(&d, "events=-jit,-gc", err, sizeof err) == 0);
	CHECK_EQ_U(d.events, CS_EV_EXCEPTIONS | CS_EV_MODULES | CS_EV_THREADS | CS_EV_CONTENTION | CS_EV_WAITS | CS_EV_THREADPOOL | CS_EV_ALLOCSAMPLES);
	CHECK(cs_dials_assign(&d, "events=+gc", err, sizeof err) == 0);
	cs_events_format(d.events, text, sizeof text);
	CHECK_STR(text, "gc,exceptions,modules,threads,contention,waits,threadpool,allocsamples");
	CHECK(cs_dials_assign(&d, "events=jit", err, sizeof err) == 0 && d.events == CS_EV_JIT);
	CHECK(cs_dials_assign(&d, "events=none", err, sizeof err) == 0 && d.events == 0);
	cs_events_format(d.events, text, sizeof text);
	CHECK_STR(text, "none");
	CHECK(cs_dials_assign(&d, "events=all", err, sizeof err) == 0 && d.events == CS_EV_ALL);
	CHECK(cs_dials_assign(&d, "events=gc,+jit", err, sizeof err) == -1 && strstr(err, "not both") != NULL);
	CHECK(cs_dials_assign(&d, "events=gcc", err, sizeof err) == -1 && strstr(err, "unknown kind") != NULL);
	CHECK(cs_dials_assign(&d, "events=", err, sizeof err) == -1);
}

static void file_round_trip(void)
{
	struct cs_dials d, back;
	char err[300], text[1024], summary[256];
	cs_dials_default(&d, 200);
	d.generation = 42;
	cs_dials_assign(&d, "rate=750", err, sizeof err);
	cs_dials_assign(&d, "events=gc,threads", err, sizeof err);
	cs_dials_assign(&d, "sampler=signal", err, sizeof err);
	cs_dials_assign(&d, "instrument=off", err, sizeof err);
	cs_dials_assign(&d, "snapshot=heap", err, sizeof err);
	cs_dials_assign(&d, "snapshot=heap", err, sizeof err);
	CHECK(cs_dials_assign(&d, "snapshot=awaits", err, sizeof err) == 0 && d.await_snapshots == 1);
	CHECK(cs_dials_assign(&d, "snapshot=stacks", err, sizeof err) == -1 && strstr(err, "'awaits'") != NULL);
	CHECK(d.async && cs_dials_assign(&d, "async=off", err, sizeof err) == 0 && !d.async);
	CHECK(cs_dials_assign(&d, "async=maybe", err, sizeof err) == -1 && !d.async);
	size_t len = cs_dials_format(&d, text, sizeof text);
	cs_dials_default(&back, 1);
	CHECK(cs_dials_parse(&back, text, len, err, sizeof err) == 0);
	CHECK(back.generation == 42 && back.rate_hz == 750 && back.events == (CS_EV_GC | CS_EV_THREADS) &&
	      back.sampler == CS_SAMPLER_SIGNAL && back.sampling && back.flush_ms == 100 && !back.detach);
	CHECK(!back.instrument && back.allocations && !back.async);
	CHECK_EQ_U(back.snapshots, 2);
	CHECK_EQ_U(back.await_snapshots, 1);
	cs_dials_summary(&back, summary, sizeof summary);
	CHECK_STR(summary, "sampling=on sampler=signal rate=750 events=gc,threads flush_ms=100 instrument=off "
			   "allocations=on snapshots=2 await_snapshots=1 validate=1000 async=off");

	/* a bad line names itself and changes nothing */
	const char *bad = "generation 3\nrate=5\n# a comment\n\nrate=banana\n";
	CHECK(cs_dials_parse(&back, bad, strlen(bad), err, sizeof err) == -1);
	CHECK(strstr(err, "dials line 5") != NULL);
	CHECK_EQ_U(back.rate_hz, 750);
	const char *nogen = "rate=5\n";
	CHECK(cs_dials_parse(&back, nogen, strlen(nogen), err, sizeof err) == -1 && strstr(err, "generation") != NULL);
	const char *old = "generation 1\r\nsampling=off  \r\n"; /* older files have no sampler line */
	CHECK(cs_dials_parse(&back, old, strlen(old), err, sizeof err) == 0 && !back.sampling);
}

int main(void)
{
	RUN(assignments);
	RUN(events_lists);
	RUN(file_round_trip);
	return CHECK_DONE();
}
