/* open.c - opening an origin (origin.h's origin_open) and closing it:
 * the set-up checks of the options, the handlers and the pools of
 * workers they start. Rendering is origin.c's. */
#include "origin/origin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/log.h"
#include "base/rmtree.h"
#include "base/xalloc.h"
#include "origin/docroot.h"
#include "origin/origin_impl.h"
#include "origin/workers.h"
#include "trace/elfinfo.h"
#include "trace/protocol.h"
#include "trace/tracer.h"
#include "url/url.h"

/* The site's host, port and scheme from its origin, "scheme://host[:port]". */
static void set_site(struct origin *o, const struct site *site)
{
	const char *origin = site && site->origin ? site->origin : "http://localhost";
	const char *sep = strstr(origin, "://");
	const char *authority = sep ? sep + 3 : origin;
	size_t alen = strcspn(authority, "/?#");
	/* The port is after the last ':' unless that is inside an IPv6 "[...]". */
	const char *close = memchr(authority, ']', alen);
	const char *colon = NULL;
	for (const char *p = close ? close : authority; p < authority + alen; p++)
		if (*p == ':')
			colon = p;

	o->https = sep && (size_t)(sep - origin) == 5 && !strncasecmp(origin, "https", 5);
	o->site_origin = xstrndup(origin, (size_t)(authority + alen - origin));
	o->http_host = xstrndup(authority, alen);
	if (colon) {
		o->server_name = xstrndup(authority, (size_t)(colon - authority));
		o->server_port = xstrndup(colon + 1, (size_t)(authority + alen - colon - 1));
	} else {
		o->server_name = xstrdup(o->http_host);
		o->server_port = xstrdup(o->https ? "443" : "80");
	}
}

/* Find prog on PATH when it has no '/'; the fresh path, or NULL. */
static char *find_program(const char *prog)
{
	if (strchr(prog, '/'))
		return xstrdup(prog);
	const char *path = getenv("PATH");
	struct strlist dirs = STRLIST_INIT;
	char *found = NULL;
	strlist_split(&dirs, path ? path : "/usr/local/bin:/usr/bin:/bin", ':');
	for (size_t i = 0; i < dirs.n && !found; i++) {
		char *candidate = xasprintf("%s/%s", dirs.items[i], prog);
		if (access(candidate, X_OK) == 0)
			found = candidate;
		else
			free(candidate);
	}
	strlist_clear(&dirs);
	return found;
}

/* php-cgi and its versioned names ("php-cgi8.2", "php8.2-cgi"). */
static bool is_php_cgi(const char *prog)
{
	const char *base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	return !strncmp(base, "php", 3) && strstr(base, "cgi");
}

static int add_handler(struct origin *o, const char *spec, char *err)
{
	const char *eq = strchr(spec, '=');
	const char *ext = spec;
	if (*ext == '.')
		ext++;
	if (!eq || eq == ext || !eq[1] || memchr(ext, '/', (size_t)(eq - ext)) ||
	    memchr(ext, '.', (size_t)(eq - ext)))
		return err_set(err, "bad --cgi value '%s' (expected EXT=PROGRAM)", spec);

	char *prog = find_program(eq + 1);
	struct stat st;
	if (!prog)
		return err_set(err, "CGI handler '%s' is not on PATH", eq + 1);
	if (stat(prog, &st) < 0 || !S_ISREG(st.st_mode) || access(prog, X_OK) < 0) {
		err_set(err, "CGI handler '%s' is not executable", prog);
		free(prog);
		return -1;
	}
	o->handlers = xrealloc(o->handlers, (o->nhandlers + 1) * sizeof *o->handlers);
	struct origin_handler *h = &o->handlers[o->nhandlers++];
	h->ext = xstrndup(ext, (size_t)(eq - ext));
	h->prog = prog;
	h->php = is_php_cgi(eq + 1);
	h->workers = NULL;
	h->command = NULL;
	return 0;
}

/* --cgi-spawn EXT=COMMAND. The program (COMMAND's first word, when it is
 * a plain one) must be there now: a typo is one line at the start, not a
 * failure per page. */
