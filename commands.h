/* commands.h - the subcommands of the one cgisnap binary.
 *
 * Like git's builtins: each subcommand is cmd_NAME(argc, argv) in its own
 * folder (snapshot/, serve/, watch/, bench/, verify/, config/, inspect/ for status,
 * why, ls and profiles; notify lives beside watch, whose socket it talks
 * to); cgisnap.c only dispatches. argv[0] is the subcommand's name. The
 * return value is the exit status (lib/cli/cli.h says which).
 */
#ifndef CGISNAP_COMMANDS_H
#define CGISNAP_COMMANDS_H

#include "cli/cli.h"

int cmd_snapshot(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_notify(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_profiles(int argc, char **argv); /* inspect/profiles.c */
int cmd_status(int argc, char **argv);   /* inspect/ */
int cmd_why(int argc, char **argv);
int cmd_ls(int argc, char **argv);       /* inspect/ls.c */
int cmd_verify(int argc, char **argv);   /* verify/ */

#endif
