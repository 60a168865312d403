/* test_config_apache.c - the Apache virtual host 'cgisnap config apache'
 * writes (config/apache.c), checked by its lines; t0610 and t0611 run it
 * in Apache. */
#include <stdio.h>
#include <stdlib.h>

#include "../../config/config.h"
#include "log.h"
#include "manifest.h"
#include "unit.h"
#include "xalloc.h"

static void add(struct treeinfo *ti, const char *target, int status, const char *key, const char *type,
		const char *location)
{
	struct manifest_entry *e = manifest_entry_new(target);
	e->status = status;
	e->key = key ? xstrdup(key) : NULL;
	e->content_type = type ? xstrdup(type) : NULL;
	e->location = location ? xstrdup(location) : NULL;
	treeinfo_add(ti, e);
	manifest_entry_free(e);
}

static void blog(struct treeinfo *ti)
{
	treeinfo_init(ti, "http://blog.example.com/");
	ti->dir = xstrdup("out");
	ti->root = xstrdup("/srv/my blog");
	ti->have_404 = true;
	add(ti, "/", 200, "index.html", "text/html; charset=UTF-8", NULL);
	add(ti, "/?p=5", 301, NULL, NULL, "http://blog.example.com/2020/05/x/");
	add(ti, "/cost", 302, NULL, NULL, "http://blog.example.com/a$b%25");
	add(ti, "/feed/", 200, "feed/index.html", "application/rss+xml; charset=UTF-8", NULL);
	add(ti, "/feed/0", 404, NULL, NULL, NULL);
	add(ti, "/gone", 410, NULL, NULL, NULL);
	add(ti, "/a.b%40c/", 200, "a.b%40c/index.html", "text/html", NULL);
	add(ti, "/search?q=a/b", 200, "search@q=a%2Fb.html", "text/html", NULL);
	add(ti, "/odd.php", 200, "odd.php", "text/html; charset=\"a,b\"", NULL);
	add(ti, "/style.css?ver=1.0", 200, "style.css@ver=1.0.css", "text/css; charset=utf-8", NULL);
}

static char *apache_text(const struct treeinfo *ti, const char *listen, const char *cc)
{
	struct config_params p;
	char err[ERR_LEN];
	struct buf out = BUF_INIT;
	CHECK_INT(0, config_params_init(&p, ti, listen, NULL, cc, err));
	apache_write(&out, ti, &p);
	config_params_release(&p);
	return buf_detach(&out, NULL);
}

static void check_has(const char *text, const char *want, int line)
{
	if (!strstr(text, want))
		unit_fail(__FILE__, line, "expected the output to contain \"%s\"", want);
}

static void check_lacks(const char *text, const char *unwanted, int line)
{
	if (strstr(text, unwanted))
		unit_fail(__FILE__, line, "expected the output not to contain \"%s\"", unwanted);
}

#define HAS(text, s) check_has(text, s, __LINE__)
#define LACKS(text, s) check_lacks(text, s, __LINE__)

TEST(config_apache_virtual_host)
{
	struct treeinfo ti;
	blog(&ti);
	char *t = apache_text(&ti, "127.0.0.1:8091", NULL);
	HAS(t, "# REGENERATE this file");
	HAS(t, "a2enmod rewrite headers");
	HAS(t, "\nListen 127.0.0.1:8091\n\n<VirtualHost 127.0.0.1:8091>\n    ServerName blog.example.com\n"
	       "    DocumentRoot \"/srv/my blog\"\n");
	HAS(t, "    MergeSlashes Off\n");
	HAS(t, "    <Directory \"/srv/my blog\">\n        Require all granted\n");
	HAS(t, "        AllowOverride None\n        Options None\n");
	HAS(t, "        <FilesMatch \"(?i)\\.(?:html|htm)$\">\n"
	       "            ForceType \"text/html; charset=utf-8\"\n        </FilesMatch>\n");
	HAS(t, "    ErrorDocument 410 /.cgisnap/404.html\n");
	HAS(t, "    RewriteRule \"^/\\.cgisnap/404\\.html$\" \"/srv/my blog/.cgisnap/404.html\" [END]\n");
	HAS(t, "    Header always set Cache-Control \"public, max-age=60\" "
	       "\"expr=%{REQUEST_STATUS} in {'200','206','304','301','308'}\"\n");
	HAS(t, "    RewriteCond %{THE_REQUEST} \"^\\S+\\s+[^?\\s]*(?:[\\x5c#])\" [NC]\n"
	       "    RewriteRule ^ - [R=400]\n");
	HAS(t, "    RewriteRule \"/\\.\" - [R=404]\n");
	/* The rules, with the suffixes in use. */
	HAS(t, "    RewriteCond \"/srv/my blog$0@%{QUERY_STRING}.css\" -f\n"
	       "    RewriteRule \"^/.*$\" \"/srv/my blog$0@%{QUERY_STRING}.css?\" "
	       "[E=CGISNAP_FOUND:1,QSL,UnsafeAllow3F]\n");
	HAS(t, "    RewriteRule \"^/(?:.*/)?[^/.]+$\" \"/srv/my blog$0/index.html?\" "
	       "[E=CGISNAP_FOUND:1,QSL,UnsafeAllow3F]\n");
	/* FILE.gz with FILE's type. */
	HAS(t, "    RewriteCond \"/srv/my blog/$1.gz\" -f\n"
	       "    RewriteRule \"^\\/srv\\/my\\x20blog/(.*)$\" - [E=CGISNAP_VARY:1]\n");
	HAS(t, "    RewriteRule \"(?i)\\.(?:css)\\.gz$\" - \"[T=text/css; charset=utf-8]\"\n");
	LACKS(t, "(?:png)\\.gz");
	HAS(t, "    RewriteRule ^ - [T=%{ENV:CGISNAP_TYPE}]\n");
	free(t);
	treeinfo_release(&ti);
}

