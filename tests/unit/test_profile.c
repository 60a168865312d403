/* test_profile.c - site profiles: names, reading, detection, and the
 * shipped profiles load as option files. */
#include <stdlib.h>
#include <string.h>

#include "cli/crawlopts.h"
#include "helpers.h"
#include "cli/originopts.h"
#include "cli/profile.h"
#include "cli/profileopts.h"
#include "unit.h"
#include "base/xalloc.h"

/* The unit runner runs in the checkout (make unit). */
#define SRCDIR_PROFILES "profiles"

TEST(profile_names_are_never_paths)
{
	CHECK(profile_name_ok("dokuwiki"));
	CHECK(profile_name_ok("word-press_6"));
	CHECK(!profile_name_ok(""));
	CHECK(!profile_name_ok("../x"));
	CHECK(!profile_name_ok("a/b"));
	CHECK(!profile_name_ok("Doku"));
	char err[ERR_LEN];
	struct profile p;
	CHECK_INT(-1, profile_load(&p, "/tmp", "../etc/passwd", err));
	CHECK_HAS(err, "bad profile name '../etc/passwd'");
}

TEST(profile_reads_header_and_detects_by_files)
{
	char *dir = unit_temp_dir("profile");
	char *root = unit_temp_dir("profile-root");
	char err[ERR_LEN];
	struct profile p;
	unit_put(dir, "app.conf",
		 "# description: An app\n"
		 "# detect: file app.php, file inc/core.php\n"
		 "# detect: file other-marker\n"
		 "# detect: generator ^App [0-9]\n"
		 "exclude = x\n");
	unit_put(dir, "zzz.conf", "# description: never\n# detect: file nothing-here\n");
	unit_put(dir, "notes.txt", "not a profile\n");
	CHECK_INT(0, profile_load(&p, dir, "app", err));
	CHECK_STR("An app", p.description);
	CHECK_INT(3, p.rules.n);
	CHECK_STR("file app.php, file inc/core.php", p.rules.items[0]);

	/* One marker of a rule is not enough; both are. */
	CHECK_INT(0, profile_match_root(&p, root));
	unit_put(root, "app.php", "<?php\n");
	CHECK_INT(0, profile_match_root(&p, root));
	unit_make_dir(root, "inc");
	unit_put(root, "inc/core.php", "<?php\n");
	CHECK_INT(1, profile_match_root(&p, root));
	CHECK_STR("app.php", p.found);

	CHECK_INT(1, profile_match_generator(&p, "App 2.1"));
	CHECK_INT(0, profile_match_generator(&p, "WordPress 6.1"));
	profile_release(&p);

	struct strlist names = STRLIST_INIT;
	CHECK_INT(0, profile_names(dir, &names, err));
	CHECK_INT(2, names.n);
	CHECK_STR("app", names.items[0]);
	strlist_clear(&names);

	struct profile d;
	CHECK_INT(1, profile_detect_root(dir, root, &d, err));
	CHECK_STR("app", d.name);
	CHECK_STR("app.php", d.found);
	profile_release(&d);
	char *empty = unit_temp_dir("profile-empty");
	CHECK_INT(0, profile_detect_root(dir, empty, &d, err));
	unit_drop_dir(empty);

	CHECK_INT(-1, profile_load(&p, dir, "missing", err));
	CHECK_HAS(err, "no profile 'missing'");
	unit_remove_tree(root);
	unit_remove_tree(dir);
	free(root);
	free(dir);
}

TEST(profile_bad_detect_lines_are_named)
{
	static const struct {
		const char *name, *text, *want;
	} cases[] = {
		{ "a", "# description: a\n# detect: file x, color blue\n", "a.conf:2: detect term 'color blue'" },
		{ "b", "# detect: file ../../etc/passwd\n",
		  "b.conf:1: detect file '../../etc/passwd' must be a path under the root" },
		{ "c", "# detect: generator (\n", "c.conf:1: bad generator regex '('" },
	};
	char *dir = unit_temp_dir("profile-bad");
	char err[ERR_LEN];
	struct profile p;
	for (size_t i = 0; i < COUNT(cases); i++) {
		char *file = xasprintf("%s.conf", cases[i].name);
		unit_put(dir, file, cases[i].text);
		free(file);
		CHECK_INT(-1, profile_load(&p, dir, cases[i].name, err));
		CHECK_HAS(err, cases[i].want);
	}
	unit_drop_dir(dir);
}

/* "[watch]" lines apply to watch only; the others keep their line
 * numbers, for the messages of opts_load_data. */
TEST(profile_sections_pick_the_command_lines)
{
	char *dir = unit_temp_dir("profile-sections");
	char err[ERR_LEN];
	struct profile p;
	unit_put(dir, "s.conf", "# detect: file x\nexclude = a\n[watch]\nsource-command = b\n [snapshot] \nstrip = c\n");
	CHECK_INT(0, profile_load(&p, dir, "s", err));
	struct buf b = BUF_INIT;
	profile_options_for(&p, "watch", &b);
	buf_adds(&b, "");
	CHECK_STR("# detect: file x\nexclude = a\n\nsource-command = b\n\n\n", b.data);
	buf_release(&b);
	profile_options_for(&p, "snapshot", &b);
	buf_adds(&b, "");
	CHECK_STR("# detect: file x\nexclude = a\n\n\n\nstrip = c\n", b.data);
	buf_release(&b);
	profile_release(&p);
	unit_drop_dir(dir);
}

