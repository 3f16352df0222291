/* Watching a session directory with libinotifytools.  libinotifytools keeps
 * its inotify descriptor to itself and waits in seconds, so it gets a thread
 * of its own (the only one calling it) that turns events into bytes on a
 * pipe; the main loop polls the pipe. */
#ifndef CLRSCOPE_WATCH_H
#define CLRSCOPE_WATCH_H

/* Starts watching dir (and the directories created in it); returns the
 * pipe's read end, or -1 with err. */
int watch_start(const char *dir, char *err, size_t errlen);
/* Drains the pipe; returns how many notifications were waiting. */
int watch_drain(int fd);
void watch_stop(void);

#endif
