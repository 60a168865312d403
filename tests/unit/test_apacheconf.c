/* test_apacheconf.c - reading Apache's configuration (lib/cli/apacheconf.c):
 * what a vhost and a Debian conf-available file say, sections and their
 * conditions, includes, and the errors that name the file and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/xalloc.h"
#include "cli/apacheconf.h"
#include "helpers.h"
#include "unit.h"

#define CHECK_LIST(want, list) CHECK_STR_FREE(want, unit_joined(list, " | "))

/* Write text to dir/name and read it into c: no error, no message. */
static void read_conf(const char *dir, const char *name, const char *text, struct apache_conf *c)
{
	char *path = xasprintf("%s/%s", dir, name), err[ERR_LEN] = "";
	unit_put(dir, name, text);
	CHECK_INT(0, apache_conf_read(path, c, err));
	CHECK_STR("", err);
	free(path);
}

/* The end of a test that read c from dir: both go. */
static void conf_done(struct apache_conf *c, char *dir)
{
	apache_conf_release(c);
	unit_drop_dir(dir);
}

TEST(apacheconf_vhost)
{
	char *dir = unit_temp_dir("apacheconf");
	unit_make_dir(dir, "conf.d");
	unit_put(dir, "conf.d/env.conf", "SetEnv FROM_INCLUDE yes\n");
	struct apache_conf c;
	read_conf(dir, "site.conf",
		  "# a vhost as Debian's sites-available holds them\n"
		  "Define APPDIR /srv/app\n"
		  "<VirtualHost *:443>\n"
		  "\tServerName www.example.org\n"
		  "\tDocumentRoot \"/var/www/site\"\n"
		  "\tAlias /static/ ${APPDIR}/static/\n"
		  "\tScriptAlias /cgi-bin/app/ \\\n"
		  "\t\t/usr/lib/cgi-bin/app/\n"
		  "\tDirectoryIndex index.php index.html\n"
		  "\tFallbackResource /index.php\n"
		  "\tSetEnv APP_MODE \"static snapshot\"\n"
		  "\tInclude conf.d/*.conf\n"
		  "\t<FilesMatch \\.php$>\n"
		  "\t\tSetHandler \"proxy:unix:/run/php/php8.2-fpm.sock|fcgi://localhost\"\n"
		  "\t</FilesMatch>\n"
		  "\t<Directory /var/www/site/>\n"
		  "\t\tOptions -FollowSymLinks\n"
		  "\t\tRequire all granted\n"
		  "\t</Directory>\n"
		  "\t<IfModule !mod_rewrite.c>\n"
		  "\t\tAlias /never /nowhere\n"
		  "\t</IfModule>\n"
		  "\t<IfVersion < 2.3>\n"
		  "\t\tAlias /old /nowhere\n"
		  "\t</IfVersion>\n"
		  "\t<IfModule mod_rewrite.c>\n"
		  "\t\tRewriteEngine on\n"
		  "\t\tRewriteRule ^/a$ /b [R]\n"
		  "\t\tRewriteRule ^/c$ /d [R]\n"
		  "\t</IfModule>\n"
		  "\tErrorLog ${APACHE_LOG_DIR}/error.log\n"
		  "</VirtualHost>\n",
		  &c);
	CHECK_STR("/var/www/site", c.document_root);
	CHECK_STR("www.example.org", c.server_name);
	CHECK(c.https);
	CHECK_LIST("/static/=/srv/app/static/", &c.path_aliases);
	CHECK_LIST("/cgi-bin/app/=/usr/lib/cgi-bin/app/", &c.script_aliases);
	CHECK_STR("index.php,index.html", c.index);
	CHECK_STR("/index.php", c.front_controller);
	CHECK_LIST("APP_MODE=static snapshot | FROM_INCLUDE=yes", &c.env);
	CHECK(c.php);
	CHECK_STR("unix:/run/php/php8.2-fpm.sock", c.php_fastcgi);
	CHECK_LIST("/var/www/site", &c.no_symlinks);
	CHECK_LIST("RewriteEngine (site.conf:27) | RewriteRule (site.conf:28, 2 times)", &c.ignored);
	conf_done(&c, dir);
}

