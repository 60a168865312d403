/* preload.c - the dependency tracer: a library preloaded (LD_PRELOAD) into
 * the CGI programs that 'cgisnap watch' renders, reporting every path the
 * program opens, stats, lists or changes, so that watch knows which pages
 * to re-render when a file changes.
 *
 * The protocol, the lines it writes and the variables that set it up,
 * is trace/protocol.h's.
 *
 * The library must never disturb the program it lives in, nor crash it,
 * whatever state the process is in when a hook runs (a constructor of the
 * program or of another library may run before this library's own):
 *   - every real function is looked up once and kept in an atomic
 *     pointer: those the kernel can stand in for (open, stat, access,
 *     rename, close, ...) by the constructor, never by their hooks (dlsym
 *     may allocate); the rest (fopen, opendir, glob) on their hook's
 *     first call. A hook never calls through a pointer it has not
 *     checked: without one (too early, dlsym still running, or nothing
 *     found) it makes the system call itself, or fails with ENOSYS where
 *     libc alone implements the call;
 *   - the library's own work (the working directory, /proc links, the
 *     write, the signal mask) goes straight to the kernel through
 *     syscall(2), never through functions that may be hooked or not
 *     ready; the trace descriptor is found on first use, not only by the
 *     constructor;
 *   - no memory allocation (lines are built on the stack), errno kept as
 *     the real call left it, no recursion into its own hooks (a
 *     thread-local initial-exec guard: dlsym may call hooked functions);
 *   - silence when the descriptor is missing, not a pipe, not the pipe it
 *     was (checked before every write), or closed: close, dup2, dup3,
 *     close_range and closefrom are hooked so that the program taking the
 *     descriptor away first sends an X line, and nothing is ever written
 *     into a file of the program's own.
 * It is built without sanitizers (their runtime must come first in a
 * process) as build/cgisnap-trace.so.
 */
#undef _FORTIFY_SOURCE

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace/protocol.h"

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

extern char **environ;

#define EXPORT __attribute__((visibility("default")))

/* The raw system call, for the library's own work and for hooks whose
 * real function is not at hand. */
#define RAW(...) syscall(__VA_ARGS__)

/* The kernel's signal set (what rt_sigprocmask takes): one bit per
 * signal. */
typedef unsigned long ksigset;
#define KSIGBIT(sig) (1UL << ((sig)-1))

/* Where the trace stands: not looked at yet, being looked at (by another
 * thread), writing to trace_fd, or silent for good. */
enum { TRACE_UNKNOWN, TRACE_BUSY, TRACE_ON, TRACE_OFF };
static int trace_state = TRACE_UNKNOWN;
static int trace_fd = -1;
/* The pipe trace_fd must still be, checked before every write. */
static dev_t trace_dev;
static ino_t trace_ino;
/* The descriptor CGISNAP_TRACE_FD named (3), and whether it still is the
 * pipe as far as the hooks saw: programs this one starts trace through
 * it. */
static int named_fd = -1;
static int named_live;

/* A FastCGI worker's listening socket (CGISNAP_TRACE_ACCEPT; -1: none,
 * -2: not looked at yet), the boundaries sent, and whether the last
 * accept on it gave a connection (the first accept counts as one). */
static int accept_fd = -2;
static unsigned long boundaries;
static int accept_got = 1;

/* Set while the library works, so that calls made by the library itself
 * (or by dlsym) pass straight through. initial-exec: reading it must not
 * allocate, which the general TLS model may do. */
static __thread int in_tracer __attribute__((tls_model("initial-exec")));

/* The real function behind a hook: looked up on first use, under the
 * guard; NULL while the lookup itself runs (a nested call from dlsym) or
 * when there is none. The pointer is published atomically: threads
 * racing here all find the same one. */
static void *resolve(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (p || in_tracer)
		return p;
	in_tracer = 1;
	int saved = errno;
	p = dlsym(RTLD_NEXT, name);
	errno = saved;
	in_tracer = 0;
	if (p)
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	return p;
}

