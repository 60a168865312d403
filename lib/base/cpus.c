/* cpus.c - the CPUs this process may run on (cpus.h). */
#include "base/cpus.h"

#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first line of dir/name as a string (newline dropped): false when
 * it cannot be read. */
static bool read_line(const char *dir, const char *name, char *line, size_t size)
{
	char file[PATH_MAX];
	if (snprintf(file, sizeof file, "%s/%s", dir, name) >= (int)sizeof file)
		return false;
	FILE *f = fopen(file, "re");
	if (!f)
		return false;
	bool ok = fgets(line, (int)size, f) != NULL;
	fclose(f);
	if (ok)
		line[strcspn(line, "\n")] = '\0';
	return ok;
}

/* A quota of quota µs each period µs: the CPUs it amounts to, rounded
 * up (1.5 CPUs of time keep 2 busy half the time); 0 for none. */
static int quota_cpus(long long quota, long long period)
{
	if (quota <= 0 || period <= 0)
		return 0;
	long long n = (quota + period - 1) / period;
	return n > INT_MAX ? INT_MAX : (int)n;
}

/* The quota set in the cgroup directory dir: cgroup v2's cpu.max ("max
 * 100000" or "200000 100000"), else v1's cpu.cfs_quota_us (-1: none) and
 * cpu.cfs_period_us. 0 for none. */
static int dir_quota(const char *dir)
{
	char line[128], line2[128];
	long long quota, period;
	if (read_line(dir, "cpu.max", line, sizeof line))
		return sscanf(line, "%lld %lld", &quota, &period) == 2 ? quota_cpus(quota, period) : 0;
	if (!read_line(dir, "cpu.cfs_quota_us", line, sizeof line) ||
	    !read_line(dir, "cpu.cfs_period_us", line2, sizeof line2))
		return 0;
	return sscanf(line, "%lld", &quota) == 1 && sscanf(line2, "%lld", &period) == 1 ? quota_cpus(quota, period)
											  : 0;
}

/* The smallest quota from mount/path up to mount itself (a parent's
 * limit holds its children too). */
static int walk_up(const char *mount, const char *path)
{
	char dir[PATH_MAX];
	if (snprintf(dir, sizeof dir, "%s%s", mount, strcmp(path, "/") ? path : "") >= (int)sizeof dir)
		return 0;
	size_t floor = strlen(mount);
	int best = 0;
	for (;;) {
		int n = dir_quota(dir);
		if (n > 0 && (best == 0 || n < best))
			best = n;
		char *slash = strrchr(dir, '/');
		if (strlen(dir) <= floor || !slash || (size_t)(slash - dir) < floor)
			break;
		*slash = '\0';
	}
	return best;
}

int cpus_quota(const char *cgroup_root, const char *proc_cgroup)
{
	FILE *f = fopen(proc_cgroup, "re");
	if (!f)
		return 0;
	char line[PATH_MAX + 64], mount[PATH_MAX];
	int best = 0;
	while (fgets(line, sizeof line, f)) {
		/* "ID:CONTROLLERS:PATH": v2's line is "0::PATH", v1's names
		 * the cpu controller among others ("4:cpu,cpuacct:PATH"). */
		line[strcspn(line, "\n")] = '\0';
		char *controllers = strchr(line, ':');
		char *path = controllers ? strchr(controllers + 1, ':') : NULL;
		if (!path || path[1] != '/')
			continue;
		*path++ = '\0';
		controllers++;
		int n = 0;
		if (!*controllers) {
			n = walk_up(cgroup_root, path);
		} else {
			bool cpu = false;
			for (char *save = NULL, *c = strtok_r(controllers, ",", &save); c; c = strtok_r(NULL, ",", &save))
				cpu |= !strcmp(c, "cpu");
			if (!cpu)
				continue;
			/* Mounted as cpu,cpuacct (with cpu a link to it), or as cpu. */
			const char *names[] = { "cpu,cpuacct", "cpu" };
			for (size_t i = 0; i < 2 && !n; i++) {
				snprintf(mount, sizeof mount, "%s/%s", cgroup_root, names[i]);
				if (access(mount, F_OK) == 0)
					n = walk_up(mount, path);
			}
		}
		if (n > 0 && (best == 0 || n < best))
			best = n;
	}
	fclose(f);
	return best;
}

int cpus_usable(void)
{
	/* Online CPUs overstate a process pinned to a few (taskset, docker
	 * --cpuset-cpus): as many threads again would only take turns. */
	int n;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
		n = CPU_COUNT(&set);
	} else {
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		n = online > 0 ? (int)online : 1;
	}
	/* So does a quota of CPU time (docker --cpus, systemd's CPUQuota):
	 * threads past it are throttled, all of them, every period. */
	int quota = cpus_quota("/sys/fs/cgroup", "/proc/self/cgroup");
	return quota > 0 && quota < n ? quota : n;
}
