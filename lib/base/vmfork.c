/* vmfork.c - a child that borrows the parent's memory until it execs
 * (vmfork.h). */
#include "base/vmfork.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Enough for the system calls' wrappers a child makes, sanitizers
 * included. */
#define CHILD_STACK (256 * 1024)

struct start {
	int (*child)(void *);
	void *arg;
	sigset_t mask; /* the caller's, the child's once its handlers are reset */
};

static int start(void *p)
{
	const struct start *s = p;
	/* All signals are blocked here (vmfork): none can run a handler of
	 * the parent's before it is reset. glibc's own two (thread
	 * cancellation, setxid) are neither blocked nor reset (sigaction
	 * refuses them): only a kill from outside would reach them before
	 * the exec. */
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction now;
		if (sigaction(sig, NULL, &now) == 0 && now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN)
			sigaction(sig, &dfl, NULL);
	}
	sigprocmask(SIG_SETMASK, &s->mask, NULL);
	/* Not _exit: a sanitizer's bookkeeping for a call that never
	 * returns would run on this borrowed stack. */
	syscall(SYS_exit_group, s->child(s->arg));
	return 127;
}

pid_t vmfork(int (*child)(void *), void *arg)
{
	/* malloc'd, not mapped: a sanitizer's shadow of it is made whole
	 * again by the next malloc of that memory. */
	char *stack = malloc(CHILD_STACK);
	if (!stack)
		return -1;
	struct start s = { child, arg, { { 0 } } };
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &s.mask);
	uintptr_t top = ((uintptr_t)(stack + CHILD_STACK)) & ~(uintptr_t)15; /* the stack grows down */
	pid_t pid = clone(start, (void *)top, CLONE_VM | CLONE_VFORK | SIGCHLD, &s);
	int saved = errno;
	pthread_sigmask(SIG_SETMASK, &s.mask, NULL);
	free(stack);
	errno = saved;
	return pid;
}

int vmfork_read_setting(const char *file)
{
	FILE *f = fopen(file, "re");
	int v = -1;
	if (f && fscanf(f, "%d", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

static int suid_dumpable = -1;
static pthread_once_t suid_dumpable_read = PTHREAD_ONCE_INIT;

static void read_suid_dumpable(void)
{
	suid_dumpable = vmfork_read_setting("/proc/sys/fs/suid_dumpable");
}

pid_t vmfork_switching_user(int (*child)(void *), void *arg)
{
	pthread_once(&suid_dumpable_read, read_suid_dumpable);
	if (suid_dumpable != 1)
		return vmfork(child, arg);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child(arg));
	return pid;
}
