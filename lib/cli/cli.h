/* cli.h - what every command line of cgisnap shares: the exit statuses.
 *
 * 0 success, 1 partial failure (the command says what), 2 usage or set-up
 * error, 75 the tree is busy (another cgisnap holds its lock: sysexits'
 * EX_TEMPFAIL, "try again later", so that cron can tell it from a broken
 * set-up; 3 is taken by serve's and config's out-of-memory exits), 130
 * interrupted. */
#ifndef CGISNAP_CLI_H
#define CGISNAP_CLI_H

#define EXIT_PARTIAL 1
#define EXIT_USAGE 2
#define EXIT_BUSY 75

#endif
