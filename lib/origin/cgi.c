/* cgi.c - run one CGI program (RFC 3875) and collect what it writes: its
 * stdout for the response parser, its stderr for the log, and, when
 * dependency tracing is on, the paths the preloaded tracer reports on
 * fd 3 (lib/trace/preload.c has the protocol; traceread.c reads it),
 * and whether that trace is whole: a render without the tracer's hello line (a statically linked
 * program), or one whose program took the descriptor away, is untraced.
 *
 * Many renders run at once from several threads, so the program is started
 * with posix_spawn (never fork in a threaded program; vmfork to run it as
 * another user) and every pipe is made close-on-exec: a write end
 * inherited by another render's child would keep this render's pipe from
 * ever reaching end-of-file.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/vmfork.h"
#include "origin/origin_impl.h"
#include "origin/stderrlog.h"
#include "trace/protocol.h"
#include "trace/traceread.h"
#include "base/xalloc.h"

enum { OUT, ERR, TRACE, NSTREAMS };

/* A pipe whose two ends are close-on-exec and above TRACE_FD, so that the
 * child's dup2 onto 0..3 never overwrites a source it still needs. */
static int make_pipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		if (p[i] > TRACE_FD)
			continue;
		int fd = fcntl(p[i], F_DUPFD_CLOEXEC, TRACE_FD + 1);
		if (fd < 0) {
			int saved = errno;
			close(p[0]);
			close(p[1]);
			errno = saved;
			return -1;
		}
		close(p[i]);
		p[i] = fd;
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The environment for the child: env, plus the tracer's variables (the
 * trace pipe named by descriptor and inode: trace.c writes only to that
 * pipe). The array and the strings made here are freed by free_envp. */
static char **build_envp(const struct origin *o, const struct strlist *env, int trace_pipe, char **owned)
{
	char **envp = xcalloc(env->n + 3, sizeof *envp);
	const char *user_preload = NULL;
	size_t n = 0;

	for (size_t i = 0; i < env->n; i++) {
		if (o->trace_lib && !strncmp(env->items[i], "LD_PRELOAD=", 11)) {
			user_preload = env->items[i] + 11;
			continue;
		}
		envp[n++] = env->items[i];
	}
	if (o->trace_lib) {
		/* The tracer first, then whatever the user preloads too. */
		owned[0] = user_preload && *user_preload
				   ? xasprintf("LD_PRELOAD=%s %s", o->trace_lib, user_preload)
				   : xasprintf("LD_PRELOAD=%s", o->trace_lib);
		struct stat st;
		owned[1] = fstat(trace_pipe, &st) == 0
				   ? xasprintf(TRACE_FD_ENV "=%d:%llu", TRACE_FD, (unsigned long long)st.st_ino)
				   : xasprintf(TRACE_FD_ENV "=%d", TRACE_FD);
		envp[n++] = owned[0];
		envp[n++] = owned[1];
	}
	envp[n] = NULL;
	return envp;
}

/* Wait for pid until deadline (ms); 0 when it was reaped into *status. */
static int wait_until(pid_t pid, long long deadline, int *status)
{
	long delay_us = 100;
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR) {
			*status = 0; /* reaped by someone else: nothing more to learn */
			return 0;
		}
		if (now_ms() >= deadline)
			return -1;
		struct timespec ts = { 0, delay_us * 1000 };
		nanosleep(&ts, NULL);
		if (delay_us < 20000)
			delay_us *= 2;
	}
}

/* End the program and everything it started. */
static void kill_group(pid_t pid)
{
	int status;
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* The signals a fresh program expects at their defaults, whatever
 * cgisnap ignores or handles. */
static const int default_signals[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGALRM,
				       SIGUSR1, SIGUSR2, SIGXFSZ };
#define NDEFAULT_SIGNALS (sizeof default_signals / sizeof default_signals[0])

void origin_child_signals(void)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	for (size_t i = 0; i < NDEFAULT_SIGNALS; i++)
		sigaction(default_signals[i], &dfl, NULL);
}

/* What the child of spawn_as_user needs, prepared before it starts. */
struct as_user {
	const struct origin *o;
	const struct origin_script *s;
	char **argv, **envp;
	int (*pipes)[2];
	int report; /* written the errno of a step that failed */
};

