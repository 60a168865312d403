/* choice.h - what the recorder (recorder.c) makes of each path a render
 * traced: whether it may be a dependency at all (under a root, or anywhere
 * but the skipped directories), and by which name (its real path when that
 * is under a root too: the tracer reports the path the program opened,
 * inotify the real one). Decided once a run for each path and kept in the
 * recorder's chosen map: the pages of a site name mostly the same files.
 * The map keeps the first DEP_CHOICES_MAX paths of a run; a path past them
 * is worked out each time it is met (its directory's real path is still
 * kept, realpaths.h), so that the map does not grow with the site's pages.
 * For recorder.c alone; dep_recorder_keeps (recorder.h) is its face
 * outside.
 */
#ifndef CGISNAP_DEPS_CHOICE_H
#define CGISNAP_DEPS_CHOICE_H

#include <stdbool.h>

#include "deps/recorder.h"

/* Paths whose choice a run keeps: some 110 bytes each. */
#define DEP_CHOICES_MAX 65536

/* Whether a traced path may be a dependency: under a root, or anywhere
 * but the skipped directories and those above a root. */
bool dep_recordable(const struct dep_recorder *r, const char *path);
/* in's recordable paths, each by the name chosen for it, added to out,
 * which ends sorted and without repeats. Thread-safe. */
void dep_choice_filter(struct dep_recorder *r, const struct strlist *in, struct strlist *out);
/* How many choices the run keeps now (tests). */
size_t dep_choices_kept(struct dep_recorder *r);
/* Forget the choices and the real paths found: the next run looks again.
 * Between runs only, never beside a render. */
void dep_choices_forget(struct dep_recorder *r);

#endif
