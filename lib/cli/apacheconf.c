/* apacheconf.c - reading an Apache configuration (apacheconf.h). */
#include "cli/apacheconf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"

#define MAX_FILE (1 << 20)   /* a configuration file larger than this is refused */
#define MAX_INCLUDE_DEPTH 16 /* Include inside Include ...: a loop stops here */
#define MAX_SECTIONS 64      /* nested <Section>s */

struct section {
	char name[32];
	bool active;      /* its directives apply (its If* held, and its parent's) */
	char *directory;  /* <Directory PATH>: PATH, else NULL */
	bool https_vhost; /* <VirtualHost *:443> */
	int line;
};

/* A directive not honoured: its name, where it was first, how often. */
struct skipped {
	char *name;
	char *where;
	long count;
};

struct reader {
	struct apache_conf *c;
	struct strlist defines; /* "NAME" or "NAME=VALUE" */
	char *server_root;
	int depth;
	struct section sections[MAX_SECTIONS];
	int nsections;
	struct skipped *skipped;
	size_t nskipped;
};

/* Directives that say nothing about where files are or how they run:
 * access control, logs, the server's processes, TLS, compression. */
static const char *const silent[] = {
	"Require", "Order", "Allow", "Deny", "Satisfy", "AllowOverride", "AllowOverrideList",
	"ErrorLog", "ErrorLogFormat", "CustomLog", "LogLevel", "LogFormat", "TransferLog",
	"ServerAdmin", "ServerAlias", "ServerSignature", "ServerTokens", "AddDefaultCharset",
	"AddCharset", "AddLanguage", "LanguagePriority", "ForceLanguagePriority", "DefaultLanguage",
	"AddEncoding", "DefaultType", "IndexOptions", "IndexIgnore", "IndexOrderDefault",
	"IndexStyleSheet", "AddIcon", "AddIconByType", "AddIconByEncoding", "AddAlt", "AddAltByType",
	"AddAltByEncoding", "DefaultIcon", "ReadmeName", "HeaderName", "AddDescription", "Listen",
	"KeepAlive", "KeepAliveTimeout", "MaxKeepAliveRequests", "Timeout", "User", "Group",
	"PidFile", "Mutex", "HostnameLookups", "AccessFileName", "TraceEnable", "LoadModule",
	"LoadFile", "StartServers", "MinSpareThreads", "MaxSpareThreads", "ThreadLimit",
	"ThreadsPerChild", "MaxRequestWorkers", "MaxConnectionsPerChild", "MinSpareServers",
	"MaxSpareServers", "ServerLimit", "RequestReadTimeout", "DeflateCompressionLevel",
	"AddOutputFilterByType", "AddOutputFilter", "SetOutputFilter", "BrowserMatch",
	"BrowserMatchNoCase", "TypesConfig", "MIMEMagicFile", "ExtendedStatus", "Protocols",
	"EnableSendfile", "EnableMMAP", "UseCanonicalName", "DirectorySlash", "MultiviewsMatch",
	"ScriptSock", "CGIDScriptTimeout", "ProxyStatus", "ExpiresActive", "ExpiresByType",
	"ExpiresDefault", "FileETag", "LimitRequestBody", "ServerSignature", NULL,
};

static bool is_silent(const char *name)
{
	if (!strncasecmp(name, "SSL", 3))
		return true;
	for (size_t i = 0; silent[i]; i++)
		if (!strcasecmp(name, silent[i]))
			return true;
	return false;
}

static void skip(struct reader *r, const char *name, const char *file, int line)
{
	for (size_t i = 0; i < r->nskipped; i++) {
		if (!strcasecmp(r->skipped[i].name, name)) {
			r->skipped[i].count++;
			return;
		}
	}
	r->skipped = xrealloc(r->skipped, (r->nskipped + 1) * sizeof *r->skipped);
	const char *base = strrchr(file, '/');
	r->skipped[r->nskipped++] = (struct skipped){ xstrdup(name), xasprintf("%s:%d", base ? base + 1 : file, line), 1 };
}

