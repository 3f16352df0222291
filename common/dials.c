#include "common/dials.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/session.h"

#define DIALS_FILE_MAX 4096

static const struct {
	uint32_t kind;
	const char *name;
} event_names[] = {
	{CS_EV_GC, "gc"},           {CS_EV_EXCEPTIONS, "exceptions"}, {CS_EV_JIT, "jit"},
	{CS_EV_MODULES, "modules"}, {CS_EV_THREADS, "threads"},     {CS_EV_CONTENTION, "contention"},
	{CS_EV_WAITS, "waits"},     {CS_EV_THREADPOOL, "threadpool"}, {CS_EV_ALLOCSAMPLES, "allocsamples"},
};
#define NEVENTS (sizeof event_names / sizeof *event_names)

static const char *const sampler_names[] = {
	[CS_SAMPLER_SUSPEND] = "suspend",
	[CS_SAMPLER_SIGNAL] = "signal",
	[CS_SAMPLER_MIXED] = "mixed",
	[CS_SAMPLER_KERNEL] = "kernel",
};

const char *cs_sampler_name(uint8_t sampler)
{
	return sampler < sizeof sampler_names / sizeof *sampler_names ? sampler_names[sampler] : "suspend";
}

int cs_sampler_parse(const char *name)
{
	for (size_t i = 0; i < sizeof sampler_names / sizeof *sampler_names; i++)
		if (!strcmp(name, sampler_names[i]))
			return (int)i;
	return -1;
}

const char *cs_event_name(uint32_t kind)
{
	for (size_t i = 0; i < NEVENTS; i++)
		if (event_names[i].kind == kind)
			return event_names[i].name;
	return NULL;
}

void cs_events_format(uint32_t kinds, char *out, size_t n)
{
	size_t len = 0;
	out[0] = 0;
	for (size_t i = 0; i < NEVENTS; i++) {
		if (!(kinds & event_names[i].kind))
			continue;
		int w = snprintf(out + len, n - len, "%s%s", len ? "," : "", event_names[i].name);
		if (w < 0 || (size_t)w >= n - len)
			return;
		len += (size_t)w;
	}
	if (!len)
		snprintf(out, n, "none");
}

void cs_dials_default(struct cs_dials *d, uint32_t rate_hz)
{
	d->generation = 0;
	d->sampling = true;
	d->sampler = CS_SAMPLER_MIXED;
	d->rate_hz = rate_hz;
	d->events = CS_EV_DEFAULT;
	d->flush_ms = CS_FLUSH_MS_DEFAULT;
	d->instrument = true;
	d->allocations = true;
	d->snapshots = 0;
	d->await_snapshots = 0;
	d->validate = CS_VALIDATE_DEFAULT;
	d->async = true;
	d->detach = false;
}

static int parse_number(const char *s, unsigned long min, unsigned long max, uint32_t *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* "gc,exceptions" sets the list; "+gc,-jit" changes the current one; "all"
 * and "none" are lists too. */
static int parse_events(uint32_t current, const char *value, uint32_t *out, char *err, size_t errlen)
{
	char copy[256];
	if (strlen(value) >= sizeof copy) {
		snprintf(err, errlen, "events: list too long");
		return -1;
	}
	snprintf(copy, sizeof copy, "%s", value);
	uint32_t set = 0, on = 0, off = 0;
	bool relative = false, absolute = false;
	char *save = NULL;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char sign = 0;
		if (*item == '+' || *item == '-')
			sign = *item++;
		uint32_t bits = 0;
		if (!strcmp(item, "all"))
			bits = CS_EV_ALL;
		else if (strcmp(item, "none") != 0) {
			for (size_t i = 0; i < NEVENTS && !bits; i++)
				if (!strcmp(item, event_names[i].name))
					bits = event_names[i].kind;
			if (!bits) {
				snprintf(err, errlen, "events: unknown kind '%s' (gc, exceptions, jit, modules, threads, contention, waits, threadpool, allocsamples, all, none)",
					 item);
				return -1;
			}
		}
		if (sign == '+')
			on |= bits, relative = true;
		else if (sign == '-')
			off |= bits, relative = true;
		else
			set |= bits, absolute = true;
	}
	if (relative && absolute) {
		snprintf(err, errlen, "events: give a list (gc,jit) or changes (+gc,-jit), not both");
		return -1;
	}
	if (!relative && !absolute) {
		snprintf(err, errlen, "events: empty list (use 'none' to record no events)");
		return -1;
	}
	*out = absolute ? set : ((current | on) & ~off);
	return 0;
}

