/* test_watch_control.c - the control socket's request lines, and its
 * address when the tree's path is too long for sun_path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "../../watch/control.h"
#include "unit.h"

TEST(watch_control_parse_table)
{
	static const struct {
		const char *text;
		int rc;
		size_t urls, paths;
		int wait;
		const char *err; /* part of the message */
	} cases[] = {
		{ "url /post?id=3\n\n", 0, 1, 0, 0, NULL },
		{ "url /a\nurl http://h/b\npath /srv/x y.txt\nwait\n\n", 0, 2, 1, 1, NULL },
		{ "url /a\r\n\r\n", 0, 1, 0, 0, NULL },               /* CRLF from a hand-typed client */
		{ "url /a", 0, 1, 0, 0, NULL },                       /* the end of the connection ends it */
		{ "url /a\n\nurl /ignored\n", 0, 1, 0, 0, NULL },     /* the empty line ends it */
		{ "path relative/x\n\n", -1, 0, 0, 0, "bad request line 'path relative/x'" },
		{ "url \n\n", -1, 0, 0, 0, "bad request line 'url '" },
		{ "URL /a\n\n", -1, 0, 0, 0, "expected 'url TARGET', 'path /ABSOLUTE/PATH', 'wait' or 'idle'" },
		{ "wait\n\n", -1, 0, 0, 0, "names no URL and no path" },
		{ "\n", -1, 0, 0, 0, "names no URL and no path" },
		{ "idle\n\n", 0, 0, 0, 0, NULL },                      /* names nothing: answered when idle */
		{ "idle\nurl /a\n\n", -1, 0, 0, 0, "'idle' goes alone" },
		{ "wait\nidle\n\n", -1, 0, 0, 0, "'idle' goes alone" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct control_request rq = CONTROL_REQUEST_INIT;
		char err[ERR_LEN] = "";
		int rc = control_parse(cases[i].text, strlen(cases[i].text), &rq, err);
		CHECK_INT(cases[i].rc, rc);
		if (rc == 0) {
			CHECK_INT(cases[i].urls, rq.urls.n);
			CHECK_INT(cases[i].paths, rq.paths.n);
			CHECK_INT(cases[i].wait, rq.wait);
			CHECK_INT(!strncmp(cases[i].text, "idle", 4), rq.idle);
		} else {
			CHECK(strstr(err, cases[i].err) != NULL);
		}
		control_request_release(&rq);
	}
	struct control_request rq = CONTROL_REQUEST_INIT;
	char err[ERR_LEN];
	CHECK_INT(0, control_parse("path /srv/x y.txt\n\n", 19, &rq, err));
	CHECK_STR("/srv/x y.txt", rq.paths.n ? rq.paths.items[0] : NULL);
	control_request_release(&rq);
	CHECK_INT(-1, control_parse("url /a\0b\n\n", 10, &rq, err));
	CHECK(strstr(err, "NUL") != NULL);
	control_request_release(&rq);
}

TEST(watch_control_address_long_paths)
{
	struct sockaddr_un sa;
	socklen_t len;
	control_address(7, "/srv/wiki/.cgisnap", &sa, &len);
	CHECK_STR("/srv/wiki/.cgisnap/control", sa.sun_path);
	CHECK_INT(offsetof(struct sockaddr_un, sun_path) + strlen(sa.sun_path) + 1, len);
	char longpath[300];
	memset(longpath, 'x', sizeof longpath - 1);
	longpath[0] = '/';
	longpath[sizeof longpath - 1] = '\0';
	control_address(7, longpath, &sa, &len);
	CHECK_STR("/proc/self/fd/7/control", sa.sun_path);
}
