/* log.h - messages to the user, and the one-line progress bar.
 *
 * Modules in lib/ do not print: they return -1 and describe the problem in
 * an error buffer (char err[ERR_LEN]) that the caller passes in, e.g.
 *
 *     char err[ERR_LEN];
 *     if (manifest_load(&m, tree, err) < 0)
 *             return log_error("%s", err), 2;
 *
 * Messages follow git's habit: lowercase, no final period, the problem
 * first, its subject in quotes: cannot write 'out/index.html': No space.
 * All functions are thread-safe and keep the progress bar intact: a message
 * clears the bar, prints, and the bar is redrawn on its next update.
 */
#ifndef CGISNAP_LOG_H
#define CGISNAP_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#define ERR_LEN 512

/* Write a message into err (ERR_LEN bytes) and return -1. */
int err_set(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Like err_set, adding ": strerror(errno)" for the current errno. */
int err_sys(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Rewrite err in place with each control byte (below 0x20, and 0x7f) as
 * \xNN, cut to ERR_LEN: for a message that quotes what a file said, so
 * that a stray CR or escape sequence shows rather than acts. */
void err_escape(char *err);

/* "cgisnap: error: MSG"; returns -1 so callers can 'return log_error(...)'. */
int log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "cgisnap: warning: MSG" */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "cgisnap: MSG" - ordinary information (summaries, batch lines). */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only printed with --verbose. */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The whole line as given, no prefix (tables, stderr lines of renders). */
void log_raw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void log_set_verbose(bool on);
bool log_verbose(void);

/* Progress bar: drawn on stderr only when it is a terminal. */
bool progress_enabled(void);
/* The terminal's width in columns (80 when it cannot be told). */
int progress_columns(void);
/* Replace the bar's text (redrawn at most 10 times a second unless force). */
void progress_update(bool force, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Erase the bar; later messages print normally. */
void progress_end(void);

#endif
