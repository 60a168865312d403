/* realpaths.h - the real paths of the files a run's renders traced,
 * each directory's worked out once a run for all its files (the caller
 * keeps what it makes of each file: recorder.c does).
 *
 * A PHP page names a few thousand paths in a few hundred directories,
 * most of them the same for every page; realpath(3) reads every
 * component of each (a readlink per component), which cost more than
 * the render. What was found is kept for a run (real_paths_forget at its
 * end): a link under the site changed while a run renders is seen from
 * the next run on, as the renders themselves would see it half-way.
 * Thread-safe.
 *
 *     struct real_paths rp;
 *     real_paths_init(&rp);
 *     char *real = real_paths_get(&rp, "/srv/wiki/lib/tpl/x.php");
 *     ... free(real); real_paths_forget(&rp) after each run ...
 *     real_paths_release(&rp);
 */
#ifndef CGISNAP_DEPS_REALPATHS_H
#define CGISNAP_DEPS_REALPATHS_H

#include <pthread.h>

#include "base/hashmap.h"

struct real_paths {
	pthread_mutex_t lock;
	struct hashmap known; /* directory -> its tree_real_path (malloc'ed), or &unresolved */
};

void real_paths_init(struct real_paths *rp);
/* tree_real_path(path) (tree/tree.h): the real path of an absolute,
 * clean path (no "." or ".." segments), what does not exist appended to
 * the real path of what does; NULL when it cannot be told (a component
 * that is no directory, a loop, no permission). The caller frees it. */
char *real_paths_get(struct real_paths *rp, const char *path);
/* Forget what was found: the next lookups read the file system again. */
void real_paths_forget(struct real_paths *rp);
void real_paths_release(struct real_paths *rp);

#endif
