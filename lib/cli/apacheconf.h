/* apacheconf.h - what an Apache configuration file says about where a
 * site's files are and how they run, read as Apache reads it: a vhost, a
 * Debian conf-available/NAME.conf, or apache2.conf with everything it
 * includes. Only the directives that place files and programs are taken
 * (DocumentRoot, Alias, ScriptAlias, DirectoryIndex, FallbackResource,
 * SetEnv, PHP's handler, FollowSymLinks on a mounted directory, the
 * ServerName); access control, logging and the server's own set-up are
 * skipped; every other directive is listed as not honoured, so that the
 * user sees what the snapshot does not do (rewrites, redirects, headers).
 *
 *     struct apache_conf c;
 *     if (apache_conf_read("/etc/apache2/conf-available/mediawiki.conf", &c, err) < 0) ...
 *     ... c.path_aliases: "/mediawiki=/var/lib/mediawiki"
 *     apache_conf_release(&c);
 *
 * Sections: <IfModule> and <IfDefine> hold (a module a Debian package
 * configures is taken as loaded) unless negated; <IfVersion> is compared
 * with 2.4. ${NAME} is a Define'd name or the environment's. Include and
 * IncludeOptional follow globs under ServerRoot (/etc/apache2 for a file
 * there, else the file's directory). Pure reading: nothing is checked on
 * disk but the included files.
 */
#ifndef CGISNAP_CLI_APACHECONF_H
#define CGISNAP_CLI_APACHECONF_H

#include <stdbool.h>

#include "base/buf.h"

/* Where Debian keeps Apache's configuration. */
#define APACHE_CONF_DIR "/etc/apache2"

/* An Alias or ScriptAlias as written, and where. */
struct apache_alias {
	char *prefix;  /* the URL path, as written */
	char *path;    /* the directory or program */
	char *place;   /* "FILE:LINE" */
	bool script;   /* ScriptAlias */
};

struct apache_conf {
	char *document_root;           /* the first DocumentRoot, or NULL */
	char *server_name;             /* the first ServerName, without a port */
	bool https;                    /* its <VirtualHost> is on port 443, or SSLEngine on */
	struct strlist path_aliases;   /* Alias: "/PREFIX=DIR", as --path-alias takes it */
	struct strlist script_aliases; /* ScriptAlias: "/PREFIX=PATH", as --script-alias */
	struct apache_alias *aliases;  /* both kinds, in order */
	size_t naliases;
	char *index;                   /* DirectoryIndex as --index takes it ("a,b"), or NULL */
	char *front_controller;        /* FallbackResource, or NULL */
	struct strlist env;            /* SetEnv: "NAME=VALUE" */
	bool php;                      /* PHP files are handed to PHP (SetHandler, AddHandler, AddType, Action) */
	char *php_fastcgi;             /* ... through proxy_fcgi: "unix:SOCKET" or "HOST:PORT", or NULL */
	struct strlist no_symlinks;    /* directories whose Options leave FollowSymLinks out */
	/* Directives not honoured, each once: "RewriteRule (x.conf:12, 3 times)". */
	struct strlist ignored;
};

/* Read path and what it includes into c (which needs no initialising).
 * 0, or -1 with err naming the file and line: "cannot read Apache
 * configuration 'x.conf': No such file or directory", "x.conf:4: <Directory>
 * is not closed", "x.conf:2: Include 'y/NAME.conf' matches no file". */
int apache_conf_read(const char *path, struct apache_conf *c, char *err);

void apache_conf_release(struct apache_conf *c);

/* Look through the Apache configuration under dir (/etc/apache2: what
 * apache2.conf includes, then conf-available, mods-available and
 * sites-available) for an Alias or ScriptAlias of the URL directory url
 * ("/icons/"). The hint, fresh: "Apache's configuration mounts it,
 * 'Alias /icons/ /usr/share/apache2/icons/' (/etc/apache2/mods-enabled/alias.conf:13):
 * give --path-alias /icons=/usr/share/apache2/icons/", or NULL. */
char *apache_alias_hint(const char *dir, const char *url);

#endif
