/* trace.c - the dependency tracer: a library preloaded (LD_PRELOAD) into
 * the CGI programs that 'cgisnap watch' renders, reporting every path the
 * program opens, stats, lists or changes, so that watch knows which pages
 * to re-render when a file changes.
 *
 * Protocol: CGISNAP_TRACE_FD names a pipe (fd 3, set up by lib/cgi.c); for
 * each call the library writes one line with one write(2):
 *
 *   R /abs/path    opened for reading or stat'ed (also when the path does
 *                  not exist: a page that looked for it depends on that)
 *   E /abs/path    access'ed: only whether it exists (PHP's file_exists()
 *                  is access(F_OK)), so only its creation or removal
 *                  matters, not a change of its content
 *   L /abs/dir     directory listed (opendir, scandir, glob)
 *   W /abs/path    opened for writing, created, renamed, removed
 *
 * Lines stay below PIPE_BUF, so lines of several threads or processes
 * never mix. Relative paths are made absolute against the working
 * directory, or against a directory descriptor through /proc/self/fd.
 *
 * The library must never disturb the program it lives in: no memory
 * allocation, errno kept as the real call left it, no recursion into its
 * own hooks (a thread-local guard: dlsym and getcwd may call hooked
 * functions), and silence when the descriptor is missing or not a pipe.
 * It is built without sanitizers (their runtime must come first in a
 * process) as build/cgisnap-trace.so.
 */
#undef _FORTIFY_SOURCE

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Old glibc entry points of the stat family, no longer declared by the
 * headers; programs built against glibc before 2.33 still call them. */
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);
/* Fortified open (_FORTIFY_SOURCE callers). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

#define EXPORT __attribute__((visibility("default")))

/* Where lines go; -1: stay silent. */
static int trace_fd = -1;

/* Set while the library works, so that calls made by the library itself
 * (or by dlsym) pass straight through. initial-exec: reading it must not
 * allocate, which the general TLS model may do. */
static __thread int in_tracer __attribute__((tls_model("initial-exec")));

/* The real function behind a hook, looked up once. While the lookup
 * itself runs (in_tracer set) a nested call finds NULL and takes the
 * fallback the hook provides. */
#define REAL(name)                                                        \
	static __typeof__(name) *real_##name;                             \
	if (!real_##name && !in_tracer) {                                 \
		in_tracer = 1;                                            \
		real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name); \
		in_tracer = 0;                                            \
	}

/* Append s to line[*n..cap); 0, or -1 when it does not fit. */
static int add(char *line, size_t *n, size_t cap, const char *s, size_t len)
{
	if (*n + len >= cap)
		return -1;
	memcpy(line + *n, s, len);
	*n += len;
	return 0;
}

/* The directory a relative path starts from, into dir (size cap): the
 * working directory or the directory dirfd names; its length or -1. */
