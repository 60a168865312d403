/* exec.c - running the --exec hook with the changed paths on its stdin. */
#include "exec.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"

extern char **environ;

/* The keys as a file to read from the start: a file, not a pipe, so that
 * a command that never reads its stdin cannot block watch. */
static int keys_file(const struct strlist *keys, char *err)
{
	int fd = memfd_create("cgisnap-exec", MFD_CLOEXEC);
	if (fd < 0)
		return err_sys(err, "cannot make the --exec input");
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < keys->n; i++)
		buf_addf(&b, "%s\n", keys->items[i]);
	size_t off = 0;
	while (off < b.len) {
		ssize_t w = write(fd, b.data + off, b.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err_sys(err, "cannot write the --exec input");
			buf_release(&b);
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	buf_release(&b);
	if (lseek(fd, 0, SEEK_SET) < 0) {
		err_sys(err, "cannot rewind the --exec input");
		close(fd);
		return -1;
	}
	return fd;
}

int watch_exec(const char *cmd, const char *dir, const struct strlist *keys, char *err)
{
	int in = keys_file(keys, err);
	if (in < 0)
		return -1;

	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	/* watch blocks its signals (they are read from a signalfd): the hook
	 * gets the plain defaults a fresh program expects. */
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGUSR1);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(in);
	if (rc) {
		errno = rc;
		return err_sys(err, "cannot run --exec '%s'", cmd);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return err_sys(err, "cannot wait for --exec '%s'", cmd);
	}
	if (WIFSIGNALED(status))
		return err_set(err, "--exec '%s' was killed by signal %d", cmd, WTERMSIG(status));
	return WEXITSTATUS(status);
}
