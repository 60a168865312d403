/* cpus.c - the CPUs this process may run on (cpus.h). */
#include "base/cpus.h"

#include <sched.h>
#include <unistd.h>

int cpus_usable(void)
{
	/* Online CPUs overstate a process pinned to a few (taskset, docker
	 * --cpuset-cpus): as many threads again would only take turns. */
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	return online > 0 ? (int)online : 1;
}
