/* preload.c - the dependency tracer's core: a library preloaded
 * (LD_PRELOAD) into the CGI programs that 'cgisnap watch' renders,
 * reporting every path the program opens, stats, lists or changes, so that
 * watch knows which pages to re-render when a file changes.
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
 * process) as build/cgisnap-trace.so, from this file (finding the trace,
 * writing its lines, the constructor), preload_files.c (the hooks on
 * paths) and preload_process.c (the hooks on descriptors, accepts and
 * libraries), which share preload.h.
 */
#include "trace/preload.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "trace/protocol.h"

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

/* Set while the library works, so that calls made by the library itself
 * (or by dlsym) pass straight through. initial-exec: reading it must not
 * allocate, which the general TLS model may do. */
__thread int in_tracer __attribute__((tls_model("initial-exec")));

/* The real function behind a hook: looked up on first use, under the
 * guard; NULL while the lookup itself runs (a nested call from dlsym) or
 * when there is none. The pointer is published atomically: threads
 * racing here all find the same one. */
void *resolve(void **slot, const char *name)
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

/* The slots of the hooks the kernel can stand in for (preload.h's
 * SYS_HOOKS), filled by the constructor. */
#define SYS_SLOT(name) void *slot_##name;
SYS_HOOKS(SYS_SLOT)

/* Small loops for what the library needs of string.h: nothing of the
 * program's may stand in for them (the compiler may still emit memcpy or
 * strlen, plain functions bound when the library is loaded). */
size_t t_strlen(const char *s)
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
int add(char *line, size_t *n, size_t cap, const char *s, size_t len)
{
	if (*n + len >= cap)
		return -1;
	for (size_t i = 0; i < len; i++)
		line[*n + i] = s[i];
	*n += len;
	return 0;
}

/* Append the decimal digits of v. */
int add_num(char *line, size_t *n, size_t cap, unsigned long v)
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

