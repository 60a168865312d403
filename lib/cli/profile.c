/* profile.c - site profiles: finding, reading and detecting them
 * (profile.h). */
#include "cli/profile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *profile_dir(const char *installdir)
{
	const char *env = getenv("CGISNAP_PROFILE_DIR");
	if (env && *env)
		return xstrdup(env);
	if (installdir && is_dir(installdir))
		return xstrdup(installdir);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return xstrdup("profiles");
	exe[n] = '\0';
	return xasprintf("%s/profiles", dirname(exe));
}

bool profile_name_ok(const char *name)
{
	if (!*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '-' && *p != '_')
			return false;
	return true;
}

int profile_names(const char *dir, struct strlist *names, char *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return err_sys(err, "cannot read the profile directory '%s'", dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n <= 5 || strcmp(e->d_name + n - 5, ".conf"))
			continue;
		char *name = xstrndup(e->d_name, n - 5);
		if (profile_name_ok(name))
			strlist_add_owned(names, name);
		else
			free(name);
	}
	closedir(d);
	strlist_sort(names);
	return 0;
}

/* The text after "# KEY:" on a comment line, or NULL. */
static const char *header_value(const char *line, const char *key)
{
	if (*line != '#')
		return NULL;
	line++;
	while (*line == ' ' || *line == '\t')
		line++;
	size_t k = strlen(key);
	if (strncmp(line, key, k) || line[k] != ':')
		return NULL;
	line += k + 1;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

/* Split a rule into trimmed terms. */
static void rule_terms(const char *rule, struct strlist *terms)
{
	strlist_split(terms, rule, ',');
	for (size_t i = 0; i < terms->n; i++) {
		char *t = terms->items[i], *s = t;
		while (isspace((unsigned char)*s))
			s++;
		size_t n = strlen(s);
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		memmove(t, s, n);
		t[n] = '\0';
	}
}

/* "file PATH" -> PATH, kind 'f'; "generator REGEX" -> REGEX, kind 'g';
 * NULL for anything else. */
static const char *term_arg(const char *term, char *kind)
{
	if (!strncmp(term, "file ", 5)) {
		*kind = 'f';
		return term + 5;
	}
	if (!strncmp(term, "generator ", 10)) {
		*kind = 'g';
		return term + 10;
	}
	return NULL;
}

/* A detect line's terms must be known and their regexes valid: a broken
 * profile says so when read, not by never matching. */
static int check_rule(const char *path, int lineno, const char *rule, char *err)
{
	struct strlist terms = STRLIST_INIT;
	int rc = 0;
	rule_terms(rule, &terms);
	if (!terms.n)
		rc = err_set(err, "%s:%d: empty detect rule", path, lineno);
	for (size_t i = 0; i < terms.n && !rc; i++) {
		char kind;
		const char *arg = term_arg(terms.items[i], &kind);
		regex_t re;
		if (!arg || !*arg) {
			rc = err_set(err, "%s:%d: detect term '%s' is neither 'file PATH' nor 'generator REGEX'",
				     path, lineno, terms.items[i]);
		} else if (kind == 'f' && (arg[0] == '/' || strstr(arg, ".."))) {
			rc = err_set(err, "%s:%d: detect file '%s' must be a path under the root", path,
				     lineno, arg);
		} else if (kind == 'g') {
			if (regcomp(&re, arg, REG_EXTENDED | REG_NOSUB | REG_ICASE))
				rc = err_set(err, "%s:%d: bad generator regex '%s'", path, lineno, arg);
			else
				regfree(&re);
		}
	}
	strlist_clear(&terms);
	return rc;
}

static int parse_header(struct profile *p, char *err)
{
	const char *s = p->data.data, *end = s + p->data.len;
	int lineno = 0;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		char *line = xstrndup(s, n);
		const char *v;
		int rc = 0;
		lineno++;
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		if ((v = header_value(line, "description"))) {
			free(p->description);
			p->description = xstrdup(v);
		} else if ((v = header_value(line, "detect"))) {
			rc = check_rule(p->path, lineno, v, err);
			if (!rc)
				strlist_add(&p->rules, v);
		}
		free(line);
		if (rc < 0)
			return -1;
		s += n + 1;
	}
	return 0;
}

