/* bench/targets.h - the paths 'cgisnap bench' requests: given one by one
 * (--url), read from a file (--urls), or sampled from a snapshot tree's
 * manifest. */
#ifndef CGISNAP_BENCH_TARGETS_H
#define CGISNAP_BENCH_TARGETS_H

#include <stddef.h>

#include "base/buf.h"
#include "tree/manifest.h"

/* 0 when path can be sent as a request target: it starts with '/' and has
 * no spaces or control characters; else -1 with err. */
int targets_check(const char *path, char *err);

/* Append the paths of file, one per line; blank lines and lines starting
 * with '#' are skipped, surrounding spaces trimmed. -1 with err naming the
 * file and line of a path that targets_check refuses, or an unreadable
 * file. */
int targets_read_file(struct strlist *out, const char *file, char *err);

/* The default list: the manifest's status-200 text/html entries that have
 * a file, sorted by target; all of them when there are at most max, else
 * max of them spread evenly (entries i * n / max for i = 0 .. max-1), so
 * the same tree always gives the same list. *total is set to n. */
void targets_sample(struct strlist *out, const struct manifest *m, size_t max, size_t *total);

#endif
