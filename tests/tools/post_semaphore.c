/* Test tool: posts a named semaphore, as clrscope does after writing dials,
 * so that tests can hand the agent a dials file of their own making. */
#include <stdio.h>

#include "common/namedevent.h"

int main(int argc, char **argv)
{
	char err[512];
	if (argc != 2) {
		fprintf(stderr, "usage: post_semaphore NAME\n");
		return 2;
	}
	if (cs_namedevent_post(argv[1], err, sizeof err) < 0) {
		fprintf(stderr, "post_semaphore: %s\n", err);
		return 1;
	}
	return 0;
}