/* spawn_as_user's child: system calls only (it borrows cgisnap's memory,
 * base/vmfork.h). */
static int exec_as_user(void *arg)
{
	const struct as_user *a = arg;
	const struct origin *o = a->o;
	setpgid(0, 0);
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(a->pipes[OUT][1], 1) < 0 || dup2(a->pipes[ERR][1], 2) < 0 ||
	    (o->trace_lib && dup2(a->pipes[TRACE][1], TRACE_FD) < 0))
		goto failed;
	int keep = o->trace_lib ? TRACE_FD + 1 : TRACE_FD;
	close_range((unsigned)keep, (unsigned)a->report - 1, 0);
	close_range((unsigned)a->report + 1, ~0U, 0);
	origin_child_signals();
	if (runas_enter(o->runas) < 0 || chdir(a->s->dir) < 0)
		goto failed;
	execve(a->argv[0], a->argv, a->envp);
failed:;
	int e = errno;
	while (write(a->report, &e, sizeof e) < 0 && errno == EINTR)
		;
	return 127;
}

/* spawn's way when the program runs as another user (base/runas.h):
 * posix_spawn cannot switch users, so the child makes posix_spawn's
 * changes itself, the user's switch before entering its directory as
 * Apache does. An exec that fails is told through a close-on-exec pipe,
 * as posix_spawn tells it. */
