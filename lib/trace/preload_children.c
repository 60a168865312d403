/* preload_children.c - the tracer's hooks on fork and wait in a php-cgi
 * that forks children of its own (PHP_FCGI_CHILDREN; protocol.h's
 * CGISNAP_TRACE_SLOTS): each child takes a slot, cgisnap's socket and
 * pipe for one worker, so that cgisnap tells the children apart as it
 * tells apart workers that are processes of their own, while they all
 * share the program's start-up and its opcache.
 *
 * Only the process the variable was given to (the php-cgi master) forks
 * into slots: the constructor takes the variable out of the environment,
 * and a fork in any other process (a child's proc_open) is a plain one.
 * php-cgi's master forks its children one after another and waits for
 * any of them to end, then forks one more: it is single-threaded, and the
 * slot table needs no lock.
 */
#include "trace/preload.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "trace/protocol.h"

/* Slot i: a listening socket on fd first+2i, a pipe on fd first+2i+1;
 * slot_pid[i] the child holding it (0: free). nslots 0: no slots here. */
static int nslots;
static int first;
static long master;
static pid_t slot_pid[TRACE_SLOTS_MAX];
/* Each slot's pipe as found at start: a D line goes only there. */
static dev_t slot_dev[TRACE_SLOTS_MAX];
static ino_t slot_ino[TRACE_SLOTS_MAX];
/* Whether the master's start-up has ended ("B 1" sent). */
static int started;

/* Parse "N:FIRST"; 0, or -1 when malformed. */
static int parse_slots(const char *s, int *n, int *fd)
{
	int v[2] = { 0, 0 };
	for (int k = 0; k < 2; k++) {
		if (*s < '0' || *s > '9')
			return -1;
		for (; *s >= '0' && *s <= '9'; s++)
			if ((v[k] = v[k] * 10 + (*s - '0')) > 100000)
				return -1;
		if (*s++ != (k ? '\0' : ':'))
			return -1;
	}
	*n = v[0];
	*fd = v[1];
	return *n > 0 && *n <= TRACE_SLOTS_MAX && *fd > 2 ? 0 : -1;
}

void slots_init(void)
{
	static const char name[] = TRACE_SLOTS_ENV "=";
	const char *s = env_value(name);
	if (!s)
		return;
	if (parse_slots(s, &nslots, &first) < 0)
		nslots = 0;
	for (int i = 0; i < nslots; i++) {
		struct stat st;
		if (RAW(SYS_fstat, first + 2 * i + 1, &st) < 0 || !S_ISFIFO(st.st_mode)) {
			nslots = 0; /* not what cgisnap gives: no slots */
			break;
		}
		slot_dev[i] = st.st_dev;
		slot_ino[i] = st.st_ino;
	}
	if (nslots)
		master = RAW(SYS_getpid);
	/* Out of the environment: the programs the children start are not
	 * masters. The constructor runs before main, single-threaded. */
	char **env = environ;
	size_t k = 0;
	for (size_t i = 0; env[i]; i++) {
		size_t j = 0;
		while (name[j] && env[i][j] == name[j])
			j++;
		if (name[j])
			env[k++] = env[i];
	}
	env[k] = NULL;
}

/* "KIND value\n", written at once to fd (a slot's pipe). */
static void slot_line(int fd, char kind, unsigned long value)
{
	char line[NUM_LINE_MAX];
	write_pipe(fd, line, num_line(line, kind, value));
}

/* The child's side: slot s's socket on fd 0, its pipe the trace, the
 * other slots closed; a process group of its own, which cgisnap kills
 * with the programs it started. Raw system calls: no hook may see them. */
static void take_slot(int s)
{
	int sock = first + 2 * s, pipe_fd = sock + 1;
	RAW(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
	if (RAW(SYS_getppid) != master)
		RAW(SYS_exit_group, 127); /* the master died before the line above */
	RAW(SYS_setpgid, 0, 0);
	RAW(SYS_dup3, sock, 0, 0);
	int t = trace_retarget(pipe_fd);
	slot_line(t >= 0 ? t : pipe_fd, TRACE_HELLO, (unsigned long)RAW(SYS_getpid));
	for (int fd = first; fd < first + 2 * nslots; fd++)
		if (fd != t)
			RAW(SYS_close, fd);
	nslots = 0;
}

EXPORT pid_t fork(void)
{
	REAL(fork);
	int s = -1;
	if (nslots && RAW(SYS_getpid) == master) {
		for (int i = 0; i < nslots && s < 0; i++)
			if (!slot_pid[i])
				s = i;
	}
	if (s >= 0 && !started) {
		/* What came before was the start-up every child shares. */
		int saved = errno;
		in_tracer = 1;
		int t = trace_get();
		if (t >= 0)
			send_boundary(t, (const char[]){ TRACE_BOUNDARY, ' ', '1', '\n' }, 4);
		in_tracer = 0;
		errno = saved;
		started = 1;
	}
	if (!real_fork)
		return MISSING(-1);
	pid_t pid = real_fork();
	if (pid == 0 && s >= 0) {
		int saved = errno;
		in_tracer = 1;
		take_slot(s);
		in_tracer = 0;
		errno = saved;
	} else if (pid > 0 && s >= 0) {
		slot_pid[s] = pid;
	}
	return pid;
}

/* The master reaped pid: its slot is free, and cgisnap is told why. */
static void reaped(pid_t pid, int status)
{
	if (!nslots || pid <= 0)
		return;
	for (int i = 0; i < nslots; i++) {
		if (slot_pid[i] == pid) {
			struct stat st;
			int fd = first + 2 * i + 1;
			slot_pid[i] = 0;
			if (RAW(SYS_fstat, fd, &st) == 0 && st.st_dev == slot_dev[i] && st.st_ino == slot_ino[i])
				slot_line(fd, TRACE_DIED, (unsigned long)(unsigned)status);
			return;
		}
	}
}

/* waitpid, telling of the children reaped; wait(2) is waitpid(-1,
 * status, 0). One body for both hooks, called directly: how symbols are
 * interposed does not matter. */
static pid_t wait_any(pid_t which, int *status, int options)
{
	REAL(waitpid);
	int st = 0;
	pid_t pid = real_waitpid ? real_waitpid(which, &st, options) : (pid_t)RAW(SYS_wait4, which, &st, options, 0);
	int saved = errno;
	if (pid > 0 && (WIFEXITED(st) || WIFSIGNALED(st)))
		reaped(pid, st);
	errno = saved;
	if (status)
		*status = st;
	return pid;
}

EXPORT pid_t waitpid(pid_t which, int *status, int options)
{
	return wait_any(which, status, options);
}

EXPORT pid_t wait(int *status)
{
	return wait_any(-1, status, 0);
}
