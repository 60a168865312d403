/* bench/targets.c - lists of request paths (targets.h). */
#include "targets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

int targets_check(const char *path, char *err)
{
	if (path[0] != '/')
		return err_set(err, "URL path '%s' does not start with '/'", path);
	for (const unsigned char *s = (const unsigned char *)path; *s; s++)
		if (*s <= ' ' || *s == 0x7f)
			return err_set(err, "URL path '%s' has a space or control character", path);
	return 0;
}

int targets_read_file(struct strlist *out, const char *file, char *err)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return err_sys(err, "cannot read '%s'", file);
	char *line = NULL;
	size_t cap = 0;
	int rc = 0, lineno = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		char *s = line, *e = line + n;
		while (*s == ' ' || *s == '\t')
			s++;
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (!*s || *s == '#')
			continue;
		char why[ERR_LEN];
		if (targets_check(s, why) < 0) {
			rc = err_set(err, "%s:%d: %s", file, lineno, why);
			goto out;
		}
		strlist_add(out, s);
	}
	if (ferror(f))
		rc = err_sys(err, "cannot read '%s'", file);
out:
	free(line);
	fclose(f);
	return rc;
}

static int is_html_page(const struct manifest_entry *e)
{
	return e->status == 200 && e->key && e->content_type &&
	       !strncmp(e->content_type, "text/html", 9);
}

void targets_sample(struct strlist *out, const struct manifest *m, size_t max, size_t *total)
{
	size_t n = 0, pages = 0;
	struct manifest_entry **all = manifest_sorted(m, &n);
	for (size_t i = 0; i < n; i++)
		if (is_html_page(all[i]))
			all[pages++] = all[i];
	*total = pages;
	size_t take = pages < max ? pages : max;
	for (size_t i = 0; i < take; i++)
		strlist_add(out, all[take == pages ? i : i * pages / max]->target);
	free(all);
}
