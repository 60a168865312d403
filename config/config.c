/* config/config.c - 'cgisnap config nginx|apache DIR': print a server
 * configuration that serves a snapshot tree the way 'cgisnap serve' does.
 * The parts are mapped in config.h. */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "base/log.h"
#include "base/opts.h"
#include "tree/publish.h"
#include "base/xalloc.h"

#ifndef CGISNAP_VERSION
#define CGISNAP_VERSION "unknown"
#endif

static char *listen_spec, *server_name, *root_path, *cache_control, *output, *origin_fallback;

static const struct opt config_opts[] = {
	{ "listen", 'l', OPT_STR, &listen_spec, "ADDR:PORT",
	  "address the server listens on (default " CONFIG_DEFAULT_LISTEN
	  ", as cgisnap serve; *:80 for every address)", 0, 0 },
	{ "server-name", 0, OPT_STR, &server_name, "NAME",
	  "the server's name (default: the host of the tree's site URL)", 0, 0 },
	{ "root-path", 0, OPT_STR, &root_path, "PATH",
	  "where the tree will be on the server (default: the real path of DIR)", 0, 0 },
	{ "cache-control", 0, OPT_STR, &cache_control, "VALUE",
	  "Cache-Control of files and permanent redirects, 'off' for none (default \"" CONFIG_DEFAULT_CACHE_CONTROL
	  "\", as cgisnap serve)", 0, 0 },
	{ "origin-fallback", 0, OPT_STR, &origin_fallback, "URL",
	  "pass what the tree lacks (a 404 of the rules: searches, pages the crawl skipped) to the live "
	  "application at URL (http://HOST:PORT), as cgisnap serve --fallback does", 0, 0 },
	{ "output", 'o', OPT_STR, &output, "FILE",
	  "write the configuration to FILE (replaced whole) instead of standard output; Apache's "
	  "map files go beside it (FILE less .conf, plus .redirects.map and .query.map)", 0, 0 },
	OPT_END
};

static void print_help(const struct opt *const *tables)
{
	printf("usage: cgisnap config nginx [OPTIONS] DIR\n"
	       "       cgisnap config apache [OPTIONS] DIR\n\n"
	       "Print a configuration for plain nginx or Apache that serves the snapshot\n"
	       "tree DIR as 'cgisnap serve DIR' does: the same URLs find the same files\n"
	       "(query-string pages included), recorded redirects and 404/410 statuses are\n"
	       "replayed, recorded content types that a file's name does not imply are sent,\n"
	       "FILE.gz goes to clients that accept gzip, the tree's 404 page answers misses,\n"
	       "and nothing under .cgisnap/ nor any dotfile is ever served: a URL with a\n"
	       "segment starting with '.' (/.well-known/x) is answered only as the\n"
	       "manifest records it (its file is %%2Ewell-known/x). The tree's query policy\n"
	       "(--ignore-param, --sort-query) is applied: /?fbclid=x answers as /, and\n"
	       "/?b=2&a=1 as /?a=1&b=2.\n\n"
	       "Options:\n");
	opts_print_help(stdout, tables);
	opts_print_common(stdout, tables, OPTS_CONFIG_FILE);
	printf("\nOutput:\n"
	       "  nginx: map blocks and one server block, to be included at http level:\n"
	       "    -o /etc/nginx/sites-available/NAME, then\n"
	       "    ln -s ../sites-available/NAME /etc/nginx/sites-enabled/ (Debian's way);\n"
	       "    no module beyond the default build (gzip_static is in Debian's nginx).\n"
	       "  apache: Listen and one <VirtualHost>: -o /etc/apache2/sites-available/NAME.conf,\n"
	       "    then a2ensite NAME; needs mod_rewrite and mod_headers (a2enmod rewrite\n"
	       "    headers), Apache 2.4.60 or later. With --output its recorded redirects\n"
	       "    and the orders of its queries (--sort-query) are RewriteMap files beside\n"
	       "    it, NAME.redirects.map and NAME.query.map, named by their absolute path:\n"
	       "    write it where Apache will read it (or move all three together and\n"
	       "    regenerate). On standard output, each redirect is a rule of its own.\n"
	       "  --origin-fallback: nginx passes misses to an upstream (proxy_pass);\n"
	       "    Apache to mod_proxy_http by the rewrite flag [P] (a2enmod proxy_http).\n"
	       "    Recorded 404/410 statuses, hostile targets and dotfile names are still\n"
	       "    answered by the tree alone, as cgisnap serve --fallback does.\n"
	       "  Comments in the output say what each part does.\n"
	       "\nWhen to regenerate:\n"
	       "  New and changed pages are found by the configuration's rules without\n"
	       "  regenerating. Redirects, recorded 404/410 statuses and content types are\n"
	       "  listed per URL: regenerate (and reload the server) when a snapshot or\n"
	       "  watch changes them.\n"
	       "\nLimits (cgisnap serve has none of them):\n"
	       "  A request's query is not normalised (%%5F is not read as '_'). Of the\n"
	       "  query policy, at most %d empty or ignored parameters are dropped from one\n"
	       "  request, and --sort-query finds only the queries the tree holds (of at\n"
	       "  most %d parameters) in another order, for Apache only with --output:\n"
	       "  a page added later is found by its sorted query alone until the\n"
	       "  configuration is regenerated; URLs nginx matches as they arrive (an\n"
	       "  encoded '/', twins alike but for case) see the query as sent. A .gz is\n"
	       "  sent without checking that it has its page's modification time. A URL\n"
	       "  with an encoded '/' (/x%%2Fy, the file x%%2Fy/index.html) is answered only\n"
	       "  as the manifest lists it, not found by the rules (Apache needs\n"
	       "  AllowEncodedSlashes NoDecode for it, which the VirtualHost says).\n"
	       "  The tree's --canonical rules are matched on the raw request target; a\n"
	       "  regex that PCRE reads otherwise than POSIX (GNU's \\w or \\<, back-references,\n"
	       "  {,n}, [[.x.]]) is refused with exit 2.\n",
	       CONFIG_QUERY_DROPS, CONFIG_SORT_MAX_PARAMS);
}

