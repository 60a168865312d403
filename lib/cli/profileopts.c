/* profileopts.c - a crawl's site profile on the command line, and
 * 'cgisnap profiles' (profileopts.h). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/crawlopts.h"
#include "base/log.h"
#include "origin/mount.h"
#include "origin/origin.h"
#include "cli/originopts.h"
#include "cli/profile.h"
#include "cli/profileopts.h"
#include "base/xalloc.h"

#ifndef CGISNAP_PROFILEDIR
#define CGISNAP_PROFILEDIR "/usr/local/share/cgisnap/profiles"
#endif

static char *profile_name;
static bool list_profiles;
static struct profile used;
static bool have_used;
static char *used_generator;  /* detected by the first page's generator */

const struct opt profile_opts[] = {
	{ "profile", 0, OPT_STR, &profile_name, "NAME",
	  "apply site profile NAME (default: detected from --root, then the --path-alias directories, or the first page's generator; 'none': no profile)", 0, 0 },
	{ "list-profiles", 0, OPT_BOOL, &list_profiles, NULL,
	  "list the site profiles and what each sets (as 'cgisnap profiles')", 0, 0 },
	OPT_END
};

/* "a, b, c" of the profiles in dir, for messages; the caller frees it. */
static char *names_text(const char *dir)
{
	struct strlist names = STRLIST_INIT;
	char err[ERR_LEN];
	struct buf b = BUF_INIT;
	if (profile_names(dir, &names, err) < 0 || !names.n)
		buf_adds(&b, "none");
	for (size_t i = 0; i < names.n; i++)
		buf_addf(&b, "%s%s", i ? ", " : "", names.items[i]);
	strlist_clear(&names);
	return buf_detach(&b, NULL);
}

/* The option lines of a profile: what it sets. */
static void print_settings(FILE *out, const struct profile *p)
{
	const char *s = p->data.data, *end = s + p->data.len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *t = s;
		while (t < s + n && (*t == ' ' || *t == '\t'))
			t++;
		if (t < s + n && *t != '#' && *t != '\r')
			fprintf(out, "    %.*s\n", (int)(s + n - t), t);
		s += n + 1;
	}
}

int profile_opts_print_list(FILE *out)
{
	char *dir = profile_dir(CGISNAP_PROFILEDIR);
	struct strlist names = STRLIST_INIT;
	char err[ERR_LEN];
	int rc = 0;
	if (profile_names(dir, &names, err) < 0) {
		log_error("%s", err);
		rc = EXIT_USAGE;
		goto out;
	}
	fprintf(out, "Site profiles in '%s' (--profile NAME forces one, --profile none turns them off):\n",
		dir);
	for (size_t i = 0; i < names.n; i++) {
		struct profile p;
		if (profile_load(&p, dir, names.items[i], err) < 0) {
			log_error("%s", err);
			rc = EXIT_USAGE;
			continue;
		}
		fprintf(out, "\n%s: %s\n", p.name, p.description);
		for (size_t r = 0; r < p.rules.n; r++)
			fprintf(out, "  detect: %s\n", p.rules.items[r]);
		fprintf(out, "  sets:\n");
		print_settings(out, &p);
		profile_release(&p);
	}
out:
	strlist_clear(&names);
	free(dir);
	return rc;
}

