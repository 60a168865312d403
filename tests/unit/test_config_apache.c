/* test_config_apache.c - the Apache virtual host 'cgisnap config apache'
 * writes (config/apache.c), checked by its lines; t0610 and t0611 run it
 * in Apache. */
#include <stdlib.h>

#include "../../config/config.h"
#include "base/log.h"
#include "helpers.h"
#include "unit.h"
#include "base/xalloc.h"

static void blog(struct treeinfo *ti)
{
	unit_blog_tree(ti, "/srv/my blog", "http://blog.example.com/a$b%25");
	unit_treeinfo_add(ti, "/a.b%40c/", 200, "a.b%40c/index.html", "text/html; charset=utf-8", NULL);
	unit_treeinfo_add(ti, "/search?q=a/b", 200, "search@q=a%2Fb.html", "text/html; charset=utf-8", NULL);
	unit_treeinfo_add(ti, "/odd.php", 200, "odd.php", "text/html; charset=\"a,b\"", NULL);
	unit_treeinfo_add(ti, "/style.css?ver=1.0", 200, "style.css@ver=1.0.css", "text/css; charset=utf-8", NULL);
}

TEST(config_apache_virtual_host)
{
	struct treeinfo ti;
	blog(&ti);
	char *t = unit_apache_text(&ti, "127.0.0.1:8091", NULL);
	CHECK_HAS(t, "# REGENERATE this file");
	CHECK_HAS(t, "a2enmod rewrite headers");
	CHECK_HAS(t, "\nListen 127.0.0.1:8091\n\n<VirtualHost 127.0.0.1:8091>\n    ServerName blog.example.com\n"
	       "    DocumentRoot \"/srv/my blog\"\n");
	CHECK_HAS(t, "    MergeSlashes Off\n");
	CHECK_HAS(t, "    <Directory \"/srv/my blog\">\n        Require all granted\n");
	CHECK_HAS(t, "        AllowOverride None\n        Options None\n");
	CHECK_HAS(t, "        <FilesMatch \"(?i)\\.(?:html|htm)$\">\n"
	       "            ForceType \"text/html; charset=utf-8\"\n        </FilesMatch>\n");
	CHECK_HAS(t, "    ErrorDocument 410 /.cgisnap/404.html\n");
	CHECK_HAS(t, "    RewriteRule \"^/\\.cgisnap/404\\.html$\" \"/srv/my blog/.cgisnap/404.html\" [END]\n");
	CHECK_HAS(t, "    Header always set Cache-Control \"public, max-age=60\" "
	       "\"expr=%{REQUEST_STATUS} in {'200','206','304','301','308'}\"\n");
	CHECK_HAS(t, "    RewriteCond %{THE_REQUEST} \"^\\S+\\s+[^?\\s]*(?:(?:%(?![0-9a-f]{2}))|(?:%(?:[01][0-9a-f]|7f|5c))|(?:[\\x5c#])|");
	CHECK_HAS(t, "\" [NC]\n    RewriteRule ^ - [R=400]\n");
	CHECK_HAS(t, "    RewriteRule \"/\\.\" - [R=404]\n");
	/* The rules, with the suffixes in use. */
	CHECK_HAS(t, "    RewriteCond \"/srv/my blog$0@%{ENV:CGISNAP_Q}.css\" -f\n"
	       "    RewriteRule \"^/.*$\" \"/srv/my blog$0@%{ENV:CGISNAP_Q}.css?\" "
	       "[E=CGISNAP_FOUND:1,QSL,UnsafeAllow3F]\n");
	CHECK_HAS(t, "    RewriteCond \"/srv/my blog$0/index.html\" -f\n"
	       "    RewriteCond %{THE_REQUEST} \"^\\S+\\s+(?:[a-z][a-z0-9+.-]*://[^/?\\s]*)?([^?\\s]*)\" [NC]\n"
	       "    RewriteRule \"^/(?:.*/)?[^/.]+$\" \"http://blog.example.com%1/\" [R=301,NE,QSD,L]\n");
	/* FILE.gz with FILE's type. */
	CHECK_HAS(t, "    RewriteCond \"/srv/my blog/$1.gz\" -f\n"
	       "    RewriteRule \"^\\/srv\\/my\\x20blog/(.*)$\" - [E=CGISNAP_VARY:1]\n");
	CHECK_HAS(t, "    RewriteRule \"(?i)\\.(?:css)\\.gz$\" - \"[T=text/css; charset=utf-8]\"\n");
	CHECK_LACKS(t, "(?:png)\\.gz");
	CHECK_HAS(t, "    RewriteRule ^ - [T=%{ENV:CGISNAP_TYPE}]\n");
	free(t);
	treeinfo_release(&ti);
}

