/* mount.c - URL prefixes mounted on programs and directories (mount.h). */
#include "origin/mount.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/log.h"
#include "url/url.h"
#include "base/xalloc.h"

void mount_release(struct mount *m)
{
	free(m->prefix);
	free(m->path);
	memset(m, 0, sizeof *m);
}

/* Why the decoded prefix p (len bytes) is not a mount point, or NULL. */
static const char *prefix_problem(const char *p, size_t len)
{
	if (!len || p[0] != '/')
		return "it must start with '/'";
	if (memchr(p, '\0', len))
		return "a NUL byte";
	if (memchr(p, '?', len) || memchr(p, '#', len))
		return "a '?' or '#'";
	for (size_t i = 1; i <= len;) {
		size_t end = i;
		while (end < len && p[end] != '/')
			end++;
		size_t n = end - i;
		/* "/" alone and one trailing slash are allowed (stripped later). */
		if (n == 0 && end < len)
			return "an empty segment";
		if ((n == 1 && p[i] == '.') || (n == 2 && p[i] == '.' && p[i + 1] == '.'))
			return n == 1 ? "a '.' segment" : "a '..' segment";
		i = end + 1;
	}
	return NULL;
}

int mount_parse(struct mount *m, const char *spec, bool script, char *err)
{
	const char *opt = script ? "--script-alias" : "--path-alias";
	const char *eq = strchr(spec, '=');
	struct buf prefix = BUF_INIT;

	memset(m, 0, sizeof *m);
	if (!eq || eq == spec || !eq[1])
		return err_set(err, "bad %s value '%s' (expected /PREFIX=%s)", opt, spec,
			       script ? "PROGRAM" : "DIR");
	url_decode(&prefix, spec, (size_t)(eq - spec));
	const char *why = prefix_problem(prefix.data, prefix.len);
	if (why) {
		err_set(err, "bad %s prefix '%.*s': %s", opt, (int)(eq - spec), spec, why);
		buf_release(&prefix);
		return -1;
	}
	if (prefix.data[prefix.len - 1] == '/')
		buf_truncate(&prefix, prefix.len - 1);
	m->prefix = buf_detach(&prefix, NULL);
	m->path = xstrdup(eq + 1);
	m->script = script;
	return 0;
}

/* The byte at path[*i] (an escape decoded, except %2F), advancing *i;
 * -1 for an escaped '/', which matches nothing in a prefix. */
static int next_byte(const char *path, size_t len, size_t *i)
{
	int v = path[*i] == '%' ? url_escape_at(path + *i, len - *i) : -1;
	if (v >= 0) {
		*i += 3;
		return v == '/' ? -1 : v;
	}
	return (unsigned char)path[(*i)++];
}

bool mount_match(const char *prefix, const char *path, size_t len, size_t *rest)
{
	size_t i = 0;
	for (const char *p = prefix; *p; p++) {
		if (*p == '/') {
			if (i >= len || path[i] != '/')
				return false;
			while (i < len && path[i] == '/')
				i++;
			continue;
		}
		if (i >= len || path[i] == '/' || next_byte(path, len, &i) != (unsigned char)*p)
			return false;
	}
	if (i < len && path[i] != '/')
		return false;
	*rest = i;
	return true;
}

const struct mount *mount_find(const struct mount *m, size_t n, const char *path, size_t len,
			       size_t *rest)
{
	const struct mount *best = NULL;
	size_t best_len = 0;
	for (size_t k = 0; k < n; k++) {
		size_t plen = strlen(m[k].prefix), r;
		if ((!best || plen > best_len) && mount_match(m[k].prefix, path, len, &r)) {
			best = &m[k];
			best_len = plen;
			*rest = r;
		}
	}
	return best;
}