static bool is_dir(const char *dir)
{
	struct stat st;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The content of html's <meta name="generator" content="...">, or NULL;
 * the caller frees it. */
static char *meta_generator(const char *html)
{
	regex_t tag, content;
	regmatch_t m[2];
	char *out = NULL;
	if (regcomp(&tag, "<meta[^>]*name=[\"']?generator[\"' ][^>]*>", REG_EXTENDED | REG_ICASE))
		return NULL;
	if (regcomp(&content, "content=\"([^\"]*)\"", REG_EXTENDED | REG_ICASE)) {
		regfree(&tag);
		return NULL;
	}
	if (!regexec(&tag, html, 1, m, 0)) {
		char *t = xstrndup(html + m[0].rm_so, (size_t)(m[0].rm_eo - m[0].rm_so));
		if (!regexec(&content, t, 2, m, 0))
			out = xstrndup(t + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
		free(t);
	}
	regfree(&tag);
	regfree(&content);
	return out;
}

/* Without --root: the first page's generator (the site URL's path, its
 * redirects followed on the site, 5 at most), or NULL when there is none.
 * An origin that cannot be opened or rendered gives none here: the crawl
 * then says what is wrong, as it would without profiles. */
static void first_generator(char **generator)
{
	char err[ERR_LEN];
	struct site site;
	struct origin *o = NULL;
	struct origin_response rs;
	char *target = NULL;
	/* The default site URL set here is not the user's: without it, a
	 * --site-url-command still runs after the parse. */
	bool site_url_given = origin_options.site_url != NULL;
	*generator = NULL;
	memset(&site, 0, sizeof site);
	origin_response_init(&rs);
	origin_defaults(&origin_options);
	if (site_init(&site, origin_options.site_url, err) < 0)
		goto out;
	o = origin_open(&origin_options, &site, err);
	if (!o)
		goto out;
	target = site_target(&site, site.url);
	for (int hops = 0; target && hops <= 5; hops++) {
		struct origin_request rq = { target, "GET", NULL };
		char why[ERR_LEN];
		origin_response_release(&rs);
		if (origin_render(o, &rq, &rs, why) < 0)
			break;
		if (rs.status >= 300 && rs.status < 400 && rs.location) {
			char *abs = url_resolve(site.url, rs.location);
			free(target);
			target = abs ? site_target(&site, abs) : NULL;
			free(abs);
			continue;
		}
		if (rs.status == 200 && origin_body_load(&rs, why) == 0) {
			buf_adds(&rs.body, "");
			*generator = meta_generator(rs.body.data);
		}
		break;
	}
out:
	free(target);
	origin_response_release(&rs);
	if (o)
		origin_close(o);
	site_release(&site);
	if (!site_url_given) {
		free(origin_options.site_url);
		origin_options.site_url = NULL;
	}
}

/* The first profile of dir whose generator rule matches, into used. */
static int detect_generator(const char *dir, char *err)
{
	struct strlist names = STRLIST_INIT;
	char *generator = NULL;
	int rc = 0;
	first_generator(&generator);
	if (!generator)
		goto out;
	if ((rc = profile_names(dir, &names, err)) < 0)
		goto out;
	for (size_t i = 0; i < names.n && !have_used; i++) {
		if (profile_load(&used, dir, names.items[i], err) < 0) {
			rc = -1;
			break;
		}
		if (profile_match_generator(&used, generator) == 1) {
			have_used = true;
			used_generator = generator;
			generator = NULL;
		} else {
			profile_release(&used);
		}
	}
out:
	free(generator);
	strlist_clear(&names);
	return rc;
}

/* Choose the profile (forced, detected, or none) into used. */
static int choose(char *err)
{
	char *dir = profile_dir(CGISNAP_PROFILEDIR);
	int rc = 0;
	if (profile_name && !strcmp(profile_name, "none"))
		goto out;
	if (profile_name) {
		char why[ERR_LEN];
		if (profile_load(&used, dir, profile_name, why) < 0) {
			char *names = names_text(dir);
			rc = err_set(err, "%s (profiles: %s)", why, names);
			free(names);
			goto out;
		}
		have_used = true;
		goto out;
	}
	/* Detection by the marker files under --root, then under each
	 * --path-alias directory; with neither, by the first page's
	 * generator. A missing profile directory is no error: an
	 * installation without profiles crawls as before. */
	if (!is_dir(dir))
		goto out;
	if (origin_options.root)
		rc = profile_detect_root(dir, origin_options.root, &used, err);
	/* Then the directories of the --path-alias mounts, as Debian's
	 * packages mount an application (Alias /dokuwiki /usr/share/dokuwiki). */
	for (size_t i = 0; rc == 0 && i < origin_options.path_aliases.n; i++) {
		struct mount m;
		char why[ERR_LEN];
		if (mount_parse(&m, origin_options.path_aliases.items[i], false, why) < 0)
			continue; /* said by the origin, once it opens */
		char *real = realpath(m.path, NULL); /* its commands run there */
		if (real && is_dir(real))
			rc = profile_detect_mount(dir, m.prefix, real, &used, err);
		free(real);
		mount_release(&m);
	}
	if (rc == 0 && !origin_options.root) {
		rc = detect_generator(dir, err);
		goto out;
	}
	if (rc > 0)
		have_used = true;
	rc = rc < 0 ? -1 : 0;
out:
	if (have_used)
		setenv("CGISNAP_PROFILE_DIR", dir, 1);
	free(dir);
	return rc;
}

int profile_opts_parse(const char *command, const struct opt *const *tables, int argc, char **argv,
		       struct strlist *args, char *err)
{
	struct opts_saved *defaults = opts_save(tables);
	struct buf lines = BUF_INIT;
	char *profile_command = NULL; /* the profile's --site-url-command */
	int rc = opts_parse(tables, argc, argv, OPTS_CONFIG_FILE, args, err);
	if (rc != OPTS_OK)
		goto out;
	/* Before the profile's choice: a DocumentRoot names the files it
	 * looks at. Said once, here; taken again after a profile's parse. */
	int conf = origin_opts_apache_conf(!crawl_options.quiet, err);
	if (conf < 0) {
		rc = conf == APACHE_CONF_UNREADABLE ? PROFILE_SETUP_FAILED : OPTS_ERROR;
		goto out;
	}
	if (list_profiles) {
		rc = profile_opts_print_list(stdout) ? OPTS_ERROR : PROFILE_LISTED;
		if (rc == OPTS_ERROR)
			err_set(err, "cannot list the profiles");
		goto out;
	}
	if (choose(err) < 0) {
		rc = OPTS_ERROR;
		goto out;
	}
	if (!have_used)
		goto site_url;
	/* Again, over the profile: the user's options have the last word. */
	opts_restore(tables, defaults);
	strlist_clear(args);
	profile_options_for(&used, command, &lines);
	if (opts_load_data(tables, used.path, lines.data, lines.len, err) < 0) {
		rc = OPTS_ERROR;
		goto out;
	}
	if (origin_site_url_command)
		profile_command = xstrdup(origin_site_url_command);
	rc = opts_parse(tables, argc, argv, OPTS_CONFIG_FILE, args, err);
	if (rc == OPTS_OK && (conf = origin_opts_apache_conf(false, err)) < 0)
		rc = conf == APACHE_CONF_UNREADABLE ? PROFILE_SETUP_FAILED : OPTS_ERROR;
	if (rc == OPTS_OK && !crawl_options.quiet) {
		if (used.found && used.base && *used.base)
			log_info("using profile %s (found %s under --path-alias %s=%s); --profile none to turn it off",
				 used.name, used.found, used.base, used.app_dir);
		else if (used.found)
			log_info("using profile %s (found %s); --profile none to turn it off", used.name,
				 used.found);
		else if (used_generator)
			log_info("using profile %s (generator '%s'); --profile none to turn it off", used.name,
				 used_generator);
		else
			log_info("using profile %s (--profile %s)", used.name, used.name);
	}
	if (rc != OPTS_OK)
		goto out;
site_url:
	if (origin_opts_user(!crawl_options.quiet, err) < 0) {
		rc = OPTS_ERROR;
		goto out;
	}
	/* A profile's command asks the application's files under --root;
	 * without them (a profile found by the generator of an --origin's
	 * page) the site stays --origin's, as before profiles. */
	bool theirs = profile_command && origin_site_url_command &&
		      !strcmp(profile_command, origin_site_url_command);
	if (theirs && !origin_options.root)
		goto out;
	int ran = origin_opts_site_url(err);
	if (ran < 0) {
		rc = OPTS_ERROR;
		goto out;
	}
	if (ran && !crawl_options.quiet)
		log_info("site URL %s (from %s--site-url-command); --site-url URL to give another",
			 origin_options.site_url, theirs ? "the profile's " : "");
out:
	free(profile_command);
	buf_release(&lines);
	free(defaults);
	return rc;
}

const char *profile_opts_used(void)
{
	return have_used ? used.name : NULL;
}

void profile_opts_release(void)
{
	if (have_used)
		profile_release(&used);
	have_used = false;
	free(used_generator);
	used_generator = NULL;
}
