/* test_answer.c - what a tree answers for a URL (lib/tree/answer.c): a table
 * of manifest entries and unlisted targets, the order of the questions
 * included (a recorded status wins over a file the entry names). */
#include <stdlib.h>

#include "tree/answer.h"
#include "unit.h"
#include "base/xalloc.h"

TEST(answer_table)
{
	static const struct {
		const char *target;
		bool listed;          /* false: the manifest has no entry */
		int status;
		const char *key, *type, *location;
		enum answer_kind want;
		int want_status;
		const char *want_key;
	} cases[] = {
		{ "/", true, 200, "index.html", "text/html", NULL, ANSWER_FILE, 0, "index.html" },
		{ "/feed/", true, 200, "feed/index.html", "application/rss+xml", NULL, ANSWER_FILE, 0,
		  "feed/index.html" },
		{ "/?p=5", true, 301, NULL, NULL, "http://h/x/", ANSWER_REDIRECT, 301, NULL },
		/* A redirect with a body stored still replays the redirect. */
		{ "/old", true, 302, "old/index.html", "text/html", "http://h/new", ANSWER_REDIRECT, 302, NULL },
		/* A 3xx without a Location is no redirect: its file, if any. */
		{ "/odd", true, 304, "odd/index.html", NULL, NULL, ANSWER_FILE, 0, "odd/index.html" },
		{ "/odd2", true, 399, NULL, NULL, NULL, ANSWER_MISSING, 0, NULL },
		{ "/feed/0", true, 404, NULL, NULL, NULL, ANSWER_GONE, 404, NULL },
		{ "/gone", true, 410, NULL, NULL, NULL, ANSWER_GONE, 410, NULL },
		/* The recorded status, not an old file the entry still names. */
		{ "/nf", true, 404, "nf/index.html", "text/html", NULL, ANSWER_GONE, 404, NULL },
		{ "/failed", true, 500, NULL, NULL, NULL, ANSWER_MISSING, 0, NULL },
		{ "/evil", true, 200, "../etc/passwd", "text/plain", NULL, ANSWER_MISSING, 0, NULL },
		{ "/hidden", true, 200, ".cgisnap/manifest", "text/plain", NULL, ANSWER_MISSING, 0, NULL },
		/* Not listed: the key rule finds the file. */
		{ "/a/b", false, 0, NULL, NULL, NULL, ANSWER_FILE, 0, "a/b/index.html" },
		{ "/a/", false, 0, NULL, NULL, NULL, ANSWER_FILE, 0, "a/index.html" },
		{ "/style.css", false, 0, NULL, NULL, NULL, ANSWER_FILE, 0, "style.css" },
		{ "/doku.php?id=x", false, 0, NULL, NULL, NULL, ANSWER_FILE, 0, "doku.php@id=x.html" },
		/* Not listed and no key: nothing to find. */
		{ "//double", false, 0, NULL, NULL, NULL, ANSWER_MISSING, 0, NULL },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct manifest_entry *e = NULL;
		if (cases[i].listed) {
			e = manifest_entry_new(cases[i].target);
			e->status = cases[i].status;
			e->key = cases[i].key ? xstrdup(cases[i].key) : NULL;
			e->content_type = cases[i].type ? xstrdup(cases[i].type) : NULL;
			e->location = cases[i].location ? xstrdup(cases[i].location) : NULL;
		}
		struct answer a;
		answer_for(e, cases[i].target, &a);
		if (a.kind != cases[i].want)
			unit_fail(__FILE__, __LINE__, "'%s': expected answer %d, saw %d", cases[i].target,
				  (int)cases[i].want, (int)a.kind);
		CHECK_INT(cases[i].want_status, a.status);
		CHECK_STR(cases[i].want_key, a.key);
		if (a.kind == ANSWER_REDIRECT)
			CHECK_STR(cases[i].location, a.location);
		else
			CHECK_STR(NULL, a.location);
		if (a.kind == ANSWER_FILE) {
			CHECK_INT(cases[i].listed, a.listed);
			CHECK_STR(cases[i].type, a.content_type);
		} else {
			CHECK(!a.listed);
			CHECK_STR(NULL, a.content_type);
		}
		answer_release(&a);
		CHECK_STR(NULL, a.key);
		if (e)
			manifest_entry_free(e);
	}
}

TEST(answer_slash_form_of_unlisted_directory_keys)
{
	static const struct {
		const char *target;
		bool listed, slash_form;
	} cases[] = {
		{ "/2019/09", false, true },
		{ "/a", false, true },
		{ "/a/", false, false },
		{ "/", false, false },
		{ "/a/index.html", false, false },
		{ "/style.css", false, false },
		{ "/a?x=1", false, false },
		{ "/v1.2/x", false, true },
		/* The manifest has the page under "/a": its file, as recorded. */
		{ "/a", true, false },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct manifest_entry *e = NULL;
		if (cases[i].listed) {
			e = manifest_entry_new(cases[i].target);
			e->status = 200;
			e->key = xstrdup("a/index.html");
		}
		struct answer a;
		answer_for(e, cases[i].target, &a);
		CHECK_INT(ANSWER_FILE, a.kind);
		CHECK_INT(cases[i].slash_form, a.slash_form);
		answer_release(&a);
		if (e)
			manifest_entry_free(e);
	}
}