static ssize_t base_dir(int dirfd, char *dir, size_t cap)
{
	if (dirfd == AT_FDCWD) {
		if (!getcwd(dir, cap))
			return -1;
		return (ssize_t)strlen(dir);
	}
	char link[32] = "/proc/self/fd/";
	size_t n = strlen(link);
	char digits[12];
	size_t nd = 0;
	unsigned v = (unsigned)dirfd;
	if (dirfd < 0)
		return -1;
	do {
		digits[nd++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (nd)
		link[n++] = digits[--nd];
	link[n] = '\0';
	ssize_t r = readlink(link, dir, cap - 1);
	if (r <= 0 || dir[0] != '/')
		return -1;
	dir[r] = '\0';
	return r;
}

/* Write one line to the pipe. A full pipe waits for cgisnap, which always
 * reads; a short write cannot happen below PIPE_BUF. A pipe nobody reads
 * any more must not kill the program with SIGPIPE: the signal is blocked
 * around the write, taken back if the write raised it, and the tracer
 * falls silent. */
static void send_line(const char *line, size_t n)
{
	sigset_t pipe_only, old;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
	ssize_t r;
	while ((r = write(trace_fd, line, n)) < 0 && errno == EINTR)
		;
	if (r < 0 && errno == EPIPE) {
		trace_fd = -1;
		if (!sigismember(&old, SIGPIPE)) {
			struct timespec now = { 0, 0 };
			sigtimedwait(&pipe_only, NULL, &now);
		}
	} else if (r < 0 && errno == EBADF) {
		trace_fd = -1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Write "KIND PATH\n" for path (relative to dirfd) as one line. Paths too
 * long for one atomic line, or holding a newline, are left out. Keeps
 * errno. */
static void report(char kind, int dirfd, const char *path)
{
	/* The hooked functions' parameters are declared nonnull, and GCC
	 * would drop a NULL check on them after inlining; a program passing
	 * NULL gets EFAULT from the kernel and must not crash here. */
	__asm__("" : "+r"(path));
	if (trace_fd < 0 || !path || !*path || in_tracer)
		return;
	int saved = errno;
	in_tracer = 1;
	char line[PIPE_BUF];
	size_t n = 0;
	line[n++] = kind;
	line[n++] = ' ';
	if (path[0] != '/') {
		ssize_t len = base_dir(dirfd, line + n, sizeof line - n);
		if (len < 0)
			goto out;
		n += (size_t)len;
		if (add(line, &n, sizeof line, "/", 1) < 0)
			goto out;
	}
	size_t plen = strlen(path);
	if (memchr(path, '\n', plen) || add(line, &n, sizeof line, path, plen) < 0 ||
	    add(line, &n, sizeof line, "\n", 1) < 0)
		goto out;
	send_line(line, n);
out:
	in_tracer = 0;
	errno = saved;
}

/* The same for a directory descriptor (fdopendir): its path from /proc. */
static void report_fd(char kind, int fd)
{
	if (trace_fd < 0 || in_tracer || fd < 0)
		return;
	int saved = errno;
	char dir[PIPE_BUF - 8];
	in_tracer = 1;
	ssize_t len = base_dir(fd, dir, sizeof dir);
	in_tracer = 0;
	if (len > 0)
		report(kind, AT_FDCWD, dir);
	errno = saved;
}

/* What an open with these flags means for the program's output. */
static char open_kind(int flags)
{
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)))
		return 'W';
#ifdef O_TMPFILE
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return 'W';
#endif
	return 'R';
}

/* fopen modes: "w", "a" and any "+" write. */
static char fopen_kind(const char *mode)
{
	if (!mode)
		return 'R';
	return strpbrk(mode, "wa+") ? 'W' : 'R';
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

/* The library's own start: take the descriptor when it is a pipe. A copy
 * above the usual range keeps the trace going if the program closes
 * fd 3 and reuses the number (it is close-on-exec: a program started by
 * the CGI program traces itself through the fd 3 it inherits). */
__attribute__((constructor)) static void trace_init(void)
{
	const char *s = getenv("CGISNAP_TRACE_FD");
	int fd = 0;
	struct stat st;

	if (!s || !*s)
		return;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || fd > 100000)
			return;
		fd = fd * 10 + (*s - '0');
	}
	in_tracer = 1;
	if (syscall(SYS_fstat, fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
		int copy = fcntl(fd, F_DUPFD_CLOEXEC, 512);
		trace_fd = copy >= 0 ? copy : fd;
	}
	in_tracer = 0;
}

/* ---- open ---- */

/* open while dlsym is still finding open: straight to the kernel. */
static int raw_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (needs_mode(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	REAL(open);
	int fd = real_open ? real_open(path, flags, mode) : raw_openat(AT_FDCWD, path, flags, mode);
	report(open_kind(flags), AT_FDCWD, path);
	return fd;
}

EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (needs_mode(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	REAL(open64);
	int fd = real_open64 ? real_open64(path, flags, mode)
			     : raw_openat(AT_FDCWD, path, flags | O_LARGEFILE, mode);
	report(open_kind(flags), AT_FDCWD, path);
	return fd;
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (needs_mode(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	REAL(openat);
	int fd = real_openat ? real_openat(dirfd, path, flags, mode) : raw_openat(dirfd, path, flags, mode);
	report(open_kind(flags), dirfd, path);
	return fd;
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (needs_mode(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	REAL(openat64);
	int fd = real_openat64 ? real_openat64(dirfd, path, flags, mode)
			       : raw_openat(dirfd, path, flags | O_LARGEFILE, mode);
	report(open_kind(flags), dirfd, path);
	return fd;
}

EXPORT int __open_2(const char *path, int flags)
{
	REAL(__open_2);
	int fd = real___open_2 ? real___open_2(path, flags) : raw_openat(AT_FDCWD, path, flags, 0);
	report(open_kind(flags), AT_FDCWD, path);
	return fd;
}

EXPORT int __open64_2(const char *path, int flags)
{
	REAL(__open64_2);
	int fd = real___open64_2 ? real___open64_2(path, flags)
				 : raw_openat(AT_FDCWD, path, flags | O_LARGEFILE, 0);
	report(open_kind(flags), AT_FDCWD, path);
	return fd;
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	REAL(__openat_2);
	int fd = real___openat_2 ? real___openat_2(dirfd, path, flags) : raw_openat(dirfd, path, flags, 0);
	report(open_kind(flags), dirfd, path);
	return fd;
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	REAL(__openat64_2);
	int fd = real___openat64_2 ? real___openat64_2(dirfd, path, flags)
				   : raw_openat(dirfd, path, flags | O_LARGEFILE, 0);
	report(open_kind(flags), dirfd, path);
	return fd;
}

EXPORT int creat(const char *path, mode_t mode)
{
	REAL(creat);
	int fd = real_creat ? real_creat(path, mode) : raw_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
	report('W', AT_FDCWD, path);
	return fd;
}

EXPORT int creat64(const char *path, mode_t mode)
{
	REAL(creat64);
	int fd = real_creat64 ? real_creat64(path, mode)
			      : raw_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC | O_LARGEFILE, mode);
	report('W', AT_FDCWD, path);
	return fd;
}

/* A hook whose real function could not be found fails like a missing
 * system call rather than crashing the program. */
#define MISSING(rv) (errno = ENOSYS, (rv))

EXPORT FILE *fopen(const char *path, const char *mode)
{
	REAL(fopen);
	FILE *f = real_fopen ? real_fopen(path, mode) : MISSING(NULL);
	report(fopen_kind(mode), AT_FDCWD, path);
	return f;
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	REAL(fopen64);
	FILE *f = real_fopen64 ? real_fopen64(path, mode) : MISSING(NULL);
	report(fopen_kind(mode), AT_FDCWD, path);
	return f;
}

EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream)
{
	REAL(freopen);
	FILE *f = real_freopen ? real_freopen(path, mode, stream) : MISSING(NULL);
	report(fopen_kind(mode), AT_FDCWD, path);
	return f;
}

EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
	REAL(freopen64);
	FILE *f = real_freopen64 ? real_freopen64(path, mode, stream) : MISSING(NULL);
	report(fopen_kind(mode), AT_FDCWD, path);
	return f;
}

/* ---- stat and access ---- */

/* fstatat(fd, "", AT_EMPTY_PATH) is an fstat: report() skips the empty
 * path, so there is nothing to tell apart here. */
#define STAT_AT(dirfd, path, flags) ((void)(flags), report('R', dirfd, path))

EXPORT int stat(const char *path, struct stat *st)
{
	REAL(stat);
	int rc = real_stat ? real_stat(path, st) : MISSING(-1);
	report('R', AT_FDCWD, path);
	return rc;
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	REAL(stat64);
	int rc = real_stat64 ? real_stat64(path, st) : MISSING(-1);
	report('R', AT_FDCWD, path);
	return rc;
}

EXPORT int lstat(const char *path, struct stat *st)
{
	REAL(lstat);
	int rc = real_lstat ? real_lstat(path, st) : MISSING(-1);
	report('R', AT_FDCWD, path);
	return rc;
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	REAL(lstat64);
	int rc = real_lstat64 ? real_lstat64(path, st) : MISSING(-1);
	report('R', AT_FDCWD, path);
	return rc;
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	REAL(fstatat);
	int rc = real_fstatat ? real_fstatat(dirfd, path, st, flags) : MISSING(-1);
	STAT_AT(dirfd, path, flags);
	return rc;
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	REAL(fstatat64);
	int rc = real_fstatat64 ? real_fstatat64(dirfd, path, st, flags) : MISSING(-1);
	STAT_AT(dirfd, path, flags);
	return rc;
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *st)
{
	REAL(statx);
	int rc = real_statx ? real_statx(dirfd, path, flags, mask, st) : MISSING(-1);
	STAT_AT(dirfd, path, flags);
	return rc;
}

EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	REAL(__xstat);
	int rc = real___xstat ? real___xstat(ver, path, st) : MISSING(-1);
	report('R', AT_FDCWD, path);
	return rc;
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	REAL(__xstat64);
	int rc = real___xstat64 ? real___xstat64(ver, path, st) : MISSING(-1);
	report('R', AT_FDCWD, path);
	return rc;
}

EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	REAL(__lxstat);
	int rc = real___lxstat ? real___lxstat(ver, path, st) : MISSING(-1);
	report('R', AT_FDCWD, path);
	return rc;
}

EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	REAL(__lxstat64);
	int rc = real___lxstat64 ? real___lxstat64(ver, path, st) : MISSING(-1);
	report('R', AT_FDCWD, path);
	return rc;
}

EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	REAL(__fxstatat);
	int rc = real___fxstatat ? real___fxstatat(ver, dirfd, path, st, flags) : MISSING(-1);
	STAT_AT(dirfd, path, flags);
	return rc;
}

EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	REAL(__fxstatat64);
	int rc = real___fxstatat64 ? real___fxstatat64(ver, dirfd, path, st, flags) : MISSING(-1);
	STAT_AT(dirfd, path, flags);
	return rc;
}

EXPORT int access(const char *path, int mode)
{
	REAL(access);
	int rc = real_access ? real_access(path, mode) : MISSING(-1);
	report('E', AT_FDCWD, path);
	return rc;
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	REAL(faccessat);
	int rc = real_faccessat ? real_faccessat(dirfd, path, mode, flags) : MISSING(-1);
	report('E', dirfd, path);
	return rc;
}

EXPORT int euidaccess(const char *path, int mode)
{
	REAL(euidaccess);
	int rc = real_euidaccess ? real_euidaccess(path, mode) : MISSING(-1);
	report('E', AT_FDCWD, path);
	return rc;
}

EXPORT int eaccess(const char *path, int mode)
{
	REAL(eaccess);
	int rc = real_eaccess ? real_eaccess(path, mode) : MISSING(-1);
	report('E', AT_FDCWD, path);
	return rc;
}

/* ---- listing ---- */

EXPORT DIR *opendir(const char *path)
{
	REAL(opendir);
	DIR *d = real_opendir ? real_opendir(path) : MISSING(NULL);
	report('L', AT_FDCWD, path);
	return d;
}