TEST(config_apache_recorded_urls)
{
	struct treeinfo ti;
	blog(&ti);
	char *t = unit_apache_text(&ti, "127.0.0.1:8091", NULL);
	CHECK_HAS(t, "    RewriteCond %{ENV:CGISNAP_Q} \"=p=5\"\n"
	       "    RewriteRule \"^\\/$\" \"http://blog.example.com/2020/05/x/\" [R=301,NE,QSD,L]\n");
	/* '$' and '%' would be references in a substitution. */
	CHECK_HAS(t, "    RewriteCond %{ENV:CGISNAP_Q} ^$\n"
	       "    RewriteRule \"^\\/cost$\" \"http://blog.example.com/a\\$b\\%25\" [R=302,NE,QSD,L]\n");
	CHECK_HAS(t, "    RewriteRule \"^\\/feed\\/0$\" - [R=404]\n");
	CHECK_HAS(t, "    RewriteRule \"^\\/gone$\" - [R=410]\n");
	CHECK_HAS(t, "    RewriteRule \"^\\/feed\\/$\" \"/srv/my blog/feed/index.html?\" "
	       "\"[E=CGISNAP_FOUND:1,E=CGISNAP_TYPE:application/rss+xml; charset=UTF-8,QSL,UnsafeAllow3F]\"\n");
	CHECK_HAS(t, "    RewriteRule \"^\\/a\\.b\\@c\\/$\" \"/srv/my blog/a.b\\%40c/index.html?\" "
	       "\"[E=CGISNAP_FOUND:1,QSL,UnsafeAllow3F]\"\n");
	CHECK_HAS(t, "    RewriteCond %{ENV:CGISNAP_Q} \"=q=a/b\"\n"
	       "    RewriteRule \"^\\/search$\" \"/srv/my blog/search@q=a\\%2Fb.html?\" "
	       "\"[E=CGISNAP_FOUND:1,QSL,UnsafeAllow3F]\"\n");
	/* A ',' would split the flags: that page goes out with the type of
	 * its name, and the output says so. */
	CHECK_HAS(t, "    # /odd.php: its type cannot be written in a rewrite flag\n");
	CHECK_HAS(t, "    RewriteRule \"^\\/odd\\.php$\" \"/srv/my blog/odd.php?\" "
	       "\"[E=CGISNAP_FOUND:1,QSL,UnsafeAllow3F]\"\n");
	CHECK_LACKS(t, "\\/style\\.css");
	free(t);
	treeinfo_release(&ti);
}

TEST(config_apache_listen_and_names)
{
	struct treeinfo ti;
	unit_empty_tree(&ti, "http://example.com/");
	char err[ERR_LEN];
	CHECK_INT(0, site_add_alias(&ti.site, "http://www.example.com/", err));
	char *t = unit_apache_text(&ti, "*:80", "off");
	CHECK_HAS(t, "# Listen 80\n");
	CHECK_HAS(t, "<VirtualHost *:80>\n    ServerName example.com\n    ServerAlias www.example.com\n");
	CHECK_LACKS(t, "\nListen");
	CHECK_LACKS(t, "Cache-Control");
	CHECK_LACKS(t, "ErrorDocument");
	free(t);
	t = unit_apache_text(&ti, "*:8080", NULL);
	CHECK_HAS(t, "\nListen 8080\n");
	free(t);
	treeinfo_release(&ti);
}
