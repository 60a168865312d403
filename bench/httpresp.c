/* bench/httpresp.c - incremental HTTP/1.1 response parsing (httpresp.h). */
#include "httpresp.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* Anything larger is not a length a benchmark meets; it also keeps the
 * arithmetic far from overflow. */
#define MAX_LENGTH (1LL << 50)

enum state {
	S_HEAD,
	S_LENGTH,
	S_CHUNK_SIZE,
	S_CHUNK_DATA,
	S_CHUNK_END,
	S_TRAILER,
	S_CLOSE,
	S_DONE,
	S_ERROR,
};

static void clear_response(struct httpresp *p)
{
	p->status = 0;
	p->minor_version = 0;
	p->keep_alive = false;
	p->framing = HTTPRESP_NONE;
	p->content_length = -1;
	p->body_bytes = 0;
	p->total_bytes = 0;
	p->error = NULL;
	p->state = S_HEAD;
	buf_reset(&p->head);
	p->line_len = 0;
	p->line_used = 0;
	p->remaining = 0;
}

void httpresp_init(struct httpresp *p)
{
	buf_init(&p->head);
	p->head_request = false;
	clear_response(p);
}

void httpresp_reset(struct httpresp *p)
{
	p->head_request = false;
	clear_response(p);
}

void httpresp_release(struct httpresp *p)
{
	buf_release(&p->head);
	clear_response(p);
}

static int fail(struct httpresp *p, const char *why)
{
	p->state = S_ERROR;
	p->error = why;
	return HTTPRESP_ERROR;
}

/* Is [s, s+n) equal to the token tok, ignoring case? */
static bool token_is(const char *s, size_t n, const char *tok)
{
	return strlen(tok) == n && !strncasecmp(s, tok, n);
}

/* The comma-separated tokens of a header value, trimmed; calls fn on each. */
static void each_token(const char *v, void (*fn)(struct httpresp *, const char *, size_t, void *),
		       struct httpresp *p, void *ctx)
{
	while (*v) {
		size_t n = strcspn(v, ",");
		const char *s = v, *e = v + n;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e > s)
			fn(p, s, (size_t)(e - s), ctx);
		v += n;
		if (*v == ',')
			v++;
	}
}

struct head_flags {
	bool te, chunked, close, keep;
};

static void on_te(struct httpresp *p, const char *s, size_t n, void *ctx)
{
	struct head_flags *f = ctx;
	(void)p;
	f->te = true;
	/* Only the last coding decides (chunked must come last). */
	f->chunked = token_is(s, n, "chunked");
}

static void on_connection(struct httpresp *p, const char *s, size_t n, void *ctx)
{
	struct head_flags *f = ctx;
	(void)p;
	if (token_is(s, n, "close"))
		f->close = true;
	else if (token_is(s, n, "keep-alive"))
		f->keep = true;
}

/* Parse a Content-Length value: digits only; -1 when it is not one. */
static long long parse_length(const char *v)
{
	long long n = 0;
	if (!*v)
		return -1;
	for (; *v; v++) {
		if (!isdigit((unsigned char)*v))
			return -1;
		n = n * 10 + (*v - '0');
		if (n > MAX_LENGTH)
			return -1;
	}
	return n;
}

/* Parse the status line "HTTP/1.x SSS reason"; -1 when it is not one. */
static int parse_status_line(struct httpresp *p, const char *line)
{
	if (strncmp(line, "HTTP/1.", 7) || !isdigit((unsigned char)line[7]) || line[8] != ' ')
		return -1;
	const char *s = line + 9;
	if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]) ||
	    !isdigit((unsigned char)s[2]) || (s[3] && s[3] != ' '))
		return -1;
	p->minor_version = line[7] - '0';
	p->status = (s[0] - '0') * 100 + (s[1] - '0') * 10 + (s[2] - '0');
	return p->status < 100 ? -1 : 0;
}

/* The head is complete in p->head: read status and headers, choose the
 * framing. Returns HTTPRESP_MORE (body follows, or an interim response was
 * skipped), HTTPRESP_DONE (no body) or HTTPRESP_ERROR. */
