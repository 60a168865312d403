/* cgiresp.c - parse a CGI response: header block, then body (see cgiresp.h). */
#include "origin/cgiresp.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/spill.h"
#include "base/xalloc.h"

#define QUOTE_MAX 60

void cgiresp_quote(struct buf *out, const char *line, size_t len, size_t max)
{
	size_t n = len < max ? len : max;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c >= 0x20 && c < 0x7f)
			buf_addc(out, (char)c);
		else
			buf_addf(out, "\\x%02x", c);
	}
	if (n < len)
		buf_adds(out, "...");
}

/* err = "malformed header from script: 'LINE'" (Apache's words);
 * returns -1. */
static int bad_line(char *err, const char *line, size_t len)
{
	struct buf q = BUF_INIT;
	cgiresp_quote(&q, line, len, QUOTE_MAX);
	err_set(err, "malformed header from script: '%s'", buf_str(&q));
	buf_release(&q);
	return -1;
}

/* RFC 9110 token characters, the only ones a header name may hold. */
static bool is_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* s[0..*len) without leading and trailing spaces and tabs. */
static const char *trim(const char *s, size_t *len)
{
	size_t n = *len;
	while (n && is_ows(*s))
		s++, n--;
	while (n && is_ows(s[n - 1]))
		n--;
	*len = n;
	return s;
}

static void add_header(struct origin_response *rs, const char *name, size_t nlen,
		       const char *value, size_t vlen)
{
	rs->headers = xrealloc(rs->headers, (rs->nheaders + 1) * sizeof *rs->headers);
	rs->headers[rs->nheaders].name = xstrndup(name, nlen);
	rs->headers[rs->nheaders].value = xstrndup(value, vlen);
	rs->nheaders++;
}

/* A continuation line: its text joins the previous header's value after
 * one space, as RFC 9110 says obsolete line folding may be replaced. */
static void fold_into_last(struct origin_response *rs, const char *s, size_t len)
{
	struct origin_header *h = &rs->headers[rs->nheaders - 1];
	s = trim(s, &len);
	if (!len)
		return;
	char *joined = *h->value ? xasprintf("%s %.*s", h->value, (int)len, s)
				 : xstrndup(s, len);
	free(h->value);
	h->value = joined;
}

/* Read the header lines of data[0..len) into rs->headers; *body_start is
 * where the body begins. */
static int parse_header_block(const char *data, size_t len, struct origin_response *rs,
			      size_t *body_start, char *err)
{
	size_t pos = 0, last = 0, last_len = 0;

	if (!len)
		return err_set(err, "empty response");
	for (;;) {
		if (pos >= len) /* the output ended inside the header block */
			return bad_line(err, data + last, last_len);
		const char *line = data + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t llen = nl ? (size_t)(nl - line) : len - pos;
		size_t next = nl ? pos + llen + 1 : len;
		if (llen && line[llen - 1] == '\r')
			llen--;
		if (next > CGIRESP_MAX_HEADER || !nl)
			return bad_line(err, line, llen);
		if (!llen) {
			*body_start = next;
			return 0;
		}
		/* A control byte other than a tab, a bare CR above all, is
		 * refused as Apache refuses it: "Content-Type: text/html\r
		 * Set-Cookie: x" is no type, and a client would split it. */
		for (size_t i = 0; i < llen; i++) {
			unsigned char c = (unsigned char)line[i];
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return bad_line(err, line, llen);
		}
		if (is_ows(line[0])) {
			if (!rs->nheaders)
				return bad_line(err, line, llen);
			fold_into_last(rs, line, llen);
		} else {
			const char *colon = memchr(line, ':', llen);
			if (!colon || colon == line)
				return bad_line(err, line, llen);
			for (const char *p = line; p < colon; p++)
				if (!is_tchar((unsigned char)*p))
					return bad_line(err, line, llen);
			size_t vlen = llen - (size_t)(colon + 1 - line);
			const char *value = trim(colon + 1, &vlen);
			add_header(rs, line, (size_t)(colon - line), value, vlen);
		}
		last = pos;
		last_len = llen;
		pos = next;
	}
}

