/* answer.c - what a snapshot tree answers for a URL (answer.h). */
#include "tree/answer.h"

#include <stdlib.h>
#include <string.h>

#include "url/urlkey.h"
#include "base/xalloc.h"

void answer_for(const struct manifest_entry *e, const char *target, struct answer *a)
{
	memset(a, 0, sizeof *a);
	if (e && e->status >= 300 && e->status < 400 && e->location) {
		a->kind = ANSWER_REDIRECT;
		a->status = e->status;
		a->location = e->location;
		return;
	}
	if (e && (e->status == 404 || e->status == 410)) {
		a->kind = ANSWER_GONE;
		a->status = e->status;
		return;
	}
	if (e && e->key) {
		a->listed = true;
		a->key = xstrdup(e->key);
		a->content_type = e->content_type;
	} else if (!e) {
		/* Files the manifest does not list (copied in by hand, or a
		 * plain directory) are found by the same key rule. */
		a->key = urlkey_for(target, NULL, NULL);
		/* urlkey.h: "/a/b", no dot in its last segment, is the
		 * directory key a/b/index.html. */
		const char *last = strrchr(target, '/');
		size_t k = a->key ? strlen(a->key) : 0;
		a->slash_form = last && last[1] && !strpbrk(last, ".?") && k >= 11 &&
				!strcmp(a->key + k - 11, "/index.html");
	}
	/* Entries without a file (failed renders) count as missing. */
	if (!a->key || !urlkey_is_safe(a->key)) {
		free(a->key);
		memset(a, 0, sizeof *a);
		a->kind = ANSWER_MISSING;
		return;
	}
	a->kind = ANSWER_FILE;
}

void answer_release(struct answer *a)
{
	free(a->key);
	memset(a, 0, sizeof *a);
}
