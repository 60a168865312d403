/* inspect.c - a tree opened for reading (inspect.h). */
#include "inspect.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/log.h"

int inspect_open(struct inspected *in, const char *dir, char *err)
{
	memset(in, 0, sizeof *in);
	if (tree_open(&in->tree, dir, false, err) < 0)
		return -1;
	in->open = true;
	if (in->tree.meta_fd < 0)
		return err_set(err, "'%s' is not a cgisnap tree (no %s/)", dir, TREE_META_DIR);
	if (site_init(&in->site, "http://localhost/", err) < 0 || tree_load_settings(&in->tree, &in->site, err) < 0 ||
	    manifest_load(&in->manifest, &in->tree, err) < 0)
		return -1;
	return 0;
}

void inspect_close(struct inspected *in)
{
	manifest_release(&in->manifest);
	site_release(&in->site);
	if (in->open)
		tree_close(&in->tree);
	memset(in, 0, sizeof *in);
}

const char *inspect_kind_name(char kind)
{
	switch (kind) {
	case 'R':
		return "read";
	case 'E':
		return "checked for existence";
	case 'L':
		return "directory listed";
	case 'C':
		return "directory's files all read";
	case 'U':
		return "untraced program (any change may matter)";
	case 'A':
		return "looked for, absent (its creation matters)";
	case 'W':
		return "written by its render (another program's write matters)";
	default:
		return "?";
	}
}

void inspect_time(long t, char *out, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(out, len, "%ld", t);
}
