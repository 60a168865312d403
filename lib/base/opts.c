/* opts.c - command-line flags and "name = value" option files. */
#include "base/opts.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static const struct opt *find_long(const struct opt *const *tables, const char *name, size_t len)
{
	for (size_t t = 0; tables[t]; t++)
		for (const struct opt *o = tables[t]; o->name; o++)
			if (strlen(o->name) == len && !strncmp(o->name, name, len))
				return o;
	return NULL;
}

static const struct opt *find_short(const struct opt *const *tables, char c)
{
	for (size_t t = 0; tables[t]; t++)
		for (const struct opt *o = tables[t]; o->name; o++)
			if (o->short_name == c)
				return o;
	return NULL;
}

/* The options opts_parse answers itself: they are in no table. */
static const struct opt help_opt = { "help", 'h', OPT_BOOL, NULL, NULL, "show this help", 0, 0 };
static const struct opt version_opt = { "version", 'V', OPT_BOOL, NULL, NULL, "print the version", 0, 0 };
static const struct opt config_opt = { "config", 'c', OPT_STR, NULL, "FILE", "read options from FILE", 0, 0 };

/* The command line as glibc's getopt_long reads it, one option at a time:
 * "-qv" is "-q -v", "-j4" and "-j 4" are alike, "--name=value" and
 * "--name value" too, "--" ends the options, and anything else that does
 * not start with '-' (or is "-" alone) is an argument. Unlike
 * getopt_long, a long name must be whole: a prefix that works today would
 * become ambiguous, and a cron line or unit break, the day an option
 * sharing it is added; the error names the option instead. */
struct scan {
	const struct opt *const *tables;
	int flags, argc;
	char **argv;
	int i;            /* the argument being read */
	const char *rest; /* what is left of a "-abc" cluster, or NULL */
	bool ended;       /* "--" was read: the rest are arguments */
};

/* Levenshtein distance with transpositions (optimal string alignment)
 * between a[0..n) and b, capped at 3 (all that matters here). */
static size_t edit_distance(const char *a, size_t n, const char *b)
{
	size_t m = strlen(b);
	if (n > 40 || m > 40)
		return 3;
	size_t d[41][41];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[n][m] < 3 ? d[n][m] : 3;
}

/* Consider o as the option meant by name[0..len); keeps the closest. */
static void consider(const struct opt *o, const char *name, size_t len, const struct opt **best,
		     size_t *best_d, bool *prefix_of_one, int *prefixes)
{
	if (len >= 2 && strlen(o->name) > len && !strncmp(o->name, name, len)) {
		if ((*prefixes)++ == 0)
			*prefix_of_one = true, *best = o;
		else
			*prefix_of_one = false;
		return;
	}
	if (*prefixes)
		return;
	size_t d = edit_distance(name, len, o->name);
	if (d < *best_d)
		*best_d = d, *best = o;
}

/* The option name[0..len) was probably meant to be: the one option it is
 * a prefix of, else the nearest name one or two edits away (one for short
 * names, where two edits reach unrelated ones); NULL if none is close. */
static const struct opt *near_miss(const struct scan *sc, const char *name, size_t len)
{
	const struct opt *best = NULL;
	size_t best_d = 3;
	bool prefix_of_one = false;
	int prefixes = 0;
	const struct opt *const builtins[] = { &help_opt, &version_opt, &config_opt };
	for (size_t t = 0; sc->tables[t]; t++)
		for (const struct opt *o = sc->tables[t]; o->name; o++)
			consider(o, name, len, &best, &best_d, &prefix_of_one, &prefixes);
	for (size_t b = 0; b < 3; b++)
		if (b < 2 || (sc->flags & OPTS_CONFIG_FILE))
			consider(builtins[b], name, len, &best, &best_d, &prefix_of_one, &prefixes);
	if (prefixes)
		return prefix_of_one ? best : NULL;
	size_t allowed = len < 4 ? 0 : len < 7 ? 1 : 2;
	return best_d <= allowed ? best : NULL;
}

static int unknown_long(const struct scan *sc, const char *dash, const char *name, size_t len,
			char *err)
{
	const struct opt *o = near_miss(sc, name, len);
	if (o)
		return err_set(err, "unknown option '%s%.*s' (did you mean '--%s'?)", dash, (int)len,
			       name, o->name);
	return err_set(err, "unknown option '%s%.*s'", dash, (int)len, name);
}

