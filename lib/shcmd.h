/* shcmd.h - a user's shell command, run for what it prints: the options
 * that ask the site itself (watch --source-command, --site-url-command).
 * The command runs as "sh -c CMD" in a directory, with an empty signal
 * mask, its stdout to a pipe we read and its stderr the user's.
 */
#ifndef CGISNAP_SHCMD_H
#define CGISNAP_SHCMD_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* Run cmd in dir (NULL: the working directory) and read at most max
 * bytes of its stdout into out. -1 with err ("cannot run OPTION 'CMD':
 * ...") when it could not be started; 0 otherwise, with *status its wait
 * status and *too_long whether it printed more than max (it was cut off
 * there, and may have died of SIGPIPE) or its output could not be read. */
int shcmd_output(const char *option, const char *cmd, const char *dir, size_t max, struct buf *out,
		 int *status, bool *too_long, char *err);

#endif
