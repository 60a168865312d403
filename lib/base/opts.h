/* opts.h - one parser for command-line flags and option files.
 *
 * A subcommand describes its options once, in tables of struct opt; the
 * same tables drive --help, the command line and "-c FILE" option files
 * (one "name = value" per line, long option names, '#' comments), in the
 * way redis turns "--port 7777" into the config line "port 7777".
 * Flags on the command line win over the file: a scalar given on the
 * command line replaces the file's value, and a repeatable option given on
 * the command line replaces the file's whole list. What the options held
 * before opts_parse (a site profile's values, loaded with opts_load_data)
 * is kept under both: lists add to it, scalars replace it.
 *
 *     static const struct opt snapshot_opts[] = {
 *             { "jobs", 'j', OPT_INT, &jobs, "N", "render N pages at once", 1, 1024 },
 *             OPT_END
 *     };
 *     const struct opt *tables[] = { origin_opts, snapshot_opts, NULL };
 *     switch (opts_parse(tables, argc, argv, OPTS_CONFIG_FILE, &args, err)) { ... }
 *
 * Strings stored by OPT_STR are owned by the option (opts_release frees
 * them); set a default with a string literal only through opts_default().
 */
#ifndef CGISNAP_OPTS_H
#define CGISNAP_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/buf.h"
#include "base/log.h"

enum opt_type {
	OPT_BOOL,  /* bool *; "--name" sets true; in a file: yes/no/true/false/1/0/on/off */
	OPT_STR,   /* char **; owned copy */
	OPT_INT,   /* long *; checked against [min, max] when min < max */
	OPT_LIST,  /* struct strlist *; repeatable, values appended in order */
};

struct opt {
	const char *name;   /* long name without "--"; NULL ends a table */
	char short_name;    /* 'j' for -j, or 0 */
	enum opt_type type;
	void *value;
	const char *arg;    /* placeholder in --help ("N", "DIR"); NULL for OPT_BOOL */
	const char *help;
	long min, max;      /* OPT_INT bounds, when min < max */
};

#define OPT_END { NULL, 0, OPT_BOOL, NULL, NULL, NULL, 0, 0 }

enum {
	OPTS_OK = 0,
	OPTS_HELP = 1,        /* -h or --help was given */
	OPTS_VERSION = 3,     /* -V or --version was given (2 and 4 are profileopts.h's) */
	OPTS_ERROR = -1,      /* err says what was wrong */
};

/* Flags for opts_parse. */
#define OPTS_CONFIG_FILE 1  /* accept "-c FILE" / "--config FILE" ("--config"
			     * alone where a table has its own -c: bench's ab-like
			     * "-c N") */

/* Parse argv[1..argc-1] (argv[0] is the subcommand) the way glibc's
 * getopt_long does: "-qv" is "-q -v", "-j4" is "-j 4", "--jobs=4" is
 * "--jobs 4", arguments may come between options, "--" ends the options.
 * Long names are whole (no prefixes: see opts.c); an unknown name one or
 * two edits from a known one, or a prefix of just one, is named in the
 * error ("unknown option '--exlude' (did you mean '--exclude'?)").
 * Arguments that are not options go to positional, in order. -h/--help and
 * -V/--version are every command's. */
int opts_parse(const struct opt *const *tables, int argc, char **argv, int flags,
	       struct strlist *positional, char *err);

/* The largest option file read (1 MiB): a bigger regular file is refused
 * unread, and anything else (a pipe, "-c /dev/zero") is read one byte
 * past it, never more. */
#define OPTS_FILE_MAX (1024 * 1024)

/* Read "name = value" lines from path into the options of tables. A value
 * may be quoted: 'single quotes' keep every byte, "double quotes" take \"
 * and \\ as escapes (a backslash before anything else stays); a quoted
 * value may hold '#' and leading or trailing blanks, and a '#' comment may
 * follow it. An unquoted value is the rest of the line, blanks trimmed. -1 with
 * err naming the file and line ("FILE:3: unknown option 'x'", "FILE:3: NUL
 * byte", "option file 'FILE' is larger than 1 MiB"). */
int opts_load_file(const struct opt *const *tables, const char *path, char *err);

/* The same for an option file already in memory, data[0..len) (no NUL
 * needed at the end); path only names it in messages. */
int opts_load_data(const struct opt *const *tables, const char *path, const char *data, size_t len,
		   char *err);

/* Give an OPT_STR option a default (copied) unless it already has a value. */
void opts_default(char **value, const char *s);

/* Free every string and list the tables own. */
void opts_release(const struct opt *const *tables);

/* The tables' bool and number values (their defaults, before a first
 * parse), and opts_release plus putting them back: the way to parse a
 * command line twice, the second time over a profile's values. The
 * caller frees the saved values with free(). */
struct opts_saved;
struct opts_saved *opts_save(const struct opt *const *tables);
void opts_restore(const struct opt *const *tables, const struct opts_saved *s);

/* Print "cgisnap VERSION" (the answer to OPTS_VERSION). */
void opts_print_version(FILE *out);

/* Print "  -j, --jobs N   help" lines for the tables. */
void opts_print_help(FILE *out, const struct opt *const *tables);

/* Print the lines of the options every command has: -c/--config FILE
 * (with OPTS_CONFIG_FILE; "--config" alone where a table has its own -c),
 * -h/--help, -V/--version. tables are those given to opts_parse. */
void opts_print_common(FILE *out, const struct opt *const *tables, int flags);

/* Parse a whole decimal number in [min, max]; -1 when it is not one. */
int parse_long(const char *s, long min, long max, long *out);

/* The standard answer to a bad command line: one line naming the problem
 * and pointing to --help ("cgisnap serve: unknown option '--x' (see
 * 'cgisnap serve --help')"); returns the usage exit status, 2. */
int usage_error(const char *command, const char *msg);

#endif
