#include "util/gzip.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

int gzip_write(FILE *f, const void *data, size_t len, char *err, size_t errlen)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	/* 15 + 16: the largest window, with a gzip header and trailer */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		snprintf(err, errlen, "cannot start gzip compression (zlib %s)", zlibVersion());
		return -1;
	}
	unsigned char out[65536];
	const unsigned char *in = data;
	size_t left = len;
	int flush, rc = 0;
	do {
		/* zlib counts in uInt: feed at most 1 GiB at a time */
		uInt chunk = left > (1u << 30) ? 1u << 30 : (uInt)left;
		z.next_in = (unsigned char *)in;
		z.avail_in = chunk;
		in += chunk;
		left -= chunk;
		flush = left ? Z_NO_FLUSH : Z_FINISH;
		do {
			z.next_out = out;
			z.avail_out = sizeof out;
			if (deflate(&z, flush) == Z_STREAM_ERROR) {
				snprintf(err, errlen, "gzip compression failed");
				rc = -1;
				break;
			}
			size_t have = sizeof out - z.avail_out;
			if (have && fwrite(out, 1, have, f) != have) {
				snprintf(err, errlen, "cannot write: %s", strerror(errno));
				rc = -1;
				break;
			}
		} while (z.avail_out == 0);
	} while (rc == 0 && flush != Z_FINISH);
	deflateEnd(&z);
	return rc;
}