#define REAL(name)                    \
	static void *slot_##name;     \
	__typeof__(name) *real_##name = (__typeof__(name) *)resolve(&slot_##name, #name)

/* The hooks the kernel can stand in for never look up anything
 * themselves: dlsym may allocate, and they may run inside the program's
 * allocator (one that opens a file while it starts) or before the C
 * library is ready for that. The constructor looks them all up; until
 * then, and for any it did not find, the hook makes the system call. */
#define SYS_HOOKS(X)                                                                              \
	X(open) X(open64) X(openat) X(openat64) X(__open_2) X(__open64_2) X(__openat_2)           \
	X(__openat64_2) X(creat) X(creat64) X(stat) X(stat64) X(lstat) X(lstat64) X(fstatat)     \
	X(fstatat64) X(statx) X(__xstat) X(__xstat64) X(__lxstat) X(__lxstat64) X(__fxstatat)    \
	X(__fxstatat64) X(access) X(faccessat) X(euidaccess) X(eaccess) X(rename) X(renameat)    \
	X(renameat2) X(unlink) X(unlinkat) X(rmdir) X(mkdir) X(mkdirat) X(link) X(linkat)        \
	X(symlink) X(symlinkat) X(truncate) X(truncate64) X(close) X(dup2) X(dup3) X(accept)     \
	X(accept4) SYS_HOOKS_CLOSE(X)

/* close_range and closefrom: declared by glibc 2.34 and later, which is
 * when programs began to call them. */
#if defined(SYS_close_range) && defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
#define HOOK_CLOSE_RANGE 1
#define SYS_HOOKS_CLOSE(X) X(close_range) X(closefrom)
#else
#define SYS_HOOKS_CLOSE(X)
#endif

#define SYS_SLOT(name) static void *slot_##name;
SYS_HOOKS(SYS_SLOT)

#define REAL_SYS(name) \
	__typeof__(name) *real_##name = (__typeof__(name) *)__atomic_load_n(&slot_##name, __ATOMIC_ACQUIRE)

/* Small loops for what the library needs of string.h: nothing of the
 * program's may stand in for them (the compiler may still emit memcpy or
 * strlen, plain functions bound when the library is loaded). */
static size_t t_strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static int t_has(const char *s, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == c)
			return 1;
	return 0;
}

/* Append s to line[*n..cap); 0, or -1 when it does not fit. */
static int add(char *line, size_t *n, size_t cap, const char *s, size_t len)
{
	if (*n + len >= cap)
		return -1;
	for (size_t i = 0; i < len; i++)
		line[*n + i] = s[i];
	*n += len;
	return 0;
}

