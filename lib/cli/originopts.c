/* originopts.c - the origin's command-line options (originopts.h). */
#include "cli/originopts.h"
#include "cli/apacheconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/shcmd.h"
#include "url/url.h"
#include "origin/workers.h"
#include "base/xalloc.h"

#define STR_(x) #x
#define STR(x) STR_(x)

struct origin_config origin_options;
static struct runas origin_runas = RUNAS_INIT;
char *origin_site_url_command;
char *origin_apache_conf;

const struct opt origin_opts[] = {
	{ "root", 0, OPT_STR, &origin_options.root, "DIR",
	  "document root: its scripts run without a web server (or via --fastcgi)", 0, 0 },
	{ "cgi", 0, OPT_LIST, &origin_options.cgi, "EXT=PROGRAM",
	  "run *.EXT files through PROGRAM, e.g. php=php-cgi (repeatable)", 0, 0 },
	{ "cgi-spawn", 0, OPT_LIST, &origin_options.cgi_spawn, "EXT=COMMAND",
	  "run *.EXT on a pool of --jobs FastCGI workers COMMAND starts (sh -c 'exec COMMAND'): a"
	  " listening socket as fd 0, its path in $FCGI_SOCKET or for {socket}, e.g."
	  " php='php-cgi -b {socket}' (repeatable)", 0, 0 },
	{ "cgi-mode", 0, OPT_STR, &origin_options.cgi_mode, "MODE",
	  "workers (default): php-cgi as persistent FastCGI workers, one per job, opcache on (traced"
	  " per request under watch); fork: a process per render, as *.cgi always gets", 0, 0 },
	{ "cgi-max-requests", 0, OPT_INT, &origin_options.cgi_max_requests, "N",
	  "restart a worker (php-cgi, --cgi-spawn) after N requests (default " STR(WORKERS_MAX_REQUESTS) ")", 1,
	  100000000 },
	{ "static-ext", 0, OPT_LIST, &origin_options.static_exts, "EXT",
	  "publish *.EXT as it is, though it looks like a script ('': no extension)", 0, 0 },
	{ "index", 0, OPT_STR, &origin_options.index, "NAMES",
	  "directory index files (default " ORIGIN_INDEX ")", 0, 0 },
	{ "front-controller", 0, OPT_STR, &origin_options.front_controller, "PATH",
	  "script answering URLs that match no file, e.g. /index.php", 0, 0 },
	{ "script-alias", 0, OPT_LIST, &origin_options.script_aliases, "/PREFIX=PROGRAM",
	  "run PROGRAM for /PREFIX and all under it, the rest as PATH_INFO; a directory: each file in it "
	  "is a program (repeatable; without --root the document root is empty)", 0, 0 },
	{ "path-alias", 0, OPT_LIST, &origin_options.path_aliases, "/PREFIX=DIR",
	  "serve /PREFIX from DIR, files and scripts, as under --root (repeatable)", 0, 0 },
	{ "no-follow-symlinks", 0, OPT_BOOL, &origin_options.no_follow_symlinks, NULL,
	  "refuse symbolic links under --root or a --path-alias DIR that lead out of it", 0, 0 },
	{ "env", 0, OPT_LIST, &origin_options.env, "NAME=VALUE",
	  "add to the CGI environment (repeatable); programs run with Apache's PATH "
	  "(/usr/local/sbin:...:/bin), not yours, unless --env PATH= says", 0, 0 },
	{ "user", 0, OPT_STR, &origin_options.user, "USER[:GROUP]",
	  "started as root, run the site's programs and commands as USER (default: the owner of --root"
	  " when not root, else " RUNAS_DEFAULT_USER "; --user root renders as root)", 0, 0 },
	{ "no-php-defaults", 0, OPT_BOOL, &origin_options.no_php_defaults, NULL,
	  "run php-cgi without cgisnap's opcache and session settings", 0, 0 },
	{ "fastcgi", 0, OPT_LIST, &origin_options.fastcgi, "ADDR",
	  "FastCGI server, unix:/path/sock or HOST:PORT (with --root); repeated, a pool: each page goes to"
	  " the server with the fewest under way, one that fails is skipped and its page tried on another",
	  0, 0 },
	{ "origin", 0, OPT_STR, &origin_options.origin_url, "URL",
	  "HTTP server to render through, e.g. http://127.0.0.1:8080/", 0, 0 },
	{ "wait", 0, OPT_STR, &origin_options.wait, "S",
	  "--origin: at least S seconds (fractional: 0.5) between the starts of two requests, over"
	  " all --jobs connections together (wget's --wait; default 0)", 0, 0 },
	{ "user-agent", 0, OPT_STR, &origin_options.user_agent, "STR",
	  "--origin: send User-Agent STR (default " ORIGIN_USER_AGENT ")", 0, 0 },
	{ "header", 0, OPT_LIST, &origin_options.headers, "'NAME: VALUE'",
	  "--origin: send this header with every request (repeatable; 'NAME:' removes one libcurl sends)",
	  0, 0 },
	{ "netrc", 0, OPT_STR, &origin_options.netrc, "FILE",
	  "--origin: basic auth from FILE, netrc lines 'machine HOST login USER password PW' (not"
	  " read by default, as curl)", 0, 0 },
	{ "apache-conf", 0, OPT_STR, &origin_apache_conf, "FILE",
	  "take --root, the mounts, PHP's handler, DirectoryIndex, SetEnv and ServerName from Apache's"
	  " configuration FILE (a vhost, a conf-available file); says what it does not honour", 0, 0 },
	{ "site-url", 0, OPT_STR, &origin_options.site_url, "URL",
	  "the site's public address (default: --site-url-command's, else --origin, else " ORIGIN_SITE_URL ")",
	  0, 0 },
	{ "site-url-command", 0, OPT_STR, &origin_site_url_command, "CMD",
	  "without --site-url, run CMD (sh -c, in --root) and take the line it prints as --site-url (profiles:"
	  " WordPress's home option)", 0, 0 },
	{ "alias", 0, OPT_LIST, &origin_options.aliases, "URL",
	  "another address of the same site (repeatable)", 0, 0 },
	{ "timeout", 0, OPT_INT, &origin_options.timeout_s, "S",
	  "seconds one render may take (default " STR(ORIGIN_TIMEOUT_S) ")", 1, 86400 },
	{ "max-output", 0, OPT_INT, &origin_options.max_output_mb, "MB",
	  "largest response accepted, in MiB (default " STR(ORIGIN_MAX_OUTPUT_MB) "; a crawl skips larger ones)",
	  1, 16384 },
	OPT_END
};

