/* test_mount.c - parsing --script-alias/--path-alias values and matching
 * request paths against their prefixes (lib/origin/mount.c). */
#include <stdio.h>
#include <stdlib.h>

#include "base/log.h"
#include "origin/mount.h"
#include "unit.h"

TEST(mount_parse_values)
{
	struct { const char *spec; const char *prefix; const char *err; } cases[] = {
		{ "/tool=/usr/lib/tool.cgi", "/tool", NULL },
		{ "/tool/=/x", "/tool", NULL },
		{ "/=/x", "", NULL },
		{ "/a/b=/x", "/a/b", NULL },
		{ "/my%20tool=/x", "/my tool", NULL },
		{ "/.well-known=/x", "/.well-known", NULL },
		{ "/a=b=c", "/a", NULL },
		{ "tool=/x", NULL, "bad --script-alias prefix 'tool': it must start with '/'" },
		{ "/tool", NULL, "bad --script-alias value '/tool' (expected /PREFIX=PROGRAM)" },
		{ "/tool=", NULL, "bad --script-alias value '/tool=' (expected /PREFIX=PROGRAM)" },
		{ "=/x", NULL, "bad --script-alias value '=/x' (expected /PREFIX=PROGRAM)" },
		{ "/a/../b=/x", NULL, "bad --script-alias prefix '/a/../b': a '..' segment" },
		{ "/a/%2e%2E=/x", NULL, "bad --script-alias prefix '/a/%2e%2E': a '..' segment" },
		{ "/./b=/x", NULL, "bad --script-alias prefix '/./b': a '.' segment" },
		{ "/a//b=/x", NULL, "bad --script-alias prefix '/a//b': an empty segment" },
		{ "//=/x", NULL, "bad --script-alias prefix '//': an empty segment" },
		{ "/a%00=/x", NULL, "bad --script-alias prefix '/a%00': a NUL byte" },
		{ "/a?b=/x", NULL, "bad --script-alias prefix '/a?b': a '?' or '#'" },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct mount m;
		char err[ERR_LEN] = "";
		int rc = mount_parse(&m, cases[i].spec, true, err);
		CHECK_INT(cases[i].err ? -1 : 0, rc);
		CHECK_STR(cases[i].prefix, m.prefix);
		if (cases[i].err)
			CHECK_STR(cases[i].err, err);
		else
			CHECK(m.script && m.path != NULL);
		mount_release(&m);
	}
	struct mount m;
	char err[ERR_LEN];
	CHECK_INT(-1, mount_parse(&m, "lib=/x", false, err));
	CHECK_STR("bad --path-alias prefix 'lib': it must start with '/'", err);
	CHECK_INT(-1, mount_parse(&m, "/lib", false, err));
	CHECK_STR("bad --path-alias value '/lib' (expected /PREFIX=DIR)", err);
}

TEST(mount_match_segments)
{
	struct { const char *prefix; const char *path; long rest; } cases[] = {
		{ "/tool", "/tool", 5 },
		{ "/tool", "/tool/", 5 },
		{ "/tool", "/tool/x/y", 5 },
		{ "/tool", "/toolbox", -1 },
		{ "/tool", "/too", -1 },
		{ "/tool", "/", -1 },
		{ "/tool", "/Tool", -1 },
		{ "/tool", "/t%6Fol/x", 7 },      /* escapes compare decoded */
		{ "/tool", "/tool%2Fx", -1 },     /* ... but %2F is no boundary */
		{ "/a/b", "/a%2Fb", -1 },         /* ... nor a separator */
		{ "/a/b", "/a//b/c", 5 },         /* repeated slashes count as one */
		{ "/a/b", "//a/b", 5 },
		{ "/my tool", "/my%20tool/x", 10 },
		{ "/été", "/%C3%A9t%C3%A9/x", 14 },
		{ "", "/", 0 },
		{ "", "/anything", 0 },
		{ "/tool", "/tool%", -1 },
		{ "/tool", "/tool%4", -1 },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		size_t rest = 99;
		const char *p = cases[i].path;
		bool ok = mount_match(cases[i].prefix, p, strlen(p), &rest);
		if (ok != (cases[i].rest >= 0) || (ok && (long)rest != cases[i].rest))
			printf("    '%s' under '%s': %s, rest %zu\n", p, cases[i].prefix, ok ? "match" : "no match",
			       rest);
		CHECK_INT(cases[i].rest >= 0, ok);
		if (ok)
			CHECK_INT(cases[i].rest, rest);
	}
}

TEST(mount_find_longest_prefix)
{
	struct mount m[3] = {
		{ "/a", "/1", true, false }, { "/a/b", "/2", false, false }, { "", "/3", false, false },
	};
	size_t rest;
	CHECK_STR("/2", mount_find(m, 3, "/a/b/c", 6, &rest)->path);
	CHECK_INT(4, rest);
	CHECK_STR("/1", mount_find(m, 3, "/a/bc", 5, &rest)->path);
	CHECK_INT(2, rest);
	CHECK_STR("/3", mount_find(m, 3, "/x", 2, &rest)->path);
	CHECK_INT(0, rest);
	CHECK(mount_find(m, 2, "/x", 2, &rest) == NULL);
	CHECK(mount_find(m, 0, "/a", 2, &rest) == NULL);
}
