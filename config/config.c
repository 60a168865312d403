/* config/config.c - 'cgisnap config nginx|apache DIR': print a server
 * configuration that serves a snapshot tree the way 'cgisnap serve' does.
 * The parts are mapped in config.h. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "opts.h"
#include "xalloc.h"

#ifndef CGISNAP_VERSION
#define CGISNAP_VERSION "unknown"
#endif

static char *listen_spec, *server_name, *root_path, *cache_control;

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
	       "manifest records it (its file is %%2Ewell-known/x).\n\n"
	       "Options:\n");
	opts_print_help(stdout, tables);
	printf("\nOutput:\n"
	       "  nginx: map blocks and one server block, to be included at http level\n"
	       "    (e.g. as /etc/nginx/sites-enabled/NAME); no module beyond the default\n"
	       "    build (gzip_static is in Debian's nginx).\n"
	       "  apache: Listen and one <VirtualHost>; needs mod_rewrite and mod_headers\n"
	       "    (a2enmod rewrite headers), Apache 2.4.60 or later.\n"
	       "  Comments in the output say what each part does.\n"
	       "\nWhen to regenerate:\n"
	       "  New and changed pages are found by the configuration's rules without\n"
	       "  regenerating. Redirects, recorded 404/410 statuses and content types are\n"
	       "  listed per URL: regenerate (and reload the server) when a snapshot or\n"
	       "  watch changes them.\n"
	       "\nLimits (cgisnap serve has none of them):\n"
	       "  Requests must arrive in canonical form: the tree's --ignore-param and\n"
	       "  --sort-query policy is not applied, nor is a query normalised. A .gz is\n"
	       "  sent without checking that it has its page's modification time. A URL\n"
	       "  with an encoded '/' (/x%%2Fy, the file x%%2Fy/index.html) is answered only\n"
	       "  as the manifest lists it, not found by the rules (Apache needs\n"
	       "  AllowEncodedSlashes NoDecode for it, which the VirtualHost says).\n"
	       "  The tree's --canonical rules are matched on the raw request target; a\n"
	       "  regex that PCRE reads otherwise than POSIX (GNU's \\w or \\<, back-references,\n"
	       "  {,n}, [[.x.]]) is refused with exit 2.\n");
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

void config_params_release(struct config_params *p)
{
	free(p->host);
	free(p->server_name);
	strlist_clear(&p->aliases);
	free(p->id);
	memset(p, 0, sizeof *p);
}

/* Warnings about what the configuration cannot do for this tree. */
static void warn_limits(const struct treeinfo *ti)
{
	if (ti->site.ignore_params.n || ti->site.sort_query)
		log_warn("the tree's query policy (ignore-param, sort-query) is not applied by a "
			 "plain server: only canonical queries find their pages");
	if (ti->skipped)
		log_warn("left out %zu manifest %s that no request reaches (cgisnap serve refuses "
			 "such targets too)",
			 ti->skipped, ti->skipped == 1 ? "entry" : "entries");
	if (!ti->have_404)
		log_warn("the tree has no .cgisnap/404.html: the server's own 404 page will be used");
}

int cmd_config(int argc, char **argv)
{
	const struct opt *const tables[] = { config_opts, NULL };
	struct strlist args = STRLIST_INIT;
	struct treeinfo ti;
	struct config_params p;
	struct buf out = BUF_INIT;
	char err[ERR_LEN];
	bool have_ti = false, have_params = false;
	int rc = opts_parse(tables, argc, argv, 0, &args, err);

	memset(&p, 0, sizeof p);
	if (rc == OPTS_HELP) {
		print_help(tables);
		rc = 0;
		goto out;
	}
	if (rc == OPTS_ERROR) {
		rc = usage_error("config", err);
		goto out;
	}
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
	warn_limits(&ti);
	if (!strcmp(kind, "nginx"))
		nginx_write(&out, &ti, &p);
	else
		apache_write(&out, &ti, &p);
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		log_error("cannot write the configuration to standard output");
		rc = EXIT_PARTIAL;
		goto out;
	}
	rc = 0;
out:
	buf_release(&out);
	if (have_params)
		config_params_release(&p);
	if (have_ti)
		treeinfo_release(&ti);
	strlist_clear(&args);
	opts_release(tables);
	return rc;
}
