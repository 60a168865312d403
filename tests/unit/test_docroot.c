/* test_docroot.c - document-root resolution (docroot.c) as a table, in the
 * way of darkhttpd's path tests: a scratch root of files, directories,
 * dotfiles and links, and rows of target -> decision. No program runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "origin/docroot.h"
#include "helpers.h"
#include "originfix.h"
#include "base/log.h"
#include "origin/origin.h"
#include "tree/tree.h"
#include "unit.h"
#include "url/url.h"
#include "base/xalloc.h"

struct docroot_row {
	const char *target;
	enum resolve_kind kind;
	/* SCRIPT: its SCRIPT_NAME and PATH_INFO; STATIC and SOURCE: the path
	 * under the root; SLASH: the Location. */
	const char *name;
	const char *path_info;
	/* SOURCE: the error it becomes. */
	const char *message;
};

static const char *kind_name(enum resolve_kind k)
{
	static const char *names[] = { "SCRIPT", "STATIC", "SOURCE", "SLASH", "MISSING", "REFUSED" };
	return (unsigned)k < COUNT(names) ? names[k] : "?";
}

/* The origin tests' fixture (originfix.h) on a scratch root. */
struct docroot_fixture {
	struct fixture fx;
	char *root;
	char *outside;
};

static void link_at(const char *root, const char *target, const char *name)
{
	char *path = xasprintf("%s/%s", root, name);
	if (symlink(target, path) < 0)
		unit_fail(__FILE__, __LINE__, "cannot make the link '%s'", path);
	free(path);
}

/* The scratch root, and a directory beside it that links point out to;
 * links followed unless no_follow (--no-follow-symlinks). */
static bool docroot_open_with(struct docroot_fixture *f, const char *front_controller, bool no_follow)
{
	memset(f, 0, sizeof *f);
	f->root = unit_temp_dir("docroot");
	f->outside = unit_temp_dir("docroot-out");
	if (!f->root || !f->outside)
		return false;
	unit_put(f->root, "index.html", "<p>home</p>");
	unit_put(f->root, "page.html", "<p>page</p>");
	unit_put(f->root, "hello.cgi", "#!/bin/sh\n");
	unit_put(f->root, "app.php", "<?php echo 1;");
	unit_put(f->root, "config.pl", "my $password;");
	unit_put(f->root, "notes.txt", "<?php echo 'hidden';");
	unit_put(f->root, "tool", "#!/bin/sh\necho hi\n");
	unit_make_dir(f->root, "sub");
	unit_put(f->root, "sub/index.php", "<?php echo 2;");
	unit_make_dir(f->root, "plain");
	unit_put(f->root, "plain/index.html", "<p>plain</p>");
	unit_make_dir(f->root, "empty");
	unit_make_dir(f->root, ".git");
	unit_put(f->root, ".git/config", "[core]");
	unit_put(f->outside, "secret.html", "<p>secret</p>");
	unit_put(f->outside, "lib.pl", "my $password;");
	unit_make_dir(f->outside, ".git");
	unit_put(f->outside, ".git/config", "[core]");
	char *secret = xasprintf("%s/secret.html", f->outside);
	char *lib = xasprintf("%s/lib.pl", f->outside), *gone = xasprintf("%s/gone", f->outside);
	link_at(f->root, secret, "link-out.html");
	link_at(f->root, f->outside, "link-out-dir");
	link_at(f->root, "page.html", "link-in.html");
	link_at(f->root, "config.pl", "readme.txt");
	link_at(f->root, lib, "lib.txt");
	link_at(f->root, gone, "dangling");
	link_at(f->root, "loop", "loop");
	link_at(f->root, "loop-b", "loop-a");
	link_at(f->root, "loop-a", "loop-b");
	link_at(f->root, "page.html", ".hidden-link");
	free(secret);
	free(lib);
	free(gone);

	f->fx.cfg.root = xstrdup(f->root);
	f->fx.cfg.site_url = xstrdup("http://example.org/");
	strlist_add(&f->fx.cfg.cgi, "php=/bin/sh");
	if (front_controller)
		f->fx.cfg.front_controller = xstrdup(front_controller);
	f->fx.cfg.no_follow_symlinks = no_follow;
	return fixture_start(&f->fx);
}

static bool docroot_open(struct docroot_fixture *f, const char *front_controller)
{
	return docroot_open_with(f, front_controller, false);
}

static void docroot_close(struct docroot_fixture *f)
{
	fixture_close(&f->fx);
	if (f->root)
		unit_remove_tree(f->root);
	if (f->outside)
		unit_remove_tree(f->outside);
	free(f->root);
	free(f->outside);
}

