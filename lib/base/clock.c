/* clock.c - the monotonic millisecond clock. */
#include "base/clock.h"

#include <time.h>

static long long ms_on(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long now_ms(void)
{
	return ms_on(CLOCK_MONOTONIC);
}

long long now_ms_coarse(void)
{
	return ms_on(CLOCK_MONOTONIC_COARSE);
}