static const char *defined(const struct reader *r, const char *name, size_t n)
{
	for (size_t i = 0; i < r->defines.n; i++) {
		const char *d = r->defines.items[i];
		if (!strncmp(d, name, n) && (d[n] == '\0' || d[n] == '='))
			return d[n] == '=' ? d + n + 1 : "";
	}
	return NULL;
}

/* line with each ${NAME} replaced by its Define or the environment's
 * value (left as written when neither has it). Fresh. */
static char *substitute(const struct reader *r, const char *line)
{
	struct buf b = BUF_INIT;
	for (const char *p = line; *p;) {
		const char *end;
		if (p[0] == '$' && p[1] == '{' && (end = strchr(p + 2, '}'))) {
			size_t n = (size_t)(end - p - 2);
			char *name = xstrndup(p + 2, n);
			const char *v = defined(r, name, n);
			if (!v)
				v = getenv(name);
			if (v)
				buf_adds(&b, v);
			else
				buf_add(&b, p, (size_t)(end + 1 - p));
			free(name);
			p = end + 1;
			continue;
		}
		buf_addc(&b, *p++);
	}
	return buf_detach(&b, NULL);
}

/* Split an argument line as Apache does: words, "quoted" or 'quoted'
 * with backslash escapes inside. */
static void split_args(struct strlist *out, const char *s)
{
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return;
		struct buf w = BUF_INIT;
		if (*s == '"' || *s == '\'') {
			char q = *s++;
			while (*s && *s != q) {
				if (*s == '\\' && s[1])
					s++;
				buf_addc(&w, *s++);
			}
			if (*s)
				s++;
		} else {
			while (*s && !isspace((unsigned char)*s))
				buf_addc(&w, *s++);
		}
		strlist_add_owned(out, buf_detach(&w, NULL));
	}
}

static bool parent_active(const struct reader *r)
{
	return !r->nsections || r->sections[r->nsections - 1].active;
}

/* Whether the section's condition holds: <IfModule>, <IfDefine>,
 * <IfVersion>, <IfFile>; every other section holds. */
static bool holds(const struct reader *r, const char *name, const struct strlist *args)
{
	const char *a = args->n ? args->items[0] : "";
	bool neg = *a == '!';
	if (!strcasecmp(name, "IfModule"))
		return !neg;
	if (!strcasecmp(name, "IfDefine"))
		return neg != (defined(r, a + neg, strlen(a + neg)) != NULL);
	if (!strcasecmp(name, "IfFile"))
		return neg != (access(a + neg, F_OK) == 0);
	if (!strcasecmp(name, "IfVersion")) {
		const char *op = args->n > 1 ? a : "=", *v = args->n > 1 ? args->items[1] : a;
		if (*op == '~' || *v == '/')
			return true; /* a regex: not worth the guess */
		int major = 0, minor = 0;
		sscanf(v, "%d.%d", &major, &minor);
		int cmp = 2 * 100 + 4 - (major * 100 + minor);
		if (!strcmp(op, ">="))
			return cmp >= 0;
		if (!strcmp(op, ">"))
			return cmp > 0;
		if (!strcmp(op, "<="))
			return cmp <= 0;
		if (!strcmp(op, "<"))
			return cmp < 0;
		return cmp == 0;
	}
	return true;
}

static int read_file(struct reader *r, const char *path, char *err);

/* Include and IncludeOptional: every file the glob names, in order; a
 * directory is every file in it. */
