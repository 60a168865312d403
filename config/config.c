/* config/config.c - 'cgisnap config' (to be filled in by its issue). */
#include <stdio.h>

#include "commands.h"
#include "opts.h"

static const struct opt config_opts[] = {
	OPT_END
};

int cmd_config(int argc, char **argv)
{
	const struct opt *const tables[] = { config_opts, NULL };
	struct strlist args = STRLIST_INIT;
	char err[ERR_LEN];
	int rc = opts_parse(tables, argc, argv, 0, &args, err);
	if (rc == OPTS_HELP) {
		printf("usage: cgisnap config [OPTIONS]\n\n");
		opts_print_help(stdout, tables);
		rc = 0;
	} else if (rc == OPTS_ERROR) {
		rc = usage_error("config", err);
	} else {
		log_error("'cgisnap config' is not implemented yet");
		rc = EXIT_USAGE;
	}
	strlist_clear(&args);
	opts_release(tables);
	return rc;
}