static int parse_head(struct httpresp *p)
{
	struct head_flags f = { false, false, false, false };
	char *s = p->head.data, *end = p->head.data + p->head.len;
	bool first = true;
	while (s < end) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		char *e = nl ? nl : end;
		char *next = nl ? nl + 1 : end;
		if (e > s && e[-1] == '\r')
			e--;
		*e = '\0';
		if (first) {
			if (parse_status_line(p, s) < 0)
				return fail(p, "bad status line");
			first = false;
		} else if (!*s) {
			break;
		} else if (*s == ' ' || *s == '\t') {
			/* obs-fold: a continuation of the previous value; none we read. */
		} else {
			char *colon = strchr(s, ':');
			if (!colon || colon == s || strcspn(s, " \t") < (size_t)(colon - s))
				return fail(p, "bad header line");
			*colon = '\0';
			char *v = colon + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			char *ve = v + strlen(v);
			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
				*--ve = '\0';
			if (!strcasecmp(s, "Content-Length")) {
				long long n = parse_length(v);
				if (n < 0)
					return fail(p, "bad Content-Length");
				if (p->content_length >= 0 && p->content_length != n)
					return fail(p, "conflicting Content-Length headers");
				p->content_length = n;
			} else if (!strcasecmp(s, "Transfer-Encoding")) {
				each_token(v, on_te, p, &f);
			} else if (!strcasecmp(s, "Connection")) {
				each_token(v, on_connection, p, &f);
			}
		}
		s = next;
	}

	/* Interim responses (100 Continue, 103 Early Hints) precede the real one. */
	if (p->status < 200 && p->status != 101) {
		long long total = p->total_bytes;
		bool head_request = p->head_request;
		clear_response(p);
		p->total_bytes = total;
		p->head_request = head_request;
		return HTTPRESP_MORE;
	}
	if (p->head_request || p->status < 200 || p->status == 204 || p->status == 304)
		p->framing = HTTPRESP_NONE;
	else if (f.te)
		p->framing = f.chunked ? HTTPRESP_CHUNKED : HTTPRESP_CLOSE;
	else if (p->content_length >= 0)
		p->framing = HTTPRESP_LENGTH;
	else
		p->framing = HTTPRESP_CLOSE;
	p->keep_alive = (p->minor_version >= 1 ? !f.close : f.keep && !f.close) &&
			p->framing != HTTPRESP_CLOSE && p->status != 101;

	switch (p->framing) {
	case HTTPRESP_NONE:
		p->state = S_DONE;
		return HTTPRESP_DONE;
	case HTTPRESP_LENGTH:
		p->remaining = p->content_length;
		p->state = p->remaining ? S_LENGTH : S_DONE;
		return p->remaining ? HTTPRESP_MORE : HTTPRESP_DONE;
	case HTTPRESP_CHUNKED:
		p->state = S_CHUNK_SIZE;
		return HTTPRESP_MORE;
	case HTTPRESP_CLOSE:
		p->state = S_CLOSE;
		return HTTPRESP_MORE;
	}
	return fail(p, "unknown framing");
}

/* Take head bytes from data until the empty line ending the head. Returns
 * what parse_head returns once the head is complete, else HTTPRESP_MORE;
 * *taken says how many bytes were consumed. */
static int feed_head(struct httpresp *p, const char *data, size_t len, size_t *taken)
{
	size_t i = 0;
	*taken = 0;
	while (i < len) {
		const char *nl = memchr(data + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (data + i)) + 1 : len - i;
		if (p->head.len + n > HTTPRESP_HEAD_MAX)
			return fail(p, "response head too large");
		buf_add(&p->head, data + i, n);
		i += n;
		*taken = i;
		if (!nl) {
			p->line_len += n;
			break;
		}
		/* The line just ended; without its '\n' it is this long: */
		size_t line = p->line_len + n - 1;
		p->line_len = 0;
		bool empty = line == 0 || (line == 1 && p->head.data[p->head.len - 2] == '\r');
		if (!empty)
			continue;
		if (p->head.len <= 2)
			return fail(p, "bad status line");
		int r = parse_head(p);
		if (r != HTTPRESP_MORE || p->state != S_HEAD)
			return r;
		/* An interim response was skipped: its successor's head follows. */
	}
	return HTTPRESP_MORE;
}

