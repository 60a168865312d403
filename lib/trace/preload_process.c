/* preload_process.c - the tracer's hooks on what the program does
 * besides naming paths (preload.h): closing or replacing descriptors
 * (the trace's own among them), entering accept in a FastCGI worker
 * (the request boundaries) and loading libraries (opcache).
 */
#include "trace/preload.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/un.h>

#include "trace/protocol.h"

/* ---- the trace descriptor itself ---- */

/* The program may close every descriptor (a daemon), or put a file of
 * its own on fd 3: the trace tells cgisnap it is incomplete before it
 * goes, and is never written into someone else's file. */

EXPORT int close(int fd)
{
	losing(fd, 0);
	REAL_SYS(close);
	return real_close ? real_close(fd) : (int)RAW(SYS_close, fd);
}

EXPORT int dup2(int oldfd, int newfd)
{
	if (oldfd != newfd)
		losing(newfd, 0);
	REAL_SYS(dup2);
	if (real_dup2)
		return real_dup2(oldfd, newfd);
	if (oldfd == newfd) /* dup3 refuses this one; dup2 checks oldfd */
		return RAW(SYS_fcntl, oldfd, F_GETFD) < 0 ? -1 : newfd;
	return (int)RAW(SYS_dup3, oldfd, newfd, 0);
}

EXPORT int dup3(int oldfd, int newfd, int flags)
{
	if (oldfd != newfd)
		losing(newfd, 0);
	REAL_SYS(dup3);
	return real_dup3 ? real_dup3(oldfd, newfd, flags) : (int)RAW(SYS_dup3, oldfd, newfd, flags);
}

#ifdef HOOK_CLOSE_RANGE
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	/* CLOSE_RANGE_CLOEXEC closes nothing now, but fd 3 would not reach
	 * the programs this one starts. */
	if (first <= last)
		losing_range(first, last, (flags & CLOSE_RANGE_CLOEXEC) != 0);
	REAL_SYS(close_range);
	return real_close_range ? real_close_range(first, last, flags)
				: (int)RAW(SYS_close_range, first, last, flags);
}

EXPORT void closefrom(int lowfd)
{
	if (lowfd >= 0)
		losing_range((unsigned)lowfd, ~0U, 0);
	REAL_SYS(closefrom);
	if (real_closefrom) {
		real_closefrom(lowfd);
		return;
	}
	if (lowfd >= 0)
		RAW(SYS_close_range, (unsigned)lowfd, ~0U, 0);
}
#endif

/* ---- the end of the process image: exec and _exit ----
 *
 * The lines the tracer still holds go out first (trace_flush): an exec
 * replaces the buffer, _exit skips the destructor that writes it. The
 * list forms of exec are taken apart here and given to execve or execvp,
 * as glibc does. */

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	trace_flush();
	REAL(execve);
	return real_execve ? real_execve(path, argv, envp) : (int)RAW(SYS_execve, path, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	trace_flush();
	REAL(execvpe);
	return real_execvpe ? real_execvpe(file, argv, envp) : MISSING(-1);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	trace_flush();
	REAL(fexecve);
	return real_fexecve ? real_fexecve(fd, argv, envp) : MISSING(-1);
}

#ifdef HOOK_CLOSE_RANGE /* glibc 2.34 and later, as execveat */
EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	trace_flush();
	REAL(execveat);
	return real_execveat ? real_execveat(dirfd, path, argv, envp, flags)
			     : (int)RAW(SYS_execveat, dirfd, path, argv, envp, flags);
}
#endif

/* The arguments of execl and its kin: COUNT_ARGS counts them up to their
 * NULL (none when the first is NULL), TAKE_ARGS puts them into argv (n+1
 * slots) and runs after with ap_ past the NULL (execle's envp). */
#define COUNT_ARGS(n, arg0)                                  \
	do {                                                 \
		va_list ap_;                                 \
		const char *a0_ = (arg0);                    \
		__asm__("" : "+r"(a0_)); /* see report() */  \
		va_start(ap_, arg0);                         \
		(n) = a0_ != NULL;                           \
		while ((n) && va_arg(ap_, const char *))     \
			(n)++;                               \
		va_end(ap_);                                 \
	} while (0)

