/* test_watch_deps.c - from changed paths to pages: the change set, the
 * --depends rules, the index of recorded dependencies and the order of
 * the result. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "origin/origin.h"
#include "../../watch/catchup.h"
#include "../../watch/deps.h"
#include "base/fswatch.h"
#include "helpers.h"
#include "unit.h"
#include "tree/tree.h"
#include "base/xalloc.h"

/* The index over m: saved to a fresh tree's database, as watch's batch
 * saves it before the next lookups. ix_close removes the tree. */
struct ix_tree {
	char dir[64];
	struct tree t;
	bool open;
};

static void ix_build(struct dep_index *ix, struct ix_tree *it, struct manifest *m)
{
	char err[ERR_LEN];
	if (!it->open) {
		snprintf(it->dir, sizeof it->dir, "/tmp/cgisnap-deps-XXXXXX");
		if (!mkdtemp(it->dir) || tree_open(&it->t, it->dir, true, err) < 0)
			abort();
		it->open = true;
	}
	if (manifest_save(m, &it->t, err) < 0) {
		fprintf(stderr, "%s\n", err);
		abort();
	}
	dep_index_open(ix, &it->t, m);
}

static void ix_close(struct ix_tree *it)
{
	if (!it->open)
		return;
	tree_close(&it->t);
	unit_remove_tree(it->dir);
	it->open = false;
}

/* What the dependency tests share: a manifest and its index (built by
 * fx_index, in a tree of its own), the --depends rules and the site at
 * base. fx_release frees them all. */
struct deps_fixture {
	struct manifest m;
	struct dep_index ix;
	struct ix_tree it;
	struct watch_rules rules;
	struct site site;
	char err[ERR_LEN];
};

static void fx_init(struct deps_fixture *fx, const char *base)
{
	*fx = (struct deps_fixture){ .m = MANIFEST_INIT, .ix = DEP_INDEX_INIT, .rules = WATCH_RULES_INIT };
	CHECK_INT(0, site_init(&fx->site, base, fx->err));
}

static void fx_index(struct deps_fixture *fx)
{
	ix_build(&fx->ix, &fx->it, &fx->m);
}

static void fx_release(struct deps_fixture *fx)
{
	ix_close(&fx->it);
	manifest_release(&fx->m);
	watch_rules_release(&fx->rules);
	site_release(&fx->site);
}

/* The targets in t joined by spaces; t is emptied. */
static char *joined(struct strlist *t)
{
	char *s = unit_joined(t, " ");
	strlist_clear(t);
	return s;
}

TEST(watch_changes_merge_flags_and_keep_order)
{
	struct changes c = CHANGES_INIT;
	changes_add(&c, "/s/b", FSW_CREATED);
	changes_add(&c, "/s/a", FSW_CHANGED);
	changes_add(&c, "/s/b", FSW_CHANGED);
	CHECK_INT(2, changes_count(&c));
	CHECK_INT(FSW_CREATED | FSW_CHANGED, changes_flags(&c, "/s/b"));
	CHECK_INT(FSW_CHANGED, changes_flags(&c, "/s/a"));
	CHECK_INT(0, changes_flags(&c, "/s/none"));
	CHECK_STR_FREE("/s/b, /s/a", changes_summary(&c, 3));
	changes_add(&c, "/s/c", FSW_REMOVED);
	changes_add(&c, "/s/d", FSW_REMOVED);
	CHECK_STR_FREE("/s/b, /s/a and 2 more", changes_summary(&c, 2));
	changes_clear(&c);
	CHECK_INT(0, changes_count(&c));
	changes_clear(&c);
}

TEST(watch_rule_expand_table)
{
	static const struct {
		const char *re, *tmpl, *subject, *want;
	} cases[] = {
		{ "pages/(.*)\\.txt$", "/doku.php?id=$1", "/w/data/pages/wiki/syntax.txt", "/doku.php?id=wiki/syntax" },
		{ "pages/(.*)\\.txt$", "/x?all=$0", "/w/pages/a.txt", "/x?all=pages/a.txt" },
		{ "([a-z]+)/([a-z]+)", "/$2/$1/", "/ns/page", "/page/ns/" },
		{ "(a)|(b)", "/[$1][$2]", "b", "/[][b]" },      /* unmatched group: "" */
		{ "x", "/cost$$5", "x", "/cost$5" },            /* $$ is a dollar */
		{ "x", "/a$b$", "x", "/a$b$" },                 /* other dollars stay */
		{ "(x)", "/$9", "x", "/" },                      /* no such group */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		regex_t re;
		regmatch_t m[10];
		CHECK_INT(0, regcomp(&re, cases[i].re, REG_EXTENDED));
		CHECK_INT(0, regexec(&re, cases[i].subject, 10, m, 0));
		CHECK_STR_FREE(cases[i].want, rewrite_expand(cases[i].tmpl, cases[i].subject, m, 10));
		regfree(&re);
	}
}

