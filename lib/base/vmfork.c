/* vmfork.c - a child that borrows the parent's memory until it execs
 * (vmfork.h). */
#include "base/vmfork.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
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
	 * the parent's before it is reset. */
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction now;
		if (sigaction(sig, NULL, &now) == 0 && now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN)
			sigaction(sig, &dfl, NULL);
	}
	sigprocmask(SIG_SETMASK, &s->mask, NULL);
	_exit(s->child(s->arg));
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
