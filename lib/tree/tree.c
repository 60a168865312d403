/* tree.c - a snapshot tree on disk: directory, lock and settings. */
#include "tree/tree.h"

#include "tree/manifest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/opts.h"
#include "tree/publish.h"
#include "base/xalloc.h"

#define SETTINGS_FILE "settings"
#define PROFILE_FILE "profile"

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
	t->db = NULL;
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

/* What the existing directory fd holds: 1 a cgisnap tree (a real
 * .cgisnap/ directory), 0 nothing at all, 2 something else. */
static int claim_state(int fd)
{
	struct stat st;
	if (fstatat(fd, TREE_META_DIR, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return S_ISDIR(st.st_mode) ? 1 : 2;
	int listfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = listfd >= 0 ? fdopendir(listfd) : NULL;
	if (!d) {
		if (listfd >= 0)
			close(listfd);
		return 2;
	}
	int state = 0;
	struct dirent *de;
	while (state == 0 && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			state = 2;
	closedir(d);
	return state;
}

int tree_claim(struct tree *t, const char *path, bool force, char *err)
{
	t->path = NULL;
	t->fd = t->meta_fd = t->lock_fd = -1;
	t->db = NULL;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		int state = claim_state(fd);
		close(fd);
		if (state == 2 && !force)
			return err_set(err, "'%s' is not empty and not a cgisnap tree (use --force to adopt it)", path);
	}
	/* Missing, empty, ours or adopted: tree_open creates what lacks (and
	 * reports a path that is not a directory). */
	return tree_open(t, path, true, err);
}

/* Append the components of rel to the absolute, link-free path *abs,
 * lexically: they do not exist yet, so ".." is the parent by name. */
static void append_lexically(char **abs, const char *rel)
{
	char *copy = xstrdup(rel), *save = NULL;
	for (char *part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		if (!strcmp(part, "."))
			continue;
		if (!strcmp(part, "..")) {
			char *slash = strrchr(*abs, '/');
			if (slash == *abs)
				slash[1] = '\0'; /* "/x/.." is "/" */
			else if (slash)
				*slash = '\0';
			continue;
		}
		char *next = xasprintf("%s%s%s", *abs, strcmp(*abs, "/") ? "/" : "", part);
		free(*abs);
		*abs = next;
	}
	free(copy);
}

char *tree_real_path(const char *path)
{
	char *head = xstrdup(path);
	size_t n = strlen(head);
	for (;;) {
		char *real = realpath(*head ? head : ".", NULL);
		if (real) {
			append_lexically(&real, path + n);
			free(head);
			return real;
		}
		if (errno != ENOENT || !*head || !strcmp(head, "/")) {
			free(head);
			return NULL;
		}
		/* Drop the last component (and the slashes before it). */
		while (n > 0 && head[n - 1] == '/')
			n--;
		while (n > 0 && head[n - 1] != '/')
			n--;
		while (n > 1 && head[n - 1] == '/')
			n--;
		head[n] = '\0';
		if (n == 0 && path[0] == '/') {
			strcpy(head, "/");
			n = 1;
		}
	}
}

static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0' || (n == 1 && dir[0] == '/'));
}

int tree_check_apart(const char *path, const char *root, char *err)
{
	return tree_check_apart_named(path, root, "the document root", err);
}

int tree_check_apart_named(const char *path, const char *root, const char *what, char *err)
{
	char *real = tree_real_path(path);
	char *real_root = realpath(root, NULL);
	int rc = 0;
	if (real && real_root) {
		if (path_within(real, real_root))
			rc = err_set(err, "the tree '%s' is inside %s '%s': cgisnap does not write into the site",
				     path, what, root);
		else if (path_within(real_root, real))
			rc = err_set(err, "%s '%s' is inside the tree '%s': cgisnap does not write into the site",
				     what, root, path);
	}
	free(real);
	free(real_root);
	return rc;
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
		if (saved == EWOULDBLOCK) {
			err_set(err, "tree '%s' is locked by another cgisnap (pid %s)", t->path,
				*pid ? pid : "unknown");
			return TREE_BUSY;
		}
		errno = saved;
		return err_sys(err, "cannot lock tree '%s'", t->path);
	}
	/* The lock file holds its writer's pid until the writer closes the
	 * tree (tree_close empties it): one still there was left by a writer
	 * that died, whose temp files may lie where no pending row leads. */
	char was[32];
	ssize_t had = pread(fd, was, sizeof was, 0);
	char pid[32];
	int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	/* On disk before any temp file of this writer can be: a power cut
	 * leaves the pid that sends the next writer looking for them. */
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)len, 0) != len ||
	    (publish_sync() && fdatasync(fd) < 0)) {
		close(fd);
		return err_sys(err, "cannot write '%s/%s/lock'", t->path, TREE_META_DIR);
	}
	t->lock_fd = fd;
	if (had > 0) {
		long n = publish_clean_all_temps(t->fd);
		if (n)
			log_debug("removed %ld temporary file%s a writer that died left", n, n == 1 ? "" : "s");
	}
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
	for (size_t i = 0; i < s->ncanonical; i++)
		buf_addf(&b, "canonical = %s\n", s->canonical[i].spec);
	int rc = write_file_atomic(t->meta_fd, SETTINGS_FILE, b.data, b.len, err);
	buf_release(&b);
	return rc;
}

