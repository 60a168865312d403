/* profileopts.h - the site profile of a crawl's command line, for
 * 'snapshot' and 'watch': --profile and --list-profiles, detection from
 * --root, and the command line parsed over the profile's options; and
 * the list of them that 'cgisnap profiles' prints. Program code, next to
 * crawlopts.h; the profile files themselves are lib/cli/profile.h.
 *
 * Steps: put profile_opts in the command's tables; call
 * profile_opts_parse instead of opts_parse; after the command,
 * profile_opts_release(). */
#ifndef CGISNAP_PROFILEOPTS_H
#define CGISNAP_PROFILEOPTS_H

#include <stdio.h>

#include "base/opts.h"

extern const struct opt profile_opts[];

/* opts_parse's result, or one of these: --list-profiles was given and the
 * list printed (exit 0); a file an option names cannot be used (err says
 * why: a set-up error, exit 2, not a usage error). */
#define PROFILE_LISTED 2
#define PROFILE_SETUP_FAILED 4

/* Parse the command line twice: first to learn --root and --profile, then,
 * with the tables back at their defaults, the profile's options (detected
 * from --root's marker files, or without --root from the generator of the
 * first page the origin answers; or the one --profile names; none with
 * --profile none) and over them -c FILE and the command line, so that the
 * user's lists add to the profile's and the user's scalars replace them.
 * Only the profile's lines for command apply (lib/cli/profile.h: "[watch]").
 * CGISNAP_PROFILE_DIR is set to the profile's directory, for the commands
 * a profile runs (--source-command) to find files shipped beside it.
 * Says which profile is used on stderr unless -q. OPTS_ERROR with err for
 * a bad command line or an unknown or broken profile (which names the
 * ones there are). */
int profile_opts_parse(const char *command, const struct opt *const *tables, int argc, char **argv,
		       struct strlist *args, char *err);

/* The profile in use after profile_opts_parse, or NULL. */
const char *profile_opts_used(void);

void profile_opts_release(void);

/* Each profile, what detects it and what it sets, on out ('cgisnap
 * profiles', --list-profiles). 0, or EXIT_USAGE when the profiles cannot be
 * read (said on stderr). */
int profile_opts_print_list(FILE *out);

#endif
