/* tracer.c - finding the dependency tracer library (see tracer.h). */
#include "trace/tracer.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/xalloc.h"

#ifndef CGISNAP_LIBDIR
#define CGISNAP_LIBDIR "/usr/local/lib/cgisnap"
#endif

/* A readable regular file. */
static bool usable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* The absolute form of a usable candidate (the CGI program runs in
 * another directory), or NULL with err when LD_PRELOAD cannot carry it. */
static char *absolute(const char *path, char *err)
{
	char *abs = realpath(path, NULL);
	if (!abs) {
		err_sys(err, "cannot resolve '%s'", path);
		return NULL;
	}
	if (strpbrk(abs, " :\t\n")) {
		err_set(err, "dependency tracer path '%s' holds a space or colon, which LD_PRELOAD cannot carry", abs);
		free(abs);
		return NULL;
	}
	return abs;
}

char *tracer_find(const char *env_value, const char *exe, const char *libdir, char *err)
{
	if (env_value && *env_value) {
		if (usable(env_value))
			return absolute(env_value, err);
		err_set(err, "dependency tracer '%s' (from %s) is not a readable file", env_value, TRACER_ENV);
		return NULL;
	}
	struct strlist tried = STRLIST_INIT;
	if (exe && *exe) {
		const char *slash = strrchr(exe, '/');
		char *dir = slash ? xstrndup(exe, (size_t)(slash - exe)) : xstrdup(".");
		strlist_add_owned(&tried, xasprintf("%s/build/%s", dir, TRACER_NAME));
		free(dir);
	}
	if (libdir && *libdir)
		strlist_add_owned(&tried, xasprintf("%s/%s", libdir, TRACER_NAME));
	for (size_t i = 0; i < tried.n; i++) {
		if (usable(tried.items[i])) {
			char *found = absolute(tried.items[i], err);
			strlist_clear(&tried);
			return found;
		}
	}
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < tried.n; i++)
		buf_addf(&b, "%s'%s'", i ? ", " : "", tried.items[i]);
	err_set(err, "dependency tracer %s not found (tried %s; set %s)", TRACER_NAME, buf_str(&b), TRACER_ENV);
	buf_release(&b);
	strlist_clear(&tried);
	return NULL;
}

char *tracer_locate(char *err)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	return tracer_find(getenv(TRACER_ENV), exe, CGISNAP_LIBDIR, err);
}