static int parse_bool(const char *s, bool *out)
{
	static const char *yes[] = { "yes", "true", "1", "on" };
	static const char *no[] = { "no", "false", "0", "off" };
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]))
			return *out = true, 0;
		if (!strcasecmp(s, no[i]))
			return *out = false, 0;
	}
	return -1;
}

/* Store value into o. where names the source for messages ("option", or
 * "FILE:LINE: option"); dash is "--" on the command line, "" in a file. */
static int set_value(const struct opt *o, const char *value, const char *where,
		     const char *dash, char *err)
{
	switch (o->type) {
	case OPT_BOOL:
		if (!value)
			*(bool *)o->value = true;
		else if (parse_bool(value, (bool *)o->value) < 0)
			return err_set(err, "%s '%s%s' takes yes or no, not '%s'", where, dash, o->name,
				       value);
		return 0;
	case OPT_STR:
		free(*(char **)o->value);
		*(char **)o->value = xstrdup(value);
		return 0;
	case OPT_INT: {
		long min = o->min < o->max ? o->min : LONG_MIN;
		long max = o->min < o->max ? o->max : LONG_MAX;
		if (parse_long(value, min, max, (long *)o->value) < 0) {
			if (o->min < o->max)
				return err_set(err, "%s '%s%s' needs a number from %ld to %ld, not '%s'",
					       where, dash, o->name, o->min, o->max, value);
			return err_set(err, "%s '%s%s' needs a number, not '%s'", where, dash, o->name,
				       value);
		}
		return 0;
	}
	case OPT_LIST:
		strlist_add((struct strlist *)o->value, value);
		return 0;
	}
	return err_set(err, "%s '%s%s' has an unknown type", where, dash, o->name);
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* A quoted option-file value, in place: 'single quotes' keep every byte
 * as it is; in "double quotes" a backslash escapes '"' and '\\' and is
 * kept before anything else (as the shell does, so that "C:\x" and
 * regexes survive). After the closing quote only blanks or a '#' comment
 * may follow. -1 with err set when the quote is not closed, or text
 * follows it. */
static int unquote(char *value, const char *path, int lineno, char *err)
{
	char q = value[0], *r = value + 1, *w = value;
	for (;; r++) {
		if (!*r)
			return err_set(err, "%s:%d: missing closing quote (%c)", path, lineno, q);
		if (*r == q)
			break;
		if (q == '"' && *r == '\\' && (r[1] == '"' || r[1] == '\\'))
			r++;
		*w++ = *r;
	}
	char *after = r + 1;
	while (isspace((unsigned char)*after))
		after++;
	if (*after && *after != '#')
		return err_set(err, "%s:%d: text after the closing quote: '%s'", path, lineno, after);
	*w = '\0';
	return 0;
}

/* One "name = value" line (NUL-terminated, newline removed) of an option
 * file; lineno names it in messages. */
static int load_line(const struct opt *const *tables, const char *path, int lineno, char *line,
		     char *err)
{
	char where[PATH_MAX + 32];
	char *s = trim(line);
	if (!*s || *s == '#')
		return 0;
	snprintf(where, sizeof where, "%s:%d: option", path, lineno);
	char *eq = strchr(s, '=');
	if (!eq)
		return err_set(err, "%s:%d: expected 'name = value', saw '%s'", path, lineno, s);
	*eq = '\0';
	char *name = trim(s), *value = trim(eq + 1);
	const struct opt *o = find_long(tables, name, strlen(name));
	if (!o) {
		struct scan sc = { tables, 0, 0, NULL, 0, NULL, false };
		const struct opt *near = near_miss(&sc, name, strlen(name));
		if (near && near->value)
			return err_set(err, "%s:%d: unknown option '%s' (did you mean '%s'?)", path,
				       lineno, name, near->name);
		return err_set(err, "%s:%d: unknown option '%s'", path, lineno, name);
	}
	if ((*value == '"' || *value == '\'') && unquote(value, path, lineno, err) < 0)
		return -1;
	return set_value(o, value, where, "", err);
}

int opts_load_data(const struct opt *const *tables, const char *path, const char *data, size_t len,
		   char *err)
{
	const char *p = data, *end = data + len;
	int lineno = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		/* A NUL would cut the line short without a word: say so. */
		if (memchr(p, '\0', n))
			return err_set(err, "%s:%d: NUL byte", path, lineno);
		char *line = xstrndup(p, n);
		int rc = load_line(tables, path, lineno, line, err);
		free(line);
		if (rc < 0) {
			err_escape(err); /* it quotes the line: a CR there would hide it */
			return -1;
		}
		p += n + 1;
	}
	return 0;
}

