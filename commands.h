/* commands.h - the subcommands of the one cgisnap binary.
 *
 * Like git's builtins: each subcommand is cmd_NAME(argc, argv) in its own
 * folder (snapshot/, serve/, watch/, bench/, config/, inspect/ for status
 * and why; notify lives beside
 * watch, whose socket it talks to); cgisnap.c only dispatches.
 * argv[0] is the subcommand's name. The return value is the exit status:
 * 0 success, 1 partial failure (the command says what), 2 usage or set-up
 * error, 75 the tree is busy (another cgisnap holds its lock: sysexits'
 * EX_TEMPFAIL, "try again later", so that cron can tell it from a broken
 * set-up; 3 is taken by serve's and config's out-of-memory exits), 130
 * interrupted.
 */
#ifndef CGISNAP_COMMANDS_H
#define CGISNAP_COMMANDS_H

#define EXIT_PARTIAL 1
#define EXIT_USAGE 2
#define EXIT_BUSY 75

int cmd_snapshot(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_notify(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_profiles(int argc, char **argv); /* profileopts.c */
int cmd_status(int argc, char **argv);   /* inspect/ */
int cmd_why(int argc, char **argv);
int cmd_ls(int argc, char **argv);       /* config/ls.c */

#endif