/* "404", "404 Not Found": the code, or -1. */
static int parse_status(const char *v)
{
	if (strlen(v) < 3)
		return -1;
	for (int i = 0; i < 3; i++)
		if (v[i] < '0' || v[i] > '9')
			return -1;
	if (v[3] && !is_ows(v[3]))
		return -1;
	int code = (v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0');
	return code >= 100 ? code : -1;
}

/* Fill status, content_type and location from the headers, then take
 * Status out of the list. *has_status: a Status header was present. */
static int interpret_headers(struct origin_response *rs, bool *has_status, char *err)
{
	*has_status = false;
	for (size_t i = 0; i < rs->nheaders; i++) {
		const struct origin_header *h = &rs->headers[i];
		int code = 0;
		if (!strcasecmp(h->name, "Status"))
			code = parse_status(h->value);
		else if (!strcasecmp(h->name, "Location") && !*h->value)
			code = -1;
		if (code < 0) {
			char *line = xasprintf("%s: %s", h->name, h->value);
			bad_line(err, line, strlen(line));
			free(line);
			return -1;
		}
		if (code) {
			rs->status = code;
			*has_status = true;
		} else if (!strcasecmp(h->name, "Content-Type") && !rs->content_type) {
			rs->content_type = xstrdup(h->value);
		} else if (!strcasecmp(h->name, "Location") && !rs->location) {
			rs->location = xstrdup(h->value);
		}
	}

	size_t kept = 0;
	for (size_t i = 0; i < rs->nheaders; i++) {
		struct origin_header *h = &rs->headers[i];
		if (strcasecmp(h->name, "Status")) {
			rs->headers[kept++] = *h;
			continue;
		}
		free(h->name);
		free(h->value);
	}
	rs->nheaders = kept;
	return 0;
}

/* The header block of data[0..len) into rs; *body_start: where the body
 * begins. */
static int parse_head(const char *data, size_t len, struct origin_response *rs, size_t *body_start,
		      bool *has_status, char *err)
{
	rs->status = 200;
	if (parse_header_block(data, len, rs, body_start, err) < 0)
		return -1;
	return interpret_headers(rs, has_status, err);
}

/* What the headers make of a response with a body of body_len bytes. */
static int finish_kind(struct origin_response *rs, long long body_len, bool has_status, char *err)
{
	if (body_len && !rs->location && !rs->content_type)
		return err_set(err, "no Content-Type");
	if (rs->location) {
		/* "//host/x" is a network-path reference, so a client redirect. */
		bool local = rs->location[0] == '/' && rs->location[1] != '/';
		if (local && !has_status)
			return CGIRESP_LOCAL_REDIRECT;
		if (!has_status)
			rs->status = 302;
	}
	return CGIRESP_DOCUMENT;
}

int cgiresp_parse(struct buf *raw, struct origin_response *rs, char *err)
{
	size_t body_start = 0;
	bool has_status;

	if (parse_head(buf_str(raw), raw->len, rs, &body_start, &has_status, err) < 0)
		return -1;
	size_t body_len = raw->len - body_start;
	if (body_start)
		memmove(raw->data, raw->data + body_start, body_len);
	buf_truncate(raw, body_len);
	buf_release(&rs->body);
	rs->body = *raw;
	buf_init(raw);
	return finish_kind(rs, (long long)body_len, has_status, err);
}

int cgiresp_parse_spill(struct spill *raw, struct origin_response *rs, char *err)
{
	if (raw->fd < 0)
		return cgiresp_parse(&raw->mem, rs, err);

	/* The header block ends within its limit, or the output is refused:
	 * the file's start is all the parser needs, with room past the limit
	 * to quote the line crossing it as it would be quoted from memory. */
	struct buf head = BUF_INIT;
	size_t body_start = 0;
	bool has_status;
	long long room = CGIRESP_MAX_HEADER + 1024;
	long long n = raw->len < room ? raw->len : room;
	int rc = spill_read(raw->fd, 0, n, &head, "program output", err);
	if (rc == 0)
		rc = parse_head(buf_str(&head), head.len, rs, &body_start, &has_status, err);
	buf_release(&head);
	if (rc < 0)
		return -1;
	/* rs came initialised: its body is empty memory, and the file takes
	 * its place (no origin.c call, so the parser links on its own). */
	buf_release(&rs->body);
	rs->body_off = (long long)body_start;
	rs->body_size = raw->len - (long long)body_start;
	rs->body_fd = spill_take_fd(raw);
	rs->body_in_file = true;
	return finish_kind(rs, rs->body_size, has_status, err);
}
