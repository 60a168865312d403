/* xalloc.h - allocation that never returns NULL.
 *
 * Running out of memory is the one error cgisnap does not try to recover
 * from: every caller would have to undo half-done work for a condition the
 * process cannot survive anyway. These wrappers print one line and exit(3)
 * instead, so the rest of the code can treat allocation as infallible.
 */
#ifndef CGISNAP_XALLOC_H
#define CGISNAP_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* xrealloc of n elements of size bytes; a product past SIZE_MAX is out of
 * memory too, never a smaller block. */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Formatted string in fresh memory; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
