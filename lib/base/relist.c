/* relist.c - option values compiled to a list of regexes. */
#include "base/relist.h"

#include <stdlib.h>

#include "base/log.h"
#include "base/xalloc.h"

int relist_compile(const struct strlist *src, int extra_flags, const char *option, regex_t **out,
		   size_t *n, char *err)
{
	size_t want = src ? src->n : 0;
	*out = xcalloc(want ? want : 1, sizeof **out);
	*n = 0;
	for (size_t i = 0; i < want; i++) {
		int rc = regcomp(&(*out)[i], src->items[i], REG_EXTENDED | extra_flags);
		if (rc) {
			char msg[128];
			regerror(rc, &(*out)[i], msg, sizeof msg);
			return err_set(err, "bad %s regex '%s': %s", option, src->items[i], msg);
		}
		(*n)++;
	}
	return 0;
}

bool relist_match(const regex_t *re, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (regexec(&re[i], s, 0, NULL, 0) == 0)
			return true;
	return false;
}

void relist_free(regex_t *re, size_t n)
{
	for (size_t i = 0; i < n; i++)
		regfree(&re[i]);
	free(re);
}
