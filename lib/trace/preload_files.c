/* preload_files.c - the tracer's hooks on paths (preload.h): what the
 * program opens, stats, checks, lists and changes, each reported after
 * the real call as one line of trace/protocol.h's. Most hooks are one
 * shape, written once as HOOK; those that report otherwise (two paths, a
 * descriptor, a glob's directory, a template) are written out.
 */
#include "trace/preload.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>

#include "trace/protocol.h"

/* A hook of the common shape: the real function (lookup: REAL_SYS or
 * REAL) when it was found, else fallback; then path (relative to dirfd)
 * reported as kind, errno as the call left it. CALL_REPORT is the body,
 * for hooks that read an argument first (open's mode). */
#define CALL_REPORT(lookup, type, name, args, fallback, kind, dirfd, path) \
	lookup(name);                                                        \
	type rc_ = real_##name ? real_##name args : (fallback);             \
	report(kind, dirfd, path);                                           \
	return rc_

#define HOOK(lookup, type, name, params, args, fallback, kind, dirfd, path)  \
	EXPORT type name params                                              \
	{                                                                    \
		CALL_REPORT(lookup, type, name, args, fallback, kind, dirfd, path); \
	}

/* What an open with these flags means for the program's output. */
static char open_kind(int flags)
{
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)))
		return TRACE_WRITTEN;
#ifdef O_TMPFILE
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return TRACE_WRITTEN;
#endif
	return TRACE_READ;
}

/* fopen modes: "w", "a" and any "+" write. */
static char fopen_kind(const char *mode)
{
	if (!mode)
		return TRACE_READ;
	for (; *mode; mode++)
		if (*mode == 'w' || *mode == 'a' || *mode == '+')
			return TRACE_WRITTEN;
	return TRACE_READ;
}

/* Whether open's third argument is there to read. */
static int needs_mode(int flags)
{
#ifdef O_TMPFILE
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return 1;
#endif
	return (flags & O_CREAT) != 0;
}

/* ---- open ---- */

/* open while dlsym is still finding open: straight to the kernel. */
static int raw_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

/* open's optional third argument into mode, read only when flags say it
 * is there (the hooks are variadic, as the real ones). */
#define OPEN_MODE(mode, flags)                             \
	do {                                               \
		if (needs_mode(flags)) {                   \
			va_list ap;                        \
			va_start(ap, flags);               \
			mode = va_arg(ap, mode_t);         \
			va_end(ap);                        \
		}                                          \
	} while (0)

EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(mode, flags);
	CALL_REPORT(REAL_SYS, int, open, (path, flags, mode), raw_openat(AT_FDCWD, path, flags, mode),
		    open_kind(flags), AT_FDCWD, path);
}

EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(mode, flags);
	CALL_REPORT(REAL_SYS, int, open64, (path, flags, mode),
		    raw_openat(AT_FDCWD, path, flags | O_LARGEFILE, mode), open_kind(flags), AT_FDCWD, path);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(mode, flags);
	CALL_REPORT(REAL_SYS, int, openat, (dirfd, path, flags, mode), raw_openat(dirfd, path, flags, mode),
		    open_kind(flags), dirfd, path);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(mode, flags);
	CALL_REPORT(REAL_SYS, int, openat64, (dirfd, path, flags, mode),
		    raw_openat(dirfd, path, flags | O_LARGEFILE, mode), open_kind(flags), dirfd, path);
}

/* Fortified open (_FORTIFY_SOURCE callers): no mode. */
HOOK(REAL_SYS, int, __open_2, (const char *path, int flags), (path, flags),
     raw_openat(AT_FDCWD, path, flags, 0), open_kind(flags), AT_FDCWD, path)
HOOK(REAL_SYS, int, __open64_2, (const char *path, int flags), (path, flags),
     raw_openat(AT_FDCWD, path, flags | O_LARGEFILE, 0), open_kind(flags), AT_FDCWD, path)
HOOK(REAL_SYS, int, __openat_2, (int dirfd, const char *path, int flags), (dirfd, path, flags),
     raw_openat(dirfd, path, flags, 0), open_kind(flags), dirfd, path)
HOOK(REAL_SYS, int, __openat64_2, (int dirfd, const char *path, int flags), (dirfd, path, flags),
     raw_openat(dirfd, path, flags | O_LARGEFILE, 0), open_kind(flags), dirfd, path)

HOOK(REAL_SYS, int, creat, (const char *path, mode_t mode), (path, mode),
     raw_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode), TRACE_WRITTEN, AT_FDCWD, path)