TEST(watch_rules_parse_and_reject)
{
	struct watch_rules r = WATCH_RULES_INIT;
	char err[ERR_LEN];
	CHECK_INT(0, watch_rules_add(&r, "data/pages/(.*)\\.txt => /doku.php?id=$1", err));
	CHECK_INT(0, watch_rules_add(&r, "a=>/b", err));
	CHECK_INT(0, watch_rules_add(&r, "x => y => /z", err)); /* the last arrow splits */
	CHECK_INT(3, r.n);
	CHECK_STR("/doku.php?id=$1", r.rules[0].url);
	CHECK_STR("/b", r.rules[1].url);
	CHECK_STR("/z", r.rules[2].url);
	CHECK(regexec(&r.rules[2].re, "x => y", 0, NULL, 0) == 0);

	CHECK_INT(-1, watch_rules_add(&r, "no arrow here", err));
	CHECK_STR("bad --depends rule 'no arrow here': expected 'REGEX => URL'", err);
	CHECK_INT(-1, watch_rules_add(&r, " => /x", err));
	CHECK_INT(-1, watch_rules_add(&r, "a =>   ", err));
	CHECK_INT(-1, watch_rules_add(&r, "(unclosed => /x", err));
	CHECK(strstr(err, "bad --depends regex in '(unclosed => /x'") == err);
	CHECK_INT(3, r.n);

	struct site site;
	CHECK_INT(0, site_init(&site, "http://localhost:8080/", err));
	CHECK_INT(0, watch_rules_always(&r, &site, "/doku.php?id=start&do=recent", err));
	CHECK_INT(0, watch_rules_always(&r, &site, "http://localhost:8080/feed/", err));
	CHECK_INT(-1, watch_rules_always(&r, &site, "http://elsewhere.example/", err));
	CHECK_INT(2, r.always.n);
	CHECK_STR("/feed/", r.always.items[1]);
	CHECK(!watch_rules_empty(&r));
	watch_rules_release(&r);
	CHECK(watch_rules_empty(&r));
	site_release(&site);
}

/* A page reading the given files and listing the given directories (each
 * list split at spaces), put in m; returned, for the dependencies of
 * other kinds a test gives it. */
static struct manifest_entry *page(struct manifest *m, const char *target, const char *reads, const char *lists)
{
	struct manifest_entry *e = manifest_entry_new(target);
	strlist_split(&e->deps_read, reads, ' ');
	strlist_split(&e->deps_listed, lists, ' ');
	manifest_put(m, e);
	return e;
}

/* The targets for one change, joined by spaces. */
static char *targets_for(const struct deps_fixture *fx, const char *path, unsigned flags)
{
	struct changes c = CHANGES_INIT;
	struct strlist t = STRLIST_INIT;
	changes_add(&c, path, flags);
	deps_targets(&fx->ix, &fx->rules, &fx->site, &c, &t);
	changes_clear(&c);
	return joined(&t);
}

/* The targets for one change in the test's fixture fx. */
#define CHECK_TARGETS(want, path, flags) CHECK_STR_FREE(want, targets_for(&fx, path, flags))