EXPORT DIR *fdopendir(int fd)
{
	REAL(fdopendir);
	report_fd('L', fd); /* before: on success the fd belongs to the DIR */
	return real_fdopendir ? real_fdopendir(fd) : MISSING(NULL);
}

/* scandir and glob list through glibc's internal opendir, which no hook
 * sees: they are hooked themselves. */
EXPORT int scandir(const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
		   int (*compar)(const struct dirent **, const struct dirent **))
{
	REAL(scandir);
	int rc = real_scandir ? real_scandir(path, list, filter, compar) : MISSING(-1);
	report('L', AT_FDCWD, path);
	return rc;
}

EXPORT int scandir64(const char *path, struct dirent64 ***list, int (*filter)(const struct dirent64 *),
		     int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	REAL(scandir64);
	int rc = real_scandir64 ? real_scandir64(path, list, filter, compar) : MISSING(-1);
	report('L', AT_FDCWD, path);
	return rc;
}

EXPORT int scandirat(int dirfd, const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
		     int (*compar)(const struct dirent **, const struct dirent **))
{
	REAL(scandirat);
	int rc = real_scandirat ? real_scandirat(dirfd, path, list, filter, compar) : MISSING(-1);
	report('L', dirfd, path);
	return rc;
}

/* The directory a glob pattern lists: everything before the component
 * holding the first wildcard ("." when that is the first one). */