/* Append the decimal digits of v. */
static int add_num(char *line, size_t *n, size_t cap, unsigned long v)
{
	char digits[24];
	size_t nd = 0;
	do {
		digits[nd++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < nd / 2; i++) {
		char c = digits[i];
		digits[i] = digits[nd - 1 - i];
		digits[nd - 1 - i] = c;
	}
	return add(line, n, cap, digits, nd);
}

/* The directory a relative path starts from, into dir (size cap): the
 * working directory or the directory dirfd names; its length or -1. */
static ssize_t base_dir(int dirfd, char *dir, size_t cap)
{
	if (dirfd == AT_FDCWD) {
		/* The kernel's getcwd returns the length with its NUL, and
		 * "(unreachable)..." for a directory outside the root. */
		long r = RAW(SYS_getcwd, dir, cap);
		if (r <= 1 || dir[0] != '/')
			return -1;
		return (ssize_t)t_strlen(dir);
	}
	if (dirfd < 0)
		return -1;
	char link[40];
	size_t n = 0;
	if (add(link, &n, sizeof link, "/proc/self/fd/", 14) < 0 ||
	    add_num(link, &n, sizeof link, (unsigned long)dirfd) < 0)
		return -1;
	link[n] = '\0';
	long r = RAW(SYS_readlinkat, AT_FDCWD, link, dir, cap - 1);
	if (r <= 0 || dir[0] != '/')
		return -1;
	dir[r] = '\0';
	return (ssize_t)r;
}

static void trace_off(void)
{
	__atomic_store_n(&trace_fd, -1, __ATOMIC_RELEASE);
	__atomic_store_n(&trace_state, TRACE_OFF, __ATOMIC_RELEASE);
}

/* Whether fd is the pipe the trace was opened on. */
static int is_trace_pipe(int fd)
{
	struct stat st;
	return RAW(SYS_fstat, fd, &st) == 0 && S_ISFIFO(st.st_mode) && st.st_dev == trace_dev &&
	       st.st_ino == trace_ino;
}

/* Write one line to the pipe, when the trace descriptor is still the
 * pipe it was (a program that closed it, unseen by the hooks, may have a
 * file of its own there now). A full pipe waits for cgisnap, which always
 * reads; a short write cannot happen below PIPE_BUF. A pipe nobody reads
 * any more must not kill the program with SIGPIPE: the signal is blocked
 * around the write, taken back if the write raised it, and the tracer
 * falls silent. */
static void send_to(int fd, const char *line, size_t n)
{
	if (!is_trace_pipe(fd)) {
		trace_off();
		return;
	}
	ksigset pipe_only = KSIGBIT(SIGPIPE), old = 0;
	RAW(SYS_rt_sigprocmask, SIG_BLOCK, &pipe_only, &old, sizeof(ksigset));
	long r;
	while ((r = RAW(SYS_write, fd, line, n)) < 0 && errno == EINTR)
		;
	if (r < 0 && errno == EPIPE) {
		trace_off();
		if (!(old & pipe_only)) {
			struct timespec now = { 0, 0 };
			RAW(SYS_rt_sigtimedwait, &pipe_only, NULL, &now, sizeof(ksigset));
		}
	} else if (r < 0) {
		trace_off();
	}
	RAW(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(ksigset));
}

/* The value of variable name ("NAME="), read from environ without
 * getenv. */
static const char *env_value(const char *name)
{
	char **env = environ;
	for (size_t i = 0; env && env[i]; i++) {
		size_t k = 0;
		while (name[k] && env[i][k] == name[k])
			k++;
		if (!name[k])
			return env[i] + k;
	}
	return NULL;
}

/* Parse "FD" or "FD:INODE"; 0, or -1 when malformed. */
static int parse_env(const char *s, int *fd, unsigned long *ino, int *has_ino)
{
	unsigned long v = 0;
	*has_ino = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((v = v * 10 + (unsigned long)(*s - '0')) > 100000)
			return -1;
	*fd = (int)v;
	if (!*s)
		return 0;
	if (*s++ != ':' || *s < '0' || *s > '9')
		return -1;
	for (v = 0; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (unsigned long)(*s - '0');
	*ino = v;
	*has_ino = 1;
	return *s ? -1 : 0;
}

/* Find the trace: take the descriptor when it is the pipe, keep a copy
 * above the usual range (the program may close fd 3, or reuse the
 * number: the copy is close-on-exec, a program started by this one traces
 * through the fd 3 it inherits), and say hello. The new state; UNKNOWN
 * when it is too early to tell (no environment yet). */
static int trace_open(void)
{
	if (!environ)
		return TRACE_UNKNOWN;
	const char *s = env_value(TRACE_FD_ENV "=");
	int fd;
	unsigned long ino = 0;
	int has_ino;
	struct stat st;
	if (!s || parse_env(s, &fd, &ino, &has_ino) < 0)
		return TRACE_OFF;
	if (RAW(SYS_fstat, fd, &st) < 0 || !S_ISFIFO(st.st_mode) || (has_ino && st.st_ino != ino))
		return TRACE_OFF;
	trace_dev = st.st_dev;
	trace_ino = st.st_ino;
	long copy = RAW(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 512);
	if (copy < 0)
		copy = RAW(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 10);
	named_fd = fd;
	named_live = copy >= 0;
	int use = copy >= 0 ? (int)copy : fd;
	char line[40];
	size_t n = 0;
	add(line, &n, sizeof line, (const char[]){ TRACE_HELLO, ' ' }, 2);
	add_num(line, &n, sizeof line, (unsigned long)RAW(SYS_getpid));
	add(line, &n, sizeof line, "\n", 1);
	__atomic_store_n(&trace_fd, use, __ATOMIC_RELEASE);
	send_to(use, line, n);
	return __atomic_load_n(&trace_state, __ATOMIC_ACQUIRE) == TRACE_OFF ? TRACE_OFF : TRACE_ON;
}

/* The trace descriptor, found on first use (from whichever hook or
 * constructor comes first), or -1: silent. Call with in_tracer set. */
static int trace_get(void)
{
	for (;;) {
		int s = __atomic_load_n(&trace_state, __ATOMIC_ACQUIRE);
		if (s == TRACE_ON)
			return __atomic_load_n(&trace_fd, __ATOMIC_ACQUIRE);
		if (s == TRACE_OFF)
			return -1;
		if (s == TRACE_BUSY) {
			/* another thread is opening it: a few system calls */
			RAW(SYS_sched_yield);
			continue;
		}
		int expect = TRACE_UNKNOWN;
		if (!__atomic_compare_exchange_n(&trace_state, &expect, TRACE_BUSY, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		int now = trace_open();
		if (__atomic_load_n(&trace_state, __ATOMIC_ACQUIRE) == TRACE_BUSY)
			__atomic_store_n(&trace_state, now, __ATOMIC_RELEASE);
		if (now == TRACE_UNKNOWN)
			return -1;
	}
}

/* Send the line "X reason": the trace misses something from here on. */
static void send_lost(int fd, const char *reason)
{
	char line[128];
	size_t n = 0;
	if (add(line, &n, sizeof line, (const char[]){ TRACE_LOST, ' ' }, 2) < 0 || add(line, &n, sizeof line, reason, t_strlen(reason)) < 0 ||
	    add(line, &n, sizeof line, "\n", 1) < 0)
		return;
	send_to(fd, line, n);
}

/* Write "KIND PATH\n" for path (relative to dirfd) as one line. A path
 * that cannot be made absolute, is too long for one atomic line or holds
 * a newline is not left out silently: an X line says the trace is
 * incomplete. Keeps errno. */
static void report(char kind, int dirfd, const char *path)
{
	/* The hooked functions' parameters are declared nonnull, and GCC
	 * would drop a NULL check on them after inlining; a program passing
	 * NULL gets EFAULT from the kernel and must not crash here. */
	__asm__("" : "+r"(path));
	if (!path || !*path || in_tracer)
		return;
	int saved = errno;
	in_tracer = 1;
	int fd = trace_get();
	if (fd < 0)
		goto out;
	char line[PIPE_BUF];
	size_t n = 0;
	line[n++] = kind;
	line[n++] = ' ';
	if (path[0] != '/') {
		ssize_t len = base_dir(dirfd, line + n, sizeof line - n);
		if (len < 0) {
			send_lost(fd, "used a relative path that could not be resolved");
			goto out;
		}
		n += (size_t)len;
		if (add(line, &n, sizeof line, "/", 1) < 0)
			goto too_long;
	}
	size_t plen = t_strlen(path);
	if (t_has(path, plen, '\n')) {
		send_lost(fd, "used a path holding a newline");
		goto out;
	}
	if (add(line, &n, sizeof line, path, plen) < 0 || add(line, &n, sizeof line, "\n", 1) < 0)
		goto too_long;
	send_to(fd, line, n);
	goto out;
too_long:
	send_lost(fd, "used a path too long to trace");
out:
	in_tracer = 0;
	errno = saved;
}

/* The same for a directory descriptor (fdopendir): its path from /proc. */
static void report_fd(char kind, int fd)
{
	if (in_tracer || fd < 0)
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

/* The program is about to close descriptor fd, or put another file
 * there (mark_only: only make it close-on-exec). Before the trace's own
 * copy goes, an X line tells cgisnap, and the tracer falls silent; the
 * descriptor 3 the programs this one starts would trace through going
 * away is told the same way, once. Looking the trace up first matters: a
 * constructor closing fd 3 before this library's ran leaves the copy. */
static void losing(int fd, int mark_only)
{
	if (in_tracer || fd < 0)
		return;
	int saved = errno;
	in_tracer = 1;
	int t = trace_get();
	if (t < 0)
		goto out;
	if (fd == t && !mark_only) {
		send_lost(t, "closed or replaced the trace descriptor");
		trace_off();
	} else if (fd == named_fd && __atomic_exchange_n(&named_live, 0, __ATOMIC_ACQ_REL)) {
		send_lost(t, "closed or replaced the trace descriptor");
	}
out:
	in_tracer = 0;
	errno = saved;
}

/* The same for every descriptor from first to last. */
static void losing_range(unsigned first, unsigned last, int mark_only)
{
	if (in_tracer)
		return;
	int saved = errno;
	in_tracer = 1;
	int t = trace_get();
	in_tracer = 0;
	errno = saved;
	if (t < 0)
		return;
	if (named_fd >= 0 && (unsigned)named_fd >= first && (unsigned)named_fd <= last)
		losing(named_fd, mark_only);
	if ((unsigned)t >= first && (unsigned)t <= last)
		losing(t, mark_only);
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

/* The library's own start: find the trace now, so that the hello line
 * comes even from a program that opens nothing. The hooks do the same
 * when they run first. */
__attribute__((constructor)) static void trace_init(void)
{
	in_tracer = 1;
	trace_get();
	in_tracer = 0;
#define SYS_RESOLVE(name) resolve(&slot_##name, #name);
	SYS_HOOKS(SYS_RESOLVE)
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
	REAL_SYS(open);
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
	REAL_SYS(open64);
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
	REAL_SYS(openat);
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
	REAL_SYS(openat64);
	int fd = real_openat64 ? real_openat64(dirfd, path, flags, mode)
			       : raw_openat(dirfd, path, flags | O_LARGEFILE, mode);
	report(open_kind(flags), dirfd, path);
	return fd;
}

EXPORT int __open_2(const char *path, int flags)
{
	REAL_SYS(__open_2);
	int fd = real___open_2 ? real___open_2(path, flags) : raw_openat(AT_FDCWD, path, flags, 0);
	report(open_kind(flags), AT_FDCWD, path);
	return fd;
}

EXPORT int __open64_2(const char *path, int flags)
{
	REAL_SYS(__open64_2);
	int fd = real___open64_2 ? real___open64_2(path, flags)
				 : raw_openat(AT_FDCWD, path, flags | O_LARGEFILE, 0);
	report(open_kind(flags), AT_FDCWD, path);
	return fd;
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	REAL_SYS(__openat_2);
	int fd = real___openat_2 ? real___openat_2(dirfd, path, flags) : raw_openat(dirfd, path, flags, 0);
	report(open_kind(flags), dirfd, path);
	return fd;
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	REAL_SYS(__openat64_2);
	int fd = real___openat64_2 ? real___openat64_2(dirfd, path, flags)
				   : raw_openat(dirfd, path, flags | O_LARGEFILE, 0);
	report(open_kind(flags), dirfd, path);
	return fd;
}

EXPORT int creat(const char *path, mode_t mode)
{
	REAL_SYS(creat);
	int fd = real_creat ? real_creat(path, mode) : raw_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
	report(TRACE_WRITTEN, AT_FDCWD, path);
	return fd;
}

EXPORT int creat64(const char *path, mode_t mode)
{
	REAL_SYS(creat64);
	int fd = real_creat64 ? real_creat64(path, mode)
			      : raw_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC | O_LARGEFILE, mode);
	report(TRACE_WRITTEN, AT_FDCWD, path);
	return fd;
}

/* A hook whose real function could not be found, and that libc alone
 * implements, fails like a missing system call rather than crashing the
 * program. */
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

/* fstatat(fd, "", AT_EMPTY_PATH) is an fstat: report() skips the empty
 * path, so there is nothing to tell apart here. */
#define STAT_AT(dirfd, path, flags) ((void)(flags), report(TRACE_READ, dirfd, path))

EXPORT int stat(const char *path, struct stat *st)
{
	REAL_SYS(stat);
	int rc = real_stat ? real_stat(path, st) : raw_stat(AT_FDCWD, path, st, 0);
	report(TRACE_READ, AT_FDCWD, path);
	return rc;
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	REAL_SYS(stat64);
	int rc = real_stat64 ? real_stat64(path, st) : raw_stat(AT_FDCWD, path, st, 0);
	report(TRACE_READ, AT_FDCWD, path);
	return rc;
}

EXPORT int lstat(const char *path, struct stat *st)
{
	REAL_SYS(lstat);
	int rc = real_lstat ? real_lstat(path, st) : raw_stat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
	report(TRACE_READ, AT_FDCWD, path);
	return rc;
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	REAL_SYS(lstat64);
	int rc = real_lstat64 ? real_lstat64(path, st) : raw_stat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
	report(TRACE_READ, AT_FDCWD, path);
	return rc;
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	REAL_SYS(fstatat);
	int rc = real_fstatat ? real_fstatat(dirfd, path, st, flags) : raw_stat(dirfd, path, st, flags);
	STAT_AT(dirfd, path, flags);
	return rc;
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	REAL_SYS(fstatat64);
	int rc = real_fstatat64 ? real_fstatat64(dirfd, path, st, flags) : raw_stat(dirfd, path, st, flags);
	STAT_AT(dirfd, path, flags);
	return rc;
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *st)
{
	REAL_SYS(statx);
	int rc = real_statx ? real_statx(dirfd, path, flags, mask, st)
			 : (int)RAW(SYS_statx, dirfd, path, flags, mask, st);
	STAT_AT(dirfd, path, flags);
	return rc;
}

EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	REAL_SYS(__xstat);
	int rc = real___xstat ? real___xstat(ver, path, st) : raw_stat(AT_FDCWD, path, st, 0);
	report(TRACE_READ, AT_FDCWD, path);
	return rc;
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	REAL_SYS(__xstat64);
	int rc = real___xstat64 ? real___xstat64(ver, path, st) : raw_stat(AT_FDCWD, path, st, 0);
	report(TRACE_READ, AT_FDCWD, path);
	return rc;
}

EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	REAL_SYS(__lxstat);
	int rc = real___lxstat ? real___lxstat(ver, path, st) : raw_stat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
	report(TRACE_READ, AT_FDCWD, path);
	return rc;
}

EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	REAL_SYS(__lxstat64);
	int rc = real___lxstat64 ? real___lxstat64(ver, path, st) : raw_stat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
	report(TRACE_READ, AT_FDCWD, path);
	return rc;
}

EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	REAL_SYS(__fxstatat);
	int rc = real___fxstatat ? real___fxstatat(ver, dirfd, path, st, flags) : raw_stat(dirfd, path, st, flags);
	STAT_AT(dirfd, path, flags);
	return rc;
}

EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	REAL_SYS(__fxstatat64);
	int rc = real___fxstatat64 ? real___fxstatat64(ver, dirfd, path, st, flags) : raw_stat(dirfd, path, st, flags);
	STAT_AT(dirfd, path, flags);
	return rc;
}

