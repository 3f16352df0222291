#include "agent/symbols/stubnames.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/wire.h"

#define STUBS_MAX 16384
#define LOOK_EVERY_NS 50000000ull

struct stub_range {
	uint64_t start, end;
	uint8_t kind;
};

static struct {
	int fd; /* the map, unlinked (-1: not open) */
	bool asked; /* clrscope asked the runtime for the map */
	char path[4200];
	uint64_t looked_ns;
	struct stub_range range[STUBS_MAX]; /* by start */
	uint32_t n;
	char kinds[STUBNAMES_KINDS][STUBNAMES_KIND_MAX];
	uint32_t nkinds;
	char carry[1024]; /* a line the last read ended inside */
	size_t ncarry;
} sn = {.fd = -1};

void stubnames_open(const char *session_dir, int pid)
{
	if (sn.fd >= 0)
		return;
	if (!sn.asked) {
		const char *dir = getenv("DOTNET_PerfMapJitDumpPath"), *on = getenv("DOTNET_PerfMapEnabled");
		if (!dir || !on || strcmp(on, "3") || strcmp(dir, session_dir))
			return; /* not ours: a user's map is never touched */
		sn.asked = true;
		snprintf(sn.path, sizeof sn.path, "%s/perf-%d.map", session_dir, pid);
	}
	sn.fd = open(sn.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (sn.fd >= 0)
		unlink(sn.path);
}

void stubnames_close(void)
{
	if (sn.fd >= 0)
		close(sn.fd);
	else if (sn.asked)
		unlink(sn.path); /* made after the last look */
	sn.fd = -1;
	sn.n = sn.nkinds = 0;
	sn.ncarry = 0;
}

/* A hexadecimal number at *p (an optional 0x), at most 64 bits; *p after it. */
static uint64_t hex(const char **p, const char *end, bool *ok)
{
	uint64_t v = 0;
	const char *s = *p;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	const char *digits = s;
	for (; s < end; s++) {
		int d = cs_hex_digit((unsigned char)*s);
		if (d < 0)
			break;
		v = v << 4 | (uint64_t)d;
	}
	*ok = s > digits && s - digits <= 16;
	*p = s;
	return v;
}

bool stubnames_parse(const char *line, size_t len, uint64_t *start, uint64_t *size, char *kind, size_t kindlen)
{
	const char *p = line, *end = line + len;
	bool ok;
	*start = hex(&p, end, &ok);
	if (!ok || p == end || *p++ != ' ')
		return false;
	*size = hex(&p, end, &ok);
	if (!ok || *size == 0 || p == end || *p++ != ' ' || end - p < 5 || memcmp(p, "stub", 4) ||
	    (p[4] != ' ' && p[4] != '<'))
		return false;
	if (end[-1] != '>')
		return false;
	const char *open = end - 1;
	while (open > p && *open != '<')
		open--;
	size_t n = (size_t)(end - 1 - (open + 1));
	if (*open != '<' || n == 0 || n >= kindlen)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = open[1 + i];
		kind[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ? c : '_';
	}
	kind[n] = '\0';
	return true;
}

static uint8_t intern_kind(const char *kind)
{
	for (uint32_t i = 0; i < sn.nkinds; i++)
		if (!strcmp(sn.kinds[i], kind))
			return (uint8_t)i;
	if (sn.nkinds == STUBNAMES_KINDS)
		return STUBNAMES_KINDS - 1;
	snprintf(sn.kinds[sn.nkinds], sizeof sn.kinds[0], "%s", kind);
	return (uint8_t)sn.nkinds++;
}

/* The first range whose start is above addr. */
static uint32_t range_after(uint64_t addr)
{
	return agent_first_above(sn.range, sn.n, sizeof *sn.range, offsetof(struct stub_range, start), addr);
}

static void add_line(const char *line, size_t len)
{
	uint64_t start, size;
	char kind[STUBNAMES_KIND_MAX];
	if (!stubnames_parse(line, len, &start, &size, kind, sizeof kind) || sn.n == STUBS_MAX ||
	    start + size < start)
		return;
	uint32_t at = range_after(start);
	memmove(&sn.range[at + 1], &sn.range[at], (sn.n - at) * sizeof *sn.range);
	sn.range[at] = (struct stub_range){start, start + size, intern_kind(kind)};
	sn.n++;
}

/* What the runtime wrote since the last read. */
static void read_more(void)
{
	static char buf[65536];
	ssize_t got;
	while ((got = read(sn.fd, buf, sizeof buf)) > 0) {
		const char *p = buf, *end = buf + got;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = (size_t)((nl ? nl : end) - p);
			if (sn.ncarry + n < sizeof sn.carry) {
				memcpy(sn.carry + sn.ncarry, p, n);
				sn.ncarry += n;
			} else {
				sn.ncarry = sizeof sn.carry; /* too long for a stub's line: dropped */
			}
			if (!nl)
				break;
			if (sn.ncarry < sizeof sn.carry)
				add_line(sn.carry, sn.ncarry);
			sn.ncarry = 0;
			p = nl + 1;
		}
	}
}

static int find(uint64_t addr)
{
	/* the last range starting at or below addr; blocks do not overlap */
	uint32_t k = range_after(addr);
	return k && addr < sn.range[k - 1].end ? sn.range[k - 1].kind : -1;
}

int stubnames_kind_at(uint64_t addr)
{
	if (!sn.asked)
		return -1;
	int kind = find(addr);
	uint64_t now = agent_mono_ns();
	if (kind >= 0 || now - sn.looked_ns < LOOK_EVERY_NS)
		return kind;
	sn.looked_ns = now;
	if (sn.fd < 0)
		stubnames_open(g_agent.session_dir, getpid());
	if (sn.fd >= 0)
		read_more();
	return find(addr);
}

const char *stubnames_kind_name(int kind)
{
	return kind >= 0 && (uint32_t)kind < sn.nkinds ? sn.kinds[kind] : "?";
}
