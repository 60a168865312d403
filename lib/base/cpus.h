/* cpus.h - how many CPUs this process may run on: the default of every
 * "one per core" (render jobs, workers, serve's threads, watch's walk). */
#ifndef CGISNAP_CPUS_H
#define CGISNAP_CPUS_H

/* The CPUs of this process's affinity mask (taskset, a container's
 * cpuset), else those online; at least 1. */
int cpus_usable(void);

#endif