EXPORT int access(const char *path, int mode)
{
	REAL_SYS(access);
	int rc = real_access ? real_access(path, mode) : raw_access(AT_FDCWD, path, mode, 0);
	report(TRACE_EXIST, AT_FDCWD, path);
	return rc;
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	REAL_SYS(faccessat);
	int rc = real_faccessat ? real_faccessat(dirfd, path, mode, flags) : raw_access(dirfd, path, mode, flags);
	report(TRACE_EXIST, dirfd, path);
	return rc;
}

EXPORT int euidaccess(const char *path, int mode)
{
	REAL_SYS(euidaccess);
	int rc = real_euidaccess ? real_euidaccess(path, mode) : raw_access(AT_FDCWD, path, mode, AT_EACCESS);
	report(TRACE_EXIST, AT_FDCWD, path);
	return rc;
}

EXPORT int eaccess(const char *path, int mode)
{
	REAL_SYS(eaccess);
	int rc = real_eaccess ? real_eaccess(path, mode) : raw_access(AT_FDCWD, path, mode, AT_EACCESS);
	report(TRACE_EXIST, AT_FDCWD, path);
	return rc;
}

/* ---- listing ---- */

EXPORT DIR *opendir(const char *path)
{
	REAL(opendir);
	DIR *d = real_opendir ? real_opendir(path) : MISSING(NULL);
	report(TRACE_LISTED, AT_FDCWD, path);
	return d;
}