#define TAKE_ARGS(argv, n, arg0, after)                      \
	do {                                                 \
		va_list ap_;                                 \
		va_start(ap_, arg0);                         \
		(argv)[0] = (char *)(arg0);                  \
		for (size_t i_ = 1; i_ < (n); i_++)          \
			(argv)[i_] = va_arg(ap_, char *);    \
		(argv)[(n)] = NULL;                          \
		if ((n))                                     \
			(void)va_arg(ap_, char *);           \
		after;                                       \
		va_end(ap_);                                 \
	} while (0)

EXPORT int execl(const char *path, const char *arg, ...)
{
	size_t n;
	COUNT_ARGS(n, arg);
	char *argv[n + 1];
	TAKE_ARGS(argv, n, arg, (void)0);
	return execve(path, argv, environ);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	size_t n;
	COUNT_ARGS(n, arg);
	char *argv[n + 1];
	TAKE_ARGS(argv, n, arg, (void)0);
	return execvpe(file, argv, environ);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	size_t n;
	char **envp = NULL;
	COUNT_ARGS(n, arg);
	char *argv[n + 1];
	TAKE_ARGS(argv, n, arg, envp = va_arg(ap_, char **));
	return execve(path, argv, envp);
}

EXPORT void _exit(int status)
{
	trace_flush();
	RAW(SYS_exit_group, status);
	__builtin_unreachable();
}

EXPORT void _Exit(int status)
{
	_exit(status);
}

/* ---- request boundaries in a FastCGI worker ---- */

/* A FastCGI worker's listening socket (CGISNAP_TRACE_ACCEPT; -1: none,
 * -2: not looked at yet), the boundaries sent, and whether the last
 * accept on it gave a connection (the first accept counts as one). */
static int accept_fd = -2;
static unsigned long boundaries;
static int accept_got = 1;

/* The listening socket CGISNAP_TRACE_ACCEPT names, or -1. Read on first
 * use, as the trace descriptor is. Call with in_tracer set. */
static int listening_fd(void)
{
	int fd = __atomic_load_n(&accept_fd, __ATOMIC_ACQUIRE);
	if (fd != -2 || !environ)
		return fd;
	const char *s = env_value(TRACE_ACCEPT_ENV "=");
	fd = -1;
	if (s && *s >= '0' && *s <= '9') {
		int v = 0;
		for (; *s >= '0' && *s <= '9' && v <= 100000; s++)
			v = v * 10 + (*s - '0');
		if (!*s)
			fd = v;
	}
	__atomic_store_n(&accept_fd, fd, __ATOMIC_RELEASE);
	return fd;
}

/* PHP's realpath cache, emptied at each boundary where cgisnap asks
 * (protocol.h's TRACE_PHP_REALPATHS_ENV): without that, a path an earlier
 * request resolved would not be looked up, nor reported, again. The
 * function is looked up once, at the first boundary; the program is
 * between requests there, in the thread that serves them. Where it is
 * asked to and cannot (cgisnap read the symbol table of another file
 * than runs), the next request's trace says it misses what the cache
 * answers: its page is untraced, never wrong. Call with in_tracer set,
 * after the boundary's line. */
static void forget_php_realpaths(int t)
{
	static int asked = -1;
	static void (*clean)(void);
	if (asked < 0) {
		const char *s = env_value(TRACE_PHP_REALPATHS_ENV "=");
		asked = s && s[0] == '1' && !s[1];
		if (asked)
			*(void **)&clean = dlsym(RTLD_DEFAULT, "realpath_cache_clean");
	}
	if (clean)
		clean();
	else if (asked && t >= 0)
		send_lost(t, "kept PHP's realpath cache: no realpath_cache_clean to empty it");
}

/* The program enters accept on fd: on the listening socket, after a
 * connection (or at the first accept), send "B n" and forget PHP's
 * resolved paths. */
static void entering_accept(int fd)
{
	if (in_tracer || fd < 0)
		return;
	int saved = errno;
	in_tracer = 1;
	if (fd == listening_fd() && __atomic_exchange_n(&accept_got, 0, __ATOMIC_ACQ_REL)) {
		int t = trace_get();
		char line[NUM_LINE_MAX];
		size_t n = num_line(line, TRACE_BOUNDARY, __atomic_add_fetch(&boundaries, 1, __ATOMIC_ACQ_REL));
		if (t >= 0)
			send_boundary(t, line, n);
		forget_php_realpaths(t);
	}
	in_tracer = 0;
	errno = saved;
}