int tree_save_profile(struct tree *t, const char *name, char *err)
{
	char *line = xasprintf("%s\n", name ? name : "none");
	int rc = write_file_atomic(t->meta_fd, PROFILE_FILE, line, strlen(line), err);
	free(line);
	return rc;
}

char *tree_load_profile(struct tree *t, char *err)
{
	*err = '\0';
	if (t->meta_fd < 0)
		return NULL;
	int fd = openat(t->meta_fd, PROFILE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			err_sys(err, "cannot read '%s/%s/%s'", t->path, TREE_META_DIR, PROFILE_FILE);
		return NULL;
	}
	char line[256];
	ssize_t n = read(fd, line, sizeof line - 1);
	close(fd);
	if (n < 0) {
		err_sys(err, "cannot read '%s/%s/%s'", t->path, TREE_META_DIR, PROFILE_FILE);
		return NULL;
	}
	line[n] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	return xstrdup(line);
}

int tree_load_settings(struct tree *t, struct site *s, char *err)
{
	if (t->meta_fd < 0 || faccessat(t->meta_fd, SETTINGS_FILE, F_OK, 0) < 0)
		return 0;
	char *site_url = NULL;
	struct strlist aliases = STRLIST_INIT, ignore = STRLIST_INIT, canonical = STRLIST_INIT;
	bool sort = false;
	const struct opt table[] = {
		{ "site-url", 0, OPT_STR, &site_url, NULL, NULL, 0, 0 },
		{ "alias", 0, OPT_LIST, &aliases, NULL, NULL, 0, 0 },
		{ "ignore-param", 0, OPT_LIST, &ignore, NULL, NULL, 0, 0 },
		{ "sort-query", 0, OPT_BOOL, &sort, NULL, NULL, 0, 0 },
		{ "canonical", 0, OPT_LIST, &canonical, NULL, NULL, 0, 0 },
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
	for (size_t i = 0; i < canonical.n && rc == 0; i++)
		rc = site_add_canonical(s, canonical.items[i], err);
out:
	opts_release(tables);
	return rc;
}

void tree_close(struct tree *t)
{
	/* A writer's last checkpoint, made here and not left to SQLite's
	 * close, which says nothing when it fails (a disk that fails its
	 * sync): nothing is lost, the log keeps the commits. */
	char err[ERR_LEN];
	if (t->lock_fd >= 0 && t->db && manifest_checkpoint(t, false, err) < 0)
		log_warn("%s: its log keeps every commit, and the next run completes it", err);
	manifest_db_close(t);
	if (t->lock_fd >= 0) {
		/* Emptied: this writer ended (tree_lock). */
		if (ftruncate(t->lock_fd, 0) < 0)
			log_debug("cannot empty '%s/%s/lock': %s", t->path, TREE_META_DIR, strerror(errno));
		close(t->lock_fd); /* releases the flock */
	}
	if (t->meta_fd >= 0)
		close(t->meta_fd);
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	t->path = NULL;
	t->fd = t->meta_fd = t->lock_fd = -1;
	t->db = NULL;
}
