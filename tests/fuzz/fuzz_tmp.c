#include "fuzz_tmp.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[4096];

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			unlinkat(dirfd(d), e->d_name, 0); /* "." and ".." fail, harmlessly */
		closedir(d);
	}
	rmdir(dir);
}

const char *fuzz_tmp_dir(void)
{
	if (dir[0])
		return dir;
	const char *base = getenv("TMPDIR");
	if (!base || base[0] != '/')
		base = "/tmp";
	snprintf(dir, sizeof dir, "%s/clrscope-fuzz-XXXXXX", base);
	if (!mkdtemp(dir))
		abort();
	atexit(remove_dir);
	return dir;
}

void fuzz_write_file(const char *path, const void *data, size_t size)
{
	/* a new file each time: truncating one that has data makes ext4 write
	 * it out at close (auto_da_alloc), a wait on the disk per input */
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
}
