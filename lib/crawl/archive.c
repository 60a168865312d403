/* archive.c - archives made on the fly, by their headers (archive.h). */
#include "crawl/archive.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

static const char *const archive_types[] = {
	"application/gzip", "application/x-gzip", "application/zip", "application/x-zip",
	"application/x-zip-compressed", "application/x-tar", "application/x-gtar",
	"application/x-bzip", "application/x-bzip2", "application/x-xz", "application/x-lzip",
	"application/x-lzma", "application/zstd", "application/x-zstd", "application/x-compress",
	"application/x-7z-compressed", "application/x-rar", "application/x-rar-compressed",
	"application/vnd.rar", NULL
};

/* Each is tested as a suffix: ".gz" covers ".tar.gz". */
static const char *const archive_exts[] = {
	".tar", ".tgz", ".zip", ".tbz2", ".txz", ".7z", ".rar", ".gz", ".bz2", ".xz", ".zst",
	".lz", NULL
};

static bool space(char c)
{
	return c == ' ' || c == '\t';
}

static bool type_is_archive(const char *type)
{
	while (space(*type))
		type++;
	size_t n = strcspn(type, ";");
	while (n && space(type[n - 1]))
		n--;
	for (const char *const *t = archive_types; *t; t++)
		if (strlen(*t) == n && !strncasecmp(type, *t, n))
			return true;
	return false;
}

/* Does name[0..n) end in one of archive_exts (any case)? */
static bool name_is_archive(const char *name, size_t n)
{
	for (const char *const *e = archive_exts; *e; e++) {
		size_t en = strlen(*e);
		if (n > en && !strncasecmp(name + n - en, *e, en))
			return true;
	}
	return false;
}

/* The filename parameter of a Content-Disposition value: *name and *n,
 * quotes removed (RFC 6266; filename* is read too, its charset and
 * language dropped: only the extension matters). False when it has none. */
static bool disposition_filename(const char *v, const char **name, size_t *n)
{
	for (const char *p = strchr(v, ';'); p; p = strchr(p + 1, ';')) {
		const char *s = p + 1;
		while (space(*s))
			s++;
		bool ext = !strncasecmp(s, "filename*", 9);
		if (strncasecmp(s, "filename", 8))
			continue;
		s += ext ? 9 : 8;
		while (space(*s))
			s++;
		if (*s++ != '=')
			continue;
		while (space(*s))
			s++;
		if (ext) { /* UTF-8''name.tar.gz */
			const char *q = strstr(s, "''");
			if (q)
				s = q + 2;
		}
		if (*s == '"') {
			s++;
			const char *end = strchr(s, '"');
			*n = end ? (size_t)(end - s) : strlen(s);
		} else {
			*n = strcspn(s, "; \t");
		}
		*name = s;
		return true;
	}
	return false;
}

bool archive_response(const char *content_type, const char *content_disposition)
{
	if (content_type && type_is_archive(content_type))
		return true;
	if (!content_disposition)
		return false;
	const char *v = content_disposition;
	while (space(*v))
		v++;
	if (strncasecmp(v, "attachment", 10) || (v[10] && v[10] != ';' && !space(v[10])))
		return false;
	const char *name;
	size_t n;
	return disposition_filename(v, &name, &n) && name_is_archive(name, n);
}
