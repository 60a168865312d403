/* response.c - the response a render fills (origin.h's struct
 * origin_response): its life, its body in memory or in a file, its
 * headers. Below the dispatcher and the back ends, which all fill one. */
#include "origin/origin.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/spill.h"
#include "base/xalloc.h"
#include "origin/origin_impl.h"

void origin_response_init(struct origin_response *rs)
{
	memset(rs, 0, sizeof *rs);
	rs->body_fd = -1;
}

void origin_mark_untraced(struct origin_response *rs, const char *prog, const char *why)
{
	rs->untraced = xstrdup(prog);
	rs->untraced_why = xstrdup(why);
}

void origin_response_release(struct origin_response *rs)
{
	free(rs->content_type);
	free(rs->location);
	for (size_t i = 0; i < rs->nheaders; i++) {
		free(rs->headers[i].name);
		free(rs->headers[i].value);
	}
	free(rs->headers);
	origin_body_drop(rs);
	free(rs->static_path);
	free(rs->refused);
	free(rs->warning);
	free(rs->failed_output);
	strlist_clear(&rs->deps_read);
	strlist_clear(&rs->deps_exist);
	strlist_clear(&rs->deps_listed);
	strlist_clear(&rs->deps_written);
	free(rs->untraced);
	free(rs->untraced_why);
	origin_response_init(rs);
}

long long origin_body_size(const struct origin_response *rs)
{
	return rs->body_in_file ? rs->body_size : (long long)rs->body.len;
}

int origin_body_load(struct origin_response *rs, char *err)
{
	if (!rs->body_in_file)
		return 0;
	buf_reset(&rs->body);
	if (spill_read(rs->body_fd, rs->body_off, rs->body_size, &rs->body, "response body", err) < 0)
		return -1;
	close(rs->body_fd);
	rs->body_in_file = false;
	rs->body_fd = -1;
	rs->body_off = rs->body_size = 0;
	return 0;
}

void origin_body_drop(struct origin_response *rs)
{
	buf_release(&rs->body);
	if (rs->body_in_file)
		close(rs->body_fd);
	rs->body_in_file = false;
	rs->body_fd = -1;
	rs->body_off = rs->body_size = 0;
}

const char *origin_header(const struct origin_response *rs, const char *name)
{
	for (size_t i = 0; i < rs->nheaders; i++)
		if (!strcasecmp(rs->headers[i].name, name))
			return rs->headers[i].value;
	return NULL;
}

void origin_response_add_header(struct origin_response *rs, const char *name, const char *value)
{
	rs->headers = xrealloc(rs->headers, (rs->nheaders + 1) * sizeof *rs->headers);
	rs->headers[rs->nheaders].name = xstrdup(name);
	rs->headers[rs->nheaders].value = xstrdup(value);
	rs->nheaders++;
}
