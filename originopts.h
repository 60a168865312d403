/* originopts.h - the origin's command-line options (--root, --cgi,
 * --fastcgi, --origin, --site-url, --timeout, ...) and the configuration
 * they fill, for each command that renders: snapshot, watch, serve and
 * bench. Program code, not lib/: the library owns no command line, and
 * takes an explicit struct origin_config.
 *
 * Steps: put origin_opts in the command's option tables; after parsing,
 * origin_defaults(&origin_options), then origin_open(&origin_options, ...).
 * opts_release() frees what the options filled. */
#ifndef CGISNAP_ORIGINOPTS_H
#define CGISNAP_ORIGINOPTS_H

#include "opts.h"
#include "origin.h"

extern struct origin_config origin_options;
extern const struct opt origin_opts[];

#endif
