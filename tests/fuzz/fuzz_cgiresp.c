/* fuzz_cgiresp.c - the CGI response parser (lib/origin/cgiresp.h).
 *
 * The input is a CGI program's whole output. Invariants: the result is a
 * cgiresp_kind or -1; a refusal is one line of printable ASCII; a parsed
 * response has a status from 100 to 999, no Status header left, header
 * names of token characters and values without line ends, a body that is
 * exactly the bytes after the header block (one that never ends is
 * refused), a local redirect only to a path; and the raw buffer is handed
 * over (left empty).
 */
#include "fuzz.h"

#include <strings.h>

#include "origin/cgiresp.h"
#include "base/log.h"

static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Where the body starts: after the first line that is empty or a lone
 * CR (the end of the header block); (size_t)-1 when there is none. */
static size_t header_end(const uint8_t *data, size_t size)
{
	for (size_t pos = 0; pos < size;) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		if (!nl)
			break;
		size_t len = (size_t)(nl - (data + pos));
		if (!len || (len == 1 && data[pos] == '\r'))
			return pos + len + 1;
		pos += len + 1;
	}
	return (size_t)-1;
}

/* Does the header block data[0..end) hold a Status header? */
static bool has_status(const uint8_t *data, size_t end)
{
	for (size_t pos = 0; pos < end;) {
		if (end - pos >= 7 && !strncasecmp((const char *)data + pos, "status:", 7))
			return true;
		const uint8_t *nl = memchr(data + pos, '\n', end - pos);
		if (!nl)
			break;
		pos = (size_t)(nl - data) + 1;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf raw = BUF_INIT;
	struct origin_response rs;
	char err[ERR_LEN];

	origin_response_init(&rs);
	buf_add(&raw, data, size);
	err[0] = '\0';
	int kind = cgiresp_parse(&raw, &rs, err);
	FUZZ_CHECK(kind == -1 || kind == CGIRESP_DOCUMENT || kind == CGIRESP_LOCAL_REDIRECT,
		   "cgiresp_parse returned %d", kind);
	size_t start = header_end(data, size);
	if (start == (size_t)-1)
		FUZZ_CHECK(kind < 0, "a header block without its end accepted");
	if (kind < 0) {
		FUZZ_CHECK(*err, "refused without a reason");
		for (const char *p = err; *p; p++)
			FUZZ_CHECK(*p >= 0x20 && *p < 0x7f, "reason '%s' holds byte 0x%02x", err,
				   (unsigned char)*p);
		goto out;
	}
	FUZZ_CHECK(rs.status >= 100 && rs.status <= 999, "status %d", rs.status);
	FUZZ_CHECK(raw.len == 0, "raw keeps %zu bytes", raw.len);
	for (size_t i = 0; i < rs.nheaders; i++) {
		const char *name = rs.headers[i].name, *value = rs.headers[i].value;
		FUZZ_CHECK(*name, "a header without a name");
		for (const char *p = name; *p; p++)
			FUZZ_CHECK(is_tchar((unsigned char)*p), "header name '%s'", name);
		FUZZ_CHECK(strcasecmp(name, "Status"), "Status kept as a header");
		FUZZ_CHECK(!strchr(value, '\n'), "header '%s' has a line end in its value", name);
		FUZZ_CHECK(value[0] != ' ' && value[0] != '\t', "header '%s' value not trimmed", name);
	}
	/* The header block ends at the first empty line, never later. */
	FUZZ_CHECK(rs.body.len == size - start && !memcmp(rs.body.data, data + start, rs.body.len),
		   "body of %zu bytes, %zu expected", rs.body.len, size - start);
	if (rs.body.len && !rs.location)
		FUZZ_CHECK(rs.content_type != NULL, "a body without Content-Type accepted");
	if (kind == CGIRESP_LOCAL_REDIRECT)
		FUZZ_CHECK(rs.location && rs.location[0] == '/' && rs.location[1] != '/',
			   "local redirect to '%s'", fuzz_show(rs.location));
	if (rs.location && kind == CGIRESP_DOCUMENT && !has_status(data, start))
		FUZZ_CHECK(rs.status == 302, "redirect without Status has %d", rs.status);
out:
	origin_response_release(&rs);
	buf_release(&raw);
	return 0;
}