EXPORT DIR *fdopendir(int fd)
{
	REAL(fdopendir);
	report_fd(TRACE_LISTED, fd); /* before: on success the fd belongs to the DIR */
	return real_fdopendir ? real_fdopendir(fd) : MISSING(NULL);
}

/* scandir and glob list through glibc's internal opendir, which no hook
 * sees: they are hooked themselves. */
EXPORT int scandir(const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
		   int (*compar)(const struct dirent **, const struct dirent **))
{
	REAL(scandir);
	int rc = real_scandir ? real_scandir(path, list, filter, compar) : MISSING(-1);
	report(TRACE_LISTED, AT_FDCWD, path);
	return rc;
}

EXPORT int scandir64(const char *path, struct dirent64 ***list, int (*filter)(const struct dirent64 *),
		     int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	REAL(scandir64);
	int rc = real_scandir64 ? real_scandir64(path, list, filter, compar) : MISSING(-1);
	report(TRACE_LISTED, AT_FDCWD, path);
	return rc;
}

EXPORT int scandirat(int dirfd, const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
		     int (*compar)(const struct dirent **, const struct dirent **))
{
	REAL(scandirat);
	int rc = real_scandirat ? real_scandirat(dirfd, path, list, filter, compar) : MISSING(-1);
	report(TRACE_LISTED, dirfd, path);
	return rc;
}

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

