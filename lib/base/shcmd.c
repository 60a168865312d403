/* shcmd.c - a user's shell command, run for what it prints, within a time
 * bound (shcmd.h). */
#include "base/shcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/xalloc.h"

/* The bound in ms: SHCMD_TIMEOUT_MS, or the test hook's. */
static long timeout_ms(void)
{
	const char *v = getenv("CGISNAP_TEST_SHCMD_TIMEOUT_MS");
	char *end;
	long ms;
	if (!v || !*v)
		return SHCMD_TIMEOUT_MS;
	errno = 0;
	ms = strtol(v, &end, 10);
	return errno || *end || ms <= 0 ? SHCMD_TIMEOUT_MS : ms;
}

/* ms left until deadline (0 when past it), for poll(2). */
static int left_ms(long long deadline)
{
	long long left = deadline - now_ms();
	return left <= 0 ? 0 : left > 60 * 60 * 1000 ? 60 * 60 * 1000 : (int)left;
}

/* Read fd into out until EOF, more than max bytes (*too_long) or the
 * deadline. 0 at EOF or too long, 1 at the deadline. */
static int read_until(int fd, size_t max, struct buf *out, long long deadline, bool *too_long)
{
	size_t start = out->len;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int ready = poll(&p, 1, left_ms(deadline));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0) {
			*too_long = true; /* cannot be read: as buf_read_fd says */
			return 0;
		}
		if (ready == 0)
			return 1;
		size_t room = max + 1 - (out->len - start);
		if (room > 65536)
			room = 65536;
		buf_grow(out, room);
		ssize_t r = read(fd, out->data + out->len, room);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			*too_long = true;
			return 0;
		}
		if (r == 0)
			return 0;
		out->len += (size_t)r;
		out->data[out->len] = '\0';
		if (out->len - start > max) {
			*too_long = true;
			return 0;
		}
	}
}

/* Reap pid by the deadline: 0 with *status, 1 when it still runs then.
 * There is no descriptor to poll for a child's exit here, so it is looked
 * at with a growing pause (a command that closed its stdout is nearly
 * always gone by the first look). */
static int reap_until(pid_t pid, int *status, long long deadline)
{
	long pause_us = 500;
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return 0; /* not ours to wait for any more: nothing to reap */
		if (now_ms() >= deadline)
			return 1;
		struct timespec ts = { 0, pause_us * 1000 };
		nanosleep(&ts, NULL);
		if (pause_us < 20000)
			pause_us *= 2;
	}
}

/* End the command's process group: SIGTERM, SIGKILL after the grace, and
 * reap its shell. */
static void kill_group(pid_t pid)
{
	int status;
	kill(-pid, SIGTERM);
	if (reap_until(pid, &status, now_ms() + SHCMD_KILL_GRACE_MS) == 0) {
		kill(-pid, SIGKILL); /* what the shell left behind */
		return;
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* "60 s", or "250 ms" for a bound that is no whole number of seconds. */
static void bound_text(char *s, size_t n, long ms)
{
	if (ms % 1000)
		snprintf(s, n, "%ld ms", ms);
	else
		snprintf(s, n, "%ld s", ms / 1000);
}

/* Our environment with HOME, USER and LOGNAME those of ra's user (when
 * it is active), made before the fork. Free with free_env. */
static char **user_env(const struct runas *ra)
{
	if (!ra || !ra->active)
		return NULL;
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 4, sizeof *env);
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "HOME=", 5) && strncmp(environ[i], "USER=", 5) &&
		    strncmp(environ[i], "LOGNAME=", 8))
			env[k++] = environ[i];
	env[k++] = xasprintf("HOME=%s", ra->home);
	env[k++] = xasprintf("USER=%s", ra->name);
	env[k++] = xasprintf("LOGNAME=%s", ra->name);
	return env;
}

static void free_env(char **env)
{
	if (!env)
		return;
	size_t n = 0;
	while (env[n])
		n++;
	for (size_t i = n - 3; i < n; i++)
		free(env[i]);
	free(env);
}

int shcmd_output(const char *option, const char *cmd, const char *dir, const struct runas *ra, size_t max,
		 struct buf *out, int *status, bool *too_long, char *err)
{
	long bound = timeout_ms();
	long long deadline = now_ms() + bound;
	int fds[2];
	*too_long = false;
	*status = 0; /* should the shell be reaped elsewhere (SIGCHLD ignored) */
	if (pipe2(fds, O_CLOEXEC) < 0)
		return err_sys(err, "cannot run %s '%s'", option, cmd);
	char **env = user_env(ra);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		free_env(env);
		return err_sys(err, "cannot run %s '%s'", option, cmd);
	}
	if (pid == 0) {
		sigset_t none;
		/* A group of its own: a timeout ends what it started too. */
		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(fds[1], 1) < 0)
			_exit(127);
		/* The user first: its directory must be open to it. */
		if (runas_enter(ra) < 0)
			runas_enter_failed(ra, option);
		if (dir && chdir(dir) < 0) {
			dprintf(2, "cgisnap: cannot enter '%s': %s\n", dir, strerror(errno));
			_exit(127);
		}
		char *const argv[] = { "sh", "-c", (char *)cmd, NULL };
		execve("/bin/sh", argv, env ? env : environ);
		_exit(127);
	}
	free_env(env);
	/* Also here, so that the group exists before any kill(-pid) (the
	 * child may not have run yet); EACCES once it has exec'ed is fine. */
	setpgid(pid, pid);
	close(fds[1]);
	int late = read_until(fds[0], max, out, deadline, too_long);
	/* Closed before the wait: a command printing on past the limit gets
	 * EPIPE rather than blocking us both. */
	close(fds[0]);
	if (!late)
		late = reap_until(pid, status, deadline);
	if (late) {
		char b[32];
		kill_group(pid);
		buf_release(out); /* what it printed is no answer */
		bound_text(b, sizeof b, bound);
		return err_set(err, "%s '%s': timed out after %s", option, cmd, b);
	}
	/* Anything it left in the background holding nothing of ours is the
	 * user's; one still holding the pipe made it late above. */
	return 0;
}