TEST(watch_deps_recorded_reads_and_listings)
{
	struct deps_fixture fx;
	fx_init(&fx, "http://localhost/");

	/* a and b are page views; "index" lists the directory and stats
	 * every file (an aggregate: many dependencies); b checks whether
	 * the missing page c exists. */
	page(&fx.m, "/a", "/s/p/a.txt /s/p/side.txt", "");
	page(&fx.m, "/b", "/s/p/b.txt /s/p/side.txt /s/p/c.txt", "");
	page(&fx.m, "/index", "/s/p/a.txt /s/p/b.txt /s/p/side.txt /s/p/sub/d.txt", "/s/p /s/p/sub");
	page(&fx.m, "/other", "/s/q/x.txt", "");
	fx_index(&fx);

	/* content changes: the readers, specific pages first */
	CHECK_TARGETS("/a /index", "/s/p/a.txt", FSW_CHANGED);
	CHECK_TARGETS("/a /b /index", "/s/p/side.txt", FSW_CHANGED);
	CHECK_TARGETS("", "/s/p/unknown.txt", FSW_CHANGED);
	/* a new file: the readers of the name, and the listers of its directory */
	CHECK_TARGETS("/b /index", "/s/p/c.txt", FSW_CREATED | FSW_CHANGED);
	CHECK_TARGETS("/index", "/s/p/new.txt", FSW_CREATED);
	CHECK_TARGETS("/index", "/s/p/sub/e.txt", FSW_REMOVED);
	/* a modified file in a listed directory does not change the listing */
	CHECK_TARGETS("", "/s/p/new.txt", FSW_CHANGED);
	/* a directory gone: everything read or listed below it */
	CHECK_TARGETS("/a /b /index", "/s/p", FSW_REMOVED | FSW_DIR);
	CHECK_TARGETS("/index", "/s/p/sub", FSW_REMOVED | FSW_DIR);
	/* a prefix is not a parent: /s/q/x.txt is not below /s/q/x */
	CHECK_TARGETS("", "/s/q/x", FSW_REMOVED | FSW_DIR);

	/* the next save replaces the old content */
	manifest_remove(&fx.m, "/index");
	fx_index(&fx);
	CHECK_TARGETS("/a", "/s/p/a.txt", FSW_CHANGED);

	fx_release(&fx);
}

TEST(watch_deps_existence_checks_and_whole_directories)
{
	struct deps_fixture fx;
	fx_init(&fx, "http://localhost/");

	/* /a links to b and c: it only asked whether they exist (E), and
	 * looked for d, which was not there (A); /backlinks read every file
	 * of /s/p (C). */
	struct manifest_entry *e = page(&fx.m, "/a", "/s/p/a.txt", "");
	strlist_split(&e->deps_exist, "/s/p/b.txt /s/p/c.txt", ' ');
	strlist_split(&e->deps_absent, "/s/p/d.txt", ' ');
	strlist_split(&e->deps_wrote, "/s/site.sqlite", ' '); /* its render wrote it (W) */
	strlist_add(&page(&fx.m, "/backlinks", "", "")->deps_contents, "/s/p");
	fx_index(&fx);

	/* b's content changed: /a does not care, /backlinks does */
	CHECK_TARGETS("/backlinks", "/s/p/b.txt", FSW_CHANGED);
	/* b went away or c appeared: /a shows it */
	CHECK_TARGETS("/a /backlinks", "/s/p/b.txt", FSW_REMOVED);
	CHECK_TARGETS("/a /backlinks", "/s/p/c.txt", FSW_CREATED | FSW_CHANGED);
	/* d appeared: /a shows it; written again meanwhile, it is created */
	CHECK_TARGETS("/a /backlinks", "/s/p/d.txt", FSW_CREATED | FSW_CHANGED);
	CHECK_TARGETS("/backlinks", "/s/p/d.txt", FSW_CHANGED);
	/* another program wrote what /a's render writes too (the renders'
	 * own writes never come this far) */
	CHECK_TARGETS("/a", "/s/site.sqlite", FSW_CHANGED);
	/* a file in a subdirectory is not directly in /s/p */
	CHECK_TARGETS("", "/s/p/sub/x.txt", FSW_CHANGED);
	/* the specific page before the aggregate, whose one C line weighs more */
	CHECK_TARGETS("/a /backlinks", "/s/p/a.txt", FSW_CHANGED);
	CHECK_TARGETS("/a /backlinks", "/s/p", FSW_REMOVED | FSW_DIR);

	fx_release(&fx);
}

TEST(watch_deps_untraced_pages_follow_every_change)
{
	struct deps_fixture fx;
	fx_init(&fx, "http://localhost/");

	/* /static.cgi's render could not be traced: nobody knows what it read */
	page(&fx.m, "/a", "/s/p/a.txt", "");
	strlist_add(&page(&fx.m, "/static.cgi", "", "")->deps_untraced, "/srv/static.cgi");
	fx_index(&fx);

	CHECK_TARGETS("/static.cgi", "/s/q", FSW_REMOVED | FSW_DIR);
	CHECK_TARGETS("/static.cgi", "/s/p/other.txt", FSW_CHANGED);
	CHECK_TARGETS("/a /static.cgi", "/s/p/a.txt", FSW_CHANGED);

	fx_release(&fx);
}

