/* profiles.c - 'cgisnap profiles': the site profiles there are, what
 * detects each and what it sets (lib/cli/profileopts.h has the list). */
#include <stdio.h>

#include "commands.h"
#include "base/opts.h"
#include "cli/profileopts.h"

int cmd_profiles(int argc, char **argv)
{
	const struct opt *const tables[] = { NULL };
	struct strlist args = STRLIST_INIT;
	char err[ERR_LEN];
	int rc = opts_parse(tables, argc, argv, 0, &args, err);
	if (rc == OPTS_VERSION) {
		opts_print_version(stdout);
		rc = 0;
	} else if (rc == OPTS_HELP) {
		printf("usage: cgisnap profiles\n\n"
		       "List the site profiles: option files for known applications, applied by\n"
		       "'snapshot' and 'watch' when their marker files are under --root (the\n"
		       "user's options add to a profile's lists and replace its other values).\n"
		       "They are read from $CGISNAP_PROFILE_DIR, else %s,\n"
		       "else the 'profiles' directory beside the cgisnap binary.\n",
		       CGISNAP_PROFILEDIR);
		rc = 0;
	} else if (rc == OPTS_ERROR) {
		rc = usage_error("profiles", err);
	} else if (args.n) {
		rc = usage_error("profiles", "takes no arguments");
	} else {
		rc = profile_opts_print_list(stdout);
	}
	strlist_clear(&args);
	return rc;
}
