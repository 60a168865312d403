/* test_vmfork.c - a child that borrows the parent's memory until it
 * execs: it runs before vmfork returns, with the caller's signal mask,
 * handled signals at their defaults and ignored ones still ignored. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/vmfork.h"
#include "unit.h"

static void on_usr1(int sig)
{
	(void)sig;
}

static bool handler_is(int sig, void (*h)(int))
{
	struct sigaction now;
	return sigaction(sig, NULL, &now) == 0 && now.sa_handler == h;
}

/* Writes to the pipe *arg what it finds: 'y' or 'n' for each question. */
static int report_signals(void *arg)
{
	int fd = *(int *)arg;
	sigset_t mask;
	sigprocmask(SIG_SETMASK, NULL, &mask);
	char said[3] = {
		handler_is(SIGUSR1, SIG_DFL) ? 'y' : 'n',
		handler_is(SIGPIPE, SIG_IGN) ? 'y' : 'n',
		sigismember(&mask, SIGUSR2) ? 'y' : 'n',
	};
	return write(fd, said, sizeof said) == sizeof said ? 7 : 1;
}

TEST(vmfork_child_runs_before_it_returns_with_handlers_reset_and_the_mask_kept)
{
	struct sigaction usr1 = { .sa_handler = on_usr1 }, ign = { .sa_handler = SIG_IGN }, old_usr1, old_pipe;
	sigaction(SIGUSR1, &usr1, &old_usr1);
	sigaction(SIGPIPE, &ign, &old_pipe);
	sigset_t usr2, old_mask;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &usr2, &old_mask);
	int p[2];
	CHECK_INT(0, pipe2(p, O_NONBLOCK));
	pid_t pid = vmfork(report_signals, &p[1]);
	CHECK(pid > 0);
	/* Already there, without waiting: the child ran while we waited. */
	char said[4] = { 0 };
	CHECK_INT(3, (int)read(p[0], said, 3));
	CHECK_STR("yyy", said);
	int status = 0;
	CHECK_INT(pid, waitpid(pid, &status, 0));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	CHECK(handler_is(SIGUSR1, on_usr1)); /* the parent's own, untouched */
	/* The caller's mask back as it was, every signal blocked only
	 * around the start. */
	sigset_t now;
	pthread_sigmask(SIG_SETMASK, NULL, &now);
	CHECK(sigismember(&now, SIGUSR2) && !sigismember(&now, SIGUSR1) && !sigismember(&now, SIGTERM));
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGUSR1, &old_usr1, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	close(p[0]);
	close(p[1]);
}

static int exec_sh(void *arg)
{
	char *argv[] = { "sh", "-c", arg, NULL };
	char *envp[] = { NULL };
	execve("/bin/sh", argv, envp);
	return 127;
}

TEST(vmfork_child_execs_a_program)
{
	pid_t pid = vmfork(exec_sh, "exit 3");
	CHECK(pid > 0);
	int status = 0;
	CHECK_INT(pid, waitpid(pid, &status, 0));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
}

static volatile sig_atomic_t usr1_seen;

static void count_usr1(int sig)
{
	(void)sig;
	usr1_seen = 1;
}

static int kill_self(void *arg)
{
	(void)arg;
	kill(getpid(), SIGUSR1);
	return 0;
}

/* A signal the child gets runs no handler of the parent's (on the
 * parent's memory): at its default, it ends the child. */
TEST(vmfork_child_signal_ends_it_not_the_parents_handler)
{
	struct sigaction usr1 = { .sa_handler = count_usr1 }, old;
	sigaction(SIGUSR1, &usr1, &old);
	usr1_seen = 0;
	pid_t pid = vmfork(kill_self, NULL);
	CHECK(pid > 0);
	int status = 0;
	CHECK_INT(pid, waitpid(pid, &status, 0));
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1);
	CHECK_INT(0, usr1_seen);
	sigaction(SIGUSR1, &old, NULL);
}

/* fs.suid_dumpable's form read; vmfork_switching_user starts the child
 * either way. */
TEST(vmfork_reads_the_setting_and_starts_a_child_switching_user)
{
	char path[] = "/tmp/cgisnap-unit-vmfork.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK_INT(2, (int)write(fd, "1\n", 2));
	close(fd);
	CHECK_INT(1, vmfork_read_setting(path));
	unlink(path);
	CHECK_INT(-1, vmfork_read_setting(path));
	pid_t pid = vmfork_switching_user(exec_sh, "exit 4");
	CHECK(pid > 0);
	int status = 0;
	CHECK_INT(pid, waitpid(pid, &status, 0));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 4);
}
