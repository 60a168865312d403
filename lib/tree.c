/* tree.c - a snapshot tree on disk: directory, lock and settings. */
#include "tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "opts.h"
#include "publish.h"
#include "xalloc.h"

#define SETTINGS_FILE "settings"

/* mkdir -p for the tree's own path. */
static int make_dirs(const char *path, char *err)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1; ; s++) {
		if (*s == '/' || !*s) {
			char saved = *s;
			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				rc = err_sys(err, "cannot create tree '%s'", p);
				break;
			}
			*s = saved;
			if (!saved)
				break;
		}
	}
	free(p);
	return rc;
}

int tree_open(struct tree *t, const char *path, bool create, char *err)
{
	t->path = xstrdup(path);
	t->fd = t->meta_fd = t->lock_fd = -1;
	if (create && make_dirs(path, err) < 0)
		goto fail;
	t->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->fd < 0) {
		err_sys(err, "cannot open tree '%s'", path);
		goto fail;
	}
	if (create && mkdirat(t->fd, TREE_META_DIR, 0755) < 0 && errno != EEXIST) {
		err_sys(err, "cannot create '%s/%s'", path, TREE_META_DIR);
		goto fail;
	}
	t->meta_fd = openat(t->fd, TREE_META_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->meta_fd < 0 && (create || errno != ENOENT)) {
		err_sys(err, "cannot open '%s/%s'", path, TREE_META_DIR);
		goto fail;
	}
	return 0;
fail:
	tree_close(t);
	return -1;
}

int tree_lock(struct tree *t, char *err)
{
	if (t->meta_fd < 0)
		return err_set(err, "tree '%s' has no %s directory", t->path, TREE_META_DIR);
	int fd = openat(t->meta_fd, "lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return err_sys(err, "cannot open '%s/%s/lock'", t->path, TREE_META_DIR);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int saved = errno;
		char pid[32] = "";
		ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		close(fd);
		if (saved == EWOULDBLOCK)
			return err_set(err, "tree '%s' is locked by another cgisnap (pid %s)", t->path,
				       *pid ? pid : "unknown");
		errno = saved;
		return err_sys(err, "cannot lock tree '%s'", t->path);
	}
	char pid[32];
	int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
		close(fd);
		return err_sys(err, "cannot write '%s/%s/lock'", t->path, TREE_META_DIR);
	}
	t->lock_fd = fd;
	return 0;
}

int tree_save_settings(struct tree *t, const struct site *s, char *err)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "# written by cgisnap snapshot: how this tree's URLs are canonicalised\n");
	buf_addf(&b, "site-url = %s\n", s->url);
	for (size_t i = 0; i < s->aliases.n; i++)
		buf_addf(&b, "alias = %s\n", s->aliases.items[i]);
	for (size_t i = 0; i < s->ignore_params.n; i++)
		buf_addf(&b, "ignore-param = %s\n", s->ignore_params.items[i]);
	buf_addf(&b, "sort-query = %s\n", s->sort_query ? "yes" : "no");
	int rc = write_file_atomic(t->meta_fd, SETTINGS_FILE, b.data, b.len, err);
	buf_release(&b);
	return rc;
}

int tree_load_settings(struct tree *t, struct site *s, char *err)
{
	if (t->meta_fd < 0 || faccessat(t->meta_fd, SETTINGS_FILE, F_OK, 0) < 0)
		return 0;
	char *site_url = NULL;
	struct strlist aliases = STRLIST_INIT, ignore = STRLIST_INIT;
	bool sort = false;
	const struct opt table[] = {
		{ "site-url", 0, OPT_STR, &site_url, NULL, NULL, 0, 0 },
		{ "alias", 0, OPT_LIST, &aliases, NULL, NULL, 0, 0 },
		{ "ignore-param", 0, OPT_LIST, &ignore, NULL, NULL, 0, 0 },
		{ "sort-query", 0, OPT_BOOL, &sort, NULL, NULL, 0, 0 },
		OPT_END
	};
	const struct opt *const tables[] = { table, NULL };
	char *path = xasprintf("%s/%s/%s", t->path, TREE_META_DIR, SETTINGS_FILE);
	int rc = opts_load_file(tables, path, err);
	free(path);
	if (rc < 0)
		goto out;
	if (site_url) {
		site_release(s);
		if (site_init(s, site_url, err) < 0) {
			rc = -1;
			goto out;
		}
	}
	for (size_t i = 0; i < aliases.n && rc == 0; i++)
		rc = site_add_alias(s, aliases.items[i], err);
	for (size_t i = 0; i < ignore.n; i++)
		strlist_add(&s->ignore_params, ignore.items[i]);
	s->sort_query = sort;
out:
	opts_release(tables);
	return rc;
}

void tree_close(struct tree *t)
{
	if (t->lock_fd >= 0)
		close(t->lock_fd); /* releases the flock */
	if (t->meta_fd >= 0)
		close(t->meta_fd);
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	t->path = NULL;
	t->fd = t->meta_fd = t->lock_fd = -1;
}
