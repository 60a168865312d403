/* relist.h - a list of POSIX extended regexes compiled from an option's
 * values (--include, --exclude, --strip, --ignore), matched as "any of".
 *
 * Steps: relist_compile; relist_match per string; relist_free. */
#ifndef CGISNAP_RELIST_H
#define CGISNAP_RELIST_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* Compile each value of src (NULL: none) with REG_EXTENDED | extra_flags
 * into a fresh array *out of *n regexes. 0, or -1 with err "bad OPTION
 * regex 'RE': why"; either way *out holds the *n compiled so far, for
 * relist_free. */
int relist_compile(const struct strlist *src, int extra_flags, const char *option, regex_t **out,
		   size_t *n, char *err);
/* Whether any of the n regexes matches s. */
bool relist_match(const regex_t *re, size_t n, const char *s);
/* Free the n compiled regexes and the array (NULL: nothing). */
void relist_free(regex_t *re, size_t n);

#endif
