/* vmfork.h - a child process that borrows cgisnap's memory until it
 * execs: what fork would copy (the page tables of every mapping, then a
 * copy-on-write fault for each page the parent's threads write next)
 * grows with cgisnap's memory, a crawl's manifest included, and was most
 * of a page's cost when each render ran as another user (root's
 * snapshot of a CGI site). posix_spawn works this way too, but cannot
 * switch users or set a death signal before the exec.
 *
 *     static int child(void *arg) { ...system calls...; execve(...); return 127; }
 *     pid_t pid = vmfork(child, &args);   // returns once child exec'ed or ended
 */
#ifndef CGISNAP_VMFORK_H
#define CGISNAP_VMFORK_H

#include <sys/types.h>

/* Start child(arg) in a new process sharing this one's memory (clone's
 * CLONE_VM | CLONE_VFORK), on a stack of its own; the calling thread
 * waits until the child calls execve or ends (its return value is its
 * exit status). The child starts with this thread's signal mask, every
 * handled signal back at its default (a handler is the parent's code on
 * the parent's memory) and ignored ones still ignored. child makes system
 * calls only, writes nothing the parent reads but through a descriptor,
 * and may not call anything that takes a lock (malloc, stdio). The
 * child's pid, or -1 with errno. */
pid_t vmfork(int (*child)(void *), void *arg);

#endif