EXPORT int unlink(const char *path)
{
	REAL_SYS(unlink);
	int rc = real_unlink ? real_unlink(path) : (int)RAW(SYS_unlinkat, AT_FDCWD, path, 0);
	report(TRACE_WRITTEN, AT_FDCWD, path);
	return rc;
}

EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	REAL_SYS(unlinkat);
	int rc = real_unlinkat ? real_unlinkat(dirfd, path, flags) : (int)RAW(SYS_unlinkat, dirfd, path, flags);
	report(TRACE_WRITTEN, dirfd, path);
	return rc;
}

EXPORT int rmdir(const char *path)
{
	REAL_SYS(rmdir);
	int rc = real_rmdir ? real_rmdir(path) : (int)RAW(SYS_unlinkat, AT_FDCWD, path, AT_REMOVEDIR);
	report(TRACE_WRITTEN, AT_FDCWD, path);
	return rc;
}

EXPORT int mkdir(const char *path, mode_t mode)
{
	REAL_SYS(mkdir);
	int rc = real_mkdir ? real_mkdir(path, mode) : (int)RAW(SYS_mkdirat, AT_FDCWD, path, mode);
	report(TRACE_WRITTEN, AT_FDCWD, path);
	return rc;
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
	REAL_SYS(mkdirat);
	int rc = real_mkdirat ? real_mkdirat(dirfd, path, mode) : (int)RAW(SYS_mkdirat, dirfd, path, mode);
	report(TRACE_WRITTEN, dirfd, path);
	return rc;
}

