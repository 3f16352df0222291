/* record --rotate: one pprof profile per interval, written beside the
 * session as SESSION.NNNNNN.pb.gz while recording, for collectors that
 * pick files up. */
#ifndef CLRSCOPE_ROTATE_H
#define CLRSCOPE_ROTATE_H

#include <limits.h>
#include <stdbool.h>

#include "profile/profile.h"

struct rotator {
	double seconds; /* 0: off */
	double next;    /* when the next file is due (clock_now_s) */
	char session[PATH_MAX];
	unsigned seq;   /* files written */
	struct prof_recording s;
	bool open;
};

/* Starts the intervals now; seconds 0 turns rotation off. */
void rotator_init(struct rotator *r, const char *session, double seconds);
/* wait_s, or less when the next file is due sooner. */
double rotator_wait_s(const struct rotator *r, double wait_s);
/* Writes the interval's profile when it is due. */
void rotator_poll(struct rotator *r);
/* After the recording: what is left after the last file, then frees. */
void rotator_finish(struct rotator *r);

#endif
