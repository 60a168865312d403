/* exec.h - the --exec hook: a shell command run after each batch that
 * changed files (rsync to edge servers, a CDN purge). */
#ifndef CGISNAP_WATCH_EXEC_H
#define CGISNAP_WATCH_EXEC_H

#include "buf.h"

/* Run cmd with /bin/sh -c in the directory dir, its stdin the lines of
 * keys (the tree-relative files written or removed), and wait for it.
 * Returns its exit status (0..255), or -1 with err when it could not be
 * run or was killed by a signal ("'cmd' was killed by signal 9"). */
int watch_exec(const char *cmd, const char *dir, const struct strlist *keys, char *err);

#endif
