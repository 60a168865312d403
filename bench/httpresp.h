/* bench/httpresp.h - an incremental HTTP/1.1 response parser for the load
 * generator (loadgen.c).
 *
 * Bytes are fed as they arrive from the socket, in pieces of any size: a
 * status line or a chunk-size line may be split anywhere. The parser keeps
 * the head (status line and headers) until it is complete, then counts the
 * body without storing it, framed as RFC 9112 section 6.3 says:
 * no body for 1xx, 204 and 304 (interim 1xx responses are skipped), else
 * Transfer-Encoding: chunked, else Content-Length, else everything until
 * the server closes the connection. Pipelining is not supported: the bytes
 * after a complete response are left to the caller (httpresp_feed's used).
 *
 *     struct httpresp p;
 *     httpresp_init(&p);
 *     while ((n = read(fd, buf, sizeof buf)) > 0) {
 *             size_t used;
 *             int r = httpresp_feed(&p, buf, n, &used);
 *             if (r == HTTPRESP_DONE) ...p.status, p.body_bytes...
 *             if (r == HTTPRESP_ERROR) ...p.error...
 *     }
 *     if (n == 0) r = httpresp_eof(&p);
 *     httpresp_reset(&p);   (the next response on the same connection)
 *     httpresp_release(&p);
 */
#ifndef CGISNAP_BENCH_HTTPRESP_H
#define CGISNAP_BENCH_HTTPRESP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* The longest head (status line and headers) accepted, and the longest
 * chunk-size or trailer line. */
#define HTTPRESP_HEAD_MAX (64 * 1024)
#define HTTPRESP_LINE_MAX 1024

enum {
	HTTPRESP_MORE = 0,  /* need more bytes */
	HTTPRESP_DONE = 1,  /* the response is complete */
	HTTPRESP_ERROR = -1 /* not a valid response; error says why */
};

enum httpresp_framing {
	HTTPRESP_NONE,    /* no body (1xx, 204, 304, HEAD) */
	HTTPRESP_LENGTH,  /* Content-Length */
	HTTPRESP_CHUNKED, /* Transfer-Encoding: chunked */
	HTTPRESP_CLOSE,   /* until the server closes the connection */
};

struct httpresp {
	/* Read these once a response is DONE (status and framing as soon as
	 * the head was parsed). */
	int status;               /* 200, 404, ... */
	int minor_version;        /* 1 for HTTP/1.1, 0 for HTTP/1.0 */
	bool keep_alive;          /* the server accepts another request on the connection */
	enum httpresp_framing framing;
	long long content_length; /* -1 when none was sent */
	long long body_bytes;     /* decoded body bytes (chunk framing not counted) */
	long long total_bytes;    /* every byte of the response, head and framing included */
	bool head_request;        /* set by the caller before feeding: the request was HEAD */
	const char *error;        /* static text, when HTTPRESP_ERROR was returned */

	/* Private. */
	int state;
	struct buf head;          /* the head, until parsed; its memory is reused */
	size_t line_len;          /* length of the current line of the head so far */
	char line[HTTPRESP_LINE_MAX]; /* chunk-size or trailer line being read */
	size_t line_used;
	long long remaining;      /* body or chunk bytes still to come */
};

/* Start parsing a response (the memory of p is fresh). */
void httpresp_init(struct httpresp *p);

/* Parse the next response on the same connection, keeping p's memory
 * (head_request is cleared too). */
void httpresp_reset(struct httpresp *p);

/* Free p's memory; p can be initialised again. */
void httpresp_release(struct httpresp *p);

/* Feed len bytes of the response. Returns HTTPRESP_MORE when all of them
 * were consumed and more are needed, HTTPRESP_DONE when the response ended
 * (*used says how many bytes it took; the rest is not part of it), or
 * HTTPRESP_ERROR with p->error set (a bad status line, header, chunk size,
 * a head over HTTPRESP_HEAD_MAX). Feeding after DONE or ERROR returns the
 * same again and consumes nothing. */
int httpresp_feed(struct httpresp *p, const char *data, size_t len, size_t *used);

/* The server closed the connection: HTTPRESP_DONE when that ends the body
 * (framing HTTPRESP_CLOSE), HTTPRESP_ERROR ("connection closed before the
 * end of the response") otherwise, or the state already reached. */
int httpresp_eof(struct httpresp *p);

#endif