static int add_spawn_handler(struct origin *o, const char *spec, char *err)
{
	const char *eq = strchr(spec, '=');
	const char *ext = spec;
	if (*ext == '.')
		ext++;
	size_t extlen = eq ? (size_t)(eq - ext) : 0;
	const char *cmd = eq ? eq + 1 : "";
	cmd += strspn(cmd, " \t");
	if (!eq || !extlen || !*cmd || memchr(ext, '/', extlen) || memchr(ext, '.', extlen))
		return err_set(err, "bad --cgi-spawn value '%s' (expected EXT=COMMAND)", spec);
	for (size_t i = 0; i < o->nhandlers; i++)
		if (strlen(o->handlers[i].ext) == extlen && !strncmp(o->handlers[i].ext, ext, extlen))
			return err_set(err, "bad --cgi-spawn value '%s': *.%s has a handler already", spec,
				       o->handlers[i].ext);
	size_t wlen = strcspn(cmd, " \t");
	char *word = xstrndup(cmd, wlen);
	bool plain = !strpbrk(word, "=$`'\"\\;&|<>(){}*?[~#");
	char *prog = plain ? find_program(word) : NULL;
	struct stat st;
	if (plain && (!prog || stat(prog, &st) < 0 || !S_ISREG(st.st_mode) || access(prog, X_OK) < 0)) {
		err_set(err, "--cgi-spawn program '%s' is not %s", word, prog ? "executable" : "on PATH");
		free(word);
		free(prog);
		return -1;
	}
	free(word);
	free(prog);
	o->handlers = xrealloc(o->handlers, (o->nhandlers + 1) * sizeof *o->handlers);
	struct origin_handler *h = &o->handlers[o->nhandlers++];
	h->ext = xstrndup(ext, extlen);
	h->prog = NULL;
	h->php = false;
	h->workers = NULL;
	h->command = xstrdup(cmd);
	return 0;
}

static int add_env(struct origin *o, const char *spec, char *err)
{
	const char *eq = strchr(spec, '=');
	bool ok = eq && eq != spec;
	for (const char *p = spec; ok && p < eq; p++)
		ok = *p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		     (p > spec && *p >= '0' && *p <= '9');
	if (!ok)
		return err_set(err, "bad --env value '%s' (expected NAME=VALUE)", spec);
	/* The tracer's own variables (trace/protocol.h) are cgisnap's to set:
	 * a program told the wrong ones would go silently untraced. */
	if (!strncmp(spec, "CGISNAP_TRACE_", 14))
		return err_set(err, "bad --env value '%.*s': CGISNAP_TRACE_* are the dependency tracer's own",
			       (int)(eq - spec), spec);
	strlist_add(&o->user_env, spec);
	return 0;
}

/* --static-ext: "sh", ".sh" or "" (files without an extension). */
static int add_static_ext(struct origin *o, const char *spec, char *err)
{
	const char *ext = *spec == '.' ? spec + 1 : spec;
	if (strchr(ext, '.') || strchr(ext, '/') || (*spec == '.' && !*ext))
		return err_set(err, "bad --static-ext value '%s' (expected an extension, e.g. sh)", spec);
	strlist_add(&o->static_exts, ext);
	return 0;
}

/* "index.html, index.php": the names without the spaces around them. */
static void add_index_names(struct origin *o, const char *names)
{
	struct strlist raw = STRLIST_INIT;
	strlist_split(&raw, names, ',');
	for (size_t i = 0; i < raw.n; i++) {
		const char *s = raw.items[i];
		size_t n = strlen(s);
		while (*s == ' ' || *s == '\t')
			s++, n--;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (n)
			strlist_add_owned(&o->index_names, xstrndup(s, n));
	}
	strlist_clear(&raw);
}

