/* test_serve_listen.c - --listen parsing and binding (serve/listen.c). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../serve/listen.h"
#include "base/log.h"
#include "helpers.h"
#include "unit.h"

TEST(serve_listen_parse_table)
{
	static const struct str_case cases[] = { /* want NULL: refused */
		{ "127.0.0.1:8080", "127.0.0.1:8080" },
		{ "[::1]:8080", "[::1]:8080" },
		{ "*:80", "0.0.0.0:80" },
		{ ":8080", "0.0.0.0:8080" },
		{ "0.0.0.0:0", "0.0.0.0:0" },
		{ "[::]:8080", "[::]:8080" },
		{ "localhost:8080", NULL }, /* resolved: any loopback text; checked below */
		{ "127.0.0.1", NULL },
		{ "127.0.0.1:", NULL },
		{ "127.0.0.1:65536", NULL },
		{ "127.0.0.1:-1", NULL },
		{ "127.0.0.1:80x", NULL },
		{ "::1:8080", NULL },
		{ "[::1]8080", NULL },
		{ "[::1", NULL },
		{ "999.1.1.1:80", NULL },
		{ "", NULL },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct listen_addr a;
		char err[ERR_LEN];
		int rc = listen_parse(cases[i].in, &a, err);
		if (!strcmp(cases[i].in, "localhost:8080")) {
			CHECK_INT(0, rc);
			continue;
		}
		if (cases[i].want) {
			if (rc < 0)
				unit_fail(__FILE__, __LINE__, "'%s' refused: %s", cases[i].in, err);
			else
				CHECK_STR(cases[i].want, a.text);
		} else if (rc == 0) {
			unit_fail(__FILE__, __LINE__, "'%s' accepted as %s", cases[i].in, a.text);
		} else if (!strstr(err, "invalid listen address")) {
			unit_fail(__FILE__, __LINE__, "'%s': message '%s'", cases[i].in, err);
		}
	}
}

TEST(serve_listen_port_in_use_is_one_clear_line)
{
	struct listen_addr a, b;
	char err[ERR_LEN];
	CHECK_INT(0, listen_parse("127.0.0.1:0", &a, err));
	int fd = listen_open(&a, 16, err);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	/* The kernel's port is reported, and a second bind to it fails. */
	CHECK(strcmp(a.text, "127.0.0.1:0") != 0);
	CHECK_INT(0, listen_parse(a.text, &b, err));
	CHECK_INT(-1, listen_open(&b, 16, err));
	char want[128];
	snprintf(want, sizeof want, "cannot listen on '%s': Address already in use", a.text);
	CHECK_STR(want, err);
	close(fd);
}
