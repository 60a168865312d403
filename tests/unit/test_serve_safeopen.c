/* test_serve_safeopen.c - opening files beneath a root (serve/safeopen.c)
 * on a real directory with links pointing in and out. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../serve/safeopen.h"
#include "helpers.h"
#include "unit.h"

static char base[64];

/* A symbolic link base/name -> to: 0, or -1 with errno. */
static int link_in_base(const char *name, const char *to)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", base, name);
	return symlink(to, path);
}

/* base/root/{a/file,link_in,link_out,link_up,link_abs_in,dirlink,fifo}
 * and base/outside/secret. Returns the root's descriptor; -1 (the tree
 * could not be made) fails the running test. */
static int make_tree(void)
{
	char path[256], outside[256], inside[256];
	snprintf(base, sizeof base, "/tmp/cgisnap-safeopen.XXXXXX");
	if (!mkdtemp(base)) {
		unit_fail(__FILE__, __LINE__, "cannot make %s", base);
		return -1;
	}
	unit_make_dir(base, "root");
	unit_make_dir(base, "root/a");
	unit_make_dir(base, "outside");
	unit_put(base, "outside/secret", "secret");
	unit_put(base, "root/a/file", "inside");
	snprintf(outside, sizeof outside, "%s/outside/secret", base);
	snprintf(inside, sizeof inside, "%s/root/a/file", base);
	if (link_in_base("root/link_in", "a/file") < 0 || link_in_base("root/link_out", outside) < 0 ||
	    link_in_base("root/link_up", "../outside/secret") < 0 || link_in_base("root/link_abs_in", inside) < 0 ||
	    link_in_base("root/dirlink", "a") < 0 || link_in_base("root/a/uplink", "../../outside") < 0) {
		unit_fail(__FILE__, __LINE__, "cannot make the links in %s", base);
		return -1;
	}
	snprintf(path, sizeof path, "%s/root/fifo", base);
	mkfifo(path, 0644);
	snprintf(path, sizeof path, "%s/root", base);
	int root = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(root >= 0);
	return root;
}

static void remove_tree(int rootfd)
{
	char cmd[128];
	close(rootfd);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	if (system(cmd) != 0)
		unit_fail(__FILE__, __LINE__, "cannot remove %s", base);
}

/* The content of fd (closed), or "" */
static const char *slurp(int fd)
{
	static char buf[64];
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

static const char *const escapes[] = {
	"link_out", "link_up", "../outside/secret", "/etc/passwd", "a/../../outside/secret",
	"a/uplink/secret", "dirlink/../../outside/secret",
};

/* What both ways of opening do alike, then the tree goes: no escape
 * opens, a missing name is ENOENT, and a FIFO opens at once (O_NONBLOCK)
 * rather than hanging a worker. */
static void check_alike_and_remove(int root, int (*open_at)(int rootfd, const char *relpath), const char *missing)
{
	for (size_t i = 0; i < COUNT(escapes); i++) {
		int fd = open_at(root, escapes[i]);
		if (fd >= 0)
			unit_fail(__FILE__, __LINE__, "'%s' opened: '%s'", escapes[i], slurp(fd));
	}
	errno = 0;
	CHECK_INT(-1, open_at(root, missing));
	CHECK_INT(ENOENT, errno);
	int fd = open_at(root, "fifo");
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	remove_tree(root);
}

TEST(serve_safeopen_beneath)
{
	int root = make_tree();
	if (root < 0)
		return;
	CHECK_STR("inside", slurp(safeopen(root, "a/file")));
	/* Links that stay inside are followed (openat2 RESOLVE_BENEATH)... */
	CHECK_STR("inside", slurp(safeopen(root, "link_in")));
	CHECK_STR("inside", slurp(safeopen(root, "dirlink/file")));
	/* ...none that leave, whichever way they try. */
	check_alike_and_remove(root, safeopen, "missing");
}

TEST(serve_safeopen_walk_refuses_every_link)
{
	int root = make_tree();
	if (root < 0)
		return;
	CHECK_STR("inside", slurp(safeopen_walk(root, "a/file")));
	CHECK_INT(-1, safeopen_walk(root, "link_in"));
	CHECK_INT(-1, safeopen_walk(root, "link_abs_in"));
	CHECK_INT(-1, safeopen_walk(root, "dirlink/file"));
	errno = 0;
	CHECK_INT(-1, safeopen_walk(root, "a//file"));
	CHECK_INT(EINVAL, errno);
	CHECK_INT(-1, safeopen_walk(root, "./a/file"));
	CHECK_INT(-1, safeopen_walk(root, ""));
	check_alike_and_remove(root, safeopen_walk, "a/missing");
}
