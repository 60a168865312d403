/* preload.h - what the files of the dependency tracer (the library
 * preloaded into CGI programs, build/cgisnap-trace.so) share: the
 * reporting core (preload.c), the hooks on paths (preload_files.c) and
 * the hooks on the process's descriptors, accepts and libraries
 * (preload_process.c). Not for use outside them; preload.c's opening
 * comment says what the library must never do.
 *
 * Each of those files includes this header first: _FORTIFY_SOURCE must
 * be off before any system header, or the fortified inline wrappers
 * would stand between the program and the hooks.
 *
 * A hook's steps: the real function through REAL_SYS (looked up by the
 * constructor) or REAL (looked up on the hook's first call), called when
 * found, else the system call or MISSING; then report() the path, which
 * keeps errno. Everything here is hidden: nothing of the library's own
 * may be bound to, or replaced by, a symbol of the program's.
 */
#undef _FORTIFY_SOURCE

#ifndef CGISNAP_TRACE_PRELOAD_H
#define CGISNAP_TRACE_PRELOAD_H

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define HIDDEN __attribute__((visibility("hidden")))

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

/* The raw system call, for the library's own work and for hooks whose
 * real function is not at hand. */
#define RAW(...) syscall(__VA_ARGS__)

/* A hook whose real function could not be found, and that libc alone
 * implements, fails like a missing system call rather than crashing the
 * program. */
#define MISSING(rv) (errno = ENOSYS, (rv))

/* Set while the library works, so that calls made by the library itself
 * (or by dlsym) pass straight through. initial-exec: reading it must not
 * allocate, which the general TLS model may do. */
extern __thread int in_tracer __attribute__((tls_model("initial-exec"))) HIDDEN;

/* The real function behind a hook: looked up on first use, under the
 * guard; NULL while the lookup itself runs or when there is none. */
HIDDEN void *resolve(void **slot, const char *name);

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

#define SYS_SLOT_DECL(name) extern void *slot_##name HIDDEN;
SYS_HOOKS(SYS_SLOT_DECL)

#define REAL_SYS(name) \
	__typeof__(name) *real_##name = (__typeof__(name) *)__atomic_load_n(&slot_##name, __ATOMIC_ACQUIRE)

/* The library's own string loops (preload.c): nothing of the program's
 * may stand in for them. */
HIDDEN size_t t_strlen(const char *s);
/* Append s (len bytes), or the decimal digits of v, to line[*n..cap); 0,
 * or -1 when it does not fit. */
HIDDEN int add(char *line, size_t *n, size_t cap, const char *s, size_t len);
HIDDEN int add_num(char *line, size_t *n, size_t cap, unsigned long v);
/* The protocol's "KIND number\n" line (H, B, A, D) in line: its length. */
#define NUM_LINE_MAX 40
HIDDEN size_t num_line(char line[NUM_LINE_MAX], char kind, unsigned long v);
/* The value of variable name ("NAME="), read from environ without
 * getenv. */
HIDDEN const char *env_value(const char *name);

/* The trace descriptor, found on first use, or -1: silent. Call with
 * in_tracer set. */
HIDDEN int trace_get(void);
/* Write one line to the trace descriptor fd, when it is still the pipe
 * it was; SIGPIPE never reaches the program. */
HIDDEN void send_to(int fd, const char *line, size_t n);
/* Write data to the pipe fd with one write(2), SIGPIPE kept from the
 * program (a pipe nobody reads any more); 0, or -1. Keeps no errno. */
HIDDEN int write_pipe(int fd, const char *data, size_t n);
/* Queue one line for fd; it is written with the lines around it once the
 * buffer is full or at trace_flush. send_boundary: a FastCGI worker's "B
 * n", written at once with everything before it. Call with in_tracer
 * set. */
HIDDEN void send_line(int fd, const char *line, size_t n);
HIDDEN void send_boundary(int fd, const char *line, size_t n);
/* Queue "X reason": the trace misses something from here on. Call with
 * in_tracer set. */
HIDDEN void send_lost(int fd, const char *reason);
/* Write every queued line now: before an exec or _exit would lose them.
 * Keeps errno; nothing while in_tracer. */
HIDDEN void trace_flush(void);
/* Write "KIND PATH" for path (relative to dirfd), or an X line when it
 * cannot be told whole. Keeps errno; nothing while in_tracer. */
HIDDEN void report(char kind, int dirfd, const char *path);
/* The same for a directory descriptor (fdopendir): its path from /proc. */
HIDDEN void report_fd(char kind, int fd);
/* The program is about to close descriptor fd, or every one from first
 * to last, or put another file there (mark_only: only make it
 * close-on-exec): before the trace's own goes, an X line. */
HIDDEN void losing(int fd, int mark_only);
HIDDEN void losing_range(unsigned first, unsigned last, int mark_only);
/* Put the pipe on fd pipe_fd where the trace writes (its own copy and
 * the descriptor CGISNAP_TRACE_FD named), in a child that takes a slot
 * of its own (preload_children.c); nothing when the trace is off. The
 * trace's descriptor, or -1. Call with in_tracer set. */
HIDDEN int trace_retarget(int pipe_fd);
/* preload_children.c's part of the constructor: read (and take out of
 * the environment) CGISNAP_TRACE_SLOTS. */
HIDDEN void slots_init(void);

#endif