HOOK(REAL_SYS, int, creat64, (const char *path, mode_t mode), (path, mode),
     raw_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC | O_LARGEFILE, mode), TRACE_WRITTEN,
     AT_FDCWD, path)

HOOK(REAL, FILE *, fopen, (const char *path, const char *mode), (path, mode), MISSING(NULL),
     fopen_kind(mode), AT_FDCWD, path)
HOOK(REAL, FILE *, fopen64, (const char *path, const char *mode), (path, mode), MISSING(NULL),
     fopen_kind(mode), AT_FDCWD, path)
HOOK(REAL, FILE *, freopen, (const char *path, const char *mode, FILE *stream), (path, mode, stream),
     MISSING(NULL), fopen_kind(mode), AT_FDCWD, path)
HOOK(REAL, FILE *, freopen64, (const char *path, const char *mode, FILE *stream), (path, mode, stream),
     MISSING(NULL), fopen_kind(mode), AT_FDCWD, path)

/* ---- stat and access ---- */

/* stat through the kernel. Only where the kernel's struct stat is the C
 * library's (64-bit Linux); elsewhere ENOSYS. */
static int raw_stat(int dirfd, const char *path, void *st, int flags)
{
#if defined(SYS_newfstatat) && __SIZEOF_LONG__ == 8
	return (int)RAW(SYS_newfstatat, dirfd, path, st, flags);
#else
	(void)dirfd, (void)path, (void)st, (void)flags;
	return MISSING(-1);
#endif
}

/* access through the kernel: faccessat takes no flags, faccessat2 does. */
static int raw_access(int dirfd, const char *path, int mode, int flags)
{
	if (!flags)
		return (int)RAW(SYS_faccessat, dirfd, path, mode);
#ifdef SYS_faccessat2
	return (int)RAW(SYS_faccessat2, dirfd, path, mode, flags);
#else
	return MISSING(-1);
#endif
}

/* A stat of path (relative to dirfd); fstatat(fd, "", AT_EMPTY_PATH) is
 * an fstat, which report() skips as an empty path. */
#define STAT_HOOK(name, params, args, dirfd, flags) \
	HOOK(REAL_SYS, int, name, params, args, raw_stat(dirfd, path, st, flags), TRACE_READ, dirfd, path)

STAT_HOOK(stat, (const char *path, struct stat *st), (path, st), AT_FDCWD, 0)
STAT_HOOK(stat64, (const char *path, struct stat64 *st), (path, st), AT_FDCWD, 0)
STAT_HOOK(lstat, (const char *path, struct stat *st), (path, st), AT_FDCWD, AT_SYMLINK_NOFOLLOW)
STAT_HOOK(lstat64, (const char *path, struct stat64 *st), (path, st), AT_FDCWD, AT_SYMLINK_NOFOLLOW)
STAT_HOOK(fstatat, (int dirfd, const char *path, struct stat *st, int flags), (dirfd, path, st, flags),
	  dirfd, flags)
STAT_HOOK(fstatat64, (int dirfd, const char *path, struct stat64 *st, int flags),
	  (dirfd, path, st, flags), dirfd, flags)
STAT_HOOK(__xstat, (int ver, const char *path, struct stat *st), (ver, path, st), AT_FDCWD, 0)
STAT_HOOK(__xstat64, (int ver, const char *path, struct stat64 *st), (ver, path, st), AT_FDCWD, 0)
STAT_HOOK(__lxstat, (int ver, const char *path, struct stat *st), (ver, path, st), AT_FDCWD,
	  AT_SYMLINK_NOFOLLOW)
STAT_HOOK(__lxstat64, (int ver, const char *path, struct stat64 *st), (ver, path, st), AT_FDCWD,
	  AT_SYMLINK_NOFOLLOW)
STAT_HOOK(__fxstatat, (int ver, int dirfd, const char *path, struct stat *st, int flags),
	  (ver, dirfd, path, st, flags), dirfd, flags)
STAT_HOOK(__fxstatat64, (int ver, int dirfd, const char *path, struct stat64 *st, int flags),
	  (ver, dirfd, path, st, flags), dirfd, flags)
HOOK(REAL_SYS, int, statx, (int dirfd, const char *path, int flags, unsigned mask, struct statx *st),
     (dirfd, path, flags, mask, st), (int)RAW(SYS_statx, dirfd, path, flags, mask, st), TRACE_READ,
     dirfd, path)