int opts_load_file(const struct opt *const *tables, const char *path, char *err)
{
	struct buf data = BUF_INIT;
	struct stat st;
	int rc = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(err, "cannot read option file '%s'", path);
	/* A big file is refused unread; anything else is read one byte past
	 * the cap, never more: "-c /dev/zero" must end. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > OPTS_FILE_MAX)
		goto too_big;
	if (buf_read_fd(&data, fd, OPTS_FILE_MAX) < 0) {
		if (errno == EFBIG)
			goto too_big;
		err_sys(err, "cannot read option file '%s'", path);
		goto out;
	}
	rc = opts_load_data(tables, path, data.data, data.len, err);
	goto out;
too_big:
	err_set(err, "option file '%s' is larger than 1 MiB", path);
out:
	close(fd);
	buf_release(&data);
	return rc;
}

void opts_default(char **value, const char *s)
{
	if (!*value && s)
		*value = xstrdup(s);
}

/* Options that came from the file and were then given on the command line:
 * a list is cut back to what it held before opts_parse (a profile's
 * values, usually nothing) before its first command-line value. */
struct seen {
	const struct opt **items;
	size_t n;
	const struct opt **lists;   /* every list of the tables, and its length on entry */
	size_t *base, nlists;
};

static bool seen_before(struct seen *s, const struct opt *o)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->items[i] == o)
			return true;
	s->items = xrealloc(s->items, (s->n + 1) * sizeof *s->items);
	s->items[s->n++] = o;
	return false;
}

static void note_bases(struct seen *s, const struct opt *const *tables)
{
	for (size_t t = 0; tables[t]; t++) {
		for (const struct opt *o = tables[t]; o->name; o++) {
			if (o->type != OPT_LIST)
				continue;
			s->lists = xrealloc(s->lists, (s->nlists + 1) * sizeof *s->lists);
			s->base = xrealloc(s->base, (s->nlists + 1) * sizeof *s->base);
			s->lists[s->nlists] = o;
			s->base[s->nlists++] = ((struct strlist *)o->value)->n;
		}
	}
}

static void cut_back(const struct seen *s, const struct opt *o)
{
	struct strlist *l = o->value;
	for (size_t i = 0; i < s->nlists; i++) {
		if (s->lists[i] != o)
			continue;
		while (l->n > s->base[i])
			free(l->items[--l->n]);
		return;
	}
}

static int apply(const struct opt *o, const char *value, struct seen *seen, char *err)
{
	if (o->type == OPT_LIST && !seen_before(seen, o))
		cut_back(seen, o);
	return set_value(o, value, "option", "--", err);
}

static const struct opt *scan_long(const struct scan *sc, const char *name, size_t len)
{
	const struct opt *o = find_long(sc->tables, name, len);
	if (o)
		return o;
	if (len == 4 && !strncmp(name, "help", 4))
		return &help_opt;
	if (len == 7 && !strncmp(name, "version", 7))
		return &version_opt;
	if ((sc->flags & OPTS_CONFIG_FILE) && len == 6 && !strncmp(name, "config", 6))
		return &config_opt;
	return NULL;
}

/* A table's own short option comes first: bench keeps ab's "-c N". */
static const struct opt *scan_short(const struct scan *sc, char c)
{
	const struct opt *o = find_short(sc->tables, c);
	if (o)
		return o;
	if (c == 'h')
		return &help_opt;
	if (c == 'V')
		return &version_opt;
	if ((sc->flags & OPTS_CONFIG_FILE) && c == 'c')
		return &config_opt;
	return NULL;
}

enum { SCAN_END, SCAN_OPT, SCAN_ARG };

