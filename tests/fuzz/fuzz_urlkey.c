/* fuzz_urlkey.c - the keys of canonical targets (lib/url/urlkey.h).
 *
 * The input is up to 16 request targets, one a line, as clients send them.
 * A line may start with a letter naming the response's content type (h
 * html, c css, j javascript, x xml, p png, b an unknown type, n none;
 * another byte picks one by its value) before its '/'. Invariants: a key
 * is safe (no key segment starts with '.': a dotfile name is "%2E..."),
 * at most URLKEY_MAX_PATH bytes, with names of at most
 * URLKEY_MAX_NAME bytes, and the same on every call; a plain server
 * gives its file the type of the target's name (or of the query key's
 * suffix), hashed or not; a refusal says
 * "cannot be stored: ..."; a query key without a hashed name reads back
 * (urlkey_target) into a target with that very key; a key never reads
 * back from a target without a query; and two targets share a key only
 * where docs/url-keys.md section 4 says they do.
 */
#include "fuzz.h"

#include "base/buf.h"
#include "url/url.h"
#include "url/urlkey.h"

#define MAX_LINES 16

static const struct {
	char letter;
	const char *type;
} types[] = {
	{ 'h', "text/html; charset=utf-8" },
	{ 'c', "text/css" },
	{ 'j', "application/javascript" },
	{ 'x', "application/rss+xml" },
	{ 'p', "image/png" },
	{ 'b', "application/x-unknown" },
	{ 'n', NULL },
	{ 0, "application/xhtml+xml" },
	{ 0, "TEXT/XML;charset=ISO-8859-1" },
	{ 0, "" },
};
#define NTYPES (sizeof types / sizeof types[0])

static const char *type_for(unsigned char c)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (types[i].letter == c)
			return types[i].type;
	return types[c % NTYPES].type;
}

/* What identifies a target's file by docs/url-keys.md section 4: the
 * decoded path, a directory or extensionless name as its index.html
 * without a query; with one, the query with '/' as "%2F" and the type's
 * suffix. Fresh string. */
static char *alias_of(const char *target, const char *type)
{
	struct buf path = BUF_INIT, out = BUF_INIT;
	const char *q = strchr(target, '?');
	size_t plen = q ? (size_t)(q - target) : strlen(target);
	url_decode(&path, target, plen);
	buf_add(&out, path.data, path.len);
	if (q) {
		buf_addc(&out, '?');
		for (const char *p = q + 1; *p; p++) {
			if (*p == '/')
				buf_adds(&out, "%2F");
			else
				buf_addc(&out, *p);
		}
		buf_addc(&out, ' ');
		buf_adds(&out, urlkey_suffix(type));
	} else if (path.data[path.len - 1] == '/') {
		buf_adds(&out, "index.html");
	} else if (!strchr(strrchr(path.data, '/'), '.')) {
		buf_adds(&out, "/index.html");
	}
	buf_release(&path);
	return buf_detach(&out, NULL);
}

static void check_key_shape(const char *key, const char *target)
{
	FUZZ_CHECK(urlkey_is_safe(key), "key '%s' of '%s' is not safe", key, target);
	FUZZ_CHECK(strlen(key) <= URLKEY_MAX_PATH, "key of '%s' is %zu bytes", target, strlen(key));
	for (const char *seg = key;;) {
		size_t n = strcspn(seg, "/");
		FUZZ_CHECK(n <= URLKEY_MAX_NAME, "key '%s' of '%s' has a %zu-byte name", key, target, n);
		if (!seg[n])
			break;
		seg += n + 1;
	}
	FUZZ_CHECK(strncmp(key, ".cgisnap/", 9), "key '%s' of '%s' is cgisnap's own", key, target);
}

/* The path of target t[0..len) decoded, an encoded '/' kept as "%2F":
 * the names of its files (url-keys.md section 3). */