HOOK(REAL_SYS, int, access, (const char *path, int mode), (path, mode),
     raw_access(AT_FDCWD, path, mode, 0), TRACE_EXIST, AT_FDCWD, path)
HOOK(REAL_SYS, int, faccessat, (int dirfd, const char *path, int mode, int flags),
     (dirfd, path, mode, flags), raw_access(dirfd, path, mode, flags), TRACE_EXIST, dirfd, path)
HOOK(REAL_SYS, int, euidaccess, (const char *path, int mode), (path, mode),
     raw_access(AT_FDCWD, path, mode, AT_EACCESS), TRACE_EXIST, AT_FDCWD, path)
HOOK(REAL_SYS, int, eaccess, (const char *path, int mode), (path, mode),
     raw_access(AT_FDCWD, path, mode, AT_EACCESS), TRACE_EXIST, AT_FDCWD, path)

/* ---- listing ---- */

HOOK(REAL, DIR *, opendir, (const char *path), (path), MISSING(NULL), TRACE_LISTED, AT_FDCWD, path)

EXPORT DIR *fdopendir(int fd)
{
	REAL(fdopendir);
	report_fd(TRACE_LISTED, fd); /* before: on success the fd belongs to the DIR */
	return real_fdopendir ? real_fdopendir(fd) : MISSING(NULL);
}

/* scandir and glob list through glibc's internal opendir, which no hook
 * sees: they are hooked themselves. */
HOOK(REAL, int, scandir,
     (const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
      int (*compar)(const struct dirent **, const struct dirent **)),
     (path, list, filter, compar), MISSING(-1), TRACE_LISTED, AT_FDCWD, path)
HOOK(REAL, int, scandir64,
     (const char *path, struct dirent64 ***list, int (*filter)(const struct dirent64 *),
      int (*compar)(const struct dirent64 **, const struct dirent64 **)),
     (path, list, filter, compar), MISSING(-1), TRACE_LISTED, AT_FDCWD, path)
HOOK(REAL, int, scandirat,
     (int dirfd, const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
      int (*compar)(const struct dirent **, const struct dirent **)),
     (dirfd, path, list, filter, compar), MISSING(-1), TRACE_LISTED, dirfd, path)

/* The directory a glob pattern lists: everything before the component
 * holding the first wildcard ("." when that is the first one). */
static void report_glob(const char *pattern)
{
	__asm__("" : "+r"(pattern)); /* see report() */
	if (in_tracer || !pattern)
		return;
	char dir[PIPE_BUF - 8];
	size_t magic = 0;
	while (pattern[magic] && pattern[magic] != '*' && pattern[magic] != '?' && pattern[magic] != '[')
		magic++;
	if (!pattern[magic])
		return report(TRACE_READ, AT_FDCWD, pattern); /* no wildcard: a plain lookup */
	size_t end = magic;
	while (end > 0 && pattern[end - 1] != '/')
		end--;
	if (end == 0) {
		report(TRACE_LISTED, AT_FDCWD, ".");
		return;
	}
	if (end >= sizeof dir)
		return report(TRACE_LISTED, AT_FDCWD, pattern); /* too long: report() says so */
	for (size_t i = 0; i < end; i++)
		dir[i] = pattern[i];
	dir[end > 1 ? end - 1 : end] = '\0'; /* drop the slash, keep "/" */
	report(TRACE_LISTED, AT_FDCWD, dir);
}

EXPORT int glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g)
{
	REAL(glob);
	int rc = real_glob ? real_glob(pattern, flags, errfunc, g) : MISSING(GLOB_ABORTED);
	report_glob(pattern);
	return rc;
}

EXPORT int glob64(const char *pattern, int flags, int (*errfunc)(const char *, int), glob64_t *g)
{
	REAL(glob64);
	int rc = real_glob64 ? real_glob64(pattern, flags, errfunc, g) : MISSING(GLOB_ABORTED);
	report_glob(pattern);
	return rc;
}


/* ---- writes ---- */

static int raw_renameat(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
#ifdef SYS_renameat
	if (!flags)
		return (int)RAW(SYS_renameat, fromfd, from, tofd, to);
#endif
	return (int)RAW(SYS_renameat2, fromfd, from, tofd, to, flags);
}

/* A rename changes both names: two lines. */
EXPORT int rename(const char *from, const char *to)
{
	REAL_SYS(rename);
	int rc = real_rename ? real_rename(from, to) : raw_renameat(AT_FDCWD, from, AT_FDCWD, to, 0);
	report(TRACE_WRITTEN, AT_FDCWD, from);
	report(TRACE_WRITTEN, AT_FDCWD, to);
	return rc;
}