/* Resolve each row's target as origin.c does (the path up to '?', the
 * front controller for what is missing) and compare. */
static void check_rows(struct docroot_fixture *f, const struct docroot_row *rows, size_t n)
{
	size_t root_len = strlen(f->root);
	for (size_t i = 0; i < n; i++) {
		const struct docroot_row *row = &rows[i];
		const char *query = strchr(row->target, '?');
		size_t len = query ? (size_t)(query - row->target) : strlen(row->target);
		struct resolved r;
		docroot_resolve(f->fx.o, row->target, len, query ? query + 1 : NULL, &r);
		if (r.kind == RESOLVE_MISSING && f->fx.o->front_controller)
			docroot_front_controller(f->fx.o, &r);
		if (r.kind != row->kind)
			unit_fail(__FILE__, __LINE__, "'%s': expected %s, saw %s", row->target,
				  kind_name(row->kind), kind_name(r.kind));
		const char *name = NULL, *path_info = NULL;
		if (r.kind == RESOLVE_SCRIPT) {
			name = r.script.script_name;
			path_info = r.script.path_info;
			char *filename = xasprintf("%s%s", f->root, r.script.script_name);
			CHECK_STR(filename, r.script.filename);
			free(filename);
		} else if (r.kind == RESOLVE_STATIC || r.kind == RESOLVE_SOURCE) {
			name = r.path && !strncmp(r.path, f->root, root_len) ? r.path + root_len : r.path;
		} else if (r.kind == RESOLVE_SLASH) {
			name = r.path;
		}
		if (row->kind == r.kind) {
			if (!(row->name ? name && !strcmp(row->name, name) : !name))
				unit_fail(__FILE__, __LINE__, "'%s': expected '%s', saw '%s'", row->target,
					  row->name ? row->name : "(null)", name ? name : "(null)");
			if (row->path_info && (!path_info || strcmp(row->path_info, path_info)))
				unit_fail(__FILE__, __LINE__, "'%s': expected PATH_INFO '%s', saw '%s'",
					  row->target, row->path_info, path_info ? path_info : "(null)");
		}
		if (row->message) {
			char err[ERR_LEN] = "";
			char *what = xasprintf("'%s'", r.path ? r.path + root_len + 1 : "?");
			if (r.kind == RESOLVE_SOURCE)
				CHECK_INT(-1, docroot_source_error(f->fx.o, what, r.path, err));
			if (r.kind == RESOLVE_REFUSED && r.why)
				snprintf(err, sizeof err, "%s", r.why);
			if (strcmp(row->message, err))
				unit_fail(__FILE__, __LINE__, "'%s': expected \"%s\", saw \"%s\"", row->target,
					  row->message, err);
			free(what);
		}
		docroot_release(&r);
	}
}

