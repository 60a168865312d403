/* bench/bench.c - 'cgisnap bench' (to be filled in by its issue). */
#include <stdio.h>

#include "commands.h"
#include "opts.h"

static const struct opt bench_opts[] = {
	OPT_END
};

int cmd_bench(int argc, char **argv)
{
	const struct opt *const tables[] = { bench_opts, NULL };
	struct strlist args = STRLIST_INIT;
	char err[ERR_LEN];
	int rc = opts_parse(tables, argc, argv, 0, &args, err);
	if (rc == OPTS_HELP) {
		printf("usage: cgisnap bench [OPTIONS]\n\n");
		opts_print_help(stdout, tables);
		rc = 0;
	} else if (rc == OPTS_ERROR) {
		rc = usage_error("bench", err);
	} else {
		log_error("'cgisnap bench' is not implemented yet");
		rc = EXIT_USAGE;
	}
	strlist_clear(&args);
	opts_release(tables);
	return rc;
}