static int include(struct reader *r, const char *pattern, bool optional, const char *file, int line, char *err)
{
	char *full = pattern[0] == '/' ? xstrdup(pattern) : xasprintf("%s/%s", r->server_root, pattern);
	struct stat st;
	if (stat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
		char *all = xasprintf("%s/*", full);
		free(full);
		full = all;
	}
	glob_t g;
	int rc = glob(full, 0, NULL, &g);
	if (rc != 0) {
		globfree(&g);
		rc = optional || strpbrk(pattern, "*?[") ? 0
			: err_set(err, "%s:%d: Include '%s' matches no file", file, line, pattern);
		free(full);
		return rc;
	}
	for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
		if (stat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode))
			rc = read_file(r, g.gl_pathv[i], err);
	globfree(&g);
	free(full);
	return rc;
}

static bool php_handler(const char *h)
{
	return strcasestr(h, "x-httpd-php") && !strcasestr(h, "-source");
}

/* SetHandler "proxy:unix:/run/php/php8.2-fpm.sock|fcgi://localhost" or
 * "proxy:fcgi://127.0.0.1:9000": the FastCGI address as --fastcgi takes it. */
static char *fcgi_address(const char *h)
{
	if (!strncasecmp(h, "proxy:unix:", 11))
		return xstrndup(h + 6, strcspn(h + 6, "|"));
	if (!strncasecmp(h, "proxy:fcgi://", 13))
		return xstrndup(h + 13, strcspn(h + 13, "/"));
	return NULL;
}

static bool is_fcgi_proxy(const char *h)
{
	return !strncasecmp(h, "proxy:unix:", 11) || !strncasecmp(h, "proxy:fcgi://", 13);
}

/* Options in <Directory D>: whether they leave FollowSymLinks out. */
static bool drops_symlinks(const struct strlist *args)
{
	bool absolute = false, follow = false, minus = false;
	for (size_t i = 0; i < args->n; i++) {
		const char *o = args->items[i];
		bool rel = *o == '+' || *o == '-';
		const char *name = o + rel;
		bool is_follow = !strcasecmp(name, "FollowSymLinks") || !strcasecmp(name, "SymLinksIfOwnerMatch") ||
				 !strcasecmp(name, "All");
		if (!rel)
			absolute = true;
		if (is_follow && *o != '-')
			follow = true;
		if (is_follow && *o == '-')
			minus = true;
	}
	return minus || (absolute && !follow);
}