static void report_glob(const char *pattern)
{
	__asm__("" : "+r"(pattern)); /* see report() */
	if (trace_fd < 0 || in_tracer || !pattern)
		return;
	char dir[PIPE_BUF - 8];
	size_t magic = strcspn(pattern, "*?[");
	if (!pattern[magic])
		return report('R', AT_FDCWD, pattern); /* no wildcard: a plain lookup */
	size_t end = magic;
	while (end > 0 && pattern[end - 1] != '/')
		end--;
	if (end == 0) {
		report('L', AT_FDCWD, ".");
		return;
	}
	if (end >= sizeof dir)
		return;
	memcpy(dir, pattern, end);
	dir[end > 1 ? end - 1 : end] = '\0'; /* drop the slash, keep "/" */
	report('L', AT_FDCWD, dir);
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

EXPORT int rename(const char *from, const char *to)
{
	REAL(rename);
	int rc = real_rename ? real_rename(from, to) : MISSING(-1);
	report('W', AT_FDCWD, from);
	report('W', AT_FDCWD, to);
	return rc;
}

EXPORT int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	REAL(renameat);
	int rc = real_renameat ? real_renameat(fromfd, from, tofd, to) : MISSING(-1);
	report('W', fromfd, from);
	report('W', tofd, to);
	return rc;
}

EXPORT int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
	REAL(renameat2);
	int rc = real_renameat2 ? real_renameat2(fromfd, from, tofd, to, flags) : MISSING(-1);
	report('W', fromfd, from);
	report('W', tofd, to);
	return rc;
}

EXPORT int unlink(const char *path)
{
	REAL(unlink);
	int rc = real_unlink ? real_unlink(path) : MISSING(-1);
	report('W', AT_FDCWD, path);
	return rc;
}

EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	REAL(unlinkat);
	int rc = real_unlinkat ? real_unlinkat(dirfd, path, flags) : MISSING(-1);
	report('W', dirfd, path);
	return rc;
}

EXPORT int rmdir(const char *path)
{
	REAL(rmdir);
	int rc = real_rmdir ? real_rmdir(path) : MISSING(-1);
	report('W', AT_FDCWD, path);
	return rc;
}

EXPORT int mkdir(const char *path, mode_t mode)
{
	REAL(mkdir);
	int rc = real_mkdir ? real_mkdir(path, mode) : MISSING(-1);
	report('W', AT_FDCWD, path);
	return rc;
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
	REAL(mkdirat);
	int rc = real_mkdirat ? real_mkdirat(dirfd, path, mode) : MISSING(-1);
	report('W', dirfd, path);
	return rc;
}

EXPORT int link(const char *from, const char *to)
{
	REAL(link);
	int rc = real_link ? real_link(from, to) : MISSING(-1);
	report('W', AT_FDCWD, to);
	return rc;
}

EXPORT int linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	REAL(linkat);
	int rc = real_linkat ? real_linkat(fromfd, from, tofd, to, flags) : MISSING(-1);
	report('W', tofd, to);
	return rc;
}

EXPORT int symlink(const char *target, const char *path)
{
	REAL(symlink);
	int rc = real_symlink ? real_symlink(target, path) : MISSING(-1);
	report('W', AT_FDCWD, path);
	return rc;
}

EXPORT int symlinkat(const char *target, int dirfd, const char *path)
{
	REAL(symlinkat);
	int rc = real_symlinkat ? real_symlinkat(target, dirfd, path) : MISSING(-1);
	report('W', dirfd, path);
	return rc;
}

EXPORT int truncate(const char *path, off_t len)
{
	REAL(truncate);
	int rc = real_truncate ? real_truncate(path, len) : MISSING(-1);
	report('W', AT_FDCWD, path);
	return rc;
}

EXPORT int truncate64(const char *path, off64_t len)
{
	REAL(truncate64);
	int rc = real_truncate64 ? real_truncate64(path, len) : MISSING(-1);
	report('W', AT_FDCWD, path);
	return rc;
}

/* mkstemp and friends create through glibc's internal open: the name they
 * chose is in the template afterwards. */
#define MKSTEMP_HOOK(name, params, args)                              \
	EXPORT int name params                                        \
	{                                                             \
		REAL(name);                                           \
		int fd = real_##name ? real_##name args : MISSING(-1); \
		if (fd >= 0)                                          \
			report('W', AT_FDCWD, tmpl);                  \
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