/* The host of an origin ("http://[::1]:8080" -> "[::1]"). Fresh string. */
static char *origin_host(const char *origin)
{
	const char *h = strstr(origin, "://");
	h = h ? h + 3 : origin;
	size_t n = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":/");
	return xstrndup(h, n);
}

/* Parse "ADDR:PORT", "[V6]:PORT", "*:PORT", ":PORT" or "PORT". */
static int parse_listen(struct config_params *p, const char *spec, char *err)
{
	const char *colon = spec[0] == '[' ? strstr(spec, "]:") : strrchr(spec, ':');
	const char *port = spec;
	if (colon) {
		colon += spec[0] == '[';
		port = colon + 1;
		p->host = colon == spec ? xstrdup("*") : xstrndup(spec, (size_t)(colon - spec));
	} else {
		p->host = xstrdup("*");
	}
	for (const char *c = p->host; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr(".-:[]*", *c))
			return err_set(err, "invalid listen address '%s'", spec);
	if (!*p->host || parse_long(port, 1, 65535, &p->port) < 0)
		return err_set(err, "invalid listen address '%s' (expected ADDR:PORT)", spec);
	return 0;
}

int config_params_init(struct config_params *p, const struct treeinfo *ti, const char *listen,
		       const char *name, const char *cc, char *err)
{
	memset(p, 0, sizeof *p);
	p->version = CGISNAP_VERSION;
	if (parse_listen(p, listen ? listen : CONFIG_DEFAULT_LISTEN, err) < 0)
		return -1;
	p->server_name = name ? xstrdup(name) : origin_host(ti->site.origin);
	if (config_unquotable(p->server_name) || strpbrk(p->server_name, " \t\"';{}"))
		return err_set(err, "invalid server name '%s'", p->server_name);
	for (size_t i = 0; i < ti->site.aliases.n; i++) {
		char *h = origin_host(ti->site.aliases.items[i]);
		if (strcmp(h, p->server_name) && !strlist_contains(&p->aliases, h))
			strlist_add_owned(&p->aliases, h);
		else
			free(h);
	}
	if (!cc)
		p->cache_control = CONFIG_DEFAULT_CACHE_CONTROL;
	else if (*cc && strcmp(cc, "off"))
		p->cache_control = cc;
	/* Not quoted back: a CR or LF in it would split the message. */
	if (p->cache_control && config_unquotable(p->cache_control))
		return err_set(err, "invalid --cache-control: a header value cannot contain CR, LF or "
			       "other control characters");
	if (p->cache_control && strpbrk(p->cache_control, "\"\\"))
		return err_set(err, "invalid --cache-control '%s'", p->cache_control);
	/* nginx variable names: letters, digits and '_'. */
	p->id = xasprintf("%s_%ld", p->server_name, p->port);
	for (char *c = p->id; *c; c++)
		if (!isalnum((unsigned char)*c))
			*c = '_';
	return 0;
}

