/* test_cpus.c - the CPUs a quota of CPU time leaves: cgroup v2's
 * cpu.max and v1's cpu.cfs_quota_us, on the process's cgroup or one
 * above it, the smallest winning; nothing set, nothing read. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/xalloc.h"
#include "helpers.h"
#include "unit.h"

/* root/sub, made with its parents. */
static void make_dirs(const char *root, const char *sub)
{
	char *path = xasprintf("%s/%s", root, sub);
	for (char *p = path + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	mkdir(path, 0755);
	free(path);
}

static int quota_of(const char *root, const char *proc_cgroup)
{
	unit_put(root, "self-cgroup", proc_cgroup);
	char *file = xasprintf("%s/self-cgroup", root);
	int n = cpus_quota(root, file);
	free(file);
	return n;
}

TEST(cpus_quota_of_the_cgroup_or_one_above)
{
	char *root = unit_temp_dir("cpus");
	CHECK(root != NULL);
	if (!root)
		return;
	/* v2: no limit on the process's own cgroup, 1.5 CPUs on its parent:
	 * 2, rounded up; the process's own cgroup path as the kernel says. */
	make_dirs(root, "svc.slice/app.service");
	unit_put(root, "svc.slice/app.service/cpu.max", "max 100000\n");
	CHECK_INT(0, quota_of(root, "0::/svc.slice/app.service\n"));
	unit_put(root, "svc.slice/cpu.max", "150000 100000\n");
	CHECK_INT(2, quota_of(root, "0::/svc.slice/app.service\n"));
	/* ... and a smaller one below it wins */
	unit_put(root, "svc.slice/app.service/cpu.max", "50000 100000\n");
	CHECK_INT(1, quota_of(root, "0::/svc.slice/app.service\n"));
	/* a container's namespace: its own cgroup is the root */
	unit_put(root, "cpu.max", "400000 100000\n");
	CHECK_INT(4, quota_of(root, "0::/\n"));
	/* a cgroup path not mounted here (no cgroup namespace): the mount's */
	CHECK_INT(4, quota_of(root, "0::/docker/abc\n"));

	/* v1, the cpu controller mounted with cpuacct; other controllers'
	 * lines are not its. */
	char *v1 = xasprintf("%s/v1", root);
	make_dirs(v1, "cpu,cpuacct/job");
	unit_put(v1, "cpu,cpuacct/job/cpu.cfs_quota_us", "-1\n");
	unit_put(v1, "cpu,cpuacct/job/cpu.cfs_period_us", "100000\n");
	CHECK_INT(0, quota_of(v1, "5:memory:/job\n4:cpu,cpuacct:/job\n"));
	unit_put(v1, "cpu,cpuacct/cpu.cfs_quota_us", "300000\n");
	unit_put(v1, "cpu,cpuacct/cpu.cfs_period_us", "100000\n");
	CHECK_INT(3, quota_of(v1, "5:memory:/job\n4:cpu,cpuacct:/job\n"));
	CHECK_INT(0, quota_of(v1, "5:memory:/job\n"));
	/* v1 and v2 lines both (a hybrid): the smaller */
	unit_put(v1, "cpu.max", "200000 100000\n");
	CHECK_INT(2, quota_of(v1, "4:cpu,cpuacct:/job\n0::/\n"));

	/* Nothing to read: no quota. */
	char *none = xasprintf("%s/none", root);
	CHECK_INT(0, cpus_quota(root, none));
	unit_put(root, "cpu.max", "garbage\n");
	CHECK_INT(0, quota_of(root, "0::/\n"));
	free(none);
	free(v1);
	unit_drop_dir(root);
}

/* The process's own count: never below one, never above the CPUs online. */
TEST(cpus_usable_counts_at_least_one)
{
	int n = cpus_usable();
	CHECK(n >= 1);
	CHECK(n <= sysconf(_SC_NPROCESSORS_ONLN));
}
