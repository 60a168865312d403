/* cpus.h - how many CPUs this process may run on: the default of every
 * "one per core" (render jobs, workers, serve's threads, watch's walk). */
#ifndef CGISNAP_CPUS_H
#define CGISNAP_CPUS_H

/* The CPUs of this process's affinity mask (taskset, a container's
 * cpuset), else those online, and no more than its cgroup's quota of CPU
 * time allows (cpus_quota); at least 1. */
int cpus_usable(void);
/* The CPUs a quota of CPU time amounts to, rounded up: the smallest set
 * on the process's cgroup or one above it, in cgroup v2 (cpu.max) or v1
 * (cpu.cfs_quota_us, in the hierarchy mounted as cpu,cpuacct or cpu).
 * cgroup_root is where the hierarchies are mounted (/sys/fs/cgroup),
 * proc_cgroup a file as /proc/self/cgroup (tests give their own). 0 when
 * no quota is set or none can be read. */
int cpus_quota(const char *cgroup_root, const char *proc_cgroup);

#endif