static void decode_names(struct buf *out, const char *t, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = len - i;
		const char *slash = NULL;
		for (size_t j = i; j + 3 <= len; j++)
			if (t[j] == '%' && t[j + 1] == '2' && (t[j + 2] == 'F' || t[j + 2] == 'f')) {
				slash = t + j;
				break;
			}
		if (slash)
			n = (size_t)(slash - (t + i));
		struct buf part = BUF_INIT;
		url_decode(&part, t + i, n);
		buf_add(out, part.data, part.len);
		buf_release(&part);
		i += n;
		if (slash) {
			buf_adds(out, "%2F");
			i += 3;
		}
	}
	buf_grow(out, 0); /* a path of "" is still a string */
}

/* A plain server gives the key's file the type the target's own name
 * implies, or for a query key the type of its response's suffix. */
static void check_served_type(const char *target, const char *key, const char *type)
{
	const char *want;
	struct buf path = BUF_INIT;
	if (strchr(target, '?')) {
		buf_adds(&path, "x");
		buf_adds(&path, urlkey_suffix(type));
		want = mime_from_name(path.data);
	} else {
		decode_names(&path, target, strlen(target));
		if (!strchr(strrchr(path.data, '/'), '.')) { /* a directory's index.html */
			buf_release(&path);
			return;
		}
		want = mime_from_name(path.data);
	}
	FUZZ_CHECK(!strcmp(mime_from_name(key), want), "key '%s' of '%s' is served as %s, not %s",
		   key, target, mime_from_name(key), want);
	buf_release(&path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct site plain = { 0 };
	char *in = fuzz_str(data, size);
	char *keys[MAX_LINES], *aliases[MAX_LINES], *targets[MAX_LINES];
	size_t n = 0;
	char err[512];

	for (char *line = in, *next; line && n < MAX_LINES; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		const char *type = "text/html";
		if (line[0] && line[0] != '/')
			type = type_for((unsigned char)*line++);

		/* A target as it arrives has a safe key or none. */
		char *raw_key = urlkey_for(line, type, NULL);
		if (raw_key)
			check_key_shape(raw_key, line);
		free(raw_key);

		char *c = site_canonical_target(&plain, line);
		if (!c)
			continue;
		err[0] = '\0';
		char *key = urlkey_for(c, type, err);
		if (!key) {
			FUZZ_CHECK(!strncmp(err, "cannot be stored: ", 18), "'%s' refused with '%s'", c,
				   err);
			free(c);
			continue;
		}
		check_key_shape(key, c);
		char *again = urlkey_for(c, type, NULL);
		FUZZ_CHECK(fuzz_streq(again, key), "'%s' has the key '%s', then '%s'", c, key,
			   fuzz_show(again));
		free(again);

		bool query = strchr(c, '?') != NULL, hashed = strchr(key, '#') != NULL;
		check_served_type(c, key, type);
		char *back = urlkey_target(key);
		if (!query)
			FUZZ_CHECK(!back, "key '%s' of '%s' reads back as '%s'", key, c, back);
		else if (!hashed)
			FUZZ_CHECK(back != NULL, "key '%s' of '%s' does not read back", key, c);
		if (back) {
			char *key2 = urlkey_for(back, type, NULL);
			FUZZ_CHECK(fuzz_streq(key2, key), "key '%s' of '%s' reads back as '%s', keyed '%s'",
				   key, c, back, fuzz_show(key2));
			free(key2);
			char *a1 = alias_of(c, type), *a2 = alias_of(back, type);
			FUZZ_CHECK(!strcmp(a1, a2), "key '%s' of '%s' reads back as '%s', another file",
				   key, c, back);
			free(a1);
			free(a2);
			free(back);
		}
		keys[n] = key;
		aliases[n] = alias_of(c, type);
		targets[n] = c;
		n++;
	}

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			FUZZ_CHECK(strcmp(keys[i], keys[j]) || !strcmp(aliases[i], aliases[j]),
				   "'%s' and '%s' share the key '%s'", targets[i], targets[j], keys[i]);
	for (size_t i = 0; i < n; i++) {
		free(keys[i]);
		free(aliases[i]);
		free(targets[i]);
	}
	free(in);
	return 0;
}
