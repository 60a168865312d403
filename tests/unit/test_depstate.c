/* test_depstate.c - the tree's record that its dependencies are complete:
 * a round trip, a missing or torn file claiming nothing, the written list,
 * and the origin fingerprint telling settings apart. */
#include <stdlib.h>
#include <string.h>

#include "deps/depstate.h"
#include "base/log.h"
#include "origin/origin.h"
#include "tree/tree.h"
#include "base/xalloc.h"
#include "helpers.h"
#include "unit.h"

TEST(depstate_round_trip_missing_and_torn)
{
	char err[ERR_LEN];
	char *d = unit_temp_dir("depstate");
	struct tree t;
	CHECK_INT(0, tree_open(&t, d, true, err));
	struct depstate ds, back;
	CHECK_INT(0, depstate_load(&t, &back, err)); /* missing: no claim */
	memset(&ds, 0, sizeof ds);
	ds.policy = 7;
	memset(ds.origin, 'a', 64);
	ds.since.tv_sec = 1796183494;
	ds.since.tv_nsec = 5;
	CHECK_INT(0, depstate_save(&t, &ds, err));
	CHECK_INT(1, depstate_load(&t, &back, err));
	CHECK_INT(7, back.policy);
	CHECK_STR(ds.origin, back.origin);
	CHECK_INT(1796183494, (long)back.since.tv_sec);
	CHECK_INT(5, back.since.tv_nsec);
	/* a file cut short (no since line) claims nothing */
	char *meta = xasprintf("%s/.cgisnap", d);
	unit_put(meta, DEPSTATE_FILE, "policy 1\norigin aaaa\n");
	CHECK_INT(0, depstate_load(&t, &back, err));
	CHECK_INT(0, depstate_clear(&t, err));
	CHECK_INT(0, depstate_clear(&t, err)); /* already gone: fine */
	CHECK_INT(0, depstate_load(&t, &back, err));

	struct strlist w = STRLIST_INIT, got = STRLIST_INIT;
	strlist_add(&w, "/srv/wiki/data/cache/a.xhtml");
	strlist_add(&w, "/bad\nname");
	CHECK_INT(0, depstate_save_written(&t, &w, err));
	CHECK_INT(0, depstate_load_written(&t, &got, err));
	CHECK_INT(1, (long)got.n);
	CHECK_STR("/srv/wiki/data/cache/a.xhtml", got.items[0]);
	strlist_clear(&w);
	strlist_clear(&got);
	tree_close(&t);
	unit_remove_tree(d);
	free(meta);
	free(d);
}

TEST(depstate_fingerprint_tells_settings_apart)
{
	struct origin_config a, b;
	char fa[65], fb[65];
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.root = b.root = "/nonexistent/root";
	strlist_add(&a.cgi, "php=php-cgi");
	strlist_add(&b.cgi, "php=php-cgi");
	depstate_fingerprint(&a, "http://localhost/", fa);
	depstate_fingerprint(&b, "http://localhost/", fb);
	CHECK_STR(fa, fb);
	b.cgi_mode = "fork"; /* same dependencies either way */
	depstate_fingerprint(&b, "http://localhost/", fb);
	CHECK_STR(fa, fb);
	depstate_fingerprint(&b, "http://example.org/", fb);
	CHECK(strcmp(fa, fb) != 0);
	b.front_controller = "/index.php";
	depstate_fingerprint(&b, "http://localhost/", fb);
	CHECK(strcmp(fa, fb) != 0);
	strlist_clear(&a.cgi);
	strlist_clear(&b.cgi);
}
