/* archive.c - archives made on the fly, by their headers or their first
 * bytes (archive.h). */
#include "crawl/archive.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

static const char *const archive_types[] = {
	"application/gzip", "application/x-gzip", "application/zip", "application/x-zip",
	"application/x-zip-compressed", "application/x-tar", "application/x-gtar",
	"application/x-bzip", "application/x-bzip2", "application/x-xz", "application/x-lzip",
	"application/x-lzma", "application/zstd", "application/x-zstd", "application/x-compress",
	"application/x-compressed",
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

/* The media type of a Content-Type value (no parameters, no spaces
 * around it): its start, its length in *n. */
static const char *media_type(const char *type, size_t *n)
{
	while (space(*type))
		type++;
	*n = strcspn(type, ";");
	while (*n && space(type[*n - 1]))
		(*n)--;
	return type;
}

/* Is type[0..n) one of list's (any case)? */
static bool type_in(const char *const *list, const char *type, size_t n)
{
	for (const char *const *t = list; *t; t++)
		if (strlen(*t) == n && !strncasecmp(type, *t, n))
			return true;
	return false;
}

static bool type_is_archive(const char *type)
{
	size_t n;
	type = media_type(type, &n);
	return type_in(archive_types, type, n);
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

/* Types that say nothing about what a body is: its bytes may tell. */
static const char *const unspecific_types[] = {
	"application/octet-stream", "binary/octet-stream", "application/download",
	"application/x-download", "application/force-download", "application/unknown", NULL
};

static bool type_is_unspecific(const char *type)
{
	if (!type)
		return true;
	size_t n;
	type = media_type(type, &n);
	return n == 0 || (n > 5 && !strncasecmp(type, "text/", 5)) || type_in(unspecific_types, type, n);
}

struct magic {
	size_t offset;
	const char *bytes;
	size_t len;
};

#define MAGIC(off, s) { off, s, sizeof s - 1 }
static const struct magic magics[] = {
	MAGIC(0, "\x1f\x8b"),                 /* gzip */
	MAGIC(0, "\x1f\x9d"),                 /* compress (.Z) */
	MAGIC(0, "\xfd" "7zXZ\0"),            /* xz */
	MAGIC(0, "LZIP"),                     /* lzip */
	MAGIC(0, "\x28\xb5\x2f\xfd"),         /* zstd */
	MAGIC(0, "PK\x03\x04"),               /* zip */
	MAGIC(0, "PK\x05\x06"),               /* an empty zip */
	MAGIC(0, "7z\xbc\xaf\x27\x1c"),       /* 7z */
	MAGIC(0, "Rar!\x1a\x07"),             /* rar 4 and 5 */
	MAGIC(257, "ustar\0"),                /* tar, POSIX */
	MAGIC(257, "ustar  \0"),              /* tar, GNU */
};

/* bzip2: "BZh", a block size digit, then a block's magic (pi) or the end
 * of an empty stream (sqrt(pi)): "BZh9" alone could start a text. */
static bool bzip2_head(const unsigned char *h, size_t n)
{
	return n >= 10 && !memcmp(h, "BZh", 3) && h[3] >= '1' && h[3] <= '9' &&
	       (!memcmp(h + 4, "1AY&SY", 6) || !memcmp(h + 4, "\x17\x72\x45\x38\x50\x90", 6));
}

bool archive_content(const char *content_type, const char *content_encoding, const void *head, size_t n)
{
	if (content_encoding) {
		while (space(*content_encoding))
			content_encoding++;
		if (*content_encoding && strncasecmp(content_encoding, "identity", 8))
			return false;
	}
	if (!type_is_unspecific(content_type))
		return false;
	const unsigned char *h = head;
	for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++) {
		const struct magic *m = &magics[i];
		if (n >= m->offset + m->len && !memcmp(h + m->offset, m->bytes, m->len))
			return true;
	}
	return bzip2_head(h, n);
}