TEST(docroot_table)
{
	static const struct docroot_row rows[] = {
		/* Files, index files, scripts and their PATH_INFO. */
		{ "/", RESOLVE_STATIC, "/index.html", NULL, NULL },
		{ "/page.html", RESOLVE_STATIC, "/page.html", NULL, NULL },
		{ "/page.html?x=1", RESOLVE_STATIC, "/page.html", NULL, NULL },
		{ "//page.html", RESOLVE_STATIC, "/page.html", NULL, NULL },
		{ "/pa%67e.html", RESOLVE_STATIC, "/page.html", NULL, NULL },
		{ "/page.html/more", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/hello.cgi", RESOLVE_SCRIPT, "/hello.cgi", "", NULL },
		{ "/hello.cgi/a%20b/c", RESOLVE_SCRIPT, "/hello.cgi", "/a b/c", NULL },
		{ "/hello.cgi/", RESOLVE_SCRIPT, "/hello.cgi", "/", NULL },
		{ "/hello.cgi/a%00b", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/app.php?id=3", RESOLVE_SCRIPT, "/app.php", "", NULL },
		{ "/sub/", RESOLVE_SCRIPT, "/sub/index.php", "", NULL },
		{ "//sub///", RESOLVE_SCRIPT, "/sub/index.php", "", NULL },
		{ "/plain/", RESOLVE_STATIC, "/plain/index.html", NULL, NULL },
		/* A directory without its slash: a redirect keeping the query. */
		{ "/sub", RESOLVE_SLASH, "http://example.org/sub/", NULL, NULL },
		{ "/sub?a=1&b", RESOLVE_SLASH, "http://example.org/sub/?a=1&b", NULL, NULL },
		{ "/plain/../sub", RESOLVE_REFUSED, NULL, NULL, NULL },
		/* Nothing there. */
		{ "/empty/", RESOLVE_MISSING, NULL, NULL, NULL },
		{ "/nothing", RESOLVE_MISSING, NULL, NULL, NULL },
		{ "/sub/nothing.html", RESOLVE_MISSING, NULL, NULL, NULL },
		/* Traversal and dotfiles. */
		{ "/..", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/../etc/passwd", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/%2e%2e/etc/passwd", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/sub/%2E%2E/page.html", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/.git/config", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/%2egit/config", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/sub%2findex.php", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/page%00.html", RESOLVE_REFUSED, NULL, NULL, NULL },
		/* Links are followed wherever they lead, as Apache's FollowSymLinks:
		 * the file keeps the path it was found at. */
		{ "/link-in.html", RESOLVE_STATIC, "/link-in.html", NULL, NULL },
		{ "/link-out.html", RESOLVE_STATIC, "/link-out.html", NULL, NULL },
		{ "/link-out-dir/secret.html", RESOLVE_STATIC, "/link-out-dir/secret.html", NULL, NULL },
		{ "/link-out-dir/", RESOLVE_MISSING, NULL, NULL, NULL },
		{ "/link-out-dir", RESOLVE_SLASH, "http://example.org/link-out-dir/", NULL, NULL },
		{ "/dangling", RESOLVE_MISSING, NULL, NULL, NULL },
		{ "/dangling/x.html", RESOLVE_MISSING, NULL, NULL, NULL },
		{ "/loop", RESOLVE_MISSING, NULL, NULL, NULL },
		{ "/loop-a/x.html", RESOLVE_MISSING, NULL, NULL, NULL },
		/* ... but a URL still names nothing the links do not lead to. */
		{ "/link-out-dir/.git/config", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/link-out-dir/%2Egit/config", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/.hidden-link", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/link-out-dir/%2e%2e/docroot/page.html", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/link-out-dir/..%2Fsecret.html", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/link-out-dir%2Fsecret.html", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/link-out-dir/secret.html%00", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/link-out-dir%5C..%5Csecret.html", RESOLVE_MISSING, NULL, NULL, NULL },
		{ "/link-out-dir/\\..\\secret.html", RESOLVE_MISSING, NULL, NULL, NULL },
		/* A link to a script's source is judged by the file it names. */
		{ "/lib.txt", RESOLVE_SOURCE, "/lib.txt", NULL,
		  "'lib.txt' would be published as source: add --cgi pl=perl" },
		/* A script's source is never a static file. */
		{ "/config.pl", RESOLVE_SOURCE, "/config.pl", NULL,
		  "'config.pl' would be published as source: add --cgi pl=perl" },
		{ "/readme.txt", RESOLVE_SOURCE, "/readme.txt", NULL,
		  "'readme.txt' would be published as source: add --cgi pl=perl" },
		{ "/notes.txt", RESOLVE_SOURCE, "/notes.txt", NULL,
		  "'notes.txt' would be published as source: it starts with '<?php'; "
		  "--static-ext 'txt' publishes it as it is" },
		{ "/tool", RESOLVE_SOURCE, "/tool", NULL,
		  "'tool' would be published as source: add --cgi EXT=PROGRAM" },
	};
	struct docroot_fixture f;
	if (docroot_open(&f, NULL))
		check_rows(&f, rows, COUNT(rows));
	else
		unit_fail(__FILE__, __LINE__, "origin_open: %s", f.fx.err);
	docroot_close(&f);
}

TEST(docroot_front_controller_table)
{
	static const struct docroot_row rows[] = {
		/* What is missing goes to the front controller, without PATH_INFO. */
		{ "/nothing", RESOLVE_SCRIPT, "/app.php", "", NULL },
		{ "/wiki/start?do=edit", RESOLVE_SCRIPT, "/app.php", "", NULL },
		{ "/empty/", RESOLVE_SCRIPT, "/app.php", "", NULL },
		/* What exists, or is refused, does not. */
		{ "/page.html", RESOLVE_STATIC, "/page.html", NULL, NULL },
		{ "/hello.cgi/x", RESOLVE_SCRIPT, "/hello.cgi", "/x", NULL },
		{ "/sub", RESOLVE_SLASH, "http://example.org/sub/", NULL, NULL },
		{ "/.git/config", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/.hidden-link", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/link-out.html", RESOLVE_STATIC, "/link-out.html", NULL, NULL },
		{ "/config.pl", RESOLVE_SOURCE, "/config.pl", NULL, NULL },
		/* A dangling link or a loop is no file: the front controller's. */
		{ "/dangling", RESOLVE_SCRIPT, "/app.php", "", NULL },
		{ "/loop", RESOLVE_SCRIPT, "/app.php", "", NULL },
	};
	struct docroot_fixture f;
	if (docroot_open(&f, "/app.php"))
		check_rows(&f, rows, COUNT(rows));
	else
		unit_fail(__FILE__, __LINE__, "origin_open: %s", f.fx.err);
	docroot_close(&f);
}

/* A refusal says why, naming the path under the root: the crawl shows it
 * at -v instead of a bare 404. "%s" is the document root. */
TEST(docroot_refusals_say_why)
{
	static const struct {
		const char *target;
		enum resolve_kind kind;
		const char *why;
	} rows[] = {
		{ "/link-out.html", RESOLVE_REFUSED,
		  "'link-out.html' is a symbolic link leaving the document root; --no-follow-symlinks is set" },
		{ "/link-out-dir/secret.html", RESOLVE_REFUSED,
		  "'link-out-dir' is a symbolic link leaving the document root; --no-follow-symlinks is set" },
		{ "/.git/config", RESOLVE_REFUSED, "'.git': a path segment starting with '.' is never served" },
		{ "/sub/%2e%2e/page.html", RESOLVE_REFUSED,
		  "'sub/..': a path segment starting with '.' is never served" },
		{ "/sub%2findex.php", RESOLVE_REFUSED,
		  "'sub%%2findex.php': an encoded '/' or NUL in a path segment is refused" },
		{ "/page.html/more", RESOLVE_REFUSED, "'page.html' is a file, not a directory: nothing may follow it" },
		{ "/hello.cgi/a%00b", RESOLVE_REFUSED, "'hello.cgi': an encoded NUL in PATH_INFO is refused" },
		{ "/fifo", RESOLVE_REFUSED, "'fifo' is neither a file nor a directory" },
		/* An index file that links out is missing, with the reason kept. */
		{ "/linkidx/", RESOLVE_MISSING,
		  "'linkidx/index.html' is a symbolic link leaving the document root; --no-follow-symlinks is set" },
		{ "/nothing", RESOLVE_MISSING, NULL },
		{ "/page.html", RESOLVE_STATIC, NULL },
	};
	struct docroot_fixture f;
	if (!docroot_open_with(&f, NULL, true)) { /* --no-follow-symlinks */
		unit_fail(__FILE__, __LINE__, "origin_open: %s", f.fx.err);
		docroot_close(&f);
		return;
	}
	unit_make_dir(f.root, "linkidx");
	char *secret = xasprintf("%s/secret.html", f.outside);
	link_at(f.root, secret, "linkidx/index.html");
	free(secret);
	char *fifo = xasprintf("%s/fifo", f.root);
	CHECK_INT(0, mkfifo(fifo, 0600));
	free(fifo);
	for (size_t i = 0; i < COUNT(rows); i++) {
		const char *query = strchr(rows[i].target, '?');
		size_t len = query ? (size_t)(query - rows[i].target) : strlen(rows[i].target);
		struct resolved r;
		docroot_resolve(f.fx.o, rows[i].target, len, NULL, &r);
		char *want = rows[i].why ? xasprintf(rows[i].why, f.fx.o->root) : NULL;
		if (r.kind != rows[i].kind)
			unit_fail(__FILE__, __LINE__, "'%s': expected %s, saw %s", rows[i].target,
				  kind_name(rows[i].kind), kind_name(r.kind));
		CHECK_STR(want, r.why);
		free(want);
		docroot_release(&r);
	}
	docroot_close(&f);
}

/* The front controller's own refusal is said as its own. */
TEST(docroot_front_controller_refusal_says_why)
{
	struct docroot_fixture f;
	if (!docroot_open(&f, "/app.php")) {
		unit_fail(__FILE__, __LINE__, "origin_open: %s", f.fx.err);
		docroot_close(&f);
		return;
	}
	char *app = xasprintf("%s/app.php", f.root);
	unlink(app);
	free(app);
	struct resolved r;
	docroot_resolve(f.fx.o, "/nothing", 8, NULL, &r);
	docroot_front_controller(f.fx.o, &r);
	CHECK_INT(RESOLVE_REFUSED, r.kind);
	char *want = xasprintf("front controller '/app.php' is not a file under '%s'", f.fx.o->root);
	CHECK_STR(want, r.why);
	free(want);
	docroot_release(&r);
	docroot_close(&f);
}

/* --no-follow-symlinks: links staying inside the root are still their
 * file; one leaving it is refused, with the reason -v shows. */
TEST(docroot_no_follow_symlinks_table)
{
	static const struct docroot_row rows[] = {
		{ "/link-in.html", RESOLVE_STATIC, "/link-in.html", NULL, NULL },
		{ "/readme.txt", RESOLVE_SOURCE, "/readme.txt", NULL, NULL },
		{ "/link-out.html", RESOLVE_REFUSED, NULL, NULL,
		  "'link-out.html' is a symbolic link leaving the document root; --no-follow-symlinks is set" },
		{ "/link-out-dir/secret.html", RESOLVE_REFUSED, NULL, NULL,
		  "'link-out-dir' is a symbolic link leaving the document root; --no-follow-symlinks is set" },
		{ "/link-out-dir/", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/link-out-dir", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/lib.txt", RESOLVE_REFUSED, NULL, NULL, NULL },
		{ "/dangling", RESOLVE_MISSING, NULL, NULL, NULL },
		{ "/loop", RESOLVE_MISSING, NULL, NULL, NULL },
		{ "/page.html", RESOLVE_STATIC, "/page.html", NULL, NULL },
	};
	struct docroot_fixture f;
	if (docroot_open_with(&f, NULL, true))
		check_rows(&f, rows, COUNT(rows));
	else
		unit_fail(__FILE__, __LINE__, "origin_open: %s", f.fx.err);
	docroot_close(&f);
}

/* A link into the tree (origin_keep_out) is refused, links followed or
 * not: renders never read cgisnap's own output. */
TEST(docroot_link_into_the_tree_refused)
{
	for (int no_follow = 0; no_follow < 2; no_follow++) {
		struct docroot_fixture f;
		char *tree = unit_temp_dir("docroot-tree");
		if (!docroot_open_with(&f, NULL, no_follow)) {
			unit_fail(__FILE__, __LINE__, "origin_open: %s", f.fx.err);
			docroot_close(&f);
			free(tree);
			return;
		}
		unit_put(tree, "page.html", "<p>published</p>");
		unit_make_dir(tree, TREE_META_DIR);
		unit_put(tree, TREE_META_DIR "/manifest", "/\t...");
		char *manifest = xasprintf("%s/%s/manifest", tree, TREE_META_DIR);
		link_at(f.root, tree, "out");
		link_at(f.root, manifest, "manifest.txt");
		link_at(f.outside, tree, "tree");
		origin_keep_out(f.fx.o, tree);
		char *real = realpath(tree, NULL);
		static const char *targets[] = { "/out/page.html", "/manifest.txt", "/link-out-dir/tree/page.html" };
		static const char *names[] = { "out", "manifest.txt", "link-out-dir/tree" };
		for (size_t i = 0; i < 3; i++) {
			struct resolved r;
			docroot_resolve(f.fx.o, targets[i], strlen(targets[i]), NULL, &r);
			CHECK_INT(RESOLVE_REFUSED, r.kind);
			char *want = no_follow && i != 2
				     ? xasprintf("'%s' is a symbolic link leaving the document root; "
						 "--no-follow-symlinks is set", names[i])
				     : xasprintf("'%s' is a symbolic link into the tree '%s': cgisnap does "
						 "not read its own output", names[i], real);
			if (!(no_follow && i == 2))
				CHECK_STR(want, r.why ? r.why : "(none)");
			free(want);
			docroot_release(&r);
		}
		/* What the links do not lead into the tree stays. */
		struct resolved r;
		docroot_resolve(f.fx.o, "/link-out.html", strlen("/link-out.html"), NULL, &r);
		CHECK_INT(no_follow ? RESOLVE_REFUSED : RESOLVE_STATIC, r.kind);
		docroot_release(&r);
		free(real);
		free(manifest);
		docroot_close(&f);
		unit_drop_dir(tree);
	}
}

/* A front controller that is no file under the root, or a script's
 * source, is refused when the origin opens. */
TEST(docroot_front_controller_checked_at_open)
{
	static const struct {
		const char *front_controller;
		const char *message;
	} cases[] = {
		{ "/nothing.php", "front controller '/nothing.php' is not a file under '%s'" },
		{ "app.php", "front controller 'app.php' is not a file under '%s'" },
		{ "/.git/config", "front controller '/.git/config' is not a file under '%s'" },
		{ "/sub", "front controller '/sub' is not a file under '%s'" },
		{ "/config.pl", "front controller '/config.pl' would be published as source: add --cgi pl=perl" },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct docroot_fixture f;
		CHECK(!docroot_open(&f, cases[i].front_controller));
		if (f.root) {
			char *want = xasprintf(cases[i].message, f.root);
			CHECK_STR(want, f.fx.err);
			free(want);
		}
		docroot_close(&f);
	}
}