int profile_load(struct profile *p, const char *dir, const char *name, char *err)
{
	memset(p, 0, sizeof *p);
	if (!profile_name_ok(name))
		return err_set(err, "bad profile name '%s' (letters, digits, '-' and '_')", name);
	p->name = xstrdup(name);
	p->path = xasprintf("%s/%s.conf", dir, name);
	p->description = xstrdup("");
	int fd = open(p->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			err_set(err, "no profile '%s' in '%s'", name, dir);
		else
			err_sys(err, "cannot read profile '%s'", p->path);
		goto fail;
	}
	int rc = buf_read_fd(&p->data, fd, PROFILE_FILE_MAX);
	int saved = errno;
	close(fd);
	if (rc < 0) {
		errno = saved;
		if (errno == EFBIG)
			err_set(err, "profile '%s' is larger than %d KiB", p->path, PROFILE_FILE_MAX / 1024);
		else
			err_sys(err, "cannot read profile '%s'", p->path);
		goto fail;
	}
	if (parse_header(p, err) < 0)
		goto fail;
	return 0;
fail:
	profile_release(p);
	return -1;
}

void profile_release(struct profile *p)
{
	free(p->name);
	free(p->path);
	free(p->description);
	free(p->found);
	free(p->base);
	free(p->app_dir);
	strlist_clear(&p->rules);
	buf_release(&p->data);
	memset(p, 0, sizeof *p);
}

/* The option keys whose values a mount moves (profile_options_for). */
enum moved_as { MOVED_NOT, MOVED_REGEX, MOVED_PATH, MOVED_REGEX_TO_PATH, MOVED_REGEX_TO_OTHER, MOVED_COMMAND };

static const struct {
	const char *key;
	enum moved_as as;
} moved_keys[] = {
	{ "include", MOVED_REGEX },
	{ "exclude", MOVED_REGEX },
	{ "seed", MOVED_PATH },
	{ "always", MOVED_PATH },
	{ "not-found", MOVED_PATH },
	{ "front-controller", MOVED_PATH },
	{ "canonical", MOVED_REGEX_TO_PATH },
	{ "depends", MOVED_REGEX_TO_PATH },
	{ "render-query", MOVED_REGEX_TO_OTHER },
	{ "render-alone", MOVED_REGEX },
	{ "site-url-command", MOVED_COMMAND },
	{ "seed-command", MOVED_COMMAND },
	{ "source-command", MOVED_COMMAND },
};

static enum moved_as moved_as(const char *key, size_t len)
{
	for (size_t i = 0; i < sizeof moved_keys / sizeof moved_keys[0]; i++)
		if (strlen(moved_keys[i].key) == len && !strncmp(moved_keys[i].key, key, len))
			return moved_keys[i].as;
	return MOVED_NOT;
}

/* A regex anchored at the root, anchored at base instead. */
static void add_moved_regex(struct buf *out, const char *re, size_t len, const char *base)
{
	size_t skip = len >= 2 && !strncmp(re, "^/", 2) ? 1 : len >= 3 && !strncmp(re, "^(/", 3) ? 2 : 0;
	buf_add(out, re, skip);
	for (const char *b = skip ? base : ""; *b; b++) {
		if (strchr(".[]()*+?{}|^$\\", *b))
			buf_adds(out, "\\");
		buf_add(out, b, 1);
	}
	buf_add(out, re + skip, len - skip);
}

static void add_moved_path(struct buf *out, const char *path, size_t len, const char *base)
{
	if (len && path[0] == '/')
		buf_adds(out, base);
	buf_add(out, path, len);
}

/* value (len bytes) of a key moved as `as`, under base, into out. */
static void add_moved_value(struct buf *out, enum moved_as as, const char *value, size_t len, const struct profile *p)
{
	const char *arrow = NULL;
	for (size_t i = 0; i + 1 < len && !arrow; i++)
		if (value[i] == '=' && value[i + 1] == '>')
			arrow = value + i;
	switch (as) {
	case MOVED_NOT:
		buf_add(out, value, len);
		break;
	case MOVED_REGEX:
		add_moved_regex(out, value, len, p->base);
		break;
	case MOVED_PATH:
		add_moved_path(out, value, len, p->base);
		break;
	case MOVED_REGEX_TO_PATH:
	case MOVED_REGEX_TO_OTHER:
		if (!arrow) {
			buf_add(out, value, len);
			break;
		}
		const char *right = arrow + 2, *end = value + len;
		size_t left = (size_t)(arrow - value);
		while (left && isspace((unsigned char)value[left - 1]))
			left--;
		while (right < end && isspace((unsigned char)*right))
			right++;
		add_moved_regex(out, value, left, p->base);
		buf_adds(out, " => ");
		if (as == MOVED_REGEX_TO_PATH)
			add_moved_path(out, right, (size_t)(end - right), p->base);
		else
			buf_add(out, right, (size_t)(end - right));
		break;
	case MOVED_COMMAND:
		/* cd 'DIR' && COMMAND: the directory single-quoted, each ' as '\'' */
		buf_adds(out, "cd '");
		for (const char *d = p->app_dir; *d; d++)
			buf_adds(out, *d == '\'' ? "'\\''" : (char[]){ *d, '\0' });
		buf_adds(out, "' && ");
		buf_add(out, value, len);
		break;
	}
}