/* The id cgisnap named its end of connection fd with (protocol.h's A
 * line), or 0. */
static unsigned long connection_id(int fd)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof sa;
	static const char prefix[] = TRACE_CONN_NAME;
	if (RAW(SYS_getpeername, fd, &sa, &len) < 0 || sa.sun_family != AF_UNIX ||
	    len <= offsetof(struct sockaddr_un, sun_path) + sizeof prefix || sa.sun_path[0])
		return 0;
	size_t n = len - offsetof(struct sockaddr_un, sun_path) - 1, k = 0;
	const char *name = sa.sun_path + 1;
	for (; k < sizeof prefix - 1; k++)
		if (k >= n || name[k] != prefix[k])
			return 0;
	unsigned long id = 0;
	for (; k < n && name[k] >= '0' && name[k] <= '9'; k++)
		id = id * 10 + (unsigned long)(name[k] - '0');
	return k == n ? id : 0;
}

/* accept on fd returned rc: a connection starts the next request, whose
 * lines follow "A id" when cgisnap named the connection. */
static void accepted(int fd, int rc)
{
	if (rc < 0 || in_tracer || fd != __atomic_load_n(&accept_fd, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&accept_got, 1, __ATOMIC_RELEASE);
	in_tracer = 1;
	unsigned long id = connection_id(rc);
	int t = id ? trace_get() : -1;
	if (t >= 0) {
		char line[NUM_LINE_MAX];
		send_line(t, line, num_line(line, TRACE_ACCEPTED, id));
	}
	in_tracer = 0;
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	entering_accept(fd);
	REAL_SYS(accept);
	int rc = real_accept ? real_accept(fd, addr, len) : (int)RAW(SYS_accept4, fd, addr, len, 0);
	int saved = errno;
	accepted(fd, rc);
	errno = saved;
	return rc;
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	entering_accept(fd);
	REAL_SYS(accept4);
	int rc = real_accept4 ? real_accept4(fd, addr, len, flags) : (int)RAW(SYS_accept4, fd, addr, len, flags);
	int saved = errno;
	accepted(fd, rc);
	errno = saved;
	return rc;
}

/* ---- libraries the program loads ---- */

/* PHP loads its extensions with RTLD_DEEPBIND, which puts their own
 * libraries (the C library) ahead of the global scope, this library
 * included: their calls pass no hook. That matters where an extension's
 * library opens files itself, not through PHP's streams:
 *  - opcache: a script it keeps compiled is not opened again, only
 *    stat'ed by opcache on each request (validate_timestamps), and that
 *    stat is how a page that ran an edited PHP file is found;
 *  - SQLite (sqlite3, pdo_sqlite), dba and zip: their libraries open the
 *    database (and its journal, WAL and shared-memory files) or the
 *    archive; untraced, a render's own writes to its database (MediaWiki
 *    keeps its cache and job queue there) would look like someone
 *    else's, and watch would never settle.
 * Those are loaded without RTLD_DEEPBIND (none needs symbols of its own
 * to win: PHP's are the same in either scope); every other library as
 * asked. */
static int is_named(const char *file, const char *name)
{
	size_t n = t_strlen(file), base = n;
	while (base > 0 && file[base - 1] != '/')
		base--;
	size_t k = t_strlen(name);
	if (n - base != k)
		return 0;
	for (size_t i = 0; i < k; i++)
		if (file[base + i] != name[i])
			return 0;
	return 1;
}

static int traced_extension(const char *file)
{
	static const char *const names[] = { "opcache.so", "sqlite3.so", "pdo_sqlite.so", "dba.so", "zip.so" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (is_named(file, names[i]))
			return 1;
	return 0;
}

EXPORT void *dlopen(const char *file, int flags)
{
	__asm__("" : "+r"(file)); /* see report() */
#ifdef RTLD_DEEPBIND
	if (file && (flags & RTLD_DEEPBIND) && traced_extension(file))
		flags &= ~RTLD_DEEPBIND;
#endif
	REAL(dlopen);
	return real_dlopen ? real_dlopen(file, flags) : NULL;
}
