/* depstate.c - the tree's record that its dependencies are complete (see
 * depstate.h). */
#include "deps/depstate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deps/recorder.h"
#include "base/log.h"
#include "tree/publish.h"
#include "base/sha256.h"
#include "base/xalloc.h"

/* Each field as "name=value\n", lists item by item, so that no two
 * configurations give the same text. */
static void add_field(struct buf *b, const char *name, const char *value)
{
	buf_addf(b, "%s=%zu:%s\n", name, value ? strlen(value) : 0, value ? value : "");
}

static void add_list(struct buf *b, const char *name, const struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		add_field(b, name, l->items[i]);
}

void depstate_fingerprint(const struct origin_config *cfg, const char *site_url, char out[65])
{
	struct buf b = BUF_INIT;
	char *root = cfg->root ? realpath(cfg->root, NULL) : NULL;
	add_field(&b, "root", root ? root : cfg->root);
	free(root);
	add_list(&b, "cgi", &cfg->cgi);
	add_list(&b, "static-ext", &cfg->static_exts);
	add_field(&b, "index", cfg->index);
	add_field(&b, "front-controller", cfg->front_controller);
	add_list(&b, "env", &cfg->env);
	add_field(&b, "no-php-defaults", cfg->no_php_defaults ? "1" : "0");
	add_list(&b, "script-alias", &cfg->script_aliases);
	add_list(&b, "path-alias", &cfg->path_aliases);
	add_field(&b, "no-follow-symlinks", cfg->no_follow_symlinks ? "1" : "0");
	if (cfg->fastcgi.n)
		add_list(&b, "fastcgi", &cfg->fastcgi);
	else
		add_field(&b, "fastcgi", NULL); /* as when it was one address */
	add_field(&b, "origin", cfg->origin_url);
	add_field(&b, "site-url", site_url);
	sha256_hex(b.data ? b.data : "", b.len, out);
	buf_release(&b);
}

/* The whole of a metadata file into b: 1 read, 0 missing, -1 with err. */
static int read_meta(struct tree *t, const char *name, struct buf *b, char *err)
{
	int fd = openat(t->meta_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return err_sys(err, "cannot open '%s/%s/%s'", t->path, TREE_META_DIR, name);
	char chunk[8192];
	ssize_t n;
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		buf_add(b, chunk, (size_t)n);
	int saved = errno;
	close(fd);
	if (n < 0) {
		errno = saved;
		return err_sys(err, "cannot read '%s/%s/%s'", t->path, TREE_META_DIR, name);
	}
	return 1;
}

int depstate_load(struct tree *t, struct depstate *ds, char *err)
{
	struct buf b = BUF_INIT;
	int rc = read_meta(t, DEPSTATE_FILE, &b, err);
	if (rc <= 0)
		goto out;
	memset(ds, 0, sizeof *ds);
	bool policy = false, origin = false, since = false;
	char *text = xstrndup(b.data ? b.data : "", b.len), *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		long long sec;
		long nsec;
		char hex[65];
		if (sscanf(line, "policy %d", &ds->policy) == 1)
			policy = true;
		else if (sscanf(line, "origin %64[0-9a-f]", hex) == 1 && strlen(hex) == 64)
			memcpy(ds->origin, hex, 65), origin = true;
		else if (sscanf(line, "since %lld.%ld", &sec, &nsec) == 2 && nsec >= 0 && nsec < 1000000000L)
			ds->since.tv_sec = (time_t)sec, ds->since.tv_nsec = nsec, since = true;
	}
	free(text);
	/* A torn or foreign file claims nothing: watch re-crawls. */
	rc = policy && origin && since ? 1 : 0;
out:
	buf_release(&b);
	return rc;
}

int depstate_save(struct tree *t, const struct depstate *ds, char *err)
{
	char text[256];
	int n = snprintf(text, sizeof text, "policy %d\norigin %s\nsince %lld.%09ld\n", ds->policy, ds->origin,
			 (long long)ds->since.tv_sec, (long)ds->since.tv_nsec);
	return write_file_atomic(t->meta_fd, DEPSTATE_FILE, text, (size_t)n, err);
}

int depstate_clear(struct tree *t, char *err)
{
	if (unlinkat(t->meta_fd, DEPSTATE_FILE, 0) < 0 && errno != ENOENT)
		return err_sys(err, "cannot remove '%s/%s/%s'", t->path, TREE_META_DIR, DEPSTATE_FILE);
	return 0;
}

int depstate_save_written(struct tree *t, const struct strlist *paths, char *err)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < paths->n; i++)
		if (!strchr(paths->items[i], '\n'))
			buf_addf(&b, "%s\n", paths->items[i]);
	int rc = write_file_atomic(t->meta_fd, DEPSTATE_WRITTEN_FILE, b.data ? b.data : "", b.len, err);
	buf_release(&b);
	return rc;
}

int depstate_load_written(struct tree *t, struct strlist *out, char *err)
{
	struct buf b = BUF_INIT;
	int rc = read_meta(t, DEPSTATE_WRITTEN_FILE, &b, err);
	if (rc > 0) {
		char *text = xstrndup(b.data ? b.data : "", b.len), *save = NULL;
		for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (line[0] == '/')
				strlist_add(out, line);
		free(text);
	}
	buf_release(&b);
	return rc < 0 ? -1 : 0;
}