TEST(config_apache_recorded_urls)
{
	struct treeinfo ti;
	blog(&ti);
	char *t = apache_text(&ti, "127.0.0.1:8091", NULL);
	HAS(t, "    RewriteCond %{QUERY_STRING} \"=p=5\"\n"
	       "    RewriteRule \"^\\/$\" \"http://blog.example.com/2020/05/x/\" [R=301,NE,QSD,L]\n");
	/* '$' and '%' would be references in a substitution. */
	HAS(t, "    RewriteCond %{QUERY_STRING} ^$\n"
	       "    RewriteRule \"^\\/cost$\" \"http://blog.example.com/a\\$b\\%25\" [R=302,NE,QSD,L]\n");
	HAS(t, "    RewriteRule \"^\\/feed\\/0$\" - [R=404]\n");
	HAS(t, "    RewriteRule \"^\\/gone$\" - [R=410]\n");
	HAS(t, "    RewriteRule \"^\\/feed\\/$\" \"/srv/my blog/feed/index.html?\" "
	       "\"[E=CGISNAP_FOUND:1,E=CGISNAP_TYPE:application/rss+xml; charset=UTF-8,QSL,UnsafeAllow3F]\"\n");
	HAS(t, "    RewriteRule \"^\\/a\\.b\\@c\\/$\" \"/srv/my blog/a.b\\%40c/index.html?\" "
	       "\"[E=CGISNAP_FOUND:1,QSL,UnsafeAllow3F]\"\n");
	HAS(t, "    RewriteCond %{QUERY_STRING} \"=q=a/b\"\n"
	       "    RewriteRule \"^\\/search$\" \"/srv/my blog/search@q=a\\%2Fb.html?\" "
	       "\"[E=CGISNAP_FOUND:1,QSL,UnsafeAllow3F]\"\n");
	/* A ',' would split the flags: that page goes out with the type of
	 * its name, and the output says so. */
	HAS(t, "    # /odd.php: its type cannot be written in a rewrite flag\n");
	HAS(t, "    RewriteRule \"^\\/odd\\.php$\" \"/srv/my blog/odd.php?\" "
	       "\"[E=CGISNAP_FOUND:1,QSL,UnsafeAllow3F]\"\n");
	LACKS(t, "\\/style\\.css");
	free(t);
	treeinfo_release(&ti);
}

TEST(config_apache_listen_and_names)
{
	struct treeinfo ti;
	treeinfo_init(&ti, "http://example.com/");
	char err[ERR_LEN];
	CHECK_INT(0, site_add_alias(&ti.site, "http://www.example.com/", err));
	ti.dir = xstrdup("t");
	ti.root = xstrdup("/t");
	char *t = apache_text(&ti, "*:80", "off");
	HAS(t, "# Listen 80\n");
	HAS(t, "<VirtualHost *:80>\n    ServerName example.com\n    ServerAlias www.example.com\n");
	LACKS(t, "\nListen");
	LACKS(t, "Cache-Control");
	LACKS(t, "ErrorDocument");
	free(t);
	t = apache_text(&ti, "*:8080", NULL);
	HAS(t, "\nListen 8080\n");
	free(t);
	treeinfo_release(&ti);
}