/* The next option (*o, with *value or NULL) or argument (*value). Returns
 * SCAN_END, SCAN_OPT, SCAN_ARG or OPTS_ERROR with err set. */
static int scan_next(struct scan *sc, const struct opt **o, const char **value, char *err)
{
	*o = NULL;
	*value = NULL;
	if (sc->rest) {
		const char *cluster = sc->argv[sc->i];
		char c = *sc->rest++;
		*o = scan_short(sc, c);
		if (!*o) {
			/* "-exclude" for "--exclude" */
			if (sc->rest - 1 == cluster + 1 && cluster[2])
				if (scan_long(sc, cluster + 1, strlen(cluster + 1)) ||
				    near_miss(sc, cluster + 1, strlen(cluster + 1)))
					return unknown_long(sc, "-", cluster + 1, strlen(cluster + 1),
							    err);
			if (cluster[2])
				return err_set(err, "unknown option '-%c' in '%s'", c, cluster);
			return err_set(err, "unknown option '-%c'", c);
		}
		if ((*o)->type == OPT_BOOL) {
			if (!*sc->rest) {
				sc->rest = NULL;
				sc->i++;
			}
			return SCAN_OPT;
		}
		/* The rest of the cluster is the value, else the next word. */
		if (*sc->rest) {
			*value = sc->rest;
			sc->rest = NULL;
			sc->i++;
			return SCAN_OPT;
		}
		sc->rest = NULL;
		if (sc->i + 1 >= sc->argc)
			return err_set(err, "option '-%c' needs a value (%s)", c,
				       (*o)->arg ? (*o)->arg : "VALUE");
		*value = sc->argv[sc->i + 1];
		sc->i += 2;
		return SCAN_OPT;
	}
	if (sc->i >= sc->argc)
		return SCAN_END;
	char *a = sc->argv[sc->i];
	if (!strcmp(a, "--")) {
		sc->ended = true;
		sc->i++;
		return scan_next(sc, o, value, err);
	}
	if (sc->ended || a[0] != '-' || !a[1]) {
		*value = a;
		sc->i++;
		return SCAN_ARG;
	}
	if (a[1] != '-') {
		sc->rest = a + 1;
		return scan_next(sc, o, value, err);
	}
	const char *name = a + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	*o = scan_long(sc, name, len);
	if (!*o)
		return unknown_long(sc, "--", name, len, err);
	sc->i++;
	if (eq) {
		if ((*o)->type == OPT_BOOL)
			return err_set(err, "option '--%s' takes no value", (*o)->name);
		*value = eq + 1;
		return SCAN_OPT;
	}
	if ((*o)->type != OPT_BOOL) {
		if (sc->i >= sc->argc)
			return err_set(err, "option '--%s' needs a value (%s)", (*o)->name,
				       (*o)->arg ? (*o)->arg : "VALUE");
		*value = sc->argv[sc->i++];
	}
	return SCAN_OPT;
}

int opts_parse(const struct opt *const *tables, int argc, char **argv, int flags,
	       struct strlist *positional, char *err)
{
	struct seen seen = { NULL, 0, NULL, NULL, 0 };
	struct scan sc;
	const struct opt *o;
	const char *value;
	int rc = OPTS_OK, k;

	note_bases(&seen, tables);

	/* The option files first, so that the command line wins. A mistake
	 * on the command line stops this pass; the second reports it. */
	if (flags & OPTS_CONFIG_FILE) {
		sc = (struct scan){ tables, flags, argc, argv, 1, NULL, false };
		while ((k = scan_next(&sc, &o, &value, err)) != SCAN_END && k != OPTS_ERROR) {
			if (o == &config_opt && opts_load_file(tables, value, err) < 0) {
				rc = OPTS_ERROR;
				goto out;
			}
		}
	}

	sc = (struct scan){ tables, flags, argc, argv, 1, NULL, false };
	while ((k = scan_next(&sc, &o, &value, err)) != SCAN_END) {
		if (k == OPTS_ERROR) {
			rc = OPTS_ERROR;
			goto out;
		}
		if (k == SCAN_ARG) {
			strlist_add(positional, value);
		} else if (o == &help_opt) {
			rc = OPTS_HELP;
			goto out;
		} else if (o == &version_opt) {
			rc = OPTS_VERSION;
			goto out;
		} else if (o != &config_opt && apply(o, value, &seen, err) < 0) {
			rc = OPTS_ERROR;
			goto out;
		}
	}
out:
	free(seen.items);
	free(seen.lists);
	free(seen.base);
	return rc;
}