/* One option line, moved under p's base when its key is one a mount moves. */
static void add_line(struct buf *out, const char *s, size_t n, const struct profile *p)
{
	const char *t = s, *e = s + n, *eq = memchr(s, '=', n);
	while (t < e && isspace((unsigned char)*t))
		t++;
	if (!p->base || !*p->base || !p->app_dir || !eq || t == eq || *t == '#') {
		buf_add(out, s, n);
		return;
	}
	const char *key_end = eq;
	while (key_end > t && isspace((unsigned char)key_end[-1]))
		key_end--;
	enum moved_as as = moved_as(t, (size_t)(key_end - t));
	if (as == MOVED_NOT) {
		buf_add(out, s, n);
		return;
	}
	const char *v = eq + 1, *ve = e;
	while (v < ve && isspace((unsigned char)*v))
		v++;
	while (ve > v && isspace((unsigned char)ve[-1]))
		ve--;
	buf_add(out, s, (size_t)(v - s));
	add_moved_value(out, as, v, (size_t)(ve - v), p);
}

void profile_options_for(const struct profile *p, const char *command, struct buf *out)
{
	const char *s = p->data.data, *end = s + p->data.len;
	const char *section = NULL;
	size_t section_len = 0;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *t = s, *e = s + n;
		while (t < e && isspace((unsigned char)*t))
			t++;
		while (e > t && isspace((unsigned char)e[-1]))
			e--;
		if (t < e && *t == '[' && e[-1] == ']') {
			section = t + 1;
			section_len = (size_t)(e - t - 2);
		} else if (!section || (strlen(command) == section_len && !strncmp(section, command, section_len))) {
			add_line(out, s, n, p);
		}
		buf_adds(out, "\n");
		s += n + 1;
	}
}

int profile_match_root(struct profile *p, const char *root)
{
	for (size_t r = 0; r < p->rules.n; r++) {
		struct strlist terms = STRLIST_INIT;
		const char *first = NULL;
		bool ok = true;
		rule_terms(p->rules.items[r], &terms);
		for (size_t i = 0; i < terms.n && ok; i++) {
			char kind;
			const char *arg = term_arg(terms.items[i], &kind);
			if (!arg || kind != 'f') {
				ok = false;
				break;
			}
			char *path = xasprintf("%s/%s", root, arg);
			struct stat st;
			ok = stat(path, &st) == 0;
			free(path);
			if (ok && !first)
				first = arg;
		}
		if (ok && first) {
			free(p->found);
			p->found = xstrdup(first);
		}
		strlist_clear(&terms);
		if (ok && first)
			return 1;
	}
	return 0;
}

int profile_match_generator(const struct profile *p, const char *generator)
{
	for (size_t r = 0; r < p->rules.n; r++) {
		struct strlist terms = STRLIST_INIT;
		rule_terms(p->rules.items[r], &terms);
		bool ok = terms.n > 0;
		for (size_t i = 0; i < terms.n && ok; i++) {
			char kind;
			const char *arg = term_arg(terms.items[i], &kind);
			regex_t re;
			if (!arg || kind != 'g' || regcomp(&re, arg, REG_EXTENDED | REG_NOSUB | REG_ICASE)) {
				ok = false;
				break;
			}
			ok = regexec(&re, generator, 0, NULL, 0) == 0;
			regfree(&re);
		}
		strlist_clear(&terms);
		if (ok)
			return 1;
	}
	return 0;
}

/* The first profile of dir whose files are in where, into out. */
static int detect_files(const char *dir, const char *where, struct profile *out, char *err)
{
	struct strlist names = STRLIST_INIT;
	int rc = 0;
	if (profile_names(dir, &names, err) < 0)
		return -1;
	for (size_t i = 0; i < names.n && !rc; i++) {
		struct profile p;
		if (profile_load(&p, dir, names.items[i], err) < 0) {
			rc = -1;
			break;
		}
		if (profile_match_root(&p, where) == 1) {
			*out = p;
			rc = 1;
		} else {
			profile_release(&p);
		}
	}
	strlist_clear(&names);
	return rc;
}

int profile_detect_mount(const char *dir, const char *base, const char *mount_dir, struct profile *out, char *err)
{
	int rc = detect_files(dir, mount_dir, out, err);
	if (rc == 1) {
		out->base = xstrdup(base);
		out->app_dir = xstrdup(mount_dir);
	}
	return rc;
}

/* --root is the mount of the site's root: base "". */
int profile_detect_root(const char *dir, const char *root, struct profile *out, char *err)
{
	return profile_detect_mount(dir, "", root, out, err);
}