static void directive(struct reader *r, const char *name, const struct strlist *a, const char *file, int line)
{
	struct apache_conf *c = r->c;
	const char *dir = NULL;
	bool https_vhost = false;
	for (int i = 0; i < r->nsections; i++) {
		if (r->sections[i].directory)
			dir = r->sections[i].directory;
		https_vhost |= r->sections[i].https_vhost;
	}
	const char *a0 = a->n ? a->items[0] : "", *a1 = a->n > 1 ? a->items[1] : "";
	char *place = xasprintf("%s:%d", file, line);

	if (!strcasecmp(name, "Define")) {
		strlist_add_owned(&r->defines, a->n > 1 ? xasprintf("%s=%s", a0, a1) : xstrdup(a0));
	} else if (!strcasecmp(name, "ServerRoot")) {
		free(r->server_root);
		r->server_root = xstrdup(a0);
	} else if (!strcasecmp(name, "DocumentRoot") && a->n == 1) {
		if (!c->document_root)
			c->document_root = xstrdup(a0);
	} else if (!strcasecmp(name, "ServerName") && a->n == 1) {
		if (!c->server_name) {
			const char *h = a0;
			if (!strncasecmp(h, "https://", 8))
				c->https = true, h += 8;
			else if (!strncasecmp(h, "http://", 7))
				h += 7;
			c->server_name = xstrndup(h, strcspn(h, ":/"));
			if (https_vhost || strstr(h, ":443"))
				c->https = true;
		}
	} else if (!strcasecmp(name, "SSLEngine") && !strcasecmp(a0, "on")) {
		c->https = true;
	} else if ((!strcasecmp(name, "Alias") || !strcasecmp(name, "ScriptAlias")) && a->n == 2) {
		bool script = !strcasecmp(name, "ScriptAlias");
		strlist_add_owned(script ? &c->script_aliases : &c->path_aliases, xasprintf("%s=%s", a0, a1));
		c->aliases = xrealloc(c->aliases, (c->naliases + 1) * sizeof *c->aliases);
		c->aliases[c->naliases++] = (struct apache_alias){ xstrdup(a0), xstrdup(a1), xstrdup(place), script };
	} else if (!strcasecmp(name, "DirectoryIndex") && a->n && strcasecmp(a0, "disabled")) {
		if (!c->index) {
			struct buf b = BUF_INIT;
			for (size_t i = 0; i < a->n; i++)
				buf_addf(&b, "%s%s", i ? "," : "", a->items[i]);
			c->index = buf_detach(&b, NULL);
		}
	} else if (!strcasecmp(name, "FallbackResource") && a->n == 1 && strcasecmp(a0, "disabled")) {
		if (!c->front_controller)
			c->front_controller = xstrdup(a0);
	} else if (!strcasecmp(name, "SetEnv") && a->n >= 1) {
		strlist_add_owned(&c->env, xasprintf("%s=%s", a0, a1));
	} else if (!strcasecmp(name, "SetHandler") && a->n == 1 && (php_handler(a0) || is_fcgi_proxy(a0))) {
		char *fcgi = fcgi_address(a0);
		c->php = true;
		if (fcgi && !c->php_fastcgi)
			c->php_fastcgi = fcgi;
		else
			free(fcgi);
	} else if (!strcasecmp(name, "SetHandler") && a->n == 1 &&
		   (strcasestr(a0, "php-source") || !strcasecmp(a0, "cgi-script") || !strcasecmp(a0, "None"))) {
		/* PHP's source shown (never published anyway), CGI as it runs */
	} else if ((!strcasecmp(name, "AddHandler") || !strcasecmp(name, "AddType")) && a->n >= 2 &&
		   php_handler(a0)) {
		c->php = true;
	} else if (!strcasecmp(name, "AddHandler") && !strcasecmp(a0, "cgi-script") && a->n == 2 &&
		   !strcmp(a1, ".cgi")) {
		/* *.cgi runs as a program here too */
	} else if (!strcasecmp(name, "AddType")) {
		/* content types: the programs say theirs */
	} else if (!strcasecmp(name, "Action") && a->n >= 2 && php_handler(a0)) {
		c->php = true;
	} else if (!strcasecmp(name, "Options") && dir) {
		if (drops_symlinks(a))
			strlist_add(&c->no_symlinks, dir);
	} else if (!strcasecmp(name, "Options") || is_silent(name)) {
		/* nothing about files or programs */
	} else {
		skip(r, name, file, line);
	}
	free(place);
}

/* <Name args> opens a section, </Name> closes one. */
static int section(struct reader *r, const char *text, const char *file, int line, char *err)
{
	bool closing = text[1] == '/';
	const char *p = text + 1 + closing;
	size_t n = strcspn(p, " \t>");
	if (n == 0 || n >= sizeof r->sections[0].name)
		return err_set(err, "%s:%d: bad section '%.40s'", file, line, text);
	if (closing) {
		struct section *s = r->nsections ? &r->sections[r->nsections - 1] : NULL;
		if (!s || strncasecmp(s->name, p, n) || s->name[n])
			return err_set(err, "%s:%d: </%.*s> without <%.*s>", file, line, (int)n, p, (int)n, p);
		free(s->directory);
		r->nsections--;
		return 0;
	}
	if (r->nsections == MAX_SECTIONS)
		return err_set(err, "%s:%d: sections nested over %d deep", file, line, MAX_SECTIONS);
	const char *rest = p + n;
	const char *gt = strrchr(rest, '>');
	char *argtext = xstrndup(rest, gt ? (size_t)(gt - rest) : strlen(rest));
	struct strlist args = STRLIST_INIT;
	split_args(&args, argtext);
	free(argtext);
	struct section *s = &r->sections[r->nsections];
	memset(s, 0, sizeof *s);
	memcpy(s->name, p, n);
	s->line = line;
	s->active = parent_active(r) && holds(r, s->name, &args);
	if (!strcasecmp(s->name, "Directory") && args.n == 1) {
		size_t len = strlen(args.items[0]);
		while (len > 1 && args.items[0][len - 1] == '/')
			len--;
		s->directory = xstrndup(args.items[0], len);
	}
	for (size_t i = 0; i < args.n && !strcasecmp(s->name, "VirtualHost"); i++) {
		size_t len = strlen(args.items[i]);
		s->https_vhost |= len > 4 && !strcmp(args.items[i] + len - 4, ":443");
	}
	r->nsections++;
	strlist_clear(&args);
	return 0;
}