int config_params_fallback(struct config_params *p, const char *url, char *err)
{
	const char *h = strncmp(url, "http://", 7) ? NULL : url + 7;
	size_t n = h ? strcspn(h, "/") : 0;
	if (!h || !n || (h[n] && strcmp(h + n, "/")))
		return err_set(err, "invalid --origin-fallback '%s' (expected http://HOST:PORT, no path)", url);
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)h[i]) && !strchr(".-:[]", h[i]))
			return err_set(err, "invalid --origin-fallback '%s': bad host", url);
	const char *colon = h[0] == '[' ? strstr(h, "]:") : memchr(h, ':', n);
	colon = colon && h[0] == '[' ? colon + 1 : colon;
	long port = 80;
	if (colon && colon < h + n) {
		char *ps = xstrndup(colon + 1, (size_t)(h + n - colon - 1));
		int rc = parse_long(ps, 1, 65535, &port);
		free(ps);
		if (rc < 0)
			return err_set(err, "invalid --origin-fallback '%s': bad port", url);
	}
	size_t hn = colon && colon < h + n ? (size_t)(colon - h) : n;
	if (!hn)
		return err_set(err, "invalid --origin-fallback '%s': no host", url);
	p->fallback = xasprintf("%.*s:%ld", (int)hn, h, port);
	return 0;
}

void config_params_release(struct config_params *p)
{
	free(p->host);
	free(p->server_name);
	strlist_clear(&p->aliases);
	free(p->id);
	free(p->map_prefix);
	free(p->fallback);
	memset(p, 0, sizeof *p);
}

/* Warnings about what the configuration cannot do for this tree. */
static void warn_limits(const struct treeinfo *ti, const char *kind, const struct config_params *p)
{
	if (ti->site.sort_query && !strcmp(kind, "apache") && !p->map_prefix)
		log_warn("--sort-query needs a map file beside the Apache configuration: give --output FILE, "
			 "or only queries in sorted order find their pages");
	if (ti->skipped)
		log_warn("left out %zu manifest %s that no request reaches (cgisnap serve refuses "
			 "such targets too)",
			 ti->skipped, ti->skipped == 1 ? "entry" : "entries");
	if (!ti->have_404)
		log_warn("the tree has no .cgisnap/404.html: the server's own 404 page will be used");
}

/* For --output FILE: open FILE's directory (dirfd), FILE's name in it,
 * and for Apache the prefix of its map files (absolute: Apache reads
 * them by it). -1 with err. */
static int split_output(struct config_params *p, const char *file, const char *kind, int *dirfd,
			char **name, char *err)
{
	const char *slash = strrchr(file, '/');
	char *dir = slash ? xstrndup(file, slash == file ? 1 : (size_t)(slash - file)) : xstrdup(".");
	*name = xstrdup(slash ? slash + 1 : file);
	char *real = realpath(dir, NULL);
	int rc = -1;
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, "..")) {
		err_set(err, "invalid --output '%s': not a file name", file);
		goto out;
	}
	if (!real || (*dirfd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		err_sys(err, "cannot open the directory of --output '%s'", file);
		goto out;
	}
	if (!strcmp(kind, "apache")) {
		size_t n = strlen(*name);
		n -= n > 5 && !strcmp(*name + n - 5, ".conf") ? 5 : 0;
		p->map_prefix = xasprintf("%s%s%.*s", real, strcmp(real, "/") ? "/" : "", (int)n, *name);
		if (config_unquotable(p->map_prefix) || strpbrk(p->map_prefix, "\"\\ $%"))
			err_set(err, "cannot name the map files of --output '%s' in a configuration (the "
				"path '%s' holds a space, a quote, '$' or '%%')", file, p->map_prefix);
		else
			rc = 0;
		goto out;
	}
	rc = 0;
out:
	free(real);
	free(dir);
	return rc;
}

