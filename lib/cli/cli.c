/* cli.c - the answer every command gives to what its parse found (cli.h). */
#include "cli/cli.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "cli/originopts.h"
#include "cli/profileopts.h"

int cli_parsed(const char *command, int rc, const char *err,
	       void (*help)(const struct opt *const *tables), const struct opt *const *tables)
{
	switch (rc) {
	case OPTS_VERSION:
		opts_print_version(stdout);
		return 0;
	case OPTS_HELP:
		help(tables);
		return 0;
	case PROFILE_LISTED:
		return 0;
	case OPTS_ERROR:
		return usage_error(command, err);
	case PROFILE_SETUP_FAILED:
		log_error("%s", err);
		return EXIT_USAGE;
	default:
		return CLI_GO_ON;
	}
}

void cli_release(struct strlist *args, const struct opt *const *tables)
{
	strlist_clear(args);
	opts_release(tables);
	profile_opts_release();
	origin_opts_user_release();
}

volatile sig_atomic_t cli_interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	cli_interrupted = 1;
	signal(SIGINT, SIG_DFL);
}

void cli_catch_sigint(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}
