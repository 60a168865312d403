/* test_opts.c - command-line and option-file parsing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/opts.h"
#include "base/xalloc.h"
#include "unit.h"

static bool flag, quiet, verbose;
static char *name;
static long jobs;
static struct strlist seeds;

static const struct opt table[] = {
	{ "flag", 0, OPT_BOOL, &flag, NULL, "a flag", 0, 0 },
	{ "name", 'n', OPT_STR, &name, "NAME", "a name", 0, 0 },
	{ "jobs", 'j', OPT_INT, &jobs, "N", "jobs", 1, 64 },
	{ "seed", 0, OPT_LIST, &seeds, "URL", "seeds", 0, 0 },
	{ "quiet", 'q', OPT_BOOL, &quiet, NULL, "quiet", 0, 0 },
	{ "verbose", 'v', OPT_BOOL, &verbose, NULL, "verbose", 0, 0 },
	{ "exclude", 0, OPT_STR, &name, "RE", "exclude", 0, 0 },
	OPT_END
};
static const struct opt *const tables[] = { table, NULL };

static void reset(void)
{
	opts_release(tables);
	flag = quiet = verbose = false;
	jobs = 0;
}

/* opts_parse(tables) of the command line "x ARGS...", without flags. */
#define PARSE(pos, err, ...)                                                    \
	opts_parse(tables, (int)COUNT(((char *[]){ "x", __VA_ARGS__ })),         \
		   (char *[]){ "x", __VA_ARGS__ }, 0, (pos), (err))

TEST(opts_parses_long_short_and_positional)
{
	char *argv[] = { "x", "--flag", "-j4", "--name=a b", "pos1", "--seed", "/a", "--seed", "/b", "--", "--pos2" };
	struct strlist pos = STRLIST_INIT;
	char err[ERR_LEN];
	reset();
	CHECK_INT(OPTS_OK, opts_parse(tables, 11, argv, 0, &pos, err));
	CHECK(flag);
	CHECK_INT(4, jobs);
	CHECK_STR("a b", name);
	CHECK_INT(2, seeds.n);
	CHECK_INT(2, pos.n);
	CHECK_STR("--pos2", pos.items[1]);
	strlist_clear(&pos);
	reset();
}

TEST(opts_rejects_unknown_and_bad_numbers)
{
	char err[ERR_LEN];
	struct strlist pos = STRLIST_INIT;
	CHECK_INT(OPTS_ERROR, PARSE(&pos, err, "--nope"));
	CHECK_STR("unknown option '--nope'", err);
	CHECK_INT(OPTS_ERROR, PARSE(&pos, err, "--jobs", "100"));
	CHECK_STR("option '--jobs' needs a number from 1 to 64, not '100'", err);
	CHECK_INT(OPTS_ERROR, PARSE(&pos, err, "--name"));
	CHECK_INT(OPTS_HELP, PARSE(&pos, err, "-h"));
	strlist_clear(&pos);
	reset();
}

/* Write n bytes of data (repeated to fill) to a fresh temporary file. */
static void write_file(char *path, const char *data, size_t len)
{
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK_INT((long long)len, write(fd, data, len));
	close(fd);
}

