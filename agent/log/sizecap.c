/* The session's size cap (see sizecap.h). */
#include "agent/log/sizecap.h"

#include <stdatomic.h>
#include <unistd.h>

#include "common/sessionlimits.h"

#define RESCAN_NS 1000000000ull

static struct {
	int fd;
	uint64_t max;
	uint64_t used;      /* at the last scan, plus our writes since */
	uint64_t scanned_ns;
	atomic_bool reached;
} cap = {.fd = -1};

void sizecap_start(int session_fd, uint64_t max)
{
	cap.fd = session_fd;
	cap.max = max;
	cap.scanned_ns = 0;
	cap.used = 0;
	atomic_store(&cap.reached, false);
}

void sizecap_stop(void)
{
	if (cap.fd >= 0)
		close(cap.fd);
	cap.fd = -1;
	cap.max = 0;
}

bool sizecap_fits(size_t len, size_t *room)
{
	*room = 0;
	if (!cap.max || cap.fd < 0)
		return true;
	if (atomic_load(&cap.reached))
		return false;
	uint64_t now = agent_mono_ns();
	if (now - cap.scanned_ns >= RESCAN_NS || cap.used + len > cap.max) {
		cap.scanned_ns = now;
		cap.used = cs_session_bytes(cap.fd); /* everyone's, ours included */
	}
	if (cap.used + len <= cap.max) {
		cap.used += len;
		return true;
	}
	*room = cap.used < cap.max ? (size_t)(cap.max - cap.used) : 0;
	return false;
}

void sizecap_refuse(void)
{
	if (!cap.max || cap.fd < 0 || atomic_exchange(&cap.reached, true))
		return;
	cs_session_close(cap.fd);
}

bool sizecap_reached(void)
{
	return atomic_load(&cap.reached);
}

uint64_t sizecap_max(void)
{
	return cap.max;
}
