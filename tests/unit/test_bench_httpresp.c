/* test_bench_httpresp.c - the load generator's HTTP response parser
 * (bench/httpresp.c): framing by Content-Length, chunked and close, every
 * way of splitting a response across reads, and bad responses. */
#include <stdio.h>
#include <string.h>

#include "../../bench/httpresp.h"
#include "unit.h"

struct good_case {
	const char *raw;
	int status;
	long long body;        /* decoded body bytes */
	enum httpresp_framing framing;
	bool keep_alive;
	bool needs_eof;        /* complete only when the server closes */
	size_t extra;          /* bytes after the response, not part of it */
};

static const struct good_case good[] = {
	{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, 5, HTTPRESP_LENGTH, true, false, 0 },
	{ "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 200, 0, HTTPRESP_LENGTH, true, false, 0 },
	{ "HTTP/1.1 404 Not Found\r\ncontent-length:  3 \r\nConnection: close\r\n\r\nnope", 404, 3,
	  HTTPRESP_LENGTH, false, false, 1 }, /* the extra byte is not part of it */
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n",
	  200, 11, HTTPRESP_CHUNKED, true, false, 0 },
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n",
	  200, 10, HTTPRESP_CHUNKED, true, false, 0 },
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 99\r\n\r\n1f\r\n0123456789012345678901234567890\r\n0\r\n\r\n",
	  200, 31, HTTPRESP_CHUNKED, true, false, 0 }, /* chunked wins over Content-Length */
	{ "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", 200, 2, HTTPRESP_LENGTH, true, false, 0 }, /* bare LF */
	{ "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, 2, HTTPRESP_LENGTH, false, false, 0 },
	{ "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok", 200, 2,
	  HTTPRESP_LENGTH, true, false, 0 },
	{ "HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\nok", 200, 2,
	  HTTPRESP_LENGTH, false, false, 0 },
	{ "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", 204, 0, HTTPRESP_NONE, true, false, 0 },
	{ "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n", 304, 0, HTTPRESP_NONE, true, false, 0 },
	{ "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", 200, 3,
	  HTTPRESP_LENGTH, true, false, 0 }, /* interim response skipped */
	{ "HTTP/1.1 200 OK\r\nX-Folded: a\r\n  b\r\nContent-Length: 1\r\n\r\nz", 200, 1, HTTPRESP_LENGTH,
	  true, false, 0 },
	{ "HTTP/1.1 200\r\nContent-Length: 1\r\n\r\nz", 200, 1, HTTPRESP_LENGTH, true, false, 0 }, /* no reason */
	{ "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nuntil the end", 200, 13, HTTPRESP_CLOSE, false, true, 0 },
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nraw", 200, 3, HTTPRESP_CLOSE, false, true, 0 },
};

/* Feed raw in pieces of at most step bytes (0: two pieces split at cut);
 * returns the final result and the bytes consumed. */
static int feed_pieces(struct httpresp *p, const char *raw, size_t len, size_t step, size_t cut,
		       size_t *consumed)
{
	size_t off = 0;
	int r = HTTPRESP_MORE;
	while (off < len && r == HTTPRESP_MORE) {
		size_t n = step ? step : (off < cut ? cut - off : len - off);
		if (n > len - off)
			n = len - off;
		size_t used = 0;
		r = httpresp_feed(p, raw + off, n, &used);
		if (r == HTTPRESP_MORE && used != n)
			unit_fail(__FILE__, __LINE__, "MORE but only %zu of %zu bytes used", used, n);
		off += used;
	}
	*consumed = off;
	return r;
}

static void check_good(const struct good_case *c, size_t step, size_t cut)
{
	struct httpresp p;
	size_t len = strlen(c->raw), consumed = 0;
	httpresp_init(&p);
	int r = feed_pieces(&p, c->raw, len, step, cut, &consumed);
	if (c->needs_eof) {
		if (r != HTTPRESP_MORE)
			unit_fail(__FILE__, __LINE__, "'%.30s' (step %zu cut %zu): %d before EOF", c->raw,
				  step, cut, r);
		r = httpresp_eof(&p);
	}
	if (r != HTTPRESP_DONE || p.status != c->status || p.body_bytes != c->body ||
	    p.framing != c->framing || p.keep_alive != c->keep_alive)
		unit_fail(__FILE__, __LINE__,
			  "'%.40s' (step %zu cut %zu): result %d status %d body %lld framing %d "
			  "keep-alive %d (%s)",
			  c->raw, step, cut, r, p.status, p.body_bytes, (int)p.framing, p.keep_alive,
			  p.error ? p.error : "no error");
	/* Everything up to the end of the response counts, nothing after. */
	size_t expect = len - c->extra;
	if ((long long)consumed != p.total_bytes || consumed != expect)
		unit_fail(__FILE__, __LINE__, "'%.40s' (step %zu cut %zu): consumed %zu, total %lld, want %zu",
			  c->raw, step, cut, consumed, p.total_bytes, expect);
	httpresp_release(&p);
}

TEST(bench_httpresp_whole_and_byte_by_byte)
{
	for (size_t i = 0; i < COUNT(good); i++) {
		check_good(&good[i], 1 << 20, 0);
		check_good(&good[i], 1, 0);
		check_good(&good[i], 7, 0);
	}
}

