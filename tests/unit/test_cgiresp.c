/* test_cgiresp.c - the CGI response parser, case by case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "origin/cgiresp.h"
#include "base/log.h"
#include "unit.h"

struct parse_case {
	const char *in;
	size_t len;             /* 0: strlen(in) */
	int kind;               /* CGIRESP_DOCUMENT, CGIRESP_LOCAL_REDIRECT or -1 */
	const char *err;        /* when kind is -1 */
	int status;
	const char *type;
	const char *location;
	const char *body;
	size_t nheaders;
};

#define FAILS(in, len, err) { in, len, -1, err, 0, NULL, NULL, NULL, 0 }

static const struct parse_case cases[] = {
	/* Status forms, and the default 200 */
	{ "Content-Type: text/html\n\nhi", 0, CGIRESP_DOCUMENT, NULL, 200, "text/html", NULL, "hi", 1 },
	{ "Status: 404 Not Found\nContent-Type: text/html\n\nno", 0, CGIRESP_DOCUMENT, NULL, 404,
	  "text/html", NULL, "no", 1 },
	{ "Status: 404\nContent-Type: text/plain\n\n", 0, CGIRESP_DOCUMENT, NULL, 404, "text/plain",
	  NULL, "", 1 },
	{ "status:   503   Busy  \ncontent-type: text/plain\n\nx", 0, CGIRESP_DOCUMENT, NULL, 503,
	  "text/plain", NULL, "x", 1 },
	FAILS("Status: 40\nContent-Type: text/plain\n\n", 0, "malformed header from script: 'Status: 40'"),
	FAILS("Status: OK\nContent-Type: text/plain\n\n", 0, "malformed header from script: 'Status: OK'"),
	FAILS("Status: 2000\nContent-Type: text/plain\n\n", 0, "malformed header from script: 'Status: 2000'"),
	/* Redirects: client (absolute URL, 302 unless Status), local (a path, no Status) */
	{ "Location: http://example.org/x\n\n", 0, CGIRESP_DOCUMENT, NULL, 302, NULL,
	  "http://example.org/x", "", 1 },
	{ "Status: 301 Moved\nLocation: https://example.org/\n\n", 0, CGIRESP_DOCUMENT, NULL, 301,
	  NULL, "https://example.org/", "", 1 },
	{ "Location: /other?x=1\n\n", 0, CGIRESP_LOCAL_REDIRECT, NULL, 200, NULL, "/other?x=1", "", 1 },
	{ "Status: 303\nLocation: /other\n\n", 0, CGIRESP_DOCUMENT, NULL, 303, NULL, "/other", "", 1 },
	{ "Location: //cdn.example.org/a\n\n", 0, CGIRESP_DOCUMENT, NULL, 302, NULL,
	  "//cdn.example.org/a", "", 1 },
	{ "Location: http://e.org/\n\nMoved here", 0, CGIRESP_DOCUMENT, NULL, 302, NULL, "http://e.org/",
	  "Moved here", 1 },
	FAILS("Location:\n\n", 0, "malformed header from script: 'Location: '"),
	/* Folding, line ends */
	{ "Content-Type: text/html\nX-Long: a\n  b\n\tc\n\nz", 0, CGIRESP_DOCUMENT, NULL, 200,
	  "text/html", NULL, "z", 2 },
	{ "Content-Type: text/html\r\nX-A: 1\r\n\r\nline1\r\nline2", 0, CGIRESP_DOCUMENT, NULL, 200,
	  "text/html", NULL, "line1\r\nline2", 2 },
	{ "Content-Type: text/html\r\n\nmixed", 0, CGIRESP_DOCUMENT, NULL, 200, "text/html", NULL,
	  "mixed", 1 },
	FAILS(" folded: first\nContent-Type: text/html\n\n", 0, "malformed header from script: ' folded: first'"),
	/* Content-Type is needed for a body */
	FAILS("X-Foo: bar\n\nbody", 0, "no Content-Type"),
	{ "Status: 204\n\n", 0, CGIRESP_DOCUMENT, NULL, 204, NULL, NULL, "", 0 },
	/* Garbage */
	FAILS("this is not a header\n\nbody", 0, "malformed header from script: 'this is not a header'"),
	FAILS(": no name\n\n", 0, "malformed header from script: ': no name'"),
	FAILS("Bad Name: x\n\n", 0, "malformed header from script: 'Bad Name: x'"),
	FAILS("Bad\x01Name: x\n\n", 0, "malformed header from script: 'Bad\\x01Name: x'"),
	FAILS("Content-Type: text/html\n\xff\xfe\n\n", 0, "malformed header from script: '\\xff\\xfe'"),
	FAILS("<html><body>Warning: something broke in /var/www/a-rather-long-path/index.php on line 3",
	      0, "malformed header from script: '<html><body>Warning: something broke in /var/www/a-rather-lo...'"),
	/* The header block never ends */
	FAILS("Content-Type: text/html\nX-A: 1\n", 0, "malformed header from script: 'X-A: 1'"),
	FAILS("Content-Type: text/html", 0, "malformed header from script: 'Content-Type: text/html'"),
	FAILS("", 0, "empty response"),
	/* Bodies are bytes: NULs and non-UTF-8 pass through */
	{ "Content-Type: application/octet-stream\n\na\0b\xff", 44, CGIRESP_DOCUMENT, NULL, 200,
	  "application/octet-stream", NULL, NULL, 1 },
	/* A bare CR splits a line for a client, not for us: refused, as
	 * every other control byte but a tab. */
	FAILS("Content-Type: text/html\rSet-Cookie: evil=1\n\n<p>x", 0,
	      "malformed header from script: 'Content-Type: text/html\\x0dSet-Cookie: evil=1'"),
	FAILS("Content-Type: text/html\nX-Esc: a\x1b[2Jb\n\n", 0, "malformed header from script: 'X-Esc: a\\x1b[2Jb'"),
	FAILS("Content-Type: text/html\nX-Del: a\x7f\n\n", 0, "malformed header from script: 'X-Del: a\\x7f'"),
	FAILS("Content-Type: text/html\nX-Nul: a\0b\n\n", 36, "malformed header from script: 'X-Nul: a\\x00b'"),
};

