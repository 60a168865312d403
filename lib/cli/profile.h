/* profile.h - site profiles: option files shipped with cgisnap for known
 * applications (profiles/NAME.conf), and the rules that detect them.
 *
 * A profile is a "name = value" option file (the format of -c, lib/base/opts.h)
 * whose comment lines at the top say what it is and when it applies:
 *
 *     # description: DokuWiki: pages, media, feeds and one sitemap
 *     # detect: file doku.php, file inc/init.php
 *     # detect: generator ^DokuWiki
 *
 * Each "detect:" line is one rule, a comma-separated list of terms that
 * must all hold: "file PATH" (PATH exists under the document root) or
 * "generator REGEX" (the content of a page's <meta name="generator">, an
 * extended regex). A profile matches when one of its rules does.
 *
 * Option lines after a "[NAME]" line apply only to the command NAME
 * ("[watch]": watch's own options such as --source-command), those before
 * any such line to every command.
 *
 * Steps: profile_dir() finds the directory, profile_names() lists it,
 * profile_load() reads one, profile_detect_root() finds the one for a
 * --root; profile_release() frees what profile_load filled. Only this
 * module reads profile files; it never prints. */
#ifndef CGISNAP_PROFILE_H
#define CGISNAP_PROFILE_H

#include <stdbool.h>

#include "base/buf.h"

/* The largest profile file read: profiles are a few dozen lines. */
#define PROFILE_FILE_MAX (64 * 1024)

struct profile {
	char *name;             /* "dokuwiki" */
	char *path;             /* the file it was read from */
	char *description;      /* the "description:" line, or "" */
	struct strlist rules;   /* each "detect:" line's text, in order */
	struct buf data;        /* the whole file, for opts_load_data */
	char *found;            /* the marker file that matched, or NULL */
	/* Where detection found the application: base is the URL path it
	 * is mounted at ("" at the site's root, "/dokuwiki" for its files
	 * under --path-alias /dokuwiki=DIR), app_dir the directory that
	 * held its marker files (NULL: not found by its files). */
	char *base;
	char *app_dir;
};

/* The directory holding the profiles: $CGISNAP_PROFILE_DIR when set, else
 * installdir (PREFIX/share/cgisnap/profiles) when it is a directory, else
 * "profiles" beside the running binary (a checkout's ./cgisnap). Returns a
 * string the caller frees. */
char *profile_dir(const char *installdir);

/* Fill names (sorted) with the profiles in dir: its NAME.conf files. -1
 * with err when dir cannot be read. */
int profile_names(const char *dir, struct strlist *names, char *err);

/* A name is a profile name when it is [a-z0-9_-]+: never a path. */
bool profile_name_ok(const char *name);

/* Read dir/NAME.conf into p. -1 with err ("no profile 'x'", a bad detect
 * line named by file and line). */
int profile_load(struct profile *p, const char *dir, const char *name, char *err);
void profile_release(struct profile *p);

/* p's option text for command: the lines for every command and those of
 * its "[command]" sections; the others (and the section lines) are left
 * empty, so that opts_load_data's messages name the file's own lines.
 * Fills out, which the caller releases.
 *
 * A profile is written for an application at the site's root. Found
 * under a mount (p->base not ""), its lines are moved there: a URL
 * regex anchored at the root ("^/x", "^(/x") is anchored at the base
 * (--include, --exclude, --render-query, --canonical, --depends: the
 * part before "=>"), a URL path ("/x": --seed, --always, --not-found,
 * --front-controller, the URL after a "=>") gets the base before it,
 * and a command (--site-url-command, --seed-command, --source-command)
 * runs in p->app_dir, as it runs in --root otherwise. Unanchored
 * regexes match anywhere and stay as they are. */
void profile_options_for(const struct profile *p, const char *command, struct buf *out);

/* Whether a rule's file terms all hold under root (a rule with a
 * generator term never matches here). On a match p->found is the rule's
 * first file; 1 match, 0 none. */
int profile_match_root(struct profile *p, const char *root);

/* Whether one of p's rules is only generator terms that all match the
 * generator text; 1 match, 0 none. */
int profile_match_generator(const struct profile *p, const char *generator);

/* Load, into out, the first profile of dir (in name order) that matches
 * root (out->found set). 1 when one matched, 0 none (out untouched), -1
 * with err. */
int profile_detect_root(const char *dir, const char *root, struct profile *out, char *err);

/* The same for the files of a --path-alias: the first profile of dir
 * whose files are in mount_dir, base its URL prefix ("/dokuwiki"). */
int profile_detect_mount(const char *dir, const char *base, const char *mount_dir, struct profile *out, char *err);

#endif