EXPORT int link(const char *from, const char *to)
{
	REAL_SYS(link);
	int rc = real_link ? real_link(from, to) : (int)RAW(SYS_linkat, AT_FDCWD, from, AT_FDCWD, to, 0);
	report(TRACE_WRITTEN, AT_FDCWD, to);
	return rc;
}

EXPORT int linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	REAL_SYS(linkat);
	int rc = real_linkat ? real_linkat(fromfd, from, tofd, to, flags)
			     : (int)RAW(SYS_linkat, fromfd, from, tofd, to, flags);
	report(TRACE_WRITTEN, tofd, to);
	return rc;
}

EXPORT int symlink(const char *target, const char *path)
{
	REAL_SYS(symlink);
	int rc = real_symlink ? real_symlink(target, path) : (int)RAW(SYS_symlinkat, target, AT_FDCWD, path);
	report(TRACE_WRITTEN, AT_FDCWD, path);
	return rc;
}

EXPORT int symlinkat(const char *target, int dirfd, const char *path)
{
	REAL_SYS(symlinkat);
	int rc = real_symlinkat ? real_symlinkat(target, dirfd, path) : (int)RAW(SYS_symlinkat, target, dirfd, path);
	report(TRACE_WRITTEN, dirfd, path);
	return rc;
}