/* A profile found under a mount (--path-alias /wiki.x=DIR) moves there:
 * anchored URL regexes, URL paths and the URL after "=>" get the base
 * (regex-escaped where a regex), commands run in the mount's directory
 * (single-quoted, a quote in it too); the rest stays, line for line. */
TEST(profile_found_under_a_mount_moves_there)
{
	char *dir = unit_temp_dir("profile-mount");
	char err[ERR_LEN];
	struct profile p;
	unit_put(dir, "m.conf",
		 "# detect: file x\n"
		 "exclude = ^/lib/exe/taskrunner\\.php\n"
		 "exclude = [?&]do=edit\n"
		 "include=^(/[0-9]+/)$\n"
		 "canonical = [?&]do=index =>  /doku.php?id=start\n"
		 "render-query = ^/feed\\.php(\\?|$) => purge=1\n"
		 "strip = <img src=\"/lib/x\">\n"
		 "seed = /start\n"
		 "front-controller = /index.php\n"
		 "# exclude = ^/a comment\n"
		 "[watch]\n"
		 "source-command = php -f \"$CGISNAP_PROFILE_DIR/s.php\"\n"
		 "depends = ^(/[0-9]{4}/)$ => $1feed/\n"
		 "always = /feed/\n");
	CHECK_INT(0, profile_load(&p, dir, "m", err));
	p.base = xstrdup("/wiki.x");
	p.app_dir = xstrdup("/srv/it's");
	struct buf b = BUF_INIT;
	profile_options_for(&p, "watch", &b);
	buf_adds(&b, "");
	CHECK_STR("# detect: file x\n"
		  "exclude = ^/wiki\\.x/lib/exe/taskrunner\\.php\n"
		  "exclude = [?&]do=edit\n"
		  "include=^(/wiki\\.x/[0-9]+/)$\n"
		  "canonical = [?&]do=index => /wiki.x/doku.php?id=start\n"
		  "render-query = ^/wiki\\.x/feed\\.php(\\?|$) => purge=1\n"
		  "strip = <img src=\"/lib/x\">\n"
		  "seed = /wiki.x/start\n"
		  "front-controller = /wiki.x/index.php\n"
		  "# exclude = ^/a comment\n"
		  "\n"
		  "source-command = cd '/srv/it'\\''s' && php -f \"$CGISNAP_PROFILE_DIR/s.php\"\n"
		  "depends = ^(/wiki\\.x/[0-9]{4}/)$ => $1feed/\n"
		  "always = /wiki.x/feed/\n",
		  b.data);
	buf_release(&b);
	/* at the root: as written */
	free(p.base);
	p.base = xstrdup("");
	profile_options_for(&p, "snapshot", &b);
	buf_adds(&b, "");
	CHECK(strstr(b.data, "exclude = ^/lib/exe/taskrunner\\.php\n") != NULL);
	CHECK(strstr(b.data, "canonical = [?&]do=index =>  /doku.php?id=start\n") != NULL);
	buf_release(&b);
	profile_release(&p);
	unit_drop_dir(dir);
}

/* The shipped profiles: each has a description and a rule, and every line
 * is an option snapshot knows (a typo would fail every run it applies to). */
TEST(profile_shipped_profiles_load)
{
	const struct opt *const tables[] = { origin_opts, crawl_opts, profile_opts, NULL };
	char err[ERR_LEN];
	struct strlist names = STRLIST_INIT;
	CHECK_INT(0, profile_names(SRCDIR_PROFILES, &names, err));
	CHECK(strlist_contains(&names, "dokuwiki"));
	for (size_t i = 0; i < names.n; i++) {
		struct profile p;
		CHECK_INT(0, profile_load(&p, SRCDIR_PROFILES, names.items[i], err));
		CHECK(*p.description);
		CHECK(p.rules.n > 0);
		struct buf lines = BUF_INIT;
		profile_options_for(&p, "snapshot", &lines);
		int rc = opts_load_data(tables, p.path, lines.data, lines.len, err);
		if (rc < 0)
			unit_fail(__FILE__, __LINE__, "%s", err);
		buf_release(&lines);
		opts_release(tables);
		profile_release(&p);
	}
	strlist_clear(&names);
}

/* DokuWiki is told by its files; our sample wiki, which imitates its
 * layout (doku.php, inc/init.php), is not DokuWiki and stays profile-free. */
TEST(profile_dokuwiki_detection)
{
	char *root = unit_temp_dir("profile-dw");
	char err[ERR_LEN];
	struct profile p;
	CHECK_INT(0, profile_detect_root(SRCDIR_PROFILES, "sample-sites/wiki", &p, err));
	unit_put(root, "doku.php", "<?php\n");
	unit_make_dir(root, "inc");
	unit_put(root, "inc/init.php", "<?php\n");
	unit_put(root, "VERSION", "2022-07-31b \"Igor\"\n");
	CHECK_INT(1, profile_detect_root(SRCDIR_PROFILES, root, &p, err));
	CHECK_STR("dokuwiki", p.name);
	CHECK_STR("doku.php", p.found);
	profile_release(&p);
	unit_drop_dir(root);
}