/* Write text to a fresh temporary file. */
static void write_text(char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

TEST(opts_file_loses_to_command_line)
{
	char path[] = "/tmp/cgisnap-opts-XXXXXX";
	write_text(path, "# comment\n name = fromfile \nflag = yes\njobs = 8\nseed = /f1\nseed = /f2\n");
	char err[ERR_LEN];
	struct strlist pos = STRLIST_INIT;
	char *argv[] = { "x", "-c", path, "--seed", "/cli", "-n", "cli" };
	reset();
	CHECK_INT(OPTS_OK, opts_parse(tables, 7, argv, OPTS_CONFIG_FILE, &pos, err));
	CHECK_STR("cli", name);
	CHECK(flag);
	CHECK_INT(8, jobs);
	CHECK_INT(1, seeds.n);
	CHECK_STR("/cli", seeds.n ? seeds.items[0] : NULL);
	CHECK_INT(0, pos.n);
	reset();

	FILE *f = fopen(path, "w");
	fputs("jobs = 8\nbogus = 1\n", f);
	fclose(f);
	CHECK_INT(OPTS_ERROR, opts_parse(tables, 3, argv, OPTS_CONFIG_FILE, &pos, err));
	CHECK_HAS(err, ":2: unknown option 'bogus'");
	unlink(path);
	strlist_clear(&pos);
	reset();
}

TEST(opts_file_is_capped_at_1_mib)
{
	char err[ERR_LEN];
	char path[] = "/tmp/cgisnap-opts-XXXXXX";
	char *big = malloc(OPTS_FILE_MAX + 1);
	memset(big, '#', OPTS_FILE_MAX + 1);
	write_file(path, big, OPTS_FILE_MAX + 1);
	reset();
	CHECK_INT(-1, opts_load_file(tables, path, err));
	char *want = xasprintf("option file '%s' is larger than 1 MiB", path);
	CHECK_STR(want, err);
	free(want);
	unlink(path);

	/* Exactly the cap is fine; a line that long is no problem either. */
	memcpy(big, "name = ", 7);
	big[OPTS_FILE_MAX - 1] = '\n';
	strcpy(path, "/tmp/cgisnap-opts-XXXXXX");
	write_file(path, big, OPTS_FILE_MAX);
	CHECK_INT(0, opts_load_file(tables, path, err));
	CHECK_INT(OPTS_FILE_MAX - 8, name ? strlen(name) : 0);
	unlink(path);
	free(big);

	/* A file with no end is read only up to the cap. */
	CHECK_INT(-1, opts_load_file(tables, "/dev/zero", err));
	CHECK_STR("option file '/dev/zero' is larger than 1 MiB", err);
	reset();
}

TEST(opts_file_nul_bytes_and_lines)
{
	char err[ERR_LEN];
	static const char data[] = "jobs = 2\n\n# x\nname = a\0b\n";
	reset();
	CHECK_INT(-1, opts_load_data(tables, "f.conf", data, sizeof data - 1, err));
	CHECK_STR("f.conf:4: NUL byte", err);
	CHECK_INT(2, jobs);

	/* CRLF lines, a last line without a newline, and no trailing NUL. */
	static const char crlf[] = "jobs = 3\r\nseed = /a\r\nname = last";
	reset();
	CHECK_INT(0, opts_load_data(tables, "f.conf", crlf, sizeof crlf - 1, err));
	CHECK_INT(3, jobs);
	CHECK_STR("/a", seeds.n ? seeds.items[0] : NULL);
	CHECK_STR("last", name);
	CHECK_INT(0, opts_load_data(tables, "f.conf", crlf, 0, err));
	CHECK_INT(-1, opts_load_data(tables, "f.conf", "\n\njobs\n", 7, err));
	CHECK_STR("f.conf:3: expected 'name = value', saw 'jobs'", err);
	/* What a message quotes of the file shows its control bytes. */
	CHECK_INT(-1, opts_load_data(tables, "f.conf", "bo\rgus = 1\n", 11, err));
	CHECK_STR("f.conf:1: unknown option 'bo\\x0dgus'", err);
	CHECK_INT(-1, opts_load_data(tables, "f.conf", "x\x1b[2J\n", 8, err));
	CHECK_STR("f.conf:1: expected 'name = value', saw 'x\\x1b[2J'", err);
	CHECK_INT(-1, opts_load_file(tables, "/nonexistent/x.conf", err));
	CHECK_STR("cannot read option file '/nonexistent/x.conf': No such file or directory", err);
	CHECK_INT(-1, opts_load_file(tables, "/tmp", err));
	CHECK_STR("cannot read option file '/tmp': Is a directory", err);
	reset();
}

/* A profile's values (loaded before opts_parse) stay under the user's:
 * its lists are added to, by the file and by the command line, which
 * still replaces only the file's values; its scalars are replaced. */
TEST(opts_parse_keeps_values_loaded_before_it)
{
	char path[] = "/tmp/cgisnap-opts-XXXXXX";
	write_text(path, "seed = /file\njobs = 8\n");
	static const char profile[] = "seed = /profile\nname = profile\njobs = 2\nflag = yes\n";
	char err[ERR_LEN];
	struct strlist pos = STRLIST_INIT;
	reset();
	CHECK_INT(0, opts_load_data(tables, "p.conf", profile, sizeof profile - 1, err));
	char *a1[] = { "x", "-c", path };
	CHECK_INT(OPTS_OK, opts_parse(tables, 3, a1, OPTS_CONFIG_FILE, &pos, err));
	CHECK_INT(2, seeds.n);
	CHECK_STR("/profile", seeds.items[0]);
	CHECK_STR("/file", seeds.n > 1 ? seeds.items[1] : NULL);
	CHECK_STR("profile", name);
	CHECK_INT(8, jobs);
	reset();

	CHECK_INT(0, opts_load_data(tables, "p.conf", profile, sizeof profile - 1, err));
	char *a2[] = { "x", "-c", path, "--seed", "/cli", "-n", "cli" };
	CHECK_INT(OPTS_OK, opts_parse(tables, 7, a2, OPTS_CONFIG_FILE, &pos, err));
	CHECK_INT(2, seeds.n);
	CHECK_STR("/profile", seeds.items[0]);
	CHECK_STR("/cli", seeds.n > 1 ? seeds.items[1] : NULL);
	CHECK_STR("cli", name);
	CHECK(flag);
	unlink(path);
	strlist_clear(&pos);
	reset();
}

/* opts_restore puts the scalars back as opts_save saw them and frees the
 * strings and lists: a second parse starts from the defaults. */
TEST(opts_save_and_restore)
{
	char err[ERR_LEN];
	struct strlist pos = STRLIST_INIT;
	reset();
	jobs = 3;
	struct opts_saved *saved = opts_save(tables);
	char *argv[] = { "x", "--flag", "-j", "9", "-n", "a", "--seed", "/s" };
	CHECK_INT(OPTS_OK, opts_parse(tables, 8, argv, 0, &pos, err));
	CHECK(flag);
	CHECK_INT(9, jobs);
	opts_restore(tables, saved);
	CHECK(!flag);
	CHECK_INT(3, jobs);
	CHECK(name == NULL);
	CHECK_INT(0, seeds.n);
	free(saved);
	strlist_clear(&pos);
	reset();
}

/* getopt_long's command line: clusters, attached and separate values,
 * "=" and space for long options, arguments between options, "--". */
TEST(opts_parse_getopt_long_forms)
{
	char err[ERR_LEN];
	struct strlist pos = STRLIST_INIT;
	char *a1[] = { "x", "-qv", "a", "-qj4", "-n", "-dash", "--seed=/x", "--seed", "--", "b" };
	reset();
	CHECK_INT(OPTS_OK, opts_parse(tables, 10, a1, 0, &pos, err));
	CHECK(quiet);
	CHECK(verbose);
	CHECK_INT(4, jobs);
	CHECK_STR("-dash", name);
	CHECK_INT(2, seeds.n);
	CHECK_STR("--", seeds.n > 1 ? seeds.items[1] : NULL);
	CHECK_INT(2, pos.n);
	CHECK_STR("a", pos.items[0]);
	CHECK_STR("b", pos.n > 1 ? pos.items[1] : NULL);
	strlist_clear(&pos);
	reset();

	CHECK_INT(OPTS_OK, PARSE(&pos, err, "-vj", "7", "-", "--", "-q", "--jobs"));
	CHECK(verbose);
	CHECK(!quiet);
	CHECK_INT(7, jobs);
	CHECK_INT(3, pos.n);
	CHECK_STR("-", pos.items[0]);
	CHECK_STR("-q", pos.n > 1 ? pos.items[1] : NULL);
	strlist_clear(&pos);
	reset();

	CHECK_INT(OPTS_ERROR, PARSE(&pos, err, "-qxv"));
	CHECK_STR("unknown option '-x' in '-qxv'", err);
	CHECK_INT(OPTS_ERROR, PARSE(&pos, err, "-qj"));
	CHECK_STR("option '-j' needs a value (N)", err);
	CHECK_INT(OPTS_ERROR, PARSE(&pos, err, "--flag=yes"));
	CHECK_STR("option '--flag' takes no value", err);
	CHECK_INT(OPTS_VERSION, PARSE(&pos, err, "-qV"));
	CHECK_INT(OPTS_VERSION, PARSE(&pos, err, "--version"));
	CHECK_INT(OPTS_HELP, PARSE(&pos, err, "-vh"));
	strlist_clear(&pos);
	reset();
}

/* A near miss is named; prefixes are not taken (but named when they are
 * a prefix of one option only); far names are just unknown. */
TEST(opts_parse_did_you_mean)
{
	static const struct { const char *arg, *msg; } cases[] = {
		{ "--exlude", "unknown option '--exlude' (did you mean '--exclude'?)" },
		{ "--exclude-x", "unknown option '--exclude-x' (did you mean '--exclude'?)" },
		{ "--verbsoe", "unknown option '--verbsoe' (did you mean '--verbose'?)" },
		{ "--verb", "unknown option '--verb' (did you mean '--verbose'?)" },
		{ "--verb=1", "unknown option '--verb' (did you mean '--verbose'?)" },
		{ "-exclude", "unknown option '-exclude' (did you mean '--exclude'?)" },
		{ "--versoin", "unknown option '--versoin' (did you mean '--version'?)" },
		{ "--jbo", "unknown option '--jbo'" },
		{ "--frob", "unknown option '--frob'" },
		{ "--e", "unknown option '--e'" },
		{ "--conifg", "unknown option '--conifg'" },
	};
	char err[ERR_LEN];
	struct strlist pos = STRLIST_INIT;
	for (size_t i = 0; i < COUNT(cases); i++) {
		char *argv[] = { "x", (char *)cases[i].arg };
		reset();
		CHECK_INT(OPTS_ERROR, opts_parse(tables, 2, argv, 0, &pos, err));
		CHECK_STR(cases[i].msg, err);
	}
	char *argv[] = { "x", "--conifg", "f" };
	CHECK_INT(OPTS_ERROR, opts_parse(tables, 3, argv, OPTS_CONFIG_FILE, &pos, err));
	CHECK_STR("unknown option '--conifg' (did you mean '--config'?)", err);
	CHECK_INT(-1, opts_load_data(tables, "f.conf", "exlude = x\n", 11, err));
	CHECK_STR("f.conf:1: unknown option 'exlude' (did you mean 'exclude'?)", err);
	CHECK_INT(-1, opts_load_data(tables, "f.conf", "verison = x\n", 12, err));
	CHECK_STR("f.conf:1: unknown option 'verison'", err);
	strlist_clear(&pos);
	reset();
}

/* Quoted option-file values lose their quotes; '#' and blanks inside
 * quotes are kept; bad quoting is one error naming the line. */
TEST(opts_file_quoted_values)
{
	static const struct { const char *line, *want; } ok[] = {
		{ "name = \"/var/www/wiki\"", "/var/www/wiki" },
		{ "name = '/var/www/wiki'", "/var/www/wiki" },
		{ "name = \"a # b\"  # comment", "a # b" },
		{ "name = ' lead and trail '", " lead and trail " },
		{ "name = \"say \\\"hi\\\" \\\\ \\d\"", "say \"hi\" \\ \\d" },
		{ "name = 'it\\'", "it\\" },
		{ "name = \"\"", "" },
		{ "name = \"it's\"", "it's" },
		{ "name = a \"b\"", "a \"b\"" },
		{ "name = x # not a comment", "x # not a comment" },
	};
	static const struct { const char *line, *msg; } bad[] = {
		{ "name = \"open", "f.conf:1: missing closing quote (\")" },
		{ "name = 'open", "f.conf:1: missing closing quote (')" },
		{ "name = \"a\" b", "f.conf:1: text after the closing quote: 'b'" },
		{ "name = \"a\\\"", "f.conf:1: missing closing quote (\")" },
	};
	char err[ERR_LEN];
	for (size_t i = 0; i < COUNT(ok); i++) {
		reset();
		CHECK_INT(0, opts_load_data(tables, "f.conf", ok[i].line, strlen(ok[i].line), err));
		CHECK_STR(ok[i].want, name);
	}
	for (size_t i = 0; i < COUNT(bad); i++) {
		reset();
		CHECK_INT(-1, opts_load_data(tables, "f.conf", bad[i].line, strlen(bad[i].line), err));
		CHECK_STR(bad[i].msg, err);
	}
	reset();
	static const char typed[] = "jobs = \"5\"\nflag = 'yes'\n";
	CHECK_INT(0, opts_load_data(tables, "f.conf", typed, sizeof typed - 1, err));
	CHECK_INT(5, jobs);
	CHECK(flag);
	reset();
}

/* The option file is found however -c is written, and a value that looks
 * like "-c" is not taken for it. */
TEST(opts_config_file_forms)
{
	char path[] = "/tmp/cgisnap-opts-XXXXXX";
	write_text(path, "jobs = 6\n");
	char err[ERR_LEN];
	struct strlist pos = STRLIST_INIT;
	char *att = xasprintf("-qc%s", path), *eq = xasprintf("--config=%s", path);
	char *forms[][3] = { { "x", "-c", path }, { "x", att, NULL }, { "x", eq, NULL } };
	for (int i = 0; i < 3; i++) {
		reset();
		CHECK_INT(OPTS_OK, opts_parse(tables, forms[i][2] ? 3 : 2, forms[i], OPTS_CONFIG_FILE,
					      &pos, err));
		CHECK_INT(6, jobs);
		CHECK_INT(0, pos.n);
	}
	reset();
	char *a1[] = { "x", "-n", "-c", path };
	CHECK_INT(OPTS_OK, opts_parse(tables, 4, a1, OPTS_CONFIG_FILE, &pos, err));
	CHECK_STR("-c", name);
	CHECK_INT(0, jobs);
	CHECK_INT(1, pos.n);
	strlist_clear(&pos);
	/* Without OPTS_CONFIG_FILE, -c is unknown. */
	char *a2[] = { "x", "-c", path };
	CHECK_INT(OPTS_ERROR, opts_parse(tables, 3, a2, 0, &pos, err));
	CHECK_STR("unknown option '-c'", err);
	free(att);
	free(eq);
	unlink(path);
	strlist_clear(&pos);
	reset();
}
