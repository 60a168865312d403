/* realpaths.c - the real paths of traced files, a lookup per directory
 * (see realpaths.h). */
#include "deps/realpaths.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/xalloc.h"
#include "tree/tree.h"

/* The value of a path whose real path cannot be told. */
static char unresolved;

void real_paths_init(struct real_paths *rp)
{
	pthread_mutex_init(&rp->lock, NULL);
	rp->known = (struct hashmap)HASHMAP_INIT;
}

/* What the run found for path: a copy of its real path, NULL for one
 * that cannot be told; *found false when nothing was found yet. */
static char *known(struct real_paths *rp, const char *path, bool *found)
{
	pthread_mutex_lock(&rp->lock);
	const char *v = hashmap_get(&rp->known, path);
	pthread_mutex_unlock(&rp->lock);
	/* Entries live until real_paths_forget, which runs between runs,
	 * never beside a lookup. */
	*found = v != NULL;
	return v && v != &unresolved ? xstrdup(v) : NULL;
}

/* Keep real (or NULL: unresolved) as path's; returns real. */
static char *keep(struct real_paths *rp, const char *path, char *real)
{
	pthread_mutex_lock(&rp->lock);
	if (!hashmap_get(&rp->known, path))
		hashmap_put(&rp->known, path, real ? xstrdup(real) : &unresolved);
	pthread_mutex_unlock(&rp->lock);
	return real;
}

/* The real path of path, worked out: its directory's (looked up once
 * for all the files in it) and its own name, or where it links to. */
static char *resolve(struct real_paths *rp, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : "";
	if (path[0] != '/' || !*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return tree_real_path(path);
	char *dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	bool found;
	char *real = known(rp, dir, &found);
	if (!found)
		real = keep(rp, dir, tree_real_path(dir));
	free(dir);
	if (!real)
		return NULL;
	char *full = xasprintf("%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
	free(real);
	/* The file itself: a link is followed as realpath would; what is not
	 * there keeps its name under the real directory; what cannot be
	 * looked at (its directory is a file, no permission) is unknown, as
	 * realpath says. */
	struct stat st;
	if (lstat(full, &st) == 0) {
		if (!S_ISLNK(st.st_mode))
			return full;
		char *linked = tree_real_path(full);
		free(full);
		return linked;
	}
	if (errno == ENOENT)
		return full;
	free(full);
	return NULL;
}

char *real_paths_get(struct real_paths *rp, const char *path)
{
	return resolve(rp, path);
}

void real_paths_forget(struct real_paths *rp)
{
	pthread_mutex_lock(&rp->lock);
	size_t it = 0;
	void *v;
	while (hashmap_next(&rp->known, &it, NULL, &v))
		if (v != &unresolved)
			free(v);
	hashmap_release(&rp->known);
	pthread_mutex_unlock(&rp->lock);
}

void real_paths_release(struct real_paths *rp)
{
	real_paths_forget(rp);
	pthread_mutex_destroy(&rp->lock);
}
