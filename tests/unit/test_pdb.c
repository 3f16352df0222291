/* The portable PDB reader on the PDBs 'dotnet build' made for the test
 * apps: CpuRatio's beside its assembly, HotLines' embedded in it.  Every
 * line it reports is checked against the C# source, found by text.
 *
 *   test_pdb APPS_BUILD_DIR APPS_SOURCE_DIR */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pdb/metadata.h"
#include "pdb/pdb.h"
#include "pdb/pe.h"
#include "pdb/symfile.h"

static const char *apps, *sources;
static char scratch[] = "/tmp/clrscope-test-pdb-XXXXXX";

/* The 1-based line of path's first line holding text after line after (0: none). */
static unsigned source_line(const char *app, const char *text, unsigned after)
{
	char path[4096], buf[4096];
	snprintf(path, sizeof path, "%s/%s/Program.cs", sources, app);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	unsigned n = 0, found = 0;
	while (!found && fgets(buf, sizeof buf, f))
		if (++n > after && strstr(buf, text))
			found = n;
	fclose(f);
	return found;
}

/* The MethodDef token of the method named name in the assembly. */
static uint32_t method_token(const char *assembly, const char *name)
{
	uint8_t *image;
	size_t len;
	char err[512];
	struct pe_debug d;
	struct metadata m;
	uint32_t token = 0;
	if (symfile_read(assembly, SYMFILE_MAX, &image, &len, err, sizeof err) < 0)
		return 0;
	if (pe_read(image, len, &d, err, sizeof err) == 0 && md_open(&m, d.metadata.p, d.metadata.len, err, sizeof err) == 0)
		token = md_find_method(&m, name);
	free(image);
	return token;
}

struct points {
	struct pdb_point p[256];
	size_t n;
};

static bool collect(void *ctx, const struct pdb_point *pt)
{
	struct points *ps = ctx;
	if (ps->n < 256)
		ps->p[ps->n++] = *pt;
	return true;
}

/* Every visible point of method lies in [first, last] in a document that
 * is app's Program.cs; each IL offset maps back to its own line; the line
 * of must_have has a point. */
static void check_method(const char *app, const char *method, unsigned first, unsigned last, unsigned must_have)
{
	char assembly[4096], err[512];
	snprintf(assembly, sizeof assembly, "%s/%s/%s.dll", apps, app, app);
	uint32_t token = method_token(assembly, method);
	CHECK(token >> 24 == 0x06);
	struct pdb_file f;
	int rc = symfile_open(assembly, &f, err, sizeof err);
	if (rc != 0)
		fprintf(stderr, "%s\n", err);
	CHECK(rc == 0);
	if (rc != 0 || !token)
		return;
	struct points ps = {.n = 0};
	int n = pdb_each_point(&f, token, collect, &ps, err, sizeof err);
	CHECK(n > 2 && (size_t)n == ps.n);
	bool seen = false;
	char want_suffix[256];
	snprintf(want_suffix, sizeof want_suffix, "/%s/Program.cs", app);
	for (size_t i = 0; i < ps.n; i++) {
		const struct pdb_point *p = &ps.p[i];
		CHECK(i == 0 || p->il_offset > ps.p[i - 1].il_offset);
		if (p->line == PDB_HIDDEN_LINE)
			continue;
		CHECK(p->line >= first && p->line <= last);
		CHECK(p->end_line >= p->line && p->column >= 1);
		seen |= p->line == must_have;
		struct pdb_line l;
		CHECK(pdb_line(&f, token, p->il_offset, &l, err, sizeof err) == 1);
		CHECK_EQ_U(l.line, p->line);
		size_t fl = strlen(l.file), sl = strlen(want_suffix);
		CHECK(fl > sl && strcmp(l.file + fl - sl, want_suffix) == 0);
	}
	CHECK(seen);
	pdb_close(&f);
}

static void beside_the_assembly(void)
{
	/* CpuRatio's Burn: from its first statement to its last */
	unsigned decl = source_line("CpuRatio", "public static void Burn(int units)", 0);
	unsigned first = source_line("CpuRatio", "uint x = 2463534242u;", decl);
	unsigned last = source_line("CpuRatio", "Sink = d + x;", decl);
	unsigned hot = source_line("CpuRatio", "x ^= x << 13;", decl);
	CHECK(decl && first && last && hot);
	check_method("CpuRatio", "Burn", first, last + 1, hot);

	/* IL offset 0 is the first statement's line */
	char assembly[4096], err[512];
	snprintf(assembly, sizeof assembly, "%s/CpuRatio/CpuRatio.dll", apps);
	struct pdb_file f;
	struct pdb_line l;
	uint32_t token = method_token(assembly, "Burn");
	CHECK(symfile_open(assembly, &f, err, sizeof err) == 0);
	CHECK(pdb_line(&f, token, 0, &l, err, sizeof err) == 1);
	CHECK_EQ_U(l.line, first);
	CHECK(pdb_line(&f, 0x06FFFFFF, 0, &l, err, sizeof err) == -1); /* no such method */
	CHECK(strstr(err, "no method") != NULL);
	CHECK(pdb_line(&f, 0x02000001, 0, &l, err, sizeof err) == -1); /* a type, not a method */
	pdb_close(&f);
}

static void embedded_in_the_assembly(void)
{
	unsigned decl = source_line("HotLines", "public static void Spin(int iterations)", 0);
	unsigned begin = source_line("HotLines", "// loop begins", decl);
	unsigned end = source_line("HotLines", "// loop ends", decl);
	unsigned hot = source_line("HotLines", "// HOT", decl);
	CHECK(decl && begin && end && hot && begin < hot && hot < end);
	char pdb[4096];
	snprintf(pdb, sizeof pdb, "%s/HotLines/HotLines.pdb", apps);
	CHECK(access(pdb, F_OK) != 0); /* no PDB beside it: it must come from the assembly */
	check_method("HotLines", "Spin", decl, end + 2, hot);
}