TEST(bench_httpresp_every_split_point)
{
	for (size_t i = 0; i < COUNT(good); i++)
		for (size_t cut = 1; cut < strlen(good[i].raw); cut++)
			check_good(&good[i], 0, cut);
}

TEST(bench_httpresp_bad_responses)
{
	static const char *const bad[] = {
		"HTTP/2 200 OK\r\n\r\n",
		"HTTP/1.1 20 OK\r\n\r\n",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"HTTP/1.1 abc OK\r\n\r\n",
		"HTTP/1.1  200 OK\r\n\r\n",
		"ICY 200 OK\r\n\r\n",
		"\r\n\r\n",
		"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
		"HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
		"HTTP/1.1 200 OK\r\n: empty name\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\n",
	};
	for (size_t i = 0; i < COUNT(bad); i++) {
		for (size_t step = 1; step <= 1000; step += 999) {
			struct httpresp p;
			size_t consumed;
			httpresp_init(&p);
			int r = feed_pieces(&p, bad[i], strlen(bad[i]), step, 0, &consumed);
			if (r != HTTPRESP_ERROR || !p.error)
				unit_fail(__FILE__, __LINE__, "'%s' (step %zu): result %d, expected an error",
					  bad[i], step, r);
			/* Errors stick. */
			CHECK_INT(HTTPRESP_ERROR, httpresp_feed(&p, "x", 1, &consumed));
			CHECK_INT(HTTPRESP_ERROR, httpresp_eof(&p));
			httpresp_release(&p);
		}
	}
}

TEST(bench_httpresp_head_too_large)
{
	struct httpresp p;
	size_t used;
	char line[1024];
	memset(line, 'a', sizeof line);
	httpresp_init(&p);
	int r = httpresp_feed(&p, "HTTP/1.1 200 OK\r\n", 17, &used);
	for (int i = 0; i < 100 && r == HTTPRESP_MORE; i++)
		r = httpresp_feed(&p, line, sizeof line, &used);
	CHECK_INT(HTTPRESP_ERROR, r);
	CHECK_STR("response head too large", p.error);
	httpresp_release(&p);
}

TEST(bench_httpresp_eof_before_the_end)
{
	static const char *const cut[] = {
		"",
		"HTTP/1.1 200 OK\r\nContent-Le",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n",
	};
	for (size_t i = 0; i < COUNT(cut); i++) {
		struct httpresp p;
		size_t used;
		httpresp_init(&p);
		CHECK_INT(HTTPRESP_MORE, httpresp_feed(&p, cut[i], strlen(cut[i]), &used));
		if (httpresp_eof(&p) != HTTPRESP_ERROR)
			unit_fail(__FILE__, __LINE__, "'%s': EOF accepted as the end", cut[i]);
		CHECK(p.error != NULL);
		httpresp_release(&p);
	}
}

TEST(bench_httpresp_reset_for_the_next_response)
{
	/* Two responses back to back on one connection (as after keep-alive). */
	const char *two = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
			  "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nno\r\n0\r\n\r\n";
	struct httpresp p;
	size_t used;
	httpresp_init(&p);
	CHECK_INT(HTTPRESP_DONE, httpresp_feed(&p, two, strlen(two), &used));
	CHECK_INT(41, used);
	CHECK_INT(200, p.status);
	CHECK_INT(3, p.body_bytes);
	/* DONE again, consuming nothing, until reset. */
	size_t again;
	CHECK_INT(HTTPRESP_DONE, httpresp_feed(&p, two + used, 5, &again));
	CHECK_INT(0, again);
	httpresp_reset(&p);
	size_t used2;
	CHECK_INT(HTTPRESP_DONE, httpresp_feed(&p, two + used, strlen(two) - used, &used2));
	CHECK_INT(strlen(two) - used, used2);
	CHECK_INT(404, p.status);
	CHECK_INT(2, p.body_bytes);
	CHECK_INT(HTTPRESP_CHUNKED, p.framing);
	httpresp_release(&p);
}

TEST(bench_httpresp_head_request_has_no_body)
{
	struct httpresp p;
	size_t used;
	const char *r = "HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n";
	httpresp_init(&p);
	p.head_request = true;
	CHECK_INT(HTTPRESP_DONE, httpresp_feed(&p, r, strlen(r), &used));
	CHECK_INT(0, p.body_bytes);
	CHECK_INT(500, p.content_length);
	httpresp_release(&p);
}

TEST(bench_httpresp_large_body_counted_not_kept)
{
	static char body[300000];
	char head[128];
	struct httpresp p;
	size_t used;
	memset(body, 'x', sizeof body);
	int n = snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", sizeof body);
	httpresp_init(&p);
	CHECK_INT(HTTPRESP_MORE, httpresp_feed(&p, head, (size_t)n, &used));
	int r = HTTPRESP_MORE;
	for (size_t off = 0; off < sizeof body && r == HTTPRESP_MORE; off += 65536) {
		size_t len = sizeof body - off < 65536 ? sizeof body - off : 65536;
		r = httpresp_feed(&p, body + off, len, &used);
	}
	CHECK_INT(HTTPRESP_DONE, r);
	CHECK_INT(sizeof body, p.body_bytes);
	CHECK_INT(sizeof body + (size_t)n, p.total_bytes);
	CHECK(p.head.cap < 1024); /* the body never went into the head buffer */
	httpresp_release(&p);
}
