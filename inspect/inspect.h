/* inspect.h - what 'cgisnap status' and 'cgisnap why' share: a tree opened
 * to be read (never locked, never written: a running watch keeps it), its
 * site settings and its manifest, read through manifest.h's API only, so
 * that these commands follow the metadata wherever its backend keeps it. */
#ifndef CGISNAP_INSPECT_H
#define CGISNAP_INSPECT_H

#include "tree/manifest.h"
#include "tree/tree.h"
#include "url/url.h"

struct inspected {
	struct tree tree;
	struct site site;        /* as recorded (settings), else http://localhost/ */
	struct manifest manifest;
	bool open;
};

/* Open the tree at dir for reading: -1 with err when it is missing or
 * not a cgisnap tree ("'x' is not a cgisnap tree (no .cgisnap/)"), or
 * its settings or manifest cannot be read. */
int inspect_open(struct inspected *in, const char *dir, char *err);
void inspect_close(struct inspected *in);

/* The dependency kinds' names, for 'R', 'E', 'L', 'C', 'U'. */
const char *inspect_kind_name(char kind);

/* "2026-12-02 03:14:06 UTC" into out. */
void inspect_time(long t, char *out, size_t len);

#endif