size_t num_line(char line[NUM_LINE_MAX], char kind, unsigned long v)
{
	size_t n = 0;
	add(line, &n, NUM_LINE_MAX, (const char[]){ kind, ' ' }, 2);
	add_num(line, &n, NUM_LINE_MAX, v);
	add(line, &n, NUM_LINE_MAX, "\n", 1);
	return n;
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

/* A pipe nobody reads any more must not kill the program with SIGPIPE:
 * the signal is blocked around the write, and taken back if the write
 * raised it. */
int write_pipe(int fd, const char *data, size_t n)
{
	ksigset pipe_only = KSIGBIT(SIGPIPE), old = 0;
	RAW(SYS_rt_sigprocmask, SIG_BLOCK, &pipe_only, &old, sizeof(ksigset));
	long r;
	while ((r = RAW(SYS_write, fd, data, n)) < 0 && errno == EINTR)
		;
	if (r < 0 && errno == EPIPE && !(old & pipe_only)) {
		struct timespec now = { 0, 0 };
		RAW(SYS_rt_sigtimedwait, &pipe_only, NULL, &now, sizeof(ksigset));
	}
	RAW(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(ksigset));
	return r < 0 ? -1 : 0;
}

/* Write lines (whole, at most PIPE_BUF bytes: one atomic write) to the
 * pipe, when the trace descriptor is still the pipe it was (a program
 * that closed it, unseen by the hooks, may have a file of its own there
 * now). A full pipe waits for cgisnap, which always reads. A pipe that
 * fails the write (nobody reads it any more) silences the tracer. */
void send_to(int fd, const char *line, size_t n)
{
	if (!is_trace_pipe(fd) || write_pipe(fd, line, n) < 0)
		trace_off();
}

/* ---- the lines not written yet ----
 *
 * A PHP page opens or stats a few thousand files, several of them many
 * times: one write per call, each waking cgisnap, cost more than the
 * render itself. Lines wait in one buffer of PIPE_BUF bytes, written with
 * one write(2) when it is full and at every point after which cgisnap
 * may read the trace as whole or the buffer would be lost: the program's
 * exit (the destructor; _exit), an exec, a FastCGI worker entering accept
 * (the request's boundary goes with its lines), the trace descriptor
 * going away. A line repeating one already sent in this render (this
 * process's life, or a worker's request) is dropped: cgisnap keeps each
 * path once anyway.
 *
 * One buffer for all threads, under a lock that names its holder (the
 * thread's id): taken only with in_tracer set, so a signal handler never
 * waits for the code it interrupted. A process that finds the lock held
 * by a thread that is not one of its own (a vfork child sharing its
 * parent's memory, or a child of a raw clone) writes its line at once,
 * unbuffered. fork's child starts with an empty buffer (pthread_atfork):
 * its parent still holds, and will write, the lines it copied. */
static struct {
	int owner;   /* the thread holding the lock, 0: free */
	size_t len;  /* bytes of data in use: whole lines */
	char data[PIPE_BUF];
} pending;
/* Set by the destructor: what the program does after it (other
 * libraries' destructors) is written at once. */
static int unbuffered;

/* The lines sent in this render, as 64-bit hashes (0: a free slot) in an
 * open-addressed table; when half full, lines are no longer dropped. */
#define SEEN_SLOTS 16384
static unsigned long long seen[SEEN_SLOTS];
static unsigned seen_used;

/* This thread's id, asked once (fork's child asks again). */
static __thread int self_tid __attribute__((tls_model("initial-exec")));

/* Take the buffer's lock: 1, or 0 when it is held by a thread not of
 * this process (the line must then go out unbuffered). */
static int pending_lock(void)
{
	if (!self_tid)
		self_tid = (int)RAW(SYS_gettid);
	int self = self_tid;
	for (;;) {
		int expect = 0;
		if (__atomic_compare_exchange_n(&pending.owner, &expect, self, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return 1;
		if (expect == self)
			return 0; /* cannot happen: in_tracer keeps it out */
		if (RAW(SYS_tgkill, RAW(SYS_getpid), expect, 0) < 0 && errno == ESRCH)
			return 0;
		RAW(SYS_sched_yield);
	}
}

static void pending_unlock(void)
{
	__atomic_store_n(&pending.owner, 0, __ATOMIC_RELEASE);
}

/* Write what waits. Under the lock. */
static void flush_locked(int fd)
{
	if (pending.len)
		send_to(fd, pending.data, pending.len);
	pending.len = 0;
}

/* Whether line is new to this render (and now seen). Under the lock. */
static int seen_first(const char *line, size_t n)
{
	if (seen_used >= SEEN_SLOTS / 2)
		return 1;
	unsigned long long h = 14695981039346656037ULL; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)line[i]) * 1099511628211ULL;
	h |= 1;
	for (size_t i = h & (SEEN_SLOTS - 1);; i = (i + 1) & (SEEN_SLOTS - 1)) {
		if (!seen[i]) {
			seen[i] = h;
			seen_used++;
			return 1;
		}
		if (seen[i] == h)
			return 0;
	}
}

/* Queue one whole line (below PIPE_BUF) for the trace descriptor fd;
 * once: dropped when this render sent it already; boundary: it ends a
 * request (everything goes out now, and the next request's lines are all
 * new again). Call with in_tracer set. */
static void queue_line(int fd, const char *line, size_t n, int once, int boundary)
{
	if (!pending_lock()) {
		send_to(fd, line, n);
		return;
	}
	if (!once || seen_first(line, n)) {
		if (pending.len + n > sizeof pending.data)
			flush_locked(fd);
		add(pending.data, &pending.len, sizeof pending.data + 1, line, n);
	}
	if (boundary && seen_used) {
		for (size_t i = 0; i < SEEN_SLOTS; i++)
			seen[i] = 0;
		seen_used = 0;
	}
	if (boundary || unbuffered)
		flush_locked(fd);
	pending_unlock();
}

void send_line(int fd, const char *line, size_t n)
{
	queue_line(fd, line, n, 0, 0);
}

void send_boundary(int fd, const char *line, size_t n)
{
	queue_line(fd, line, n, 0, 1);
}

/* Write what waits, now. Call with in_tracer set. */
static void flush_now(int fd)
{
	if (fd >= 0 && pending_lock()) {
		flush_locked(fd);
		pending_unlock();
	}
}

void trace_flush(void)
{
	if (in_tracer)
		return;
	int saved = errno;
	in_tracer = 1;
	flush_now(trace_get());
	in_tracer = 0;
	errno = saved;
}

/* fork's child: the lines in its copy of the buffer are its parent's. */
static void forked_child(void)
{
	self_tid = 0;
	pending.len = 0;
	__atomic_store_n(&pending.owner, 0, __ATOMIC_RELEASE);
}

/* The value of variable name ("NAME="), read from environ without
 * getenv. */
const char *env_value(const char *name)
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
	char line[NUM_LINE_MAX];
	size_t n = num_line(line, TRACE_HELLO, (unsigned long)RAW(SYS_getpid));
	__atomic_store_n(&trace_fd, use, __ATOMIC_RELEASE);
	send_to(use, line, n);
	return __atomic_load_n(&trace_state, __ATOMIC_ACQUIRE) == TRACE_OFF ? TRACE_OFF : TRACE_ON;
}

