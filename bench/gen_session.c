/* Writes a synthetic session for ingest benchmarks: one process, F
 * functions, S distinct stacks (a random tree, depth up to 24), and N
 * samples over two threads at 1 kHz, in the agent's framing and batching
 * (a SAMPLES record per 50 ticks).  Not the agent: just its format.  With
 * a NATIVE percentage, that share of the functions are native functions of
 * this machine's libc (NATIVE_FRAME: its path and addresses in the file),
 * for the reader to name from the file's symbols as it would a real
 * session's.
 *
 *   gen_session DIR SAMPLES [FUNCTIONS [STACKS [NATIVE]]] */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/logfmt.h"
#include "common/newsession.h"
#include "common/records.h"
#include "common/session.h"

static FILE *seg;
static uint32_t seq;
static size_t seg_bytes;
static char procdir[4096];

static void next_segment(void)
{
	char path[4200];
	if (seg)
		fclose(seg);
	snprintf(path, sizeof path, "%s/" CS_SEG_NAME_FMT, procdir, ++seq);
	seg = fopen(path, "w");
	if (!seg) {
		perror(path);
		exit(1);
	}
	uint8_t header[CS_SEG_HEADER_LEN];
	cs_seg_header_make(header, seq);
	fwrite(header, 1, sizeof header, seg);
	seg_bytes = sizeof header;
}

static void emit(uint16_t type, struct cs_out *payload)
{
	static uint8_t frame[CS_REC_MAX_PAYLOAD + CS_REC_HEADER_LEN];
	struct cs_out o;
	cs_out_init(&o, frame, sizeof frame);
	size_t at = cs_record_begin(&o);
	cs_put_bytes(&o, payload->buf, payload->len);
	cs_record_end(&o, at, type);
	if (seg_bytes + o.len > CS_SEG_TARGET_BYTES)
		next_segment();
	fwrite(o.buf, 1, o.len, seg);
	seg_bytes += o.len;
	payload->len = 0;
}

/* Addresses inside libc's functions, as offsets in its file (dladdr's
 * base is the load bias of a shared library), and its path. */
static unsigned libc_addresses(uint64_t *out, unsigned max, char *path, size_t pathlen)
{
	void *fns[] = {(void *)memcpy, (void *)strlen, (void *)qsort, (void *)printf, (void *)malloc, (void *)free,
		       (void *)fopen, (void *)fwrite, (void *)strtoul, (void *)snprintf, (void *)calloc, (void *)rand};
	unsigned n = 0;
	for (unsigned i = 0; i < sizeof fns / sizeof *fns && n < max; i++) {
		Dl_info info;
		if (!dladdr(fns[i], &info) || !info.dli_fname || !strstr(info.dli_fname, "libc"))
			continue;
		snprintf(path, pathlen, "%s", info.dli_fname);
		for (unsigned k = 0; k < 4 && n < max; k++) /* a few instructions in */
			out[n++] = (uint64_t)((uintptr_t)fns[i] - (uintptr_t)info.dli_fbase) + 4 * k;
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen_session DIR SAMPLES [FUNCTIONS [STACKS [NATIVE]]]\n");
		return 2;
	}
	const char *dir = argv[1];
	unsigned long samples = strtoul(argv[2], NULL, 10);
	unsigned functions = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 2000;
	unsigned stacks = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 20000;
	unsigned native_pct = argc > 5 ? (unsigned)strtoul(argv[5], NULL, 10) : 0;
	uint64_t addrs[64];
	char libc[4096] = "";
	unsigned naddrs = native_pct ? libc_addresses(addrs, 64, libc, sizeof libc) : 0;
	if (native_pct && !naddrs) {
		fprintf(stderr, "gen_session: cannot find libc's functions\n");
		return 1;
	}
	char err[512], out[4096];
	if (cs_session_create(dir, "bench", "gen_session", out, sizeof out, err, sizeof err) < 0 ||
	    cs_proc_dir_create(dir, 4242, procdir, sizeof procdir, err, sizeof err) < 0) {
		fprintf(stderr, "gen_session: %s\n", err);
		return 1;
	}
	next_segment();
	static uint8_t buf[1 << 20];
	struct cs_out p;
	cs_out_init(&p, buf, sizeof buf);
	struct cs_hello h = {4242, 1, 0, CS_LOAD_STARTUP, 1000, {"0", 1}, {"CoreCLR", 7}, {"gen", 3}, {"", 0}, 0};
	cs_hello_encode(&p, &h);
	emit(CS_REC_HELLO, &p);
	char name[64];
	const char *libc_name = strrchr(libc, '/') ? strrchr(libc, '/') + 1 : libc;
	for (unsigned f = 0; f < functions; f++) {
		bool native = f % 100 < native_pct;
		snprintf(name, sizeof name, "Bench.Namespace.Type%u.Method%u", f / 10, f);
		struct cs_frame_def d = {16 + f, {name, strlen(name)}, {"bench.dll", 9}};
		if (native)
			d = (struct cs_frame_def){16 + f, {"[native]", 8}, {libc_name, strlen(libc_name)}};
		cs_frame_def_encode(&p, &d);
		if (p.len > sizeof buf - 256)
			emit(CS_REC_FRAMES, &p);
	}
	emit(CS_REC_FRAMES, &p);
	if (native_pct) {
		struct cs_code_path c = {1, {libc, strlen(libc)}};
		cs_code_path_encode(&p, &c);
		emit(CS_REC_CODE_PATH, &p);
		for (unsigned f = 0; f < functions; f++) {
			if (f % 100 >= native_pct)
				continue;
			struct cs_native_frame nf = {16 + f, 1, addrs[f % naddrs], {"", 0}};
			cs_native_frame_encode(&p, &nf);
			if (p.len > sizeof buf - 256)
				emit(CS_REC_NATIVE_FRAME, &p);
		}
		emit(CS_REC_NATIVE_FRAME, &p);
	}
	srand(1);
	uint32_t *depth = calloc(stacks + 1, sizeof *depth);
	for (unsigned s = 1; s <= stacks; s++) {
		unsigned parent = s == 1 || depth[s - 1] >= 24 ? 0 : (unsigned)(rand() % s);
		if (parent && depth[parent] >= 24)
			parent = 0;
		depth[s] = parent ? depth[parent] + 1 : 1;
		struct cs_stack_def d = {s, parent, 16 + (unsigned)rand() % functions};
		cs_stack_def_encode(&p, &d);
		if (p.len > sizeof buf - 64)
			emit(CS_REC_STACKS, &p);
	}
	emit(CS_REC_STACKS, &p);
	uint64_t t = 1000, last = 0;
	unsigned long written = 0;
	for (unsigned tick = 0; written < samples; tick++, t += 1000) {
		if (tick % 50 == 0 && p.len) {
			emit(CS_REC_SAMPLES, &p);
			last = 0;
		}
		unsigned n = samples - written >= 2 ? 2 : 1;
		cs_tick_encode(&p, t - last, 30000, n);
		last = t;
		for (unsigned k = 0; k < n; k++)
			cs_sample_encode(&p, 1 + k, 1 + (unsigned)rand() % stacks);
		written += n;
	}
	emit(CS_REC_SAMPLES, &p);
	fclose(seg);
	free(depth);
	printf("%s: %lu samples, %u functions (%u %% native), %u stacks, %u segments\n", dir, written, functions,
	       native_pct, stacks, seq);
	return 0;
}