static int copy(const char *from, const char *to)
{
	uint8_t *data;
	size_t len;
	char err[512];
	if (symfile_read(from, SYMFILE_MAX, &data, &len, err, sizeof err) < 0)
		return -1;
	FILE *f = fopen(to, "wb");
	int rc = f && fwrite(data, 1, len, f) == len ? 0 : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	free(data);
	return rc;
}

static void missing_and_mismatched(void)
{
	char from[4096], to[4096], err[512];
	struct pdb_file f;
	snprintf(from, sizeof from, "%s/CpuRatio/CpuRatio.dll", apps);
	snprintf(to, sizeof to, "%s/CpuRatio.dll", scratch);
	CHECK(copy(from, to) == 0);
	CHECK(symfile_open(to, &f, err, sizeof err) == -1);
	CHECK(strstr(err, "no PDB for") != NULL && strstr(err, "CpuRatio.pdb") != NULL);

	/* another app's PDB under this one's name */
	snprintf(from, sizeof from, "%s/Spin/Spin.pdb", apps);
	snprintf(to, sizeof to, "%s/CpuRatio.pdb", scratch);
	CHECK(copy(from, to) == 0);
	snprintf(to, sizeof to, "%s/CpuRatio.dll", scratch);
	CHECK(symfile_open(to, &f, err, sizeof err) == -1);
	CHECK(strstr(err, "another build") != NULL);

	/* a PDB cut short is refused, not read past its end */
	snprintf(from, sizeof from, "%s/CpuRatio/CpuRatio.pdb", apps);
	uint8_t *data;
	size_t len;
	CHECK(symfile_read(from, SYMFILE_MAX, &data, &len, err, sizeof err) == 0);
	uint8_t *cut = malloc(len / 2);
	memcpy(cut, data, len / 2);
	free(data);
	CHECK(pdb_open_bytes(&f, cut, len / 2, err, sizeof err) == -1);

	/* not an assembly at all */
	snprintf(to, sizeof to, "%s/CpuRatio.dll", scratch);
	FILE *t = fopen(to, "w");
	if (t) {
		fputs("MZ but nothing else", t);
		fclose(t);
	}
	CHECK(symfile_open(to, &f, err, sizeof err) == -1);
	CHECK(strstr(err, "not a PE file") != NULL);
	unlink(to);
	snprintf(to, sizeof to, "%s/CpuRatio.pdb", scratch);
	unlink(to);
}

/* System.Private.CoreLib of the dotnet on PATH (wide heap indexes, tens of
 * thousands of rows); false when there is none. */
static bool find_corelib(char *out, size_t outlen)
{
	const char *path = getenv("PATH");
	char dir[4096], real[4096];
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(dir, sizeof dir, "%.*s/dotnet", (int)n, p);
		p += n + (p[n] == ':');
		if (!realpath(dir, real))
			continue;
		*strrchr(real, '/') = 0;
		snprintf(dir, sizeof dir, "%s/shared/Microsoft.NETCore.App", real);
		DIR *d = opendir(dir);
		if (!d)
			continue;
		bool found = false;
		for (struct dirent *e; !found && (e = readdir(d));) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(out, outlen, "%s/%s/System.Private.CoreLib.dll", dir, e->d_name);
			found = access(out, R_OK) == 0;
		}
		closedir(d);
		if (found)
			return true;
	}
	return false;
}

static void large_metadata(void)
{
	char corelib[8192], err[512];
	if (!find_corelib(corelib, sizeof corelib)) {
		SKIP_PART("System.Private.CoreLib's metadata: no System.Private.CoreLib.dll beside a dotnet on PATH");
		return;
	}
	uint8_t *image;
	size_t len;
	struct pe_debug d;
	struct metadata m;
	CHECK(symfile_read(corelib, SYMFILE_MAX, &image, &len, err, sizeof err) == 0);
	CHECK(pe_read(image, len, &d, err, sizeof err) == 0);
	CHECK(md_open(&m, d.metadata.p, d.metadata.len, err, sizeof err) == 0);
	CHECK(md_string_size(&m) == 4 && md_blob_size(&m) == 4); /* the wide forms */
	CHECK(m.rows[MD_METHODDEF] > 10000);
	/* names read through every row size before MethodDef */
	static const char *const names[] = {"GetTimestamp", "WriteLine", "PollGC", "op_Implicit"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		uint32_t token = md_find_method(&m, names[i]);
		CHECK(token >> 24 == MD_METHODDEF && (token & 0xFFFFFF) <= m.rows[MD_METHODDEF]);
	}
	CHECK(md_find_method(&m, "NoSuchMethodAnywhere") == 0);
	CHECK(d.has_codeview); /* it names a PDB that is not shipped */
	free(image);
	struct pdb_file f;
	CHECK(symfile_open(corelib, &f, err, sizeof err) == -1);
	CHECK(strstr(err, "no PDB for") != NULL);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_pdb APPS_BUILD_DIR APPS_SOURCE_DIR\n");
		return 2;
	}
	apps = argv[1];
	sources = argv[2];
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(beside_the_assembly);
	RUN(embedded_in_the_assembly);
	RUN(missing_and_mismatched);
	RUN(large_metadata);
	rmdir(scratch);
	return CHECK_DONE();
}
