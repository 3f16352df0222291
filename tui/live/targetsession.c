#include "live/targetsession.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/session.h"

static bool is_pid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

bool target_session_wanted(const char *target, const struct prof_process *p)
{
	struct stat st;
	if (!is_pid(target) || stat(target, &st) == 0)
		return true;
	return p->have_hello && p->pid == (uint32_t)strtoul(target, NULL, 10);
}

/* The newest session under root holding a live process dir for pid. */
static int find_by_pid(struct prof_recording *s, const char *pid, char *err, size_t errlen)
{
	char root[4096];
	if (cs_session_root(root, sizeof root, err, errlen) < 0)
		return -1;
	DIR *d = opendir(root);
	if (!d) {
		snprintf(err, errlen, "no sessions under %s", root);
		return -1;
	}
	char best[4096 + 512] = "";
	time_t best_time = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char probe[4096 + 512];
		struct stat st;
		snprintf(probe, sizeof probe, "%s/%s/%s", root, e->d_name, pid);
		if (stat(probe, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (!best[0] || st.st_mtime >= best_time) {
			best_time = st.st_mtime;
			snprintf(best, sizeof best, "%s/%s", root, e->d_name);
		}
	}
	closedir(d);
	if (!best[0]) {
		snprintf(err, errlen,
			 "no clrscope session for pid %s under %s (if it was recorded with -o DIR, give that DIR)", pid,
			 root);
		return -1;
	}
	if (prof_recording_open(s, best, err, errlen) < 0)
		return -1;
	prof_recording_update(s, false);
	return 0;
}

int target_session_open(struct prof_recording *s, const char *target, char *err, size_t errlen)
{
	struct stat st;
	if (is_pid(target) && stat(target, &st) != 0)
		return find_by_pid(s, target, err, errlen);
	if (prof_recording_open(s, target, err, errlen) < 0)
		return -1;
	prof_recording_update(s, false);
	return 0;
}