/* What a command printed, for a one-line message: at most 200 bytes, its
 * final newline dropped, each other control character (a newline too) as
 * '?'. The caller frees it. */
static char *printed_text(const struct buf *out)
{
	size_t len = out->len;
	if (len && out->data[len - 1] == '\n')
		len--;
	size_t n = len < 200 ? len : 200;
	char *t = xstrndup(out->data ? out->data : "", n);
	for (char *c = t; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	if (n < len) {
		char *longer = xasprintf("%s...", t);
		free(t);
		t = longer;
	}
	return t;
}

/* Whether list ("/PREFIX=..." values) mounts prefix already. */
static bool mounts_prefix(const struct strlist *list, const char *prefix, size_t n)
{
	for (size_t i = 0; i < list->n; i++) {
		const char *v = list->items[i];
		size_t m = strcspn(v, "=");
		while (m > 1 && v[m - 1] == '/')
			m--;
		if (m == n && !strncmp(v, prefix, n))
			return true;
	}
	return false;
}

/* Whether a --cgi or --cgi-spawn handler takes *.php. */
static bool php_handled(void)
{
	const struct strlist *lists[] = { &origin_options.cgi, &origin_options.cgi_spawn };
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			if (!strncmp(lists[l]->items[i], "php=", 4))
				return true;
	return false;
}

/* The Alias and ScriptAlias lines of c into the options, each unless the
 * command line mounts its prefix or its target is not there. */
static void take_aliases(const struct apache_conf *c, struct buf *took, struct strlist *not)
{
	for (int script = 0; script < 2; script++) {
		const struct strlist *from = script ? &c->script_aliases : &c->path_aliases;
		for (size_t i = 0; i < from->n; i++) {
			const char *v = from->items[i], *path = strchr(v, '=') + 1;
			const char *name = script ? "ScriptAlias" : "Alias";
			size_t n = (size_t)(path - 1 - v);
			while (n > 1 && v[n - 1] == '/')
				n--;
			struct stat st;
			if (mounts_prefix(&origin_options.path_aliases, v, n) ||
			    mounts_prefix(&origin_options.script_aliases, v, n))
				strlist_add_owned(not, xasprintf("%s %.*s (mounted by the options)", name, (int)n, v));
			else if (stat(path, &st) < 0)
				strlist_add_owned(not, xasprintf("%s %.*s (no such file or directory '%s')", name, (int)n,
								 v, path));
			else if (!script && !S_ISDIR(st.st_mode))
				strlist_add_owned(not, xasprintf("%s %.*s (a file: --path-alias mounts directories)", name,
								 (int)n, v));
			else {
				strlist_add_owned(script ? &origin_options.script_aliases : &origin_options.path_aliases,
						  xasprintf("%.*s=%s", (int)n, v, path));
				buf_addf(took, " --%s-alias %.*s=%s", script ? "script" : "path", (int)n, v, path);
			}
		}
	}
}

/* Options -FollowSymLinks on the document root or a mounted directory
 * is --no-follow-symlinks; on a directory under one, not honoured (the
 * option is the whole site's). */
static void take_symlinks(const struct apache_conf *c, struct buf *took, struct strlist *not)
{
	const char *first_under = NULL;
	size_t under = 0;
	for (size_t i = 0; i < c->no_symlinks.n; i++) {
		const char *d = c->no_symlinks.items[i];
		size_t n = strlen(d);
		bool top = origin_options.root && !strncmp(origin_options.root, d, n) &&
			   (!origin_options.root[n] || !strcmp(origin_options.root + n, "/"));
		for (size_t k = 0; k < origin_options.path_aliases.n && !top; k++) {
			const char *dir = strchr(origin_options.path_aliases.items[k], '=') + 1;
			top = !strncmp(dir, d, n) && (!dir[n] || !strcmp(dir + n, "/"));
		}
		if (top && !origin_options.no_follow_symlinks) {
			origin_options.no_follow_symlinks = true;
			buf_adds(took, " --no-follow-symlinks");
		} else if (!top && !under++) {
			first_under = d;
		}
	}
	if (under)
		strlist_add_owned(not, xasprintf("Options without FollowSymLinks in <Directory %s>%s (links are "
						 "followed or not for the whole site)", first_under,
						 under > 1 ? " and others" : ""));
}

int origin_opts_apache_conf(bool say, char *err)
{
	if (!origin_apache_conf)
		return 0;
	if (origin_options.origin_url)
		return err_set(err, "--apache-conf is for CGI and FastCGI origins: an --origin server has its own");
	struct apache_conf c;
	if (apache_conf_read(origin_apache_conf, &c, err) < 0)
		return APACHE_CONF_UNREADABLE;
	struct buf took = BUF_INIT;
	struct strlist not = STRLIST_INIT;
	if (c.document_root && !origin_options.root) {
		origin_options.root = xstrdup(c.document_root);
		buf_addf(&took, " --root %s", c.document_root);
	} else if (c.document_root && strcmp(c.document_root, origin_options.root)) {
		strlist_add_owned(&not, xasprintf("DocumentRoot %s (--root given)", c.document_root));
	}
	take_aliases(&c, &took, &not);
	if (c.index && !origin_options.index) {
		origin_options.index = xstrdup(c.index);
		buf_addf(&took, " --index %s", c.index);
	}
	if (c.front_controller && !origin_options.front_controller) {
		origin_options.front_controller = xstrdup(c.front_controller);
		buf_addf(&took, " --front-controller %s", c.front_controller);
	}
	/* The configuration's SetEnv first: the command line's --env wins. */
	struct strlist env = STRLIST_INIT;
	for (size_t i = 0; i < c.env.n; i++) {
		strlist_add(&env, c.env.items[i]);
		buf_addf(&took, " --env %s", c.env.items[i]);
	}
	for (size_t i = 0; i < origin_options.env.n; i++)
		strlist_add(&env, origin_options.env.items[i]);
	strlist_clear(&origin_options.env);
	origin_options.env = env;
	if (c.server_name && !origin_options.site_url && !origin_site_url_command) {
		origin_options.site_url = xasprintf("%s://%s/", c.https ? "https" : "http", c.server_name);
		buf_addf(&took, " --site-url %s", origin_options.site_url);
	}
	bool handler_given = origin_options.fastcgi.n || origin_options.cgi.n || origin_options.cgi_spawn.n;
	if (c.php_fastcgi && !handler_given) {
		strlist_add(&origin_options.fastcgi, c.php_fastcgi);
		buf_addf(&took, " --fastcgi %s", c.php_fastcgi);
	} else if (c.php && !php_handled() && !origin_options.fastcgi.n) {
		strlist_add(&origin_options.cgi, "php=php-cgi");
		buf_adds(&took, " --cgi php=php-cgi");
	}
	take_symlinks(&c, &took, &not);
	for (size_t i = 0; i < c.ignored.n; i++)
		strlist_add(&not, c.ignored.items[i]);
	if (say) {
		log_info("--apache-conf %s:%s", origin_apache_conf, took.len ? buf_str(&took) : " nothing taken");
		if (not.n) {
			struct buf b = BUF_INIT;
			for (size_t i = 0; i < not.n; i++)
				buf_addf(&b, "%s%s", i ? ", " : "", not.items[i]);
			log_info("--apache-conf %s: not honoured: %s", origin_apache_conf, buf_str(&b));
			buf_release(&b);
		}
	}
	buf_release(&took);
	strlist_clear(&not);
	apache_conf_release(&c);
	return 0;
}

/* The path whose owner renders by default: --root, else the first
 * mount's program or directory. */
static const char *site_files(void)
{
	if (origin_options.root)
		return origin_options.root;
	const struct strlist *mounts[] = { &origin_options.script_aliases, &origin_options.path_aliases };
	for (size_t i = 0; i < 2; i++)
		if (mounts[i]->n)
			return strchr(mounts[i]->items[0], '=') + 1;
	return NULL;
}

int origin_opts_user(bool say, char *err)
{
	origin_options.runas = NULL;
	/* Nothing to run (serve of a tree alone); an HTTP server renders as
	 * its own user: only --user says to run our commands
	 * (--seed-command, ...) as another. */
	const struct origin_config *o = &origin_options;
	bool any = o->root || o->script_aliases.n || o->path_aliases.n || o->cgi.n || o->cgi_spawn.n || o->fastcgi.n ||
		   o->origin_url || origin_site_url_command;
	bool ours = !o->origin_url || o->user || getenv(RUNAS_ENV);
	if (!any || !ours)
		return 0;
	if (runas_resolve(&origin_runas, origin_options.user, site_files(), err) < 0)
		return -1;
	origin_options.runas = &origin_runas;
	if (say && origin_runas.active && strcmp(origin_runas.why, "--user") && strcmp(origin_runas.why, RUNAS_ENV))
		log_info("running the site as %s, not root: %s (--user USER to choose)", runas_text(&origin_runas),
			 origin_runas.why);
	return 0;
}

void origin_opts_user_release(void)
{
	origin_options.runas = NULL;
	runas_release(&origin_runas);
}

int origin_opts_site_url(char *err)
{
	const char *cmd = origin_site_url_command, *dir = origin_options.root;
	struct buf out = BUF_INIT;
	char *printed = NULL, *line = NULL;
	int status, rc = -1;
	bool too_long;
	if (origin_options.site_url || !cmd)
		return 0;
	if (shcmd_output("--site-url-command", cmd, dir, origin_options.runas, SITE_URL_COMMAND_MAX, &out, &status,
			 &too_long, err) < 0)
		return -1;
	printed = printed_text(&out);
	/* First: cut short, the command dies of SIGPIPE. */
	if (too_long) {
		err_set(err, "--site-url-command '%s' printed more than %d bytes, not one site URL ('%s')", cmd,
			SITE_URL_COMMAND_MAX, printed);
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (WIFEXITED(status))
			err_set(err, "--site-url-command '%s' exited %d (it printed '%s')", cmd, WEXITSTATUS(status),
				printed);
		else
			err_set(err, "--site-url-command '%s' was killed by signal %d (it printed '%s')", cmd,
				WTERMSIG(status), printed);
		goto out;
	}
	/* One line: its newline (or CRLF) optional, nothing after it. */
	size_t n = out.len;
	if (n && out.data[n - 1] == '\n')
		n--;
	if (n && out.data[n - 1] == '\r')
		n--;
	if (!n || memchr(out.data, '\n', n) || memchr(out.data, '\0', n)) {
		err_set(err, "--site-url-command '%s' printed '%s', not one line with the site URL", cmd, printed);
		goto out;
	}
	line = xstrndup(out.data, n);
	/* Checked as site_init checks --site-url. */
	const char *why;
	char *norm = url_normalize_why(line, &why);
	if (!norm) {
		err_set(err, "--site-url-command '%s' printed '%s', not a site URL: %s", cmd, printed, why);
		goto out;
	}
	origin_options.site_url = norm;
	rc = 1;
out:
	free(line);
	free(printed);
	buf_release(&out);
	return rc;
}
