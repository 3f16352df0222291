/* A helper thread that takes none of the process's signals: the terminal
 * UI handles its own on a signalfd, which sees only signals no thread
 * leaves unblocked. */
#ifndef CLRSCOPE_QUIETTHREAD_H
#define CLRSCOPE_QUIETTHREAD_H

#include <pthread.h>

/* pthread_create with every signal blocked in the new thread, named name
 * (for top -H); 0 or pthread_create's error. */
int quiet_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg, const char *name);

#endif
