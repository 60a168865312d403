/* opts.c - command-line flags and "name = value" option files. */
#include "opts.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

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
	if (!o)
		return err_set(err, "%s:%d: unknown option '%s'", path, lineno, name);
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
		if (rc < 0)
			return -1;
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

int opts_parse(const struct opt *const *tables, int argc, char **argv, int flags,
	       struct strlist *positional, char *err)
{
	struct seen seen = { NULL, 0, NULL, NULL, 0 };
	int rc = OPTS_OK;

	note_bases(&seen, tables);

	/* The option file first, so that the command line wins. */
	if (flags & OPTS_CONFIG_FILE) {
		for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
			const char *path = NULL;
			if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) {
				if (i + 1 >= argc) {
					rc = err_set(err, "option '%s' needs a file", argv[i]);
					goto out;
				}
				path = argv[++i];
			} else if (!strncmp(argv[i], "--config=", 9)) {
				path = argv[i] + 9;
			}
			if (path && opts_load_file(tables, path, err) < 0) {
				rc = OPTS_ERROR;
				goto out;
			}
		}
	}

	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (!strcmp(a, "--")) {
			while (++i < argc)
				strlist_add(positional, argv[i]);
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			rc = OPTS_HELP;
			goto out;
		}
		if ((flags & OPTS_CONFIG_FILE) &&
		    (!strcmp(a, "-c") || !strcmp(a, "--config") || !strncmp(a, "--config=", 9))) {
			if (!strchr(a, '='))
				i++;
			continue;
		}
		if (a[0] != '-' || !a[1]) {
			strlist_add(positional, a);
			continue;
		}
		const struct opt *o;
		const char *value = NULL;
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			o = find_long(tables, name, eq ? (size_t)(eq - name) : strlen(name));
			if (!o) {
				rc = err_set(err, "unknown option '--%.*s'",
					     (int)(eq ? (size_t)(eq - name) : strlen(name)), name);
				goto out;
			}
			if (eq) {
				if (o->type == OPT_BOOL) {
					rc = err_set(err, "option '--%s' takes no value", o->name);
					goto out;
				}
				value = eq + 1;
			}
		} else {
			o = find_short(tables, a[1]);
			if (!o) {
				rc = err_set(err, "unknown option '-%c'", a[1]);
				goto out;
			}
			if (a[2]) {
				if (o->type == OPT_BOOL) {
					rc = err_set(err, "unknown option '%s'", a);
					goto out;
				}
				value = a + 2;
			}
		}
		if (o->type != OPT_BOOL && !value) {
			if (i + 1 >= argc) {
				rc = err_set(err, "option '--%s' needs a value (%s)", o->name,
					     o->arg ? o->arg : "VALUE");
				goto out;
			}
			value = argv[++i];
		}
		if (apply(o, value, &seen, err) < 0) {
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
