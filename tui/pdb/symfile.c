#include "pdb/symfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

int symfile_read(const char *path, size_t max, uint8_t **data, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		snprintf(err, errlen, "%s: %s", path, S_ISREG(st.st_mode) ? "too large" : "not a regular file");
		close(fd);
		return -1;
	}
	size_t n = (size_t)st.st_size, got = 0;
	*data = malloc(n ? n : 1);
	if (!*data) {
		snprintf(err, errlen, "%s: out of memory", path);
		close(fd);
		return -1;
	}
	while (got < n) {
		ssize_t r = read(fd, *data + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "%s: %s", path, r < 0 ? strerror(errno) : "shrank while read");
			free(*data);
			*data = NULL;
			close(fd);
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	*len = n;
	return 0;
}

/* The PDB the debug directory names, beside the assembly (the compiler's
 * path is where it was built, not where it runs). */
static void beside(const char *assembly, const char *pdb_path, char *out, size_t outlen)
{
	const char *base = strrchr(pdb_path, '/'), *back = strrchr(pdb_path, '\\');
	if (back && (!base || back > base))
		base = back;
	base = base ? base + 1 : pdb_path;
	const char *slash = strrchr(assembly, '/');
	int dir = slash ? (int)(slash - assembly + 1) : 0;
	snprintf(out, outlen, "%.*s%s", dir, assembly, base);
}

int symfile_open(const char *assembly, struct pdb_file *out, char *err, size_t errlen)
{
	uint8_t *image, *pdb;
	size_t image_len, pdb_len;
	char why[512];
	if (symfile_read(assembly, SYMFILE_MAX, &image, &image_len, err, errlen) < 0)
		return -1;
	struct pe_debug d;
	if (pe_read(image, image_len, &d, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s: %s", assembly, why);
		free(image);
		return -1;
	}
	if (d.embedded.len) {
		int rc = pe_embedded_pdb(&d, &pdb, &pdb_len, why, sizeof why);
		if (rc == 0)
			rc = pdb_open_bytes(out, pdb, pdb_len, why, sizeof why);
		free(image);
		if (rc == 0 && d.has_codeview && memcmp(out->id, d.pdb_id, PDB_ID_SIZE) != 0) {
			snprintf(why, sizeof why, "its id differs from the one the assembly names");
			pdb_close(out);
			rc = -1;
		}
		if (rc < 0)
			snprintf(err, errlen, "%s: embedded PDB: %s", assembly, why);
		return rc;
	}
	free(image);
	if (!d.has_codeview) {
		snprintf(err, errlen, "%s names no portable PDB (built without symbols, or with Windows PDBs)", assembly);
		return -1;
	}
	char path[4096];
	beside(assembly, d.pdb_path, path, sizeof path);
	if (symfile_read(path, SYMFILE_MAX, &pdb, &pdb_len, why, sizeof why) < 0) {
		snprintf(err, errlen, "no PDB for %s: %s", assembly, why);
		return -1;
	}
	if (pdb_open_bytes(out, pdb, pdb_len, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	if (memcmp(out->id, d.pdb_id, PDB_ID_SIZE) != 0) {
		snprintf(err, errlen, "%s belongs to another build of %s (their ids differ)", path, assembly);
		pdb_close(out);
		return -1;
	}
	return 0;
}
