/* shcmd.h - a user's shell command, run for what it prints: the options
 * that ask the site itself (watch --source-command, snapshot's
 * --seed-command, --site-url-command). The command runs as "sh -c CMD" in
 * a directory, in a process group of its own, with an empty signal mask,
 * its stdout to a pipe we read and its stderr the user's.
 *
 * It is bounded: a command still running (or still holding its stdout
 * open, a child left in the background) SHCMD_TIMEOUT_MS after it started
 * is a hung one: its whole process group gets SIGTERM, then SIGKILL after
 * SHCMD_KILL_GRACE_MS, it is reaped, and the caller gets an error. These
 * commands ask an application a question (its URL, its pages, its files)
 * before anything is crawled; a minute is far beyond any real answer, and
 * a start-up that hangs for ever says nothing at all.
 *
 * Test hook: CGISNAP_TEST_SHCMD_TIMEOUT_MS=N (a positive integer) makes
 * the bound N ms, so that a test need not wait a minute.
 */
#ifndef CGISNAP_SHCMD_H
#define CGISNAP_SHCMD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/runas.h"

#define SHCMD_TIMEOUT_MS 60000
#define SHCMD_KILL_GRACE_MS 1000

/* Run cmd in dir (NULL: the working directory), as ra's user when it is
 * active (base/runas.h; HOME, USER and LOGNAME then its), and read at most max
 * bytes of its stdout into out. -1 with err when it could not be started
 * ("cannot run OPTION 'CMD': ...") or ran past the bound ("OPTION 'CMD':
 * timed out after 60 s"; it was killed and reaped, out released); 0
 * otherwise, with *status its wait status and *too_long whether it
 * printed more than max (it was cut off there, and may have died of
 * SIGPIPE) or its output could not be read. */
int shcmd_output(const char *option, const char *cmd, const char *dir, const struct runas *ra, size_t max,
		 struct buf *out, int *status, bool *too_long, char *err);

#endif