/* Document root, handlers, index names, front controller, environment. */
static int open_root(struct origin *o, const struct origin_config *cfg, char *err)
{
	struct stat st;
	/* Mounts alone imply an empty document root (o->root NULL): a
	 * program that is the whole site needs no directory beside it. */
	if (cfg->root &&
	    (stat(cfg->root, &st) < 0 || !S_ISDIR(st.st_mode) || !(o->root = realpath(cfg->root, NULL))))
		return err_set(err, "document root '%s' is not a directory", cfg->root);
	o->follow_symlinks = !cfg->no_follow_symlinks;
	if (o->kind == ORIGIN_FASTCGI) {
		o->handlers = xcalloc(1, sizeof *o->handlers);
		o->handlers[0].ext = xstrdup("php");
		o->nhandlers = 1;
	}
	for (size_t i = 0; i < cfg->cgi.n; i++)
		if (add_handler(o, cfg->cgi.items[i], err) < 0)
			return -1;
	for (size_t i = 0; i < cfg->cgi_spawn.n; i++)
		if (add_spawn_handler(o, cfg->cgi_spawn.items[i], err) < 0)
			return -1;
	for (size_t i = 0; i < cfg->env.n; i++)
		if (add_env(o, cfg->env.items[i], err) < 0)
			return -1;
	/* After the handlers: a program's extension may have one. */
	for (size_t i = 0; i < cfg->script_aliases.n; i++)
		if (docroot_add_mount(o, cfg->script_aliases.items[i], true, err) < 0)
			return -1;
	for (size_t i = 0; i < cfg->path_aliases.n; i++)
		if (docroot_add_mount(o, cfg->path_aliases.items[i], false, err) < 0)
			return -1;
	for (size_t i = 0; i < cfg->static_exts.n; i++)
		if (add_static_ext(o, cfg->static_exts.items[i], err) < 0)
			return -1;
	add_index_names(o, cfg->index ? cfg->index : ORIGIN_INDEX);
	/* A program gets the PATH Apache gives it, not the caller's: a
	 * user's own python3 first on PATH (pyenv, a virtualenv) breaks a
	 * stock "#!/usr/bin/env python3" CGI script. --env PATH= wins. */
	o->path_env = xstrdup(ORIGIN_CGI_PATH);
	for (size_t i = 0; i < o->user_env.n; i++)
		if (!strncmp(o->user_env.items[i], "PATH=", 5)) {
			free(o->path_env);
			o->path_env = xstrdup(o->user_env.items[i] + 5);
		}

	if (cfg->front_controller) {
		struct resolved r;
		o->front_controller = xstrdup(cfg->front_controller);
		if (cfg->front_controller[0] == '/')
			docroot_resolve(o, o->front_controller, strlen(o->front_controller), NULL, &r);
		else
			memset(&r, 0, sizeof r), r.kind = RESOLVE_REFUSED;
		bool ok = r.kind == RESOLVE_SCRIPT || r.kind == RESOLVE_STATIC;
		if (r.kind == RESOLVE_SOURCE) {
			char *what = xasprintf("front controller '%s'", cfg->front_controller);
			docroot_source_error(o, what, r.path, err);
			free(what);
			docroot_release(&r);
			return -1;
		}
		docroot_release(&r);
		if (!ok)
			return err_set(err, "front controller '%s' is not a file under '%s'",
				       cfg->front_controller, o->root ? o->root : "the mounts");
	}
	return 0;
}

/* Run as another user, the programs need the site's files and the
 * tracer: said once here rather than as a failure of every page. */
static int check_runas(const struct origin *o, char *err)
{
	if (!o->runas || !o->runas->active)
		return 0;
	if (o->root && !runas_can(o->runas, o->root, R_OK | X_OK))
		return err_set(err, "--root '%s' is not open to %s, who runs the site: give it the site's files or"
				    " choose --user", o->root, runas_text(o->runas));
	for (size_t i = 0; i < o->nmounts; i++)
		if (!runas_can(o->runas, o->mounts[i].path,
			       o->mounts[i].dir || !o->mounts[i].script ? R_OK | X_OK : R_OK))
			return err_set(err, "'%s' is not open to %s, who runs the site: give it the site's files or"
					    " choose --user", o->mounts[i].path, runas_text(o->runas));
	if (o->trace_lib && !runas_can(o->runas, o->trace_lib, R_OK))
		return err_set(err, "the tracer '%s' is not readable by %s, who runs the site: install cgisnap"
				    " (make install), or --no-trace", o->trace_lib, runas_text(o->runas));
	return 0;
}