int cs_dials_assign(struct cs_dials *d, const char *assignment, char *err, size_t errlen)
{
	const char *eq = strchr(assignment, '=');
	size_t klen = eq ? (size_t)(eq - assignment) : strlen(assignment);
	const char *value = eq ? eq + 1 : NULL;
	char key[32];
	if (klen == 0 || klen >= sizeof key) {
		snprintf(err, errlen, "'%s' is not a dial (KEY=VALUE)", assignment);
		return -1;
	}
	memcpy(key, assignment, klen);
	key[klen] = 0;

	if (!strcmp(key, "detach")) {
		if (value && strcmp(value, "yes") && strcmp(value, "now")) {
			snprintf(err, errlen, "detach takes no value (or 'yes')");
			return -1;
		}
		d->detach = true;
		return 0;
	}
	if (!value) {
		snprintf(err, errlen, "%s needs a value: %s=VALUE", key, key);
		return -1;
	}
	static const struct {
		const char *key;
		size_t offset;
	} switches[] = {
		{"sampling", offsetof(struct cs_dials, sampling)},
		{"instrument", offsetof(struct cs_dials, instrument)},
		{"allocations", offsetof(struct cs_dials, allocations)},
		{"async", offsetof(struct cs_dials, async)},
	};
	for (size_t i = 0; i < sizeof switches / sizeof *switches; i++) {
		if (strcmp(key, switches[i].key) != 0)
			continue;
		bool *flag = (bool *)((char *)d + switches[i].offset);
		if (!strcmp(value, "on"))
			*flag = true;
		else if (!strcmp(value, "off"))
			*flag = false;
		else {
			snprintf(err, errlen, "%s is on or off, not '%s'", key, value);
			return -1;
		}
		return 0;
	}
	if (!strcmp(key, "snapshot")) {
		if (!strcmp(value, "heap"))
			d->snapshots++;
		else if (!strcmp(value, "awaits"))
			d->await_snapshots++;
		else {
			snprintf(err, errlen, "snapshot takes 'heap' or 'awaits' (snapshot=heap), not '%s'", value);
			return -1;
		}
		return 0;
	}
	/* the counts, as the dials file carries them */
	uint32_t *count = !strcmp(key, "snapshots") ? &d->snapshots : !strcmp(key, "await_snapshots") ? &d->await_snapshots : NULL;
	if (count) {
		uint32_t v;
		if (parse_number(value, 0, UINT32_MAX, &v) < 0) {
			snprintf(err, errlen, "%s is a count, not '%s'", key, value);
			return -1;
		}
		*count = v;
		return 0;
	}
	if (!strcmp(key, "validate")) {
		uint32_t v;
		if (parse_number(value, 0, CS_VALIDATE_MAX, &v) < 0) {
			snprintf(err, errlen, "validate is how many fast walks per exact check, from 0 (never) to %d, not '%s'",
				 CS_VALIDATE_MAX, value);
			return -1;
		}
		d->validate = v;
		return 0;
	}
	if (!strcmp(key, "sampler")) {
		int sampler = cs_sampler_parse(value);
		if (sampler < 0) {
			snprintf(err, errlen, "sampler is mixed, kernel, suspend or signal, not '%s'", value);
			return -1;
		}
		d->sampler = (uint8_t)sampler;
		return 0;
	}
	if (!strcmp(key, "rate")) {
		uint32_t v;
		if (parse_number(value, CS_RATE_MIN, CS_RATE_MAX, &v) < 0) {
			snprintf(err, errlen, "rate is a whole number of Hz from %d to %d, not '%s'", CS_RATE_MIN,
				 CS_RATE_MAX, value);
			return -1;
		}
		d->rate_hz = v;
		return 0;
	}
	if (!strcmp(key, "flush_ms")) {
		uint32_t v;
		if (parse_number(value, CS_FLUSH_MS_MIN, CS_FLUSH_MS_MAX, &v) < 0) {
			snprintf(err, errlen, "flush_ms is a whole number of milliseconds from %d to %d, not '%s'",
				 CS_FLUSH_MS_MIN, CS_FLUSH_MS_MAX, value);
			return -1;
		}
		d->flush_ms = v;
		return 0;
	}
	if (!strcmp(key, "events")) {
		uint32_t v;
		if (parse_events(d->events, value, &v, err, errlen) < 0)
			return -1;
		d->events = v;
		return 0;
	}
	snprintf(err, errlen,
		 "unknown dial '%s' (sampling, sampler, rate, events, flush_ms, instrument, allocations, snapshot, validate, async, detach)",
		 key);
	return -1;
}

size_t cs_dials_format(const struct cs_dials *d, char *out, size_t n)
{
	char events[128];
	cs_events_format(d->events, events, sizeof events);
	int len = snprintf(out, n,
			   "generation %llu\nsampling=%s\nsampler=%s\nrate=%u\nevents=%s\nflush_ms=%u\n"
			   "instrument=%s\nallocations=%s\nsnapshots=%u\nawait_snapshots=%u\nvalidate=%u\nasync=%s\n%s",
			   (unsigned long long)d->generation, d->sampling ? "on" : "off",
			   cs_sampler_name(d->sampler), d->rate_hz, events, d->flush_ms,
			   d->instrument ? "on" : "off", d->allocations ? "on" : "off", d->snapshots,
			   d->await_snapshots, d->validate,
			   d->async ? "on" : "off", d->detach ? "detach\n" : "");
	return len < 0 ? 0 : (size_t)len;
}

