/* body.c - a response's body: where it is, loading it, --strip. */
#include "crawl/body.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/spill.h"

/* The body of rs as a file, or fd -1 when it is in rs->body; 0 or -1. */
int open_body(struct origin_response *rs, struct body_file *f, char *err)
{
	*f = (struct body_file){ -1, false, 0, 0 };
	if (rs->static_path) {
		struct stat st;
		f->fd = open(rs->static_path, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0 || fstat(f->fd, &st) < 0) {
			err_sys(err, "cannot read '%s'", rs->static_path);
			if (f->fd >= 0)
				close(f->fd);
			f->fd = -1;
			return -1;
		}
		f->owned = true;
		f->len = (long long)st.st_size;
	} else if (rs->body_in_file) {
		f->fd = rs->body_fd;
		f->off = rs->body_off;
		f->len = rs->body_size;
	}
	return 0;
}

void close_body(struct body_file *f)
{
	if (f->owned && f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* Bring the whole body of rs into rs->body, as if the origin had sent it
 * so (a static file's path is forgotten); 0 or -1 with err. */
int load_body(struct origin_response *rs, char *err)
{
	if (!rs->static_path)
		return origin_body_load(rs, err);
	struct body_file f;
	if (open_body(rs, &f, err) < 0)
		return -1;
	buf_reset(&rs->body);
	int rc = spill_read(f.fd, 0, f.len, &rs->body, rs->static_path, err);
	close_body(&f);
	if (rc == 0) {
		free(rs->static_path);
		rs->static_path = NULL;
	}
	return rc;
}


bool is_text_type(const char *type)
{
	if (!type)
		return false;
	return !strncasecmp(type, "text/", 5) || strcasestr(type, "xml") || strcasestr(type, "javascript") ||
	       strcasestr(type, "json");
}

bool has_links(const char *type)
{
	if (!type)
		return false;
	return !strncasecmp(type, "text/html", 9) || !strncasecmp(type, "application/xhtml+xml", 21) ||
	       !strncasecmp(type, "text/css", 8) || strcasestr(type, "xml");
}

/* Remove every match of the --strip regexes. NUL bytes split the text:
 * regexec cannot see past them. */
void strip_volatile(const struct crawl_config *cfg, struct buf *body)
{
	for (size_t r = 0; r < cfg->nstrip; r++) {
		struct buf out = BUF_INIT;
		size_t pos = 0;
		bool changed = false;
		while (pos < body->len) {
			const char *seg = body->data + pos;
			size_t seglen = strlen(seg);
			const char *p = seg;
			regmatch_t m;
			int eflags = 0;
			while (p < seg + seglen && regexec(&cfg->strip_re[r], p, 1, &m, eflags) == 0) {
				if (m.rm_eo == 0) { /* an empty match: step over one byte */
					buf_add(&out, p, 1);
					p++;
				} else {
					buf_add(&out, p, (size_t)m.rm_so);
					p += m.rm_eo;
					changed = true;
				}
				eflags = REG_NOTBOL;
			}
			buf_add(&out, p, (size_t)(seg + seglen - p));
			pos += seglen;
			if (pos < body->len) { /* keep the NUL */
				buf_addc(&out, '\0');
				pos++;
			}
		}
		if (changed) {
			buf_release(body);
			*body = out;
		} else {
			buf_release(&out);
		}
	}
}

bool no_store(const struct origin_response *rs)
{
	for (size_t i = 0; i < rs->nheaders; i++) {
		if (strcasecmp(rs->headers[i].name, "Cache-Control"))
			continue;
		const char *v = rs->headers[i].value;
		if (strcasestr(v, "no-store") || strcasestr(v, "private") || strcasestr(v, "no-cache"))
			return true;
	}
	return false;
}