/* php-cgi started once per page: sessions go to a directory of our own. */
static int open_php(struct origin *o, const struct origin_config *cfg, char *err)
{
	bool php = false;
	for (size_t i = 0; i < o->nhandlers; i++)
		php |= o->handlers[i].php;
	o->php_defaults = !cfg->no_php_defaults;
	if (!php || !o->php_defaults)
		return 0;
	const char *tmp = getenv("TMPDIR");
	const char *base = tmp && *tmp ? tmp : "/tmp";
	size_t len = strlen(base);
	/* Without TMPDIR's trailing '/': the programs report the paths
	 * under it by this name, which the recorder skips as it is
	 * (origin_private_dirs). */
	while (len > 1 && base[len - 1] == '/')
		len--;
	char *dir = xasprintf("%.*s/cgisnap-php-XXXXXX", (int)len, base);
	if (!mkdtemp(dir)) {
		err_sys(err, "cannot create a session directory '%s'", dir);
		free(dir);
		return -1;
	}
	o->php_session_dir = dir;
	return runas_give(o->runas, dir, err); /* its sessions are written as the site's user */
}

/* COMMAND for /bin/sh -c: "exec COMMAND", so that the worker is the
 * program itself (dash would fork it, and the program would outlive a
 * killed cgisnap: PR_SET_PDEATHSIG is the shell's), each unquoted
 * {socket} replaced by "$FCGI_SOCKET" (the shell quotes the path). *binds
 * says whether there was one. */
static char *spawn_script(const char *command, bool *binds)
{
	static const char word[] = "{socket}";
	struct buf b = BUF_INIT;
	buf_adds(&b, "exec ");
	*binds = false;
	for (const char *p = command; *p;) {
		const char *hit = strstr(p, word);
		if (!hit) {
			buf_adds(&b, p);
			break;
		}
		buf_add(&b, p, (size_t)(hit - p));
		buf_adds(&b, "\"$FCGI_SOCKET\"");
		*binds = true;
		p = hit + sizeof word - 1;
	}
	return buf_detach(&b, NULL);
}

/* A pool of workers for each --cgi-spawn command. */
static int open_spawned(struct origin *o, const struct origin_config *cfg, size_t n, char *err)
{
	struct strlist args = STRLIST_INIT, env = STRLIST_INIT;
	int rc = 0;
	/* As for php-cgi through --cgi: php-cgi spelled as a command must
	 * not fork children of its own nor stop by itself; others ignore
	 * these. */
	strlist_add_owned(&env, xasprintf("PATH=%s", o->path_env));
	strlist_add(&env, "PHP_FCGI_CHILDREN=0");
	strlist_add(&env, "PHP_FCGI_MAX_REQUESTS=0");
	for (size_t i = 0; i < o->user_env.n; i++)
		strlist_add(&env, o->user_env.items[i]);
	for (size_t i = 0; i < o->nhandlers && rc == 0; i++) {
		if (!o->handlers[i].command)
			continue;
		bool binds;
		strlist_clear(&args);
		strlist_add(&args, "-c");
		strlist_add_owned(&args, spawn_script(o->handlers[i].command, &binds));
		struct workers_config wc = { "/bin/sh", &args, &env, o->root, n, cfg->cgi_max_requests,
					     false, binds, o->runas, false };
		if (!(o->handlers[i].workers = workers_open(&wc, err)))
			rc = -1;
	}
	strlist_clear(&args);
	strlist_clear(&env);
	return rc;
}

/* Whether the tracer can empty PHP's realpath cache in every php-cgi
 * the workers run (protocol.h's TRACE_PHP_REALPATHS_ENV): each exports
 * the function. A wrapper script does not, whatever it runs. */
