/* cli.h - what every command line of cgisnap shares: the exit statuses,
 * and the answer to what the option parser found.
 *
 * Exit statuses: 0 success, 1 partial failure (the command says what), 2
 * usage or set-up error, 4 a crawl cut short by --max-pages (a bound the
 * default sets too: never silent), 75 the tree is busy (another cgisnap holds its
 * lock: sysexits' EX_TEMPFAIL, "try again later", so that cron can tell
 * it from a broken set-up; 3 is taken by serve's and config's
 * out-of-memory exits), 130 interrupted.
 *
 * A command's steps: parse (opts_parse or profile_opts_parse), then
 *
 *     rc = cli_parsed("snapshot", rc, err, print_help, tables);
 *     if (rc != CLI_GO_ON)
 *             goto out;
 *
 * and go on with the arguments. */
#ifndef CGISNAP_CLI_H
#define CGISNAP_CLI_H

#include <signal.h>

#include "base/opts.h"

#define EXIT_PARTIAL 1
#define EXIT_USAGE 2
#define EXIT_CUT_SHORT 4 /* --max-pages stopped the crawl: what it reached is published */
#define EXIT_BUSY 75
#define EXIT_INTERRUPTED 130 /* SIGINT: 128 + 2, as a shell says */

/* cli_parsed's "the command goes on": not an exit status. */
#define CLI_GO_ON (-1)

/* What the parse's rc asks for: --version prints the version, --help
 * calls help(tables), a --list-profiles already printed, each exit 0; a
 * bad command line is said as usage_error() says it, naming command, exit
 * EXIT_USAGE. CLI_GO_ON otherwise. */
int cli_parsed(const char *command, int rc, const char *err,
	       void (*help)(const struct opt *const *tables), const struct opt *const *tables);

/* Set by the first SIGINT (Ctrl-C) once cli_catch_sigint() ran: the
 * command takes no new work, finishes what is under way and says what it
 * did (snapshot, verify). A second SIGINT kills at once: the default
 * action is back. */
extern volatile sig_atomic_t cli_interrupted;
void cli_catch_sigint(void);

/* A command's end, where it read a profile (profileopts.h): its
 * positional arguments, the options' values and the profile's, freed. */
void cli_release(struct strlist *args, const struct opt *const *tables);

#endif