/* The scalars' values, in table order: bools and numbers are not
 * pointers, so opts_release cannot put them back by itself. */
struct opts_saved {
	size_t n;
	union {
		bool b;
		long l;
	} v[];
};

static size_t count_opts(const struct opt *const *tables)
{
	size_t n = 0;
	for (size_t t = 0; tables[t]; t++)
		for (const struct opt *o = tables[t]; o->name; o++)
			n++;
	return n;
}

struct opts_saved *opts_save(const struct opt *const *tables)
{
	size_t n = count_opts(tables), i = 0;
	struct opts_saved *s = xmalloc(sizeof *s + n * sizeof s->v[0]);
	s->n = n;
	for (size_t t = 0; tables[t]; t++) {
		for (const struct opt *o = tables[t]; o->name; o++, i++) {
			if (o->type == OPT_BOOL)
				s->v[i].b = *(bool *)o->value;
			else if (o->type == OPT_INT)
				s->v[i].l = *(long *)o->value;
		}
	}
	return s;
}

void opts_restore(const struct opt *const *tables, const struct opts_saved *s)
{
	size_t i = 0;
	opts_release(tables);
	if (!s || s->n != count_opts(tables))
		return;
	for (size_t t = 0; tables[t]; t++) {
		for (const struct opt *o = tables[t]; o->name; o++, i++) {
			if (o->type == OPT_BOOL)
				*(bool *)o->value = s->v[i].b;
			else if (o->type == OPT_INT)
				*(long *)o->value = s->v[i].l;
		}
	}
}

void opts_release(const struct opt *const *tables)
{
	for (size_t t = 0; tables[t]; t++) {
		for (const struct opt *o = tables[t]; o->name; o++) {
			if (o->type == OPT_STR) {
				free(*(char **)o->value);
				*(char **)o->value = NULL;
			} else if (o->type == OPT_LIST) {
				strlist_clear((struct strlist *)o->value);
			}
		}
	}
}

void opts_print_help(FILE *out, const struct opt *const *tables)
{
	for (size_t t = 0; tables[t]; t++) {
		for (const struct opt *o = tables[t]; o->name; o++) {
			char left[96];
			char shortpart[8] = "    ";
			if (o->short_name)
				snprintf(shortpart, sizeof shortpart, "-%c, ", o->short_name);
			int n = snprintf(left, sizeof left, "  %s--%s%s%s", shortpart, o->name,
					 o->arg ? " " : "", o->arg ? o->arg : "");
			if (n < 30)
				fprintf(out, "%-30s %s\n", left, o->help);
			else
				fprintf(out, "%s\n%-30s %s\n", left, "", o->help);
		}
	}
}

int usage_error(const char *command, const char *msg)
{
	if (command)
		fprintf(stderr, "cgisnap %s: %s (see 'cgisnap %s --help')\n", command, msg, command);
	else
		fprintf(stderr, "cgisnap: %s (see 'cgisnap --help')\n", msg);
	return 2;
}

#ifndef CGISNAP_VERSION
#define CGISNAP_VERSION "unknown"
#endif

void opts_print_version(FILE *out)
{
	fprintf(out, "cgisnap %s\n", CGISNAP_VERSION);
}

void opts_print_common(FILE *out, const struct opt *const *tables, int flags)
{
	if (flags & OPTS_CONFIG_FILE) {
		bool own_c = find_short(tables, 'c') != NULL;
		fprintf(out, "%-30s %s\n", own_c ? "      --config FILE" : "  -c, --config FILE",
			"read 'name = value' lines (long names, '#' comments)");
		fprintf(out, "%-30s %s\n", "",
			"from FILE; quote a value as \"...\" (\\\" \\\\ escapes) or '...'");
	}
	fprintf(out, "%-30s %s\n", "  -h, --help", "show this help");
	fprintf(out, "%-30s %s\n", "  -V, --version", "print the version");
}