static bool php_forgets_realpaths(const struct origin *o)
{
	for (size_t i = 0; i < o->nhandlers; i++)
		if (o->handlers[i].php && !elf_exports(o->handlers[i].prog, "realpath_cache_clean"))
			return false;
	return true;
}

/* A pool of workers for each php-cgi handler (origin.h says when) and
 * each --cgi-spawn command. */
static int open_workers(struct origin *o, const struct origin_config *cfg, char *err)
{
	if (cfg->cgi_mode && strcmp(cfg->cgi_mode, "fork") && strcmp(cfg->cgi_mode, "workers"))
		return err_set(err, "bad --cgi-mode '%s' (expected fork or workers)", cfg->cgi_mode);
	size_t n = (size_t)(cfg->jobs > 0 ? cfg->jobs : cpus_usable());
	if (open_spawned(o, cfg, n, err) < 0)
		return -1;
	if (cfg->cgi_mode && !strcmp(cfg->cgi_mode, "fork"))
		return 0;
	struct strlist args = STRLIST_INIT, env = STRLIST_INIT;
	const char *user_preload = NULL;
	int rc = 0;
	if (o->php_defaults)
		workers_php_args(&args, o->php_session_dir, !cfg->passed_on);
	/* Traced, every request must make the calls a process of its own
	 * would: opcache still stats each script it keeps (revalidate_freq
	 * 0, above), but PHP's realpath cache would skip the lookups of
	 * paths resolved by an earlier request, opcache would skip even
	 * resolving an include's path (revalidate_path), and .user.ini
	 * files would be read once per 300 s (user_ini.cache_ttl: -1, as 0
	 * still keeps them for the rest of the second). The tracer empties
	 * the realpath cache between requests where php-cgi lets it (a
	 * request then looks each directory up once, not once per include:
	 * a DokuWiki snapshot's stats fall to a third); elsewhere it is off. */
	bool forget = o->trace_lib && php_forgets_realpaths(o);
	if (o->trace_lib) {
		static const char *const fresh[] = { "opcache.revalidate_path=1", "user_ini.cache_ttl=-1" };
		for (size_t i = 0; i < sizeof fresh / sizeof fresh[0]; i++) {
			strlist_add(&args, "-d");
			strlist_add(&args, fresh[i]);
		}
		if (!forget) {
			strlist_add(&args, "-d");
			strlist_add(&args, "realpath_cache_size=0");
		}
	}
	/* php-cgi itself (not a wrapper) forks the workers as its children,
	 * which share its start-up and opcache (workers.h); the tracer,
	 * preloaded also untraced, tells them apart. Elsewhere each worker
	 * is one process (PHP_FCGI_CHILDREN=0). Either way cgisnap recycles
	 * them itself (PHP_FCGI_MAX_REQUESTS=0: no limit of php-cgi's). */
	char *slots_lib = NULL;
	if (n <= TRACE_SLOTS_MAX && php_forgets_realpaths(o)) {
		char why[ERR_LEN];
		slots_lib = o->trace_lib ? xstrdup(o->trace_lib) : tracer_locate(why);
		if (slots_lib && !o->trace_lib && !runas_can(o->runas, slots_lib, R_OK)) {
			free(slots_lib);
			slots_lib = NULL;
		}
	}
	strlist_add_owned(&env, xasprintf("PATH=%s", o->path_env));
	strlist_add_owned(&env, xasprintf("PHP_FCGI_CHILDREN=%zu", slots_lib ? n : 0));
	strlist_add(&env, "PHP_FCGI_MAX_REQUESTS=0");
	const char *preload = slots_lib ? slots_lib : o->trace_lib;
	for (size_t i = 0; i < o->user_env.n; i++) {
		if (preload && !strncmp(o->user_env.items[i], "LD_PRELOAD=", 11))
			user_preload = o->user_env.items[i] + 11;
		else
			strlist_add(&env, o->user_env.items[i]);
	}
	if (forget)
		strlist_add(&env, TRACE_PHP_REALPATHS_ENV "=1");
	/* The tracer first, then whatever the user preloads too (cgi.c's
	 * order). */
	if (preload)
		strlist_add_owned(&env, user_preload && *user_preload
						? xasprintf("LD_PRELOAD=%s %s", preload, user_preload)
						: xasprintf("LD_PRELOAD=%s", preload));
	struct workers_config wc = { NULL, &args, &env, o->root, n, cfg->cgi_max_requests,
				     o->trace_lib != NULL, false, o->runas, slots_lib != NULL };
	for (size_t i = 0; i < o->nhandlers && rc == 0; i++) {
		if (!o->handlers[i].php)
			continue;
		wc.prog = o->handlers[i].prog;
		if (!(o->handlers[i].workers = workers_open(&wc, err)))
			rc = -1;
	}
	free(slots_lib);
	strlist_clear(&args);
	strlist_clear(&env);
	return rc;
}