/* One logical line (continuations joined), trimmed. */
static int line_of(struct reader *r, const char *text, const char *file, int line, char *err)
{
	if (!*text || *text == '#')
		return 0;
	char *sub = substitute(r, text);
	int rc = 0;
	if (*sub == '<') {
		rc = section(r, sub, file, line, err);
	} else if (parent_active(r)) {
		size_t n = strcspn(sub, " \t");
		char *name = xstrndup(sub, n);
		struct strlist args = STRLIST_INIT;
		split_args(&args, sub + n);
		if (!strcasecmp(name, "Include") || !strcasecmp(name, "IncludeOptional")) {
			for (size_t i = 0; i < args.n && rc == 0; i++)
				rc = include(r, args.items[i], !strcasecmp(name, "IncludeOptional"), file, line, err);
		} else {
			directive(r, name, &args, file, line);
		}
		strlist_clear(&args);
		free(name);
	}
	free(sub);
	return rc;
}

static int read_file(struct reader *r, const char *path, char *err)
{
	if (r->depth >= MAX_INCLUDE_DEPTH)
		return err_set(err, "%s: included over %d deep (a loop?)", path, MAX_INCLUDE_DEPTH);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(err, "cannot read Apache configuration '%s'", path);
	struct buf text = BUF_INIT, logical = BUF_INIT;
	int rc = buf_read_fd(&text, fd, MAX_FILE);
	close(fd);
	if (rc < 0) {
		buf_release(&text);
		return err_set(err, "cannot read Apache configuration '%s': over %d bytes or unreadable", path,
			       MAX_FILE);
	}
	r->depth++;
	int open_at = r->nsections, line = 0, first = 0;
	const char *p = buf_str(&text);
	while (*p && rc == 0) {
		size_t n = strcspn(p, "\n");
		line++;
		const char *s = p, *e = p + n;
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		if (!logical.len) {
			first = line;
			while (s < e && isspace((unsigned char)*s))
				s++;
		}
		bool more = e > s && e[-1] == '\\';
		buf_add(&logical, s, (size_t)(e - s - more));
		if (!more) {
			rc = line_of(r, buf_str(&logical), path, first, err);
			buf_reset(&logical);
		}
		p += n + (p[n] == '\n');
	}
	if (rc == 0 && logical.len)
		rc = line_of(r, buf_str(&logical), path, first, err);
	if (rc == 0 && r->nsections > open_at)
		rc = err_set(err, "%s:%d: <%s> is not closed", path, r->sections[r->nsections - 1].line,
			     r->sections[r->nsections - 1].name);
	while (r->nsections > open_at)
		free(r->sections[--r->nsections].directory);
	r->depth--;
	buf_release(&text);
	buf_release(&logical);
	return rc;
}

/* ServerRoot when the file names none: the directory holding
 * apache2.conf beside the file or one up (Debian's conf-available/x.conf),
 * else the file's own directory. */
