/* cli/outfile.h - a report file a command writes at its end (bench's and
 * verify's --html FILE), published by temp + rename: outfile_open()
 * creates a temporary dotfile beside FILE before the work (a FILE that
 * cannot be written fails at once, not after the run), outfile_commit()
 * renames it over FILE, so that a reader never sees half a page.
 *
 *     struct outfile h;
 *     if (outfile_open(&h, "--html", path, err) < 0) ...
 *     ... the work, then write to h.f ...
 *     if (outfile_commit(&h, err) < 0) ...    // or outfile_abort(&h)
 */
#ifndef CGISNAP_OUTFILE_H
#define CGISNAP_OUTFILE_H

#include <stdio.h>

struct outfile {
	char *option; /* "--html", for messages */
	char *path;   /* FILE as given */
	char *tmp;    /* the temporary file beside it, NULL once renamed or removed */
	FILE *f;
};

/* Create the temporary file for path. -1 with err naming option and
 * path: an empty name, a directory, something other than a regular
 * file, a directory that cannot be written. */
int outfile_open(struct outfile *h, const char *option, const char *path, char *err);
/* Close what was written to h->f and rename it over the path. -1 with
 * err (the temporary file is removed). Releases h either way. */
int outfile_commit(struct outfile *h, char *err);
/* Remove the temporary file and release h. Does nothing after commit or
 * on a zeroed h. */
void outfile_abort(struct outfile *h);

#endif