TEST(watch_deps_rules_and_always)
{
	struct deps_fixture fx;
	fx_init(&fx, "http://localhost:8080/");
	CHECK_INT(0, watch_rules_add(&fx.rules, "pages/([a-z_]+)\\.txt$ => /doku.php?id=$1", fx.err));
	CHECK_INT(0, watch_rules_add(&fx.rules, "pages/.*\\.txt$ => /doku.php?id=start&do=index", fx.err));
	CHECK_INT(0, watch_rules_always(&fx.rules, &fx.site, "/doku.php?id=start&do=recent", fx.err));

	/* without recorded dependencies: rules, then the --always pages last */
	CHECK_TARGETS("/doku.php?id=foo /doku.php?id=start&do=index /doku.php?id=start&do=recent",
		      "/w/data/pages/foo.txt", FSW_CHANGED);
	/* no rule matches: only --always */
	CHECK_TARGETS("/doku.php?id=start&do=recent", "/w/data/media/x.png", FSW_CHANGED);

	/* with recorded ones too: no repeats; a rule's page known to the
	 * index sorts by its weight */
	page(&fx.m, "/doku.php?id=foo", "/w/data/pages/foo.txt", "");
	page(&fx.m, "/doku.php?id=start&do=index", "/w/data/pages/foo.txt /w/data/pages/bar.txt /w/x", "/w/data/pages");
	page(&fx.m, "/doku.php?id=start&do=recent", "/w/data/pages/foo.txt", "");
	fx_index(&fx);
	CHECK_TARGETS("/doku.php?id=foo /doku.php?id=start&do=recent /doku.php?id=start&do=index",
		      "/w/data/pages/foo.txt", FSW_CHANGED);

	fx_release(&fx);
}

/* A notified page: itself, the rules whose REGEX matches its target, the
 * --always pages; each once, however often it was named. */
TEST(watch_deps_notified_urls)
{
	struct deps_fixture fx;
	struct changes c = CHANGES_INIT;
	struct strlist t = STRLIST_INIT;
	fx_init(&fx, "http://localhost/");
	CHECK_INT(0, watch_rules_add(&fx.rules, "^/post\\?id=([0-9]+)$ => /feed?post=$1", fx.err));
	CHECK_INT(0, watch_rules_add(&fx.rules, "pages/(.*)\\.txt$ => /doku.php?id=$1", fx.err));
	CHECK_INT(0, watch_rules_always(&fx.rules, &fx.site, "/", fx.err));
	changes_add_url(&c, "/post?id=3");
	changes_add_url(&c, "/post?id=3");
	CHECK_INT(0, changes_count(&c)); /* no path changed */
	CHECK_INT(1, c.urls.n);
	deps_targets(&fx.ix, &fx.rules, &fx.site, &c, &t);
	/* The notified page first, then what its rules name, --always last. */
	CHECK_STR_FREE("/post?id=3 /feed?post=3 /", joined(&t));
	changes_clear(&c);
	CHECK_INT(0, c.urls.n);
	fx_release(&fx);
}

/* A notified page a change picks too renders first all the same. */
TEST(watch_deps_notified_first_when_changed_too)
{
	struct deps_fixture fx;
	struct changes c = CHANGES_INIT;
	struct strlist t = STRLIST_INIT;
	fx_init(&fx, "http://localhost/");
	CHECK_INT(0, watch_rules_add(&fx.rules, "pages/(.*)\\.txt$ => /doku.php?id=$1", fx.err));
	changes_add(&c, "/w/pages/a.txt", FSW_CHANGED);
	changes_add(&c, "/w/pages/b.txt", FSW_CHANGED);
	changes_add_url(&c, "/doku.php?id=b");
	deps_targets(&fx.ix, &fx.rules, &fx.site, &c, &t);
	CHECK_STR_FREE("/doku.php?id=b /doku.php?id=a", joined(&t));
	changes_clear(&c);
	fx_release(&fx);
}

/* A poll: the --always pages, each rule URL without references, and the
 * manifest's targets a rule URL with references can name. */
