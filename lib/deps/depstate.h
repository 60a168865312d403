/* depstate.h - DIR/.cgisnap/depstate and DIR/.cgisnap/written: the tree's
 * word that its recorded dependencies are complete, so that watch can
 * start on it without a re-crawl.
 *
 * depstate holds three "name value" lines:
 *
 *   policy  DEPREC_POLICY of the build that recorded the dependencies
 *           (recorder.h): another policy means other dependencies
 *   origin  the SHA-256 of the origin settings the renders ran with
 *           (depstate_fingerprint): another root, handler or site URL
 *           may read other files
 *   since   SEC.NSEC (CLOCK_REALTIME): every change of a source file
 *           before this time is in the tree and its dependencies; a
 *           file whose ctime or mtime is later may not be
 *
 * It is written (temp + rename) by a traced snapshot once its crawl is
 * complete (since: the crawl's start), and by a traced watch each time
 * it has handled every change it read; removed at the start of a
 * snapshot and by a run that does not trace, so a run killed midway, or
 * one that recorded nothing, never leaves a claim behind.
 *
 * written lists, one a line, the paths the renders wrote (the site's
 * caches and indexes), as a snapshot or watch saving depstate left them,
 * that still existed then, each with how
 * they were left ("PATH<TAB>DEV INO SIZE MTIME CTIME BTIME", recorder.h): their
 * times are the renders' own, not changes of the sources, and watch
 * ignores them as it ignores its own renders' writes while they are so
 * (a line of an older cgisnap, the path alone, while they are there).
 */
#ifndef CGISNAP_DEPSTATE_H
#define CGISNAP_DEPSTATE_H

#include <stdbool.h>
#include <time.h>

#include "base/buf.h"
#include "origin/origin.h"
#include "tree/tree.h"

#define DEPSTATE_FILE "depstate"
#define DEPSTATE_WRITTEN_FILE "written"

struct depstate {
	int policy;
	char origin[65];       /* hex SHA-256 */
	struct timespec since;
};

/* The fingerprint of what decides which files a render reads: the
 * document root (real path), the handlers, index names, front
 * controller, mounts, environment, PHP defaults, symbolic link policy,
 * static extensions, and the site URL. Not --cgi-mode: workers and fork
 * mode record the same dependencies. */
void depstate_fingerprint(const struct origin_config *cfg, const char *site_url, char out[65]);

/* Read the tree's depstate: 1 when found and well-formed into ds, 0
 * when missing (or malformed: then it claims nothing), -1 with err when
 * it cannot be read. */
int depstate_load(struct tree *t, struct depstate *ds, char *err);
int depstate_save(struct tree *t, const struct depstate *ds, char *err);
/* Remove depstate (not written: a later depstate_save replaces it). */
int depstate_clear(struct tree *t, char *err);

/* The written list: replace it by paths / append its paths to out (a
 * missing file adds nothing). */
int depstate_save_written(struct tree *t, const struct strlist *paths, char *err);
int depstate_load_written(struct tree *t, struct strlist *out, char *err);

#endif
