/* exec.c - running the --exec hook with the batch's written and removed
 * paths (exec.h says the format). */
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "tree/tree.h"
#include "base/xalloc.h"

extern char **environ;

/* The descriptors the lists have in the hook: 0 is written too. */
#define WRITTEN_FD 3
#define REMOVED_FD 4

static const char *const meta_files[EXEC_NMETA] = EXEC_META_FILES;

void exec_meta_snap(int meta_fd, struct exec_meta *m)
{
	memset(m, 0, sizeof *m);
	for (int i = 0; i < EXEC_NMETA; i++) {
		struct stat st;
		if (meta_fd >= 0 && fstatat(meta_fd, meta_files[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode)) {
			m->f[i].present = true;
			m->f[i].ino = st.st_ino;
			m->f[i].size = st.st_size;
			m->f[i].mtime = st.st_mtim;
		}
	}
}

void exec_meta_changes(int meta_fd, const struct exec_meta *before, struct strlist *written,
		       struct strlist *removed)
{
	struct exec_meta now;
	exec_meta_snap(meta_fd, &now);
	for (int i = 0; i < EXEC_NMETA; i++) {
		const struct exec_meta_file *a = &before->f[i], *b = &now.f[i];
		char *path = xasprintf("%s/%s", TREE_META_DIR, meta_files[i]);
		if (!b->present && a->present)
			strlist_add(removed, path);
		else if (b->present && (!a->present || a->ino != b->ino || a->size != b->size ||
					a->mtime.tv_sec != b->mtime.tv_sec || a->mtime.tv_nsec != b->mtime.tv_nsec))
			strlist_add(written, path);
		free(path);
	}
}

static int cmp_reverse(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

void exec_order(struct strlist *written, struct strlist *removed)
{
	strlist_sort(written);
	strlist_uniq(written);
	/* Reverse order puts "a/b/x.html" and "a/b/" before "a/": every
	 * path below a directory sorts after "dir/" itself. */
	if (removed->n > 1)
		qsort(removed->items, removed->n, sizeof *removed->items, cmp_reverse);
	strlist_uniq(removed);
}

/* The lines as a file to read from the start: a file, not a pipe, so
 * that a command that never reads it cannot block watch, and one that
 * reads it twice (/dev/fd/N opens it afresh) sees it all again. */
static int list_file(const struct strlist *l, char *err)
{
	int fd = memfd_create("cgisnap-exec", MFD_CLOEXEC);
	if (fd < 0)
		return err_sys(err, "cannot make the --exec input");
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < l->n; i++)
		buf_addf(&b, "%s\n", l->items[i]);
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

/* environ with the two list variables set (ours replace any inherited). */
static char **hook_environ(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 3, sizeof *env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "CGISNAP_WRITTEN=", 16) && strncmp(environ[i], "CGISNAP_REMOVED=", 16))
			env[k++] = environ[i];
	env[k++] = xasprintf("CGISNAP_WRITTEN=/dev/fd/%d", WRITTEN_FD);
	env[k++] = xasprintf("CGISNAP_REMOVED=/dev/fd/%d", REMOVED_FD);
	env[k] = NULL;
	return env;
}

int watch_exec(const char *cmd, const char *dir, const struct strlist *written, const struct strlist *removed,
	       char *err)
{
	int rc = -1;
	int in = list_file(written, err), out = -1;
	if (in < 0)
		return -1;
	if ((out = list_file(removed, err)) < 0) {
		close(in);
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	posix_spawn_file_actions_init(&fa);
	/* dup2 clears close-on-exec on the copies only; a list that already
	 * sits at its number (a watch started with 3 or 4 closed) is moved
	 * out of the way first. */
	int fds[2] = { in, out };
	for (int i = 0; i < 2; i++) {
		if (fds[i] <= REMOVED_FD) {
			int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, REMOVED_FD + 1);
			if (moved < 0) {
				err_sys(err, "cannot make the --exec input");
				goto out;
			}
			close(fds[i]);
			fds[i] = moved;
		}
	}
	in = fds[0];
	out = fds[1];
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, in, WRITTEN_FD);
	posix_spawn_file_actions_adddup2(&fa, out, REMOVED_FD);
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
	char **env = hook_environ();
	pid_t pid;
	int sp = posix_spawn(&pid, argv[0], &fa, &attr, argv, env);
	for (size_t i = 0; env[i]; i++)
		if (!strncmp(env[i], "CGISNAP_WRITTEN=", 16) || !strncmp(env[i], "CGISNAP_REMOVED=", 16))
			free(env[i]);
	free(env);
	posix_spawnattr_destroy(&attr);
	if (sp) {
		errno = sp;
		err_sys(err, "cannot run --exec '%s'", cmd);
		goto out;
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err_sys(err, "cannot wait for --exec '%s'", cmd);
			goto out;
		}
	}
	if (WIFSIGNALED(status))
		err_set(err, "--exec '%s' was killed by signal %d", cmd, WTERMSIG(status));
	else
		rc = WEXITSTATUS(status);
out:
	posix_spawn_file_actions_destroy(&fa);
	close(in);
	close(out);
	return rc;
}