/* Write the configuration to standard output. -1 with err. */
static int write_stdout(const struct buf *out, char *err)
{
	if (fwrite(out->data, 1, out->len, stdout) != out->len || fflush(stdout) != 0)
		return err_set(err, "cannot write the configuration to standard output");
	return 0;
}

/* Write the map files that have lines, then the configuration that names
 * them, each whole (temp + rename): a server reloaded at any time reads a
 * configuration whose maps are there. -1 with err. */
static int write_outputs(int dirfd, const char *name, const struct buf *out, const struct config_maps *maps,
			 char *err)
{
	size_t n = strlen(name);
	n -= n > 5 && !strcmp(name + n - 5, ".conf") ? 5 : 0;
	const struct buf *files[] = { &maps->redirects, &maps->query };
	const char *suffix[] = { ".redirects.map", ".query.map" };
	for (size_t i = 0; i < 2; i++) {
		if (!files[i]->len)
			continue;
		char *map = xasprintf("%.*s%s", (int)n, name, suffix[i]);
		int rc = write_file_atomic(dirfd, map, files[i]->data, files[i]->len, err);
		free(map);
		if (rc < 0)
			return -1;
	}
	return write_file_atomic(dirfd, name, out->data, out->len, err);
}

int cmd_config(int argc, char **argv)
{
	const struct opt *const tables[] = { config_opts, NULL };
	struct strlist args = STRLIST_INIT;
	struct treeinfo ti;
	struct config_params p;
	struct buf out = BUF_INIT;
	struct config_maps maps = { BUF_INIT, BUF_INIT };
	char err[ERR_LEN], *name = NULL;
	int dirfd = -1;
	bool have_ti = false, have_params = false;
	int rc = opts_parse(tables, argc, argv, OPTS_CONFIG_FILE, &args, err);

	memset(&p, 0, sizeof p);
	rc = cli_parsed("config", rc, err, print_help, tables);
	if (rc != CLI_GO_ON)
		goto out;
	if (args.n < 1) {
		rc = usage_error("config", "expected a server kind: nginx or apache");
		goto out;
	}
	const char *kind = args.items[0];
	if (strcmp(kind, "nginx") && strcmp(kind, "apache")) {
		snprintf(err, sizeof err, "unknown server kind '%s' (expected nginx or apache)", kind);
		rc = usage_error("config", err);
		goto out;
	}
	if (args.n != 2) {
		rc = usage_error("config", args.n < 2 ? "no tree directory given" : "expected one tree directory");
		goto out;
	}

	rc = EXIT_USAGE;
	have_ti = true;
	if (treeinfo_load(&ti, args.items[1], root_path, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	if (config_check_canonical(&ti.site, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	have_params = true;
	if (config_params_init(&p, &ti, listen_spec, server_name, cache_control, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	if (origin_fallback && config_params_fallback(&p, origin_fallback, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	if (output && split_output(&p, output, kind, &dirfd, &name, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	warn_limits(&ti, kind, &p);
	if (!strcmp(kind, "nginx"))
		nginx_write(&out, &ti, &p);
	else
		apache_write(&out, &maps, &ti, &p);
	rc = output ? write_outputs(dirfd, name, &out, &maps, err) : write_stdout(&out, err);
	if (rc < 0) {
		log_error("%s", err);
		rc = EXIT_PARTIAL;
		goto out;
	}
	rc = 0;
out:
	if (dirfd >= 0)
		close(dirfd);
	free(name);
	buf_release(&maps.redirects);
	buf_release(&maps.query);
	buf_release(&out);
	if (have_params)
		config_params_release(&p);
	if (have_ti)
		treeinfo_release(&ti);
	strlist_clear(&args);
	opts_release(tables);
	return rc;
}