TEST(watch_deps_poll_targets)
{
	struct deps_fixture fx;
	struct strlist t = STRLIST_INIT;
	fx_init(&fx, "http://localhost/");
	const char *targets[] = { "/post?id=1", "/post?id=22", "/about", "/p/x/", "/posts" };
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
		manifest_put(&fx.m, manifest_entry_new(targets[i]));
	CHECK_INT(0, watch_rules_add(&fx.rules, "db => /post?id=$1", fx.err));
	CHECK_INT(0, watch_rules_add(&fx.rules, "x => /about", fx.err));
	CHECK_INT(0, watch_rules_add(&fx.rules, "y => http://localhost/p/$1/", fx.err));
	CHECK_INT(0, watch_rules_add(&fx.rules, "z => /cost$$", fx.err)); /* "$$": one literal dollar */
	CHECK_INT(0, watch_rules_always(&fx.rules, &fx.site, "/", fx.err));
	CHECK_INT(0, watch_rules_always(&fx.rules, &fx.site, "/about", fx.err));
	deps_poll_targets(&fx.rules, &fx.site, &fx.m, &t);
	CHECK_STR_FREE("/ /about /cost$ /p/x/ /post?id=1 /post?id=22", joined(&t));
	fx_release(&fx);
}

/* The reason of each page for one batch, "TARGET: WHY" joined by "|". */
static char *reasons_for(const struct deps_fixture *fx, const struct changes *c)
{
	struct strlist t = STRLIST_INIT, why = STRLIST_INIT;
	struct buf b = BUF_INIT;
	deps_targets_why(&fx->ix, &fx->rules, &fx->site, c, &t, &why);
	CHECK_INT(t.n, why.n);
	for (size_t i = 0; i < t.n && i < why.n; i++)
		buf_addf(&b, "%s%s: %s", i ? "|" : "", t.items[i], why.items[i]);
	strlist_clear(&t);
	strlist_clear(&why);
	return buf_detach(&b, NULL);
}

TEST(watch_deps_reasons_name_the_path_and_the_kind)
{
	struct deps_fixture fx;
	fx_init(&fx, "http://localhost/");
	page(&fx.m, "/a", "/s/p/a.txt", "");
	page(&fx.m, "/index", "", "/s/p");
	strlist_add(&page(&fx.m, "/back", "", "")->deps_contents, "/s/p");
	strlist_add(&page(&fx.m, "/ex", "", "")->deps_exist, "/s/p/new.txt");
	fx_index(&fx);
	CHECK_INT(0, watch_rules_add(&fx.rules, "conf\\.php$ => /a", fx.err));
	CHECK_INT(0, watch_rules_always(&fx.rules, &fx.site, "/always", fx.err));

	struct changes c = CHANGES_INIT;
	changes_add(&c, "/s/p/a.txt", FSW_CHANGED);
	CHECK_STR_FREE("/a: /s/p/a.txt changed (R /s/p/a.txt)|/back: /s/p/a.txt changed (C /s/p)|/always: --always",
		       reasons_for(&fx, &c));
	changes_clear(&c);

	changes_add(&c, "/s/p/new.txt", FSW_CREATED);
	CHECK_STR_FREE("/ex: /s/p/new.txt created (E /s/p/new.txt)|/index: /s/p/new.txt created (L /s/p)|"
		       "/back: /s/p/new.txt created (C /s/p)|/always: --always", reasons_for(&fx, &c));
	changes_clear(&c);

	changes_add(&c, "/s/conf.php", FSW_CHANGED | FSW_CREATED | FSW_REMOVED); /* a notified path */
	changes_add_url(&c, "/index");
	CHECK_STR_FREE("/index: notified|/a: /s/conf.php changed (--depends 'conf\\.php$ => /a')|/always: --always",
		       reasons_for(&fx, &c));
	changes_clear(&c);

	changes_add(&c, "/s/p", FSW_DIR | FSW_REMOVED);
	char *got = reasons_for(&fx, &c);
	CHECK(strstr(got, "/a: /s/p removed (a dependency recorded below it)") != NULL);
	CHECK(strstr(got, "/index: /s/p removed (L /s/p)") != NULL);
	free(got);
	changes_clear(&c);

	fx_release(&fx);
}

static bool skip_nothing(void *arg, const char *path)
{
	(void)arg;
	(void)path;
	return false;
}

/* watch's catch-up: a file a page read, gone since, is a removal; one a
 * page looked for and did not find (A), still not there, is no change,
 * though its directory changed (a site's journal files come and go). */