/* The trace descriptor, found on first use (from whichever hook or
 * constructor comes first), or -1: silent. Call with in_tracer set. */
int trace_get(void)
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

void send_lost(int fd, const char *reason)
{
	char line[128];
	size_t n = 0;
	if (add(line, &n, sizeof line, (const char[]){ TRACE_LOST, ' ' }, 2) < 0 ||
	    add(line, &n, sizeof line, reason, t_strlen(reason)) < 0 || add(line, &n, sizeof line, "\n", 1) < 0)
		return;
	send_line(fd, line, n);
}

/* Queue "KIND PATH\n" for path (relative to dirfd) as one line. A path
 * that cannot be made absolute, is too long for one atomic line or holds
 * a newline is not left out silently: an X line says the trace is
 * incomplete. One the kernel refuses outright (PATH_MAX bytes or more)
 * is no dependency: nothing is said. Keeps errno. */
void report(char kind, int dirfd, const char *path)
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
	/* The kernel takes no path of PATH_MAX bytes or more (ENAMETOOLONG):
	 * such a string names no file, whatever is created, and the page
	 * depends on nothing by it. DokuWiki's LESS compiler asks whether a
	 * stretch of CSS is a file. */
	size_t plen = t_strlen(path);
	if (plen >= PATH_MAX)
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
	if (t_has(path, plen, '\n')) {
		send_lost(fd, "used a path holding a newline");
		goto out;
	}
	if (add(line, &n, sizeof line, path, plen) < 0 || add(line, &n, sizeof line, "\n", 1) < 0)
		goto too_long;
	queue_line(fd, line, n, 1, 0);
	goto out;
too_long:
	send_lost(fd, "used a path too long to trace");
out:
	in_tracer = 0;
	errno = saved;
}

/* The same for a directory descriptor (fdopendir): its path from /proc. */
void report_fd(char kind, int fd)
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
void losing(int fd, int mark_only)
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
		flush_now(t);
		trace_off();
	} else if (fd == named_fd && __atomic_exchange_n(&named_live, 0, __ATOMIC_ACQ_REL)) {
		send_lost(t, "closed or replaced the trace descriptor");
	}
out:
	in_tracer = 0;
	errno = saved;
}

/* The same for every descriptor from first to last. */
void losing_range(unsigned first, unsigned last, int mark_only)
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

int trace_retarget(int pipe_fd)
{
	int t = trace_get();
	struct stat st;
	if (t < 0)
		return -1;
	if (RAW(SYS_fstat, pipe_fd, &st) < 0 || !S_ISFIFO(st.st_mode) || !is_trace_pipe(t)) {
		trace_off(); /* never into the master's pipe, nor a file of php's */
		return -1;
	}
	if (t != pipe_fd && RAW(SYS_dup3, pipe_fd, t, O_CLOEXEC) < 0) {
		trace_off();
		return -1;
	}
	/* fd 3, for the programs the child starts, where it still is the
	 * master's pipe */
	if (named_fd >= 0 && named_fd != t && __atomic_load_n(&named_live, __ATOMIC_ACQUIRE) &&
	    is_trace_pipe(named_fd))
		RAW(SYS_dup3, pipe_fd, named_fd, 0);
	trace_dev = st.st_dev;
	trace_ino = st.st_ino;
	return t;
}

/* The library's own start: find the trace now, so that the hello line
 * comes even from a program that opens nothing. The hooks do the same
 * when they run first. */
__attribute__((constructor)) static void trace_init(void)
{
	in_tracer = 1;
	trace_get();
	slots_init();
	in_tracer = 0;
#define SYS_RESOLVE(name) resolve(&slot_##name, #name);
	SYS_HOOKS(SYS_RESOLVE)
	pthread_atfork(NULL, NULL, forked_child);
}

/* The program exits: what waits goes out, and whatever runs after this
 * (destructors of libraries loaded before this one) is written at once. */
__attribute__((destructor)) static void trace_fini(void)
{
	in_tracer = 1;
	int fd = trace_get();
	if (pending_lock()) {
		unbuffered = 1;
		if (fd >= 0)
			flush_locked(fd);
		pending_unlock();
	}
	in_tracer = 0;
}