void cs_dials_summary(const struct cs_dials *d, char *out, size_t n)
{
	char events[128];
	cs_events_format(d->events, events, sizeof events);
	snprintf(out, n,
		 "sampling=%s sampler=%s rate=%u events=%s flush_ms=%u instrument=%s allocations=%s snapshots=%u "
		 "await_snapshots=%u validate=%u async=%s%s",
		 d->sampling ? "on" : "off", cs_sampler_name(d->sampler), d->rate_hz, events,
		 d->flush_ms, d->instrument ? "on" : "off", d->allocations ? "on" : "off", d->snapshots,
		 d->await_snapshots, d->validate,
		 d->async ? "on" : "off", d->detach ? " detach" : "");
}

int cs_dials_apply_summary(struct cs_dials *d, const char *line, size_t len)
{
	int applied = 0;
	for (size_t at = 0; at < len;) {
		while (at < len && line[at] == ' ')
			at++;
		size_t end = at;
		while (end < len && line[end] != ' ')
			end++;
		char word[256], err[200];
		if (end > at && end - at < sizeof word) {
			memcpy(word, line + at, end - at);
			word[end - at] = 0;
			/* a NUL inside the word would cut it short: not a dial */
			if (strlen(word) == end - at && cs_dials_assign(d, word, err, sizeof err) == 0)
				applied++;
		}
		at = end;
	}
	return applied;
}

int cs_dials_parse(struct cs_dials *d, const char *text, size_t len, char *err, size_t errlen)
{
	struct cs_dials next = *d;
	bool have_generation = false;
	size_t lineno = 0;
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		char line[256];
		size_t ll = end - at;
		lineno++;
		if (ll >= sizeof line) {
			snprintf(err, errlen, "dials line %zu is too long", lineno);
			return -1;
		}
		/* text only: a NUL would hide the rest of the line, and other
		 * control bytes would reach terminals in the answer */
		for (size_t i = 0; i < ll; i++) {
			unsigned char c = (unsigned char)text[at + i];
			if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
				snprintf(err, errlen, "dials line %zu holds a control character (byte 0x%02x at column %zu): "
						      "the dials file is text", lineno, c, i + 1);
				return -1;
			}
		}
		memcpy(line, text + at, ll);
		line[ll] = 0;
		at = end + 1;
		while (ll && (line[ll - 1] == ' ' || line[ll - 1] == '\r' || line[ll - 1] == '\t'))
			line[--ll] = 0;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (!strncmp(p, "generation ", 11)) {
			char *endp;
			errno = 0;
			unsigned long long g = strtoull(p + 11, &endp, 10);
			if (errno || *endp || p[11] < '0' || p[11] > '9') {
				snprintf(err, errlen, "dials line %zu: bad generation '%s'", lineno, p + 11);
				return -1;
			}
			next.generation = g;
			have_generation = true;
			continue;
		}
		char why[200];
		if (cs_dials_assign(&next, p, why, sizeof why) < 0) {
			snprintf(err, errlen, "dials line %zu: %s", lineno, why);
			return -1;
		}
	}
	if (!have_generation) {
		snprintf(err, errlen, "dials file has no generation line");
		return -1;
	}
	*d = next;
	return 0;
}

int cs_dials_read(int dirfd, struct cs_dials *d, char *err, size_t errlen)
{
	int fd = openat(dirfd, CS_DIALS_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open the dials file: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "the dials file is not a regular file");
		return -1;
	}
	char buf[DIALS_FILE_MAX + 1];
	size_t len = 0;
	ssize_t n;
	while (len <= DIALS_FILE_MAX && (n = read(fd, buf + len, sizeof buf - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (len > DIALS_FILE_MAX) {
		snprintf(err, errlen, "the dials file is larger than %d bytes", DIALS_FILE_MAX);
		return -1;
	}
	return cs_dials_parse(d, buf, len, err, errlen);
}

int cs_dials_write(const char *dir, const struct cs_dials *d, char *err, size_t errlen)
{
	char text[1024], tmp[64], why[300];
	size_t len = cs_dials_format(d, text, sizeof text);
	snprintf(tmp, sizeof tmp, ".%s.%d", CS_DIALS_FILE, (int)getpid());
	int dirfd = cs_proc_dir_open(dir, why, sizeof why); /* private, no symbolic links */
	if (dirfd < 0) {
		snprintf(err, errlen, "cannot write the dials: %s", why);
		return -1;
	}
	unlinkat(dirfd, tmp, 0); /* a leftover (or a hard link to anything) goes; O_EXCL makes it anew */
	int fd = cs_open_file_at(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL, 0600, why, sizeof why);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s/%s: it %s", dir, tmp, why);
		close(dirfd);
		return -1;
	}
	bool ok = write(fd, text, len) == (ssize_t)len;
	ok = (close(fd) == 0) && ok;
	if (!ok || renameat(dirfd, tmp, dirfd, CS_DIALS_FILE) != 0) {
		snprintf(err, errlen, "cannot write %s/%s: %s", dir, CS_DIALS_FILE, strerror(errno));
		unlinkat(dirfd, tmp, 0);
		close(dirfd);
		return -1;
	}
	close(dirfd);
	return 0;
}
