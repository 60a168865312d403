/* cli/outfile.c - report files published by temp + rename (outfile.h). */
#include "cli/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"

static void release(struct outfile *h)
{
	if (h->f)
		fclose(h->f);
	free(h->option);
	free(h->path);
	free(h->tmp);
	memset(h, 0, sizeof *h);
}

int outfile_open(struct outfile *h, const char *option, const char *path, char *err)
{
	memset(h, 0, sizeof *h);
	struct stat st;
	if (!*path)
		return err_set(err, "%s needs a file name", option);
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return err_set(err, "%s '%s' is %s, not a file", option, path,
			       S_ISDIR(st.st_mode) ? "a directory" : "something other than a regular file");
	const char *slash = strrchr(path, '/');
	h->option = xstrdup(option);
	h->path = xstrdup(path);
	h->tmp = slash ? xasprintf("%.*s/.%s.cgisnap-tmp-%ld", (int)(slash - path), path, slash + 1,
				   (long)getpid())
		       : xasprintf(".%s.cgisnap-tmp-%ld", path, (long)getpid());
	int fd = open(h->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0) {
		err_sys(err, "cannot write %s '%s' (its temporary file '%s')", option, path, h->tmp);
		free(h->tmp);
		h->tmp = NULL; /* not ours: never removed */
		release(h);
		return -1;
	}
	h->f = fdopen(fd, "w");
	if (!h->f) {
		close(fd);
		err_sys(err, "cannot write %s '%s'", option, path);
		outfile_abort(h);
		return -1;
	}
	return 0;
}

int outfile_commit(struct outfile *h, char *err)
{
	int rc;
	int bad = ferror(h->f);
	if (fclose(h->f) != 0 || bad) {
		if (bad)
			errno = EIO; /* what failed earlier left no errno behind */
		h->f = NULL;
		rc = err_sys(err, "cannot write %s '%s'", h->option, h->path);
		goto fail;
	}
	h->f = NULL;
	if (rename(h->tmp, h->path) < 0) {
		rc = err_sys(err, "cannot write %s '%s'", h->option, h->path);
		goto fail;
	}
	free(h->tmp);
	h->tmp = NULL;
	release(h);
	return 0;
fail:
	outfile_abort(h);
	return rc;
}

void outfile_abort(struct outfile *h)
{
	if (h->f) {
		fclose(h->f);
		h->f = NULL;
	}
	if (h->tmp)
		unlink(h->tmp);
	release(h);
}
