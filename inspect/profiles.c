/* profiles.c - 'cgisnap profiles': the site profiles there are, what
 * detects each and what it sets (lib/cli/profileopts.h has the list). */
#include <stdio.h>

#include "commands.h"
#include "base/opts.h"
#include "cli/profileopts.h"

static void print_help(const struct opt *const *tables)
{
	(void)tables;
	printf("usage: cgisnap profiles\n\n"
	       "List the site profiles: option files for known applications, applied by\n"
	       "'snapshot' and 'watch' when their marker files are under --root (the\n"
	       "user's options add to a profile's lists and replace its other values).\n"
	       "They are read from $CGISNAP_PROFILE_DIR, else %s,\n"
	       "else the 'profiles' directory beside the cgisnap binary.\n",
	       CGISNAP_PROFILEDIR);
}

int cmd_profiles(int argc, char **argv)
{
	const struct opt *const tables[] = { NULL };
	struct strlist args = STRLIST_INIT;
	char err[ERR_LEN];
	int rc = opts_parse(tables, argc, argv, 0, &args, err);
	rc = cli_parsed("profiles", rc, err, print_help, tables);
	if (rc == CLI_GO_ON)
		rc = args.n ? usage_error("profiles", "takes no arguments") : profile_opts_print_list(stdout);
	strlist_clear(&args);
	return rc;
}