/* An RFC 9110 token character (a header's name). */
static bool is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The politeness options (HTTP only): --wait as seconds into p, --user-agent,
 * each --header a "Name: value" line that cannot smuggle another (no CR,
 * LF or NUL; libcurl would send them as they are), --netrc readable now
 * rather than silently unused at the first page. */
static int check_polite(const struct origin_config *cfg, enum origin_kind kind,
			struct http_polite *p, char *err)
{
	const char *given = cfg->wait ? "--wait" : cfg->user_agent ? "--user-agent" :
			    cfg->headers.n ? "--header" : cfg->netrc ? "--netrc" : NULL;
	if (given && kind != ORIGIN_HTTP)
		return err_set(err, "%s is for an HTTP origin (--origin URL)", given);
	if (cfg->wait) {
		char *end;
		errno = 0;
		double w = strtod(cfg->wait, &end);
		/* "inf", "nan" and "1e999" are numbers to strtod, not to us. */
		if (end == cfg->wait || *end || errno || !(w >= 0 && w <= ORIGIN_WAIT_MAX_S))
			return err_set(err, "bad --wait '%s': not a number of seconds from 0 to %d",
				       cfg->wait, ORIGIN_WAIT_MAX_S);
		p->wait_s = w;
	}
	if (cfg->user_agent) {
		if (strpbrk(cfg->user_agent, "\r\n"))
			return err_set(err, "bad --user-agent: it holds a line break");
		p->user_agent = cfg->user_agent;
	}
	for (size_t i = 0; i < cfg->headers.n; i++) {
		const char *h = cfg->headers.items[i], *c = h;
		while (is_tchar((unsigned char)*c))
			c++;
		if (strpbrk(h, "\r\n"))
			return err_set(err, "bad --header '%.*s...': it holds a line break",
				       (int)strcspn(h, "\r\n"), h);
		if (c == h || *c != ':')
			return err_set(err, "bad --header '%s': expected 'Name: value'", h);
		for (c++; *c; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t')
				return err_set(err, "bad --header '%s': control character in the value", h);
	}
	if (cfg->netrc) {
		int fd = open(cfg->netrc, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return err_sys(err, "cannot read --netrc file '%s'", cfg->netrc);
		close(fd);
	}
	return 0;
}

struct origin *origin_open(const struct origin_config *cfg, const struct site *site, char *err)
{
	bool cgi = cfg->cgi.n || cfg->cgi_spawn.n, fastcgi = cfg->fastcgi.n, http = cfg->origin_url;
	bool mounts = cfg->script_aliases.n || cfg->path_aliases.n;
	struct origin *o;

	/* --root or a mount alone is the CGI origin; FastCGI needs one too;
	 * HTTP has none. */
	if (cgi + fastcgi + http > 1 || (http && cfg->root)) {
		err_set(err, "choose one origin: --root/--cgi (CGI), --fastcgi (FastCGI) or --origin (HTTP)");
		return NULL;
	}
	/* Mounts are the CGI environment's business: an HTTP server has its own. */
	if (http && mounts) {
		err_set(err, "%s is for CGI and FastCGI origins: with --origin, mount on the HTTP server",
			cfg->script_aliases.n ? "--script-alias" : "--path-alias");
		return NULL;
	}
	if (!origin_config_has_docroot(cfg) && !http) {
		if (cgi || fastcgi)
			err_set(err, "%s needs --root DIR (where the scripts are) or a --script-alias",
				fastcgi ? "--fastcgi" : "--cgi");
		else
			err_set(err, "no origin given: use --root DIR (CGI), --script-alias /PREFIX=PROGRAM, "
				     "--fastcgi ADDR or --origin URL");
		return NULL;
	}

	o = xcalloc(1, sizeof *o);
	o->kind = cfg->origin_url ? ORIGIN_HTTP : cfg->fastcgi.n ? ORIGIN_FASTCGI : ORIGIN_CGI;
	o->timeout_s = cfg->timeout_s > 0 ? cfg->timeout_s : ORIGIN_TIMEOUT_S;
	o->max_output_mb = cfg->max_output_mb > 0 ? cfg->max_output_mb : ORIGIN_MAX_OUTPUT_MB;
	o->max_output = (size_t)o->max_output_mb << 20;
	o->memory_max = cfg->memory_max > 0 ? cfg->memory_max : ORIGIN_MEMORY_MAX;
	o->spill_dirfd = -1;
	set_site(o, site);

	struct http_polite polite = { 0, ORIGIN_USER_AGENT, &cfg->headers, cfg->netrc };
	if (check_polite(cfg, o->kind, &polite, err) < 0)
		goto fail;
	if (o->kind == ORIGIN_HTTP) {
		const char *why = "not an http or https URL";
		char *url = url_normalize_why(cfg->origin_url, &why);
		char *base = url ? url_origin(url) : NULL;
		free(url);
		if (!base) {
			err_set(err, "bad --origin URL '%s': %s", cfg->origin_url, why);
			goto fail;
		}
		o->http = http_origin_open(base, o->site_origin, cfg->jobs, o->timeout_s, o->max_output,
					   o->memory_max, &polite, err);
		o->server_addr = base;
		if (!o->http)
			goto fail;
		return o;
	}

	if (open_root(o, cfg, err) < 0)
		goto fail;
	if (o->kind == ORIGIN_FASTCGI) {
		struct buf addrs = BUF_INIT;
		for (size_t i = 0; i < cfg->fastcgi.n; i++)
			buf_addf(&addrs, "%s%s", i ? " " : "", cfg->fastcgi.items[i]);
		o->server_addr = buf_detach(&addrs, NULL);
		if (!(o->fcgi = upstream_open(&cfg->fastcgi, err)))
			goto fail;
		return o;
	}
	if (cfg->trace_lib)
		o->trace_lib = xstrdup(cfg->trace_lib);
	o->runas = cfg->runas;
	if (check_runas(o, err) < 0 || open_php(o, cfg, err) < 0 || open_workers(o, cfg, err) < 0)
		goto fail;
	return o;
fail:
	origin_close(o);
	return NULL;
}

void origin_close(struct origin *o)
{
	if (!o)
		return;
	if (o->http)
		http_origin_close(o->http);
	if (o->fcgi)
		upstream_close(o->fcgi);
	for (size_t i = 0; i < o->nhandlers; i++)
		workers_close(o->handlers[i].workers);
	if (o->php_session_dir)
		rmtree(o->php_session_dir);
	for (size_t i = 0; i < o->nhandlers; i++) {
		free(o->handlers[i].ext);
		free(o->handlers[i].prog);
		free(o->handlers[i].command);
	}
	free(o->handlers);
	free(o->root);
	strlist_clear(&o->index_names);
	strlist_clear(&o->static_exts);
	free(o->front_controller);
	for (size_t i = 0; i < o->nmounts; i++)
		mount_release(&o->mounts[i]);
	free(o->mounts);
	free(o->keep_out);
	strlist_clear(&o->user_env);
	free(o->path_env);
	free(o->php_session_dir);
	free(o->trace_lib);
	free(o->server_addr);
	free(o->site_origin);
	free(o->http_host);
	free(o->server_name);
	free(o->server_port);
	free(o);
}