TEST(watch_catchup_counts_a_removal_not_an_absence)
{
	char dir[] = "/tmp/cgisnap-catchup-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *read = xasprintf("%s/read.txt", dir), *never = xasprintf("%s/never.txt", dir);
	FILE *f = fopen(read, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	struct timespec since;
	clock_gettime(CLOCK_REALTIME, &since);
	CHECK_INT(0, unlink(read)); /* the directory changes after since */

	struct manifest m = MANIFEST_INIT;
	struct manifest_entry *e = manifest_entry_new("/p");
	strlist_add(&e->deps_read, read);
	strlist_add(&e->deps_absent, never);
	manifest_put(&m, e);
	struct strlist sources = STRLIST_INIT;
	strlist_add(&sources, dir);
	struct changes c = CHANGES_INIT;
	struct ix_tree it = { .open = false };
	struct dep_index ix;
	ix_build(&ix, &it, &m); /* the recorded paths are read from its database */
	char err[ERR_LEN];
	CHECK_INT(0, catchup_changes(&sources, &it.t, &since, skip_nothing, NULL, &c, err));
	CHECK_INT(1, changes_count(&c));
	CHECK(changes_flags(&c, read) & FSW_REMOVED);
	CHECK_INT(0, changes_flags(&c, never));

	changes_clear(&c);
	strlist_clear(&sources);
	manifest_release(&m);
	ix_close(&it);
	rmdir(dir);
	free(read);
	free(never);
}

/* skip for the walk below: what a render wrote ("cache/" files). */
static bool skip_cache(void *arg, const char *path)
{
	(void)arg;
	return strstr(path, "/cache/") != NULL;
}

/* The catch-up's walk of the sources, on several threads: every file
 * changed since, in every directory, in path order; a directory made
 * since is said created unless a render wrote in it. */
TEST(watch_catchup_walks_every_directory_in_path_order)
{
	char dir[] = "/tmp/cgisnap-catchup-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/old.txt", dir);
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
	free(path);
	struct timespec since, pause = { 0, 20 * 1000 * 1000 }; /* past the slack, either side */
	nanosleep(&pause, NULL);
	clock_gettime(CLOCK_REALTIME, &since);
	nanosleep(&pause, NULL);
	for (int i = 0; i < 40; i++) {
		path = xasprintf("%s/d%02d", dir, i);
		CHECK_INT(0, mkdir(path, 0755));
		free(path);
		path = xasprintf("%s/d%02d/p.txt", dir, i);
		if ((f = fopen(path, "w")))
			fclose(f);
		free(path);
	}
	path = xasprintf("%s/cache", dir);
	CHECK_INT(0, mkdir(path, 0755));
	free(path);
	path = xasprintf("%s/cache/x", dir);
	if ((f = fopen(path, "w")))
		fclose(f);
	free(path);

	struct manifest m = MANIFEST_INIT;
	struct ix_tree it = { .open = false };
	struct dep_index ix;
	ix_build(&ix, &it, &m);
	struct strlist sources = STRLIST_INIT;
	strlist_add(&sources, dir);
	struct changes c = CHANGES_INIT;
	char err[ERR_LEN];
	CHECK_INT(0, catchup_changes(&sources, &it.t, &since, skip_cache, NULL, &c, err));
	CHECK_INT(80, changes_count(&c)); /* d00 .. d39 and their p.txt; not cache/, not old.txt */
	for (size_t i = 1; i < c.order.n; i++)
		CHECK(strcmp(c.order.items[i - 1], c.order.items[i]) < 0);
	char *d07 = xasprintf("%s/d07", dir), *p07 = xasprintf("%s/d07/p.txt", dir);
	CHECK(changes_flags(&c, d07) & FSW_DIR);
	CHECK(changes_flags(&c, p07) & FSW_CREATED);
	free(d07);
	free(p07);
	changes_clear(&c);
	strlist_clear(&sources);
	ix_close(&it);
	unit_remove_tree(dir);
}

TEST(watch_deps_empty_batch_has_no_targets)
{
	struct deps_fixture fx;
	struct changes c = CHANGES_INIT;
	struct strlist t = STRLIST_INIT;
	fx_init(&fx, "http://localhost/");
	CHECK_INT(0, watch_rules_always(&fx.rules, &fx.site, "/", fx.err));
	deps_targets(&fx.ix, &fx.rules, &fx.site, &c, &t);
	CHECK_INT(0, t.n); /* --always needs a change */
	fx_release(&fx);
}