static char *default_server_root(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? (slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path))) : xstrdup(".");
	char *probe = xasprintf("%s/apache2.conf", dir);
	bool here = access(probe, F_OK) == 0;
	free(probe);
	if (here)
		return dir;
	const char *up = strrchr(dir, '/');
	if (up && up != dir) {
		char *parent = xstrndup(dir, (size_t)(up - dir));
		probe = xasprintf("%s/apache2.conf", parent);
		bool there = access(probe, F_OK) == 0;
		free(probe);
		if (there) {
			free(dir);
			return parent;
		}
		free(parent);
	}
	return dir;
}

int apache_conf_read(const char *path, struct apache_conf *c, char *err)
{
	struct reader r;
	memset(c, 0, sizeof *c);
	memset(&r, 0, sizeof r);
	r.c = c;
	r.server_root = default_server_root(path);
	int rc = read_file(&r, path, err);
	for (size_t i = 0; i < r.nskipped; i++) {
		struct skipped *s = &r.skipped[i];
		if (s->count > 1)
			strlist_add_owned(&c->ignored, xasprintf("%s (%s, %ld times)", s->name, s->where, s->count));
		else
			strlist_add_owned(&c->ignored, xasprintf("%s (%s)", s->name, s->where));
		free(s->name);
		free(s->where);
	}
	free(r.skipped);
	strlist_clear(&r.defines);
	free(r.server_root);
	if (rc < 0)
		apache_conf_release(c);
	return rc;
}

void apache_conf_release(struct apache_conf *c)
{
	free(c->document_root);
	free(c->server_name);
	strlist_clear(&c->path_aliases);
	strlist_clear(&c->script_aliases);
	for (size_t i = 0; i < c->naliases; i++) {
		free(c->aliases[i].prefix);
		free(c->aliases[i].path);
		free(c->aliases[i].place);
	}
	free(c->aliases);
	free(c->index);
	free(c->front_controller);
	strlist_clear(&c->env);
	free(c->php_fastcgi);
	strlist_clear(&c->no_symlinks);
	strlist_clear(&c->ignored);
	memset(c, 0, sizeof *c);
}

/* Whether two URL prefixes are one mount: "/icons/" and "/icons". */
static bool same_prefix(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	while (na > 1 && a[na - 1] == '/')
		na--;
	while (nb > 1 && b[nb - 1] == '/')
		nb--;
	return na == nb && !strncmp(a, b, na);
}

/* The hint from one configuration file, or NULL. */
static char *hint_in(const char *path, const char *url)
{
	struct apache_conf c;
	char err[ERR_LEN];
	if (apache_conf_read(path, &c, err) < 0)
		return NULL;
	char *hint = NULL;
	for (size_t i = 0; i < c.naliases && !hint; i++) {
		const struct apache_alias *a = &c.aliases[i];
		if (!same_prefix(a->prefix, url))
			continue;
		size_t n = strlen(a->prefix);
		while (n > 1 && a->prefix[n - 1] == '/')
			n--;
		hint = xasprintf("Apache's configuration mounts it, '%s %s %s' (%s): give --%s-alias %.*s=%s",
				 a->script ? "ScriptAlias" : "Alias", a->prefix, a->path, a->place,
				 a->script ? "script" : "path", (int)n, a->prefix, a->path);
	}
	apache_conf_release(&c);
	return hint;
}

char *apache_alias_hint(const char *dir, const char *url)
{
	char *top = xasprintf("%s/apache2.conf", dir);
	char *hint = access(top, R_OK) == 0 ? hint_in(top, url) : NULL;
	free(top);
	const char *const subdirs[] = { "conf-available", "mods-available", "sites-available" };
	for (size_t d = 0; d < 3 && !hint; d++) {
		char *pattern = xasprintf("%s/%s/*.conf", dir, subdirs[d]);
		glob_t g;
		if (glob(pattern, 0, NULL, &g) == 0)
			for (size_t i = 0; i < g.gl_pathc && !hint; i++)
				hint = hint_in(g.gl_pathv[i], url);
		globfree(&g);
		free(pattern);
	}
	return hint;
}