EXPORT int truncate(const char *path, off_t len)
{
	REAL_SYS(truncate);
	int rc = real_truncate ? real_truncate(path, len) : (int)RAW(SYS_truncate, path, len);
	report(TRACE_WRITTEN, AT_FDCWD, path);
	return rc;
}

EXPORT int truncate64(const char *path, off64_t len)
{
	REAL_SYS(truncate64);
	int rc = real_truncate64 ? real_truncate64(path, len) : (int)RAW(SYS_truncate, path, len);
	report(TRACE_WRITTEN, AT_FDCWD, path);
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

/* ---- request boundaries in a FastCGI worker ---- */

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

/* The program enters accept on fd: on the listening socket, after a
 * connection (or at the first accept), send "B n". */
static void entering_accept(int fd)
{
	if (in_tracer || fd < 0)
		return;
	int saved = errno;
	in_tracer = 1;
	if (fd == listening_fd() && __atomic_exchange_n(&accept_got, 0, __ATOMIC_ACQ_REL)) {
		int t = trace_get();
		char line[40];
		size_t n = 0;
		unsigned long k = __atomic_add_fetch(&boundaries, 1, __ATOMIC_ACQ_REL);
		add(line, &n, sizeof line, (const char[]){ TRACE_BOUNDARY, ' ' }, 2);
		add_num(line, &n, sizeof line, k);
		add(line, &n, sizeof line, "\n", 1);
		if (t >= 0)
			send_to(t, line, n);
	}
	in_tracer = 0;
	errno = saved;
}

/* accept on fd returned rc: a connection starts the next request. */
static void accepted(int fd, int rc)
{
	if (rc >= 0 && !in_tracer && fd == __atomic_load_n(&accept_fd, __ATOMIC_ACQUIRE))
		__atomic_store_n(&accept_got, 1, __ATOMIC_RELEASE);
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
 * included: their calls pass no hook. That matters for one: opcache. A
 * script it keeps compiled is not opened again, only stat'ed by opcache
 * on each request (validate_timestamps), and that stat is how a page
 * that ran an edited PHP file is found. So opcache alone is loaded
 * without RTLD_DEEPBIND (it needs no symbols of its own to win: PHP's
 * are the same in either scope); every other library as asked. */
static int is_opcache(const char *file)
{
	size_t n = t_strlen(file), base = n;
	while (base > 0 && file[base - 1] != '/')
		base--;
	static const char name[] = "opcache.so";
	size_t k = sizeof name - 1;
	if (n - base != k)
		return 0;
	for (size_t i = 0; i < k; i++)
		if (file[base + i] != name[i])
			return 0;
	return 1;
}

EXPORT void *dlopen(const char *file, int flags)
{
	__asm__("" : "+r"(file)); /* see report() */
#ifdef RTLD_DEEPBIND
	if (file && (flags & RTLD_DEEPBIND) && is_opcache(file))
		flags &= ~RTLD_DEEPBIND;
#endif
	REAL(dlopen);
	return real_dlopen ? real_dlopen(file, flags) : NULL;
}
