/* serve/safeopen.h - open a file of the snapshot tree by its key without
 * ever leaving the tree.
 *
 * safeopen() uses openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS:
 * the kernel refuses any resolution that would leave the directory, be it
 * through "..", an absolute path or a symbolic link pointing outside, and
 * refuses /proc-style magic links. Symbolic links that stay inside the
 * tree (relative ones that resolve beneath the root) are followed.
 *
 * When the kernel lacks openat2 (ENOSYS, or EPERM from a seccomp filter
 * that does not know it), safeopen() falls back to safeopen_walk(), which
 * opens one component at a time with O_NOFOLLOW and so refuses every
 * symbolic link, inside the tree or not: stricter, equally safe.
 *
 * Both open files read-only, close-on-exec and non-blocking (a FIFO in the
 * tree must not hang a worker); callers check that the result is a
 * regular file. Neither guards against hard links, which the tree's owner
 * would have to make on purpose.
 */
#ifndef CGISNAP_SERVE_SAFEOPEN_H
#define CGISNAP_SERVE_SAFEOPEN_H

/* Open relpath (no leading '/') beneath the directory rootfd; a new
 * descriptor the caller closes, or -1 with errno (ENOENT, ELOOP, EXDEV,
 * EACCES, ...). */
int safeopen(int rootfd, const char *relpath);

/* The fallback: walk relpath component by component, refusing empty, "."
 * and ".." components (EINVAL) and symbolic links (ELOOP). */
int safeopen_walk(int rootfd, const char *relpath);

#endif