/* Collect a line (chunk size, CRLF, trailer) into p->line. Returns 1 when
 * it is complete (NUL-terminated, CR LF removed), 0 when more bytes are
 * needed, -1 when it is too long; *taken bytes were consumed. */
static int take_line(struct httpresp *p, const char *data, size_t len, size_t *taken)
{
	const char *nl = memchr(data, '\n', len);
	size_t n = nl ? (size_t)(nl - data) : len;
	*taken = nl ? n + 1 : n;
	if (p->line_used + n >= sizeof p->line)
		return -1;
	memcpy(p->line + p->line_used, data, n);
	p->line_used += n;
	if (!nl)
		return 0;
	if (p->line_used && p->line[p->line_used - 1] == '\r')
		p->line_used--;
	p->line[p->line_used] = '\0';
	p->line_used = 0;
	return 1;
}

/* The size of a chunk from its line ("1a3f;ext=x"); -1 when not one. */
static long long parse_chunk_size(const char *s)
{
	long long n = 0;
	const char *start = s;
	for (; isxdigit((unsigned char)*s); s++) {
		int d = isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10);
		n = n * 16 + d;
		if (n > MAX_LENGTH)
			return -1;
	}
	if (s == start)
		return -1;
	while (*s == ' ' || *s == '\t')
		s++;
	return *s && *s != ';' ? -1 : n;
}

int httpresp_feed(struct httpresp *p, const char *data, size_t len, size_t *used)
{
	size_t i = 0;
	int r = HTTPRESP_MORE;
	while (i < len && r == HTTPRESP_MORE) {
		size_t taken = 0;
		switch (p->state) {
		case S_HEAD:
			r = feed_head(p, data + i, len - i, &taken);
			break;
		case S_LENGTH:
		case S_CHUNK_DATA: {
			size_t n = len - i;
			if ((long long)n > p->remaining)
				n = (size_t)p->remaining;
			p->remaining -= (long long)n;
			p->body_bytes += (long long)n;
			taken = n;
			if (!p->remaining) {
				if (p->state == S_LENGTH) {
					p->state = S_DONE;
					r = HTTPRESP_DONE;
				} else {
					p->state = S_CHUNK_END;
				}
			}
			break;
		}
		case S_CHUNK_SIZE: {
			int got = take_line(p, data + i, len - i, &taken);
			if (got < 0) {
				r = fail(p, "chunk-size line too long");
			} else if (got) {
				long long n = parse_chunk_size(p->line);
				if (n < 0) {
					r = fail(p, "bad chunk size");
				} else if (n == 0) {
					p->state = S_TRAILER;
				} else {
					p->remaining = n;
					p->state = S_CHUNK_DATA;
				}
			}
			break;
		}
		case S_CHUNK_END: {
			int got = take_line(p, data + i, len - i, &taken);
			if (got < 0 || (got && p->line[0]))
				r = fail(p, "no CRLF after chunk data");
			else if (got)
				p->state = S_CHUNK_SIZE;
			break;
		}
		case S_TRAILER: {
			int got = take_line(p, data + i, len - i, &taken);
			if (got < 0) {
				r = fail(p, "trailer line too long");
			} else if (got && !p->line[0]) {
				p->state = S_DONE;
				r = HTTPRESP_DONE;
			}
			break;
		}
		case S_CLOSE:
			taken = len - i;
			p->body_bytes += (long long)taken;
			break;
		case S_DONE:
			r = HTTPRESP_DONE;
			break;
		default:
			r = HTTPRESP_ERROR;
			break;
		}
		i += taken;
		p->total_bytes += (long long)taken;
	}
	if (len == 0 || i == 0) {
		if (p->state == S_DONE)
			r = HTTPRESP_DONE;
		else if (p->state == S_ERROR)
			r = HTTPRESP_ERROR;
	}
	if (used)
		*used = i;
	return r;
}

int httpresp_eof(struct httpresp *p)
{
	switch (p->state) {
	case S_DONE:
		return HTTPRESP_DONE;
	case S_ERROR:
		return HTTPRESP_ERROR;
	case S_CLOSE:
		p->state = S_DONE;
		return HTTPRESP_DONE;
	default:
		return fail(p, p->state == S_HEAD && !p->total_bytes
				       ? "connection closed without a response"
				       : "connection closed before the end of the response");
	}
}
