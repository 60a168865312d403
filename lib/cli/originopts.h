/* originopts.h - the origin's command-line options (--root, --cgi,
 * --fastcgi, --origin, --site-url, --timeout, ...) and the configuration
 * they fill, for each command that renders: snapshot, watch, serve and
 * bench. Program code, not lib/: the library owns no command line, and
 * takes an explicit struct origin_config.
 *
 * Steps: put origin_opts in the command's option tables; after parsing,
 * origin_opts_user(), origin_opts_site_url(), origin_defaults(&origin_options), then
 * origin_open(&origin_options, ...). opts_release() frees what the options
 * filled. */
#ifndef CGISNAP_ORIGINOPTS_H
#define CGISNAP_ORIGINOPTS_H

#include "base/opts.h"
#include "origin/origin.h"

extern struct origin_config origin_options;
extern const struct opt origin_opts[];

/* --site-url-command CMD: asks the application for its site URL. Not in
 * struct origin_config: the library never runs it, the command line does. */
extern char *origin_site_url_command;

/* --apache-conf FILE: also not in struct origin_config (the library
 * reads no Apache configuration). */
extern char *origin_apache_conf;

/* Apply --apache-conf when given: what FILE says fills the options the
 * command line left unset (--root, --site-url, --index,
 * --front-controller, a PHP handler: --cgi php=php-cgi or proxy_fcgi's
 * --fastcgi) and adds its mounts (unless the command line mounts the
 * same prefix), SetEnv (the command line's --env after them) and
 * --no-follow-symlinks. Call once after each parse of the options,
 * before origin_opts_site_url(). With say, logs one line naming what it
 * took and one naming what it does not honour. 0; -1 with err for a
 * usage error (--apache-conf with --origin); APACHE_CONF_UNREADABLE with
 * err when FILE cannot be read or parsed: a set-up error, not the
 * command line's. */
#define APACHE_CONF_UNREADABLE (-2)
int origin_opts_apache_conf(bool say, char *err);

/* Decide who runs the site's programs and commands (base/runas.h) into
 * origin_options.runas: after origin_opts_apache_conf(), before
 * origin_opts_site_url(). With say, logs the user when cgisnap runs as
 * root and chose it by itself. -1 with err: no such user, another user
 * when not root, or none to choose (a usage error). */
int origin_opts_user(bool say, char *err);
/* What origin_opts_user resolved, freed (at the command's end). */
void origin_opts_user_release(void);

/* The largest output of --site-url-command read: one URL. */
#define SITE_URL_COMMAND_MAX 4096

/* When --site-url is not given and --site-url-command is: run the command
 * (sh -c, in --root, else here; its stderr is the user's) and make its one
 * output line --site-url, checked as --site-url is. 1 when it ran and set
 * origin_options.site_url, 0 when there was nothing to run, -1 with err
 * naming the command and what it printed: it failed, printed nothing or
 * more than one line, or not a site URL. Never prints. */
int origin_opts_site_url(char *err);

#endif
