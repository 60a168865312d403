/* shcmd.c - a user's shell command, run for what it prints (shcmd.h). */
#include "shcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"

int shcmd_output(const char *option, const char *cmd, const char *dir, size_t max, struct buf *out,
		 int *status, bool *too_long, char *err)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return err_sys(err, "cannot run %s '%s'", option, cmd);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_sys(err, "cannot run %s '%s'", option, cmd);
	}
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(fds[1], 1) < 0)
			_exit(127);
		if (dir && chdir(dir) < 0) {
			dprintf(2, "cgisnap: cannot enter '%s': %s\n", dir, strerror(errno));
			_exit(127);
		}
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	*too_long = buf_read_fd(out, fds[0], max) < 0;
	/* Closed before the wait: a command printing on past the limit gets
	 * EPIPE rather than blocking us both. */
	close(fds[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return 0;
}
