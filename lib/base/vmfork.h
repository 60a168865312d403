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
 * child's pid, or -1 with errno (on success errno may have changed: the
 * child shares this thread's). */
pid_t vmfork(int (*child)(void *), void *arg);

/* vmfork for a child that switches to another user before it execs.
 * The kernel marks the memory non-dumpable at the switch, so that no
 * process of that user may trace the child or reach the memory it shares
 * with cgisnap through /proc until it execs (a side effect: root's
 * cgisnap writes no core dump after). fs.suid_dumpable = 1, a debugging
 * setting, would leave it dumpable: then this forks, as before. */
pid_t vmfork_switching_user(int (*child)(void *), void *arg);

/* The number in file (fs.suid_dumpable's form), -1 when unreadable. */
int vmfork_read_setting(const char *file);

#endif