TEST(cgiresp_table)
{
	for (size_t i = 0; i < COUNT(cases); i++) {
		const struct parse_case *c = &cases[i];
		struct buf raw = BUF_INIT;
		struct origin_response rs;
		char err[ERR_LEN] = "";
		size_t len = c->len ? c->len : strlen(c->in);

		buf_add(&raw, c->in, len);
		origin_response_init(&rs);
		int kind = cgiresp_parse(&raw, &rs, err);
		if (kind != c->kind)
			printf("    case %zu: kind %d, err '%s'\n", i, kind, err);
		CHECK_INT(c->kind, kind);
		if (c->kind < 0) {
			CHECK_STR(c->err, err);
		} else {
			CHECK_INT(c->status, rs.status);
			CHECK_STR(c->type, rs.content_type);
			CHECK_STR(c->location, rs.location);
			if (c->body)
				CHECK_STR(c->body, buf_str(&rs.body));
			CHECK_INT(c->nheaders, rs.nheaders);
			CHECK(origin_header(&rs, "Status") == NULL);
		}
		origin_response_release(&rs);
		buf_release(&raw);
	}
}

TEST(cgiresp_keeps_headers_in_order_and_folds)
{
	const char *in = "Set-Cookie: a=1\nContent-Type: text/html\nX-Long: one\n two\nSet-Cookie: b=2\n"
			 "Status: 200 OK\n\nbody";
	struct buf raw = BUF_INIT;
	struct origin_response rs;
	char err[ERR_LEN];

	buf_adds(&raw, in);
	origin_response_init(&rs);
	CHECK_INT(CGIRESP_DOCUMENT, cgiresp_parse(&raw, &rs, err));
	CHECK_INT(4, rs.nheaders);
	if (rs.nheaders == 4) {
		CHECK_STR("Set-Cookie", rs.headers[0].name);
		CHECK_STR("a=1", rs.headers[0].value);
		CHECK_STR("Content-Type", rs.headers[1].name);
		CHECK_STR("one two", rs.headers[2].value);
		CHECK_STR("b=2", rs.headers[3].value);
	}
	CHECK_STR("one two", origin_header(&rs, "x-long"));
	CHECK_INT(0, raw.len);
	origin_response_release(&rs);
	buf_release(&raw);
}

TEST(cgiresp_binary_body)
{
	const char head[] = "Content-Type: image/png\r\n\r\n";
	const char body[] = { 0, 1, 2, '\n', 0, (char)0xff, '\r', '\n', 0 };
	struct buf raw = BUF_INIT;
	struct origin_response rs;
	char err[ERR_LEN];

	buf_add(&raw, head, sizeof head - 1);
	buf_add(&raw, body, sizeof body);
	origin_response_init(&rs);
	CHECK_INT(CGIRESP_DOCUMENT, cgiresp_parse(&raw, &rs, err));
	CHECK_INT(sizeof body, rs.body.len);
	CHECK(rs.body.len == sizeof body && !memcmp(rs.body.data, body, sizeof body));
	origin_response_release(&rs);
	buf_release(&raw);
}

