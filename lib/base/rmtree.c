/* rmtree.c - removing a directory tree without following links; see rmtree.h. */
#include "base/rmtree.h"

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

void rmtree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