TEST(apacheconf_debian_conf_available)
{
	/* The shape of Debian's mediawiki.conf and serve-cgi-bin.conf. */
	char *dir = unit_temp_dir("apacheconf");
	struct apache_conf c;
	read_conf(dir, "app.conf",
		  "Alias /mediawiki /var/lib/mediawiki\n"
		  "<Directory /var/lib/mediawiki/>\n"
		  "\tOptions +FollowSymLinks\n"
		  "\t<IfVersion >= 2.3>\n\t\tRequire all granted\n\t</IfVersion>\n"
		  "</Directory>\n"
		  "<Directory /var/lib/mediawiki/images>\n"
		  "\tOptions -FollowSymLinks\n"
		  "\t<IfModule mod_php7.c>\n\t\tphp_admin_flag engine off\n\t</IfModule>\n"
		  "</Directory>\n"
		  "<IfModule mod_cgi.c>\n\tDefine ENABLE_CGI_BIN\n</IfModule>\n"
		  "<IfDefine ENABLE_CGI_BIN>\n\tScriptAlias /cgi-bin/ /usr/lib/cgi-bin/\n</IfDefine>\n"
		  "<IfDefine !ENABLE_CGI_BIN>\n\tAlias /cgi-bin/ /nowhere/\n</IfDefine>\n"
		  "<FilesMatch \".+\\.ph(?:ar|p|tml)$\">\n\tSetHandler application/x-httpd-php\n</FilesMatch>\n"
		  "<FilesMatch \".+\\.phps$\">\n\tSetHandler application/x-httpd-php-source\n</FilesMatch>\n",
		  &c);
	CHECK(c.document_root == NULL);
	CHECK(c.server_name == NULL);
	CHECK_LIST("/mediawiki=/var/lib/mediawiki", &c.path_aliases);
	CHECK_LIST("/cgi-bin/=/usr/lib/cgi-bin/", &c.script_aliases);
	CHECK(c.php);
	CHECK(c.php_fastcgi == NULL);
	CHECK_LIST("/var/lib/mediawiki/images", &c.no_symlinks);
	CHECK_LIST("php_admin_flag (app.conf:11)", &c.ignored);
	conf_done(&c, dir);
}

TEST(apacheconf_errors)
{
	char *dir = unit_temp_dir("apacheconf");
	struct { const char *text; const char *err; } cases[] = {
		{ "<Directory /x>\nOptions None\n", "%s/bad.conf:1: <Directory> is not closed" },
		{ "Alias /a /b\n</Directory>\n", "%s/bad.conf:2: </Directory> without <Directory>" },
		{ "<Directory /x>\n</Files>\n", "%s/bad.conf:2: </Files> without <Files>" },
		{ "Include nothing.conf\n", "%s/bad.conf:1: Include 'nothing.conf' matches no file" },
		{ "Include bad.conf\n", "%s/bad.conf: included over 16 deep (a loop?)" },
	};
	char *path = xasprintf("%s/bad.conf", dir);
	for (size_t i = 0; i < COUNT(cases); i++) {
		unit_put(dir, "bad.conf", cases[i].text);
		char err[ERR_LEN] = "", *want = xasprintf(cases[i].err, dir);
		struct apache_conf c;
		CHECK_INT(-1, apache_conf_read(path, &c, err));
		CHECK_STR(want, err);
		CHECK(c.path_aliases.n == 0);
		free(want);
	}
	/* A glob matching nothing is no error, as IncludeOptional. */
	unit_put(dir, "bad.conf", "Include none/*.conf\nIncludeOptional none.conf\nAlias /a /b\n");
	char err[ERR_LEN] = "";
	struct apache_conf c;
	CHECK_INT(0, apache_conf_read(path, &c, err));
	CHECK_LIST("/a=/b", &c.path_aliases);
	apache_conf_release(&c);
	char *missing = xasprintf("%s/missing.conf", dir), *want = xasprintf("cannot read Apache configuration '%s': No such file or directory", missing);
	CHECK_INT(-1, apache_conf_read(missing, &c, err));
	CHECK_STR(want, err);
	free(want);
	free(missing);
	free(path);
	unit_drop_dir(dir);
}

TEST(apacheconf_alias_hint)
{
	/* A configuration directory as Debian lays it out: the Alias in a
	 * module's conf, apache2.conf including the enabled ones. */
	char *dir = unit_temp_dir("apacheconf");
	unit_make_dir(dir, "mods-available");
	unit_make_dir(dir, "mods-enabled");
	unit_make_dir(dir, "conf-available");
	unit_put(dir, "apache2.conf", "IncludeOptional mods-enabled/*.conf\n");
	unit_put(dir, "mods-enabled/alias.conf", "Alias /icons/ \"/usr/share/apache2/icons/\"\n");
	unit_put(dir, "conf-available/tool.conf", "\n\nScriptAlias /tool /usr/lib/tool/tool.cgi\n");
	char *hint = apache_alias_hint(dir, "/icons/");
	char *want = xasprintf("Apache's configuration mounts it, 'Alias /icons/ /usr/share/apache2/icons/' "
			       "(%s/mods-enabled/alias.conf:1): give --path-alias /icons=/usr/share/apache2/icons/", dir);
	CHECK_STR(want, hint);
	free(want);
	free(hint);
	hint = apache_alias_hint(dir, "/tool/");
	want = xasprintf("Apache's configuration mounts it, 'ScriptAlias /tool /usr/lib/tool/tool.cgi' "
			 "(%s/conf-available/tool.conf:3): give --script-alias /tool=/usr/lib/tool/tool.cgi", dir);
	CHECK_STR(want, hint);
	free(want);
	free(hint);
	CHECK(apache_alias_hint(dir, "/other/") == NULL);
	unit_drop_dir(dir);
}