TEST(cgiresp_huge_header_block)
{
	struct buf raw = BUF_INIT;
	struct origin_response rs;
	char err[ERR_LEN];

	/* Just under the limit: fine. */
	buf_adds(&raw, "Content-Type: text/plain\n");
	while (raw.len < CGIRESP_MAX_HEADER - 200)
		buf_adds(&raw, "X-Filler: 0123456789012345678901234567890123456789\n");
	buf_adds(&raw, "\nok");
	origin_response_init(&rs);
	CHECK_INT(CGIRESP_DOCUMENT, cgiresp_parse(&raw, &rs, err));
	CHECK_STR("ok", buf_str(&rs.body));
	origin_response_release(&rs);
	buf_release(&raw);

	/* Over it, ended or not: the line that crosses it is quoted. */
	for (int ended = 0; ended < 2; ended++) {
		buf_adds(&raw, "Content-Type: text/plain\n");
		for (int i = 0; raw.len < 100 * 1024; i++)
			buf_addf(&raw, "X-Filler-%d: 0123456789012345678901234567890123456789\n", i);
		if (ended)
			buf_adds(&raw, "\nbody");
		origin_response_init(&rs);
		CHECK_INT(-1, cgiresp_parse(&raw, &rs, err));
		CHECK(!strncmp(err, "malformed header from script: 'X-Filler-", 40));
		origin_response_release(&rs);
		buf_release(&raw);
	}
}

TEST(cgiresp_quote_cuts_and_escapes)
{
	struct buf q = BUF_INIT;
	cgiresp_quote(&q, "ab\tc\x7f", 5, 60);
	CHECK_STR("ab\\x09c\\x7f", buf_str(&q));
	buf_reset(&q);
	cgiresp_quote(&q, "abcdef", 6, 3);
	CHECK_STR("abc...", buf_str(&q));
	buf_release(&q);
}

/* Parse in through a spill that keeps max_mem bytes in memory. */
static int parse_spilled(const char *in, size_t max_mem, struct origin_response *rs, char *err)
{
	struct spill raw;
	spill_init(&raw, max_mem, -1);
	origin_response_init(rs);
	int rc = spill_add(&raw, in, strlen(in), err);
	if (rc == 0)
		rc = cgiresp_parse_spill(&raw, rs, err);
	if (rc >= 0)
		CHECK_INT(-1, raw.fd); /* the response has it now */
	spill_release(&raw);
	return rc;
}

TEST(cgiresp_spilled_output_keeps_its_body_in_the_file)
{
	struct origin_response rs;
	char err[ERR_LEN];
	const char *in = "Status: 201 Created\r\nContent-Type: text/html\r\n\r\n<p>the body</p>\n";

	/* In memory: as cgiresp_parse. */
	CHECK_INT(CGIRESP_DOCUMENT, parse_spilled(in, 1000, &rs, err));
	CHECK(!rs.body_in_file);
	CHECK_STR("<p>the body</p>\n", buf_str(&rs.body));
	origin_response_release(&rs);

	/* In a file: the same headers, the body left where it is. */
	CHECK_INT(CGIRESP_DOCUMENT, parse_spilled(in, 8, &rs, err));
	CHECK(rs.body_in_file);
	CHECK_INT(201, rs.status);
	CHECK_STR("text/html", rs.content_type);
	CHECK_INT(0, rs.body.len);
	CHECK_INT(strlen(in) - strlen("<p>the body</p>\n"), rs.body_off);
	CHECK_INT(strlen("<p>the body</p>\n"), rs.body_size);
	CHECK_INT(strlen("<p>the body</p>\n"), origin_body_size(&rs));
	CHECK_INT(0, origin_body_load(&rs, err));
	CHECK(!rs.body_in_file);
	CHECK_STR("<p>the body</p>\n", buf_str(&rs.body));
	origin_response_release(&rs);

	/* Errors are the same as for output in memory. */
	CHECK_INT(-1, parse_spilled("X-Only: header\n\nbody without a type", 4, &rs, err));
	CHECK_STR("no Content-Type", err);
	origin_response_release(&rs);
	CHECK_INT(-1, parse_spilled("not a header at all\n\nbody", 4, &rs, err));
	CHECK_STR("malformed header from script: 'not a header at all'", err);
	origin_response_release(&rs);
	CHECK_INT(CGIRESP_LOCAL_REDIRECT, parse_spilled("Location: /elsewhere\n\n", 4, &rs, err));
	CHECK_STR("/elsewhere", rs.location);
	origin_response_release(&rs);

	/* A header block over the limit is refused from the file too. */
	struct buf big = BUF_INIT;
	buf_adds(&big, "Content-Type: text/html\n");
	while (big.len <= CGIRESP_MAX_HEADER)
		buf_adds(&big, "X-Filler: 0123456789012345678901234567890123456789\n");
	buf_adds(&big, "\nbody");
	CHECK_INT(-1, parse_spilled(big.data, 1024, &rs, err));
	CHECK_STR("malformed header from script: 'X-Filler: 0123456789012345678901234567890123456789'", err);
	origin_response_release(&rs);
	buf_release(&big);
}
