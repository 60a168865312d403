/* publish_impl.h - what publish.c shares with publishtemp.c, and no
 * other file: the temp files' name and the walk to a key's directory. */
#ifndef CGISNAP_TREE_PUBLISH_IMPL_H
#define CGISNAP_TREE_PUBLISH_IMPL_H

#include <stdbool.h>

/* Every temp file's name starts so (then PID-N). */
#define TEMP_PREFIX ".cgisnap-tmp-"

/* The directory that holds key's file, opened under treefd without
 * following a symbolic link (made when create), as publish.c describes
 * it: a descriptor the caller closes, *leaf pointing into key; -1 with
 * err. */
int publish_open_parent(int treefd, const char *key, bool create, const char **leaf, char *err);

#endif