EXPORT int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	REAL_SYS(renameat);
	int rc = real_renameat ? real_renameat(fromfd, from, tofd, to) : raw_renameat(fromfd, from, tofd, to, 0);
	report(TRACE_WRITTEN, fromfd, from);
	report(TRACE_WRITTEN, tofd, to);
	return rc;
}

EXPORT int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
	REAL_SYS(renameat2);
	int rc = real_renameat2 ? real_renameat2(fromfd, from, tofd, to, flags)
				 : raw_renameat(fromfd, from, tofd, to, flags);
	report(TRACE_WRITTEN, fromfd, from);
	report(TRACE_WRITTEN, tofd, to);
	return rc;
}

/* A change of path (relative to dirfd) through a system call of its
 * own. */
#define WRITE_HOOK(name, params, args, fallback, dirfd, path) \
	HOOK(REAL_SYS, int, name, params, args, (int)(fallback), TRACE_WRITTEN, dirfd, path)

WRITE_HOOK(unlink, (const char *path), (path), RAW(SYS_unlinkat, AT_FDCWD, path, 0), AT_FDCWD, path)
WRITE_HOOK(unlinkat, (int dirfd, const char *path, int flags), (dirfd, path, flags),
	   RAW(SYS_unlinkat, dirfd, path, flags), dirfd, path)
WRITE_HOOK(rmdir, (const char *path), (path), RAW(SYS_unlinkat, AT_FDCWD, path, AT_REMOVEDIR),
	   AT_FDCWD, path)
WRITE_HOOK(mkdir, (const char *path, mode_t mode), (path, mode), RAW(SYS_mkdirat, AT_FDCWD, path, mode),
	   AT_FDCWD, path)
WRITE_HOOK(mkdirat, (int dirfd, const char *path, mode_t mode), (dirfd, path, mode),
	   RAW(SYS_mkdirat, dirfd, path, mode), dirfd, path)
/* A link reports its new name (the file it names is unchanged). */
WRITE_HOOK(link, (const char *from, const char *to), (from, to),
	   RAW(SYS_linkat, AT_FDCWD, from, AT_FDCWD, to, 0), AT_FDCWD, to)
WRITE_HOOK(linkat, (int fromfd, const char *from, int tofd, const char *to, int flags),
	   (fromfd, from, tofd, to, flags), RAW(SYS_linkat, fromfd, from, tofd, to, flags), tofd, to)
WRITE_HOOK(symlink, (const char *target, const char *path), (target, path),
	   RAW(SYS_symlinkat, target, AT_FDCWD, path), AT_FDCWD, path)
WRITE_HOOK(symlinkat, (const char *target, int dirfd, const char *path), (target, dirfd, path),
	   RAW(SYS_symlinkat, target, dirfd, path), dirfd, path)
WRITE_HOOK(truncate, (const char *path, off_t len), (path, len), RAW(SYS_truncate, path, len), AT_FDCWD,
	   path)
WRITE_HOOK(truncate64, (const char *path, off64_t len), (path, len), RAW(SYS_truncate, path, len),
	   AT_FDCWD, path)

/* mkstemp and friends create through glibc's internal open: the name they
 * chose is in the template afterwards. */
#define MKSTEMP_HOOK(name, params, args)                              \
	EXPORT int name params                                        \
	{                                                             \
		REAL(name);                                           \
		int fd = real_##name ? real_##name args : MISSING(-1); \
		if (fd >= 0)                                          \
			report(TRACE_WRITTEN, AT_FDCWD, tmpl);                  \
		return fd;                                            \
	}

MKSTEMP_HOOK(mkstemp, (char *tmpl), (tmpl))
MKSTEMP_HOOK(mkstemp64, (char *tmpl), (tmpl))
MKSTEMP_HOOK(mkostemp, (char *tmpl, int flags), (tmpl, flags))
MKSTEMP_HOOK(mkostemp64, (char *tmpl, int flags), (tmpl, flags))
MKSTEMP_HOOK(mkstemps, (char *tmpl, int suffixlen), (tmpl, suffixlen))
MKSTEMP_HOOK(mkstemps64, (char *tmpl, int suffixlen), (tmpl, suffixlen))
MKSTEMP_HOOK(mkostemps, (char *tmpl, int suffixlen, int flags), (tmpl, suffixlen, flags))
MKSTEMP_HOOK(mkostemps64, (char *tmpl, int suffixlen, int flags), (tmpl, suffixlen, flags))