static int spawn_as_user(const struct origin *o, const struct origin_script *s, char **argv, char **envp,
			 int pipes[NSTREAMS][2], pid_t *pid, char *err)
{
	int report[2], e = 0;
	if (make_pipe(report) < 0)
		return err_sys(err, "cannot run '%s'", argv[0]);
	struct as_user a = { o, s, argv, envp, pipes, report[1] };
	*pid = vmfork_switching_user(exec_as_user, &a);
	if (*pid < 0) {
		close(report[0]);
		close(report[1]);
		return err_sys(err, "cannot run '%s'", argv[0]);
	}
	close(report[1]);
	ssize_t r;
	while ((r = read(report[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (r != (ssize_t)sizeof e)
		return 0; /* end of file: the exec happened */
	kill_group(*pid);
	errno = e;
	return err_sys(err, "cannot run '%s' as %s", argv[0], o->runas->name);
}

static int spawn(const struct origin *o, const struct origin_script *s, char **argv, char **envp,
		 int pipes[NSTREAMS][2], pid_t *pid, char *err)
{
	if (o->runas && o->runas->active)
		return spawn_as_user(o, s, argv, envp, pipes, pid, err);

	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipes[OUT][1], 1);
	posix_spawn_file_actions_adddup2(&fa, pipes[ERR][1], 2);
	if (o->trace_lib)
		posix_spawn_file_actions_adddup2(&fa, pipes[TRACE][1], TRACE_FD);
	/* CGI servers start a script in its own directory; PHP's relative
	 * includes depend on it. */
	posix_spawn_file_actions_addchdir_np(&fa, s->dir);
	/* Nothing else: not what cgisnap inherited, nor what a library in
	 * another thread opened without close-on-exec. */
	posix_spawn_file_actions_addclosefrom_np(&fa, o->trace_lib ? TRACE_FD + 1 : TRACE_FD);

	/* Its own process group, so that a timeout can kill all it started;
	 * signals as a fresh program expects them, whatever cgisnap ignores. */
	posix_spawnattr_init(&attr);
	posix_spawnattr_setpgroup(&attr, 0);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	sigemptyset(&dfl);
	for (size_t i = 0; i < NDEFAULT_SIGNALS; i++)
		sigaddset(&dfl, default_signals[i]);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					       POSIX_SPAWN_SETSIGDEF);

	rc = posix_spawn(pid, argv[0], &fa, &attr, argv, envp);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		errno = rc;
		return err_sys(err, "cannot run '%s'", argv[0]);
	}
	return 0;
}

/* The program's argument list: php-cgi finds the script in
 * SCRIPT_FILENAME and gets its -d settings; other handlers get the script
 * as their argument; a script run directly gets none. */
static void build_argv(const struct origin *o, const struct origin_script *s, char **argv,
		       char **session_arg)
{
	size_t n = 0;
	*session_arg = NULL;
	if (!s->handler) {
		argv[n++] = s->filename;
	} else if (s->handler->php) {
		argv[n++] = s->handler->prog;
		if (o->php_session_dir) {
			*session_arg = xasprintf("session.save_path=%s", o->php_session_dir);
			argv[n++] = "-d";
			argv[n++] = "opcache.enable=0";
			argv[n++] = "-d";
			argv[n++] = *session_arg;
			argv[n++] = "-d";
			argv[n++] = SESSION_GC_ARG;
		}
	} else {
		argv[n++] = s->handler->prog;
		argv[n++] = s->filename;
	}
	argv[n] = NULL;
}

int cgi_run(const struct origin *o, const char *target, const struct origin_script *s,
	    const struct strlist *env, struct spill *out, struct origin_response *rs,
	    int *exit_status, char *err)
{
	char *argv[10], *session_arg, *owned_env[2] = { NULL, NULL };
	char **envp = NULL;
	int pipes[NSTREAMS][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	int nstreams = o->trace_lib ? NSTREAMS : TRACE;
	struct origin_log log;
	struct trace_read trace = TRACE_READ_INIT;
	struct trace_lists lists = origin_trace_lists(rs);
	bool over = false, timed_out = false;
	pid_t pid = -1;
	int status = 0, rc = -1;

	*exit_status = 0;
	origin_log_init(&log, target);
	build_argv(o, s, argv, &session_arg);
	for (int i = 0; i < nstreams; i++) {
		if (make_pipe(pipes[i]) < 0) {
			err_sys(err, "cannot make a pipe");
			goto out;
		}
	}
	envp = build_envp(o, env, pipes[TRACE][1], owned_env);
	if (spawn(o, s, argv, envp, pipes, &pid, err) < 0)
		goto out;
	for (int i = 0; i < nstreams; i++)
		close_fd(&pipes[i][1]);

	long long deadline = now_ms() + o->timeout_s * 1000LL;
	struct pollfd pfd[NSTREAMS];
	int open_streams = nstreams;
	for (int i = 0; i < nstreams; i++)
		pfd[i] = (struct pollfd){ pipes[i][0], POLLIN, 0 };
	while (open_streams && !over) {
		long long left = deadline - now_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		int ready = poll(pfd, (nfds_t)nstreams, (int)(left > 60000 ? 60000 : left));
		if (ready < 0 && errno != EINTR) {
			err_sys(err, "cannot wait for '%s'", argv[0]);
			kill_group(pid);
			goto out;
		}
		for (int i = 0; ready > 0 && i < nstreams; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			char chunk[65536];
			ssize_t r = read(pfd[i].fd, chunk, sizeof chunk);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0) {
				close_fd(&pipes[i][0]);
				pfd[i].fd = -1;
				open_streams--;
				continue;
			}
			if (i == OUT) {
				if (spill_add(out, chunk, (size_t)r, err) < 0) {
					kill_group(pid);
					goto out;
				}
				over = (unsigned long long)out->len > o->max_output;
			} else if (i == ERR) {
				origin_log_feed(&log, chunk, (size_t)r);
			} else {
				trace_read_feed(&trace, s->dir, chunk, (size_t)r, &lists);
			}
		}
	}

	if (!timed_out && !over && wait_until(pid, deadline, &status) < 0)
		timed_out = true;
	if (timed_out || over)
		kill_group(pid);
	if (timed_out) {
		err_set(err, "timed out after %ld s", o->timeout_s);
	} else if (over) {
		err_set(err, "output over %ld MiB", o->max_output_mb);
	} else if (WIFSIGNALED(status)) {
		const char *name = sigabbrev_np(WTERMSIG(status));
		err_set(err, "killed by signal %d (SIG%s)", WTERMSIG(status), name ? name : "?");
	} else {
		/* A non-zero exit is the caller's to weigh against what the
		 * program wrote. */
		*exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
		rc = 0;
	}
	trace_read_finish(&lists);
	const char *gap = o->trace_lib ? trace_read_gap(&trace, argv[0]) : NULL;
	if (gap)
		origin_mark_untraced(rs, argv[0], gap);
out:
	for (int i = 0; i < NSTREAMS; i++) {
		close_fd(&pipes[i][0]);
		close_fd(&pipes[i][1]);
	}
	origin_log_flush(&log);
	trace_read_release(&trace);
	free(envp);
	free(owned_env[0]);
	free(owned_env[1]);
	free(session_arg);
	return rc;
}
