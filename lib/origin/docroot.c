/* docroot.c - from a request target to a file under the document root
 * (docroot.h): the segment walk, index files, the front controller, and
 * the refusals (dotfiles, links out of the root under --no-follow-symlinks
 * or into the tree, a script's source). */
#include "origin/docroot.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "url/url.h"
#include "base/xalloc.h"

void docroot_release(struct resolved *r)
{
	free(r->script.filename);
	free(r->script.dir);
	free(r->script.script_name);
	free(r->script.path_info);
	free(r->path);
	free(r->why);
	memset(r, 0, sizeof *r);
}

/* fs, a path under base, as the messages name it: relative to base
 * (as it is when it is not under base). */
static const char *rel_to(const char *base, const char *fs)
{
	size_t n = strcmp(base, "/") ? strlen(base) : 0;
	if (strncmp(fs, base, n) || (fs[n] != '/' && fs[n] != '\0'))
		return fs;
	return fs[n] == '/' ? fs + n + 1 : fs + n;
}

/* fs, a path under the root, as the messages name it: relative. */
static const char *rel_path(const struct origin *o, const char *fs)
{
	return o->root ? rel_to(o->root, fs) : fs;
}

/* Refuse the request; why (taken) says what refused it. */
static void refuse(struct resolved *r, char *why)
{
	r->kind = RESOLVE_REFUSED;
	free(r->why);
	r->why = why;
}

static bool has_ext(const char *name, const char *ext)
{
	size_t n = strlen(name), e = strlen(ext);
	return n > e + 1 && name[n - e - 1] == '.' && !strcmp(name + n - e, ext);
}

/* The handler of a file name, *direct when it is an executable CGI
 * program run as it is; false when the file is static. */
static bool is_script(const struct origin *o, const char *name,
		      const struct origin_handler **handler, bool *direct)
{
	*handler = NULL;
	*direct = false;
	for (size_t i = 0; i < o->nhandlers; i++) {
		if (has_ext(name, o->handlers[i].ext)) {
			*handler = &o->handlers[i];
			return true;
		}
	}
	/* *.cgi runs directly; a copy of its source must never be served, so
	 * one that is not executable fails to run rather than being static. */
	if (o->kind == ORIGIN_CGI && has_ext(name, "cgi"))
		return *direct = true;
	return false;
}

/* Extensions of server-side code. Without a handler such a file would be
 * copied as it is: its source, database passwords and all, published.
 * The program is the usual handler, for the hint; NULL: "PROGRAM". */
struct script_ext {
	const char *ext;
	const char *prog;
};

static const struct script_ext script_exts[] = {
	{ "php", "php-cgi" }, { "phtml", "php-cgi" }, { "php3", "php-cgi" }, { "php4", "php-cgi" },
	{ "php5", "php-cgi" }, { "php6", "php-cgi" }, { "php7", "php-cgi" }, { "php8", "php-cgi" },
	{ "phar", "php-cgi" }, { "inc", NULL }, { "cgi", NULL }, { "fcgi", NULL },
	{ "pl", "perl" }, { "pm", NULL }, { "psgi", NULL }, { "py", "python3" }, { "wsgi", NULL },
	{ "rb", "ruby" }, { "erb", NULL }, { "sh", "sh" }, { "bash", "bash" }, { "zsh", "zsh" },
	{ "ksh", "ksh" }, { "lua", "lua" }, { "tcl", "tclsh" }, { "asp", NULL }, { "aspx", NULL },
	{ "ashx", NULL }, { "asmx", NULL }, { "jsp", NULL }, { "jspx", NULL }, { "cfm", NULL },
	{ "cfc", NULL },
};

/* Files that say what they are in their first bytes, whatever their
 * name: a "#!" program, PHP under another name (index.php~,
 * config.php.bak, a link to index.php). */
static const struct script_ext shebang = { "#!", NULL }, php_tag = { "<?php", "php-cgi" };

/* The extension of a file name without its dot; "" when it has none. */
static const char *name_ext(const char *name)
{
	const char *dot = strrchr(name, '.');
	return dot && dot != name ? dot + 1 : "";
}

static const struct script_ext *script_ext_of(const char *name)
{
	const char *ext = name_ext(name);
	for (size_t i = 0; i < sizeof script_exts / sizeof script_exts[0]; i++)
		if (!strcasecmp(script_exts[i].ext, ext))
			return &script_exts[i];
	return NULL;
}

static bool static_ext_allowed(const struct origin *o, const char *ext)
{
	for (size_t i = 0; i < o->static_exts.n; i++)
		if (!strcasecmp(o->static_exts.items[i], ext))
			return true;
	return false;
}

/* Why the static file fs (named name) is a script's source, or NULL:
 * a script's extension on its name or, for a symbolic link, on the file
 * it names; or "#!" or "<?php" as its first bytes. --static-ext allows
 * an extension (of the link and of its file alike). */
static const struct script_ext *source_kind(const struct origin *o, const char *fs, const char *name)
{
	bool allowed = static_ext_allowed(o, name_ext(name));
	const struct script_ext *kind = allowed ? NULL : script_ext_of(name);
	struct stat st;
	if (!kind && lstat(fs, &st) == 0 && S_ISLNK(st.st_mode)) {
		char *real = realpath(fs, NULL);
		const char *real_name = real ? strrchr(real, '/') + 1 : NULL;
		if (real_name && !static_ext_allowed(o, name_ext(real_name)))
			kind = script_ext_of(real_name);
		free(real);
	}
	if (kind || allowed)
		return kind;
	char magic[5];
	int fd = open(fs, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return NULL; /* unreadable: copying it fails later, with its reason */
	ssize_t n = read(fd, magic, sizeof magic);
	close(fd);
	if (n >= 2 && !memcmp(magic, "#!", 2))
		return &shebang;
	if (n == 5 && !strncasecmp(magic, "<?php", 5))
		return &php_tag;
	return NULL;
}

/* The message for a script's source that would be published (fs under
 * the root); what names it: "'x.php'" or "front controller '/x.php'".
 * Returns -1. */
int docroot_source_error(const struct origin *o, const char *what, const char *fs, char *err)
{
	const char *name = strrchr(fs, '/') + 1, *ext = name_ext(name);
	const struct script_ext *kind = source_kind(o, fs, name);
	if (o->kind == ORIGIN_FASTCGI)
		return err_set(err, "%s would be published as source: the FastCGI server runs only "
			       "*.php; --static-ext '%s' publishes it as it is", what, ext);
	/* A link to a script: the handler is the one of the file it names. */
	if (kind && kind != &shebang && kind != &php_tag && strcasecmp(kind->ext, ext))
		ext = kind->ext;
	if (kind == &php_tag)
		return err_set(err, "%s would be published as source: it starts with '<?php'; "
			       "--static-ext '%s' publishes it as it is", what, ext);
	return err_set(err, "%s would be published as source: add --cgi %s=%s", what, *ext ? ext : "EXT",
		       kind && kind->prog ? kind->prog : "PROGRAM");
}

/* path is dir or below it. */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0' || !strcmp(dir, "/"));
}

/* stat() of path under base (the root, or the DIR of a --path-alias),
 * following a symbolic link, as Apache's FollowSymLinks: 0; -1 when it
 * is missing (a dangling link, a loop: ELOOP); -2 when it must not be
 * served, *why (fresh, for -v) naming the link from base: one that
 * leaves base under --no-follow-symlinks, or one into the tree. Only a
 * link needs the check: the walk looks at every segment, so the first
 * link on the way is seen before anything it leads to. */
static int stat_under(const struct origin *o, const char *base, const char *path, struct stat *st,
		      char **why)
{
	if (lstat(path, st) < 0)
		return -1;
	if (!S_ISLNK(st->st_mode))
		return 0;
	if (stat(path, st) < 0)
		return -1;
	if (o->follow_symlinks && !o->keep_out)
		return 0;
	char *real = realpath(path, NULL);
	if (!real)
		return -1; /* changed under our feet: as good as missing */
	const char *name = path + (strcmp(base, "/") ? strlen(base) + 1 : 1);
	int rc = 0;
	if (!o->follow_symlinks && !path_within(real, base)) {
		*why = o->root && !strcmp(base, o->root)
		       ? xasprintf("'%s' is a symbolic link leaving the document root; "
				   "--no-follow-symlinks is set", name)
		       : xasprintf("'%s' is a symbolic link leaving the mounted directory '%s'; "
				   "--no-follow-symlinks is set", name, base);
		rc = -2;
	} else if (o->keep_out && path_within(real, o->keep_out)) {
		*why = xasprintf("'%s' is a symbolic link into the tree '%s': cgisnap does not read "
				 "its own output", name, o->keep_out);
		rc = -2;
	}
	free(real);
	return rc;
}

/* The regular file fs (URL path url_path) answers the request: a script
 * with rest as PATH_INFO, or a static file when nothing is left. */
static void resolve_file(const struct origin *o, const char *fs, const char *url_path,
			 const char *rest, const struct stat *st, bool programs, struct resolved *r)
{
	const char *name = strrchr(fs, '/') + 1;
	const struct origin_handler *handler;
	bool direct;

	/* Under a --script-alias directory every file is a program, as
	 * under Apache's ScriptAlias: one that cannot run is refused, never
	 * copied (its source would be published). */
	if (!is_script(o, name, &handler, &direct) && programs && access(fs, X_OK) < 0) {
		refuse(r, xasprintf("'%s' is not executable: every file under a --script-alias directory "
				    "is a program", fs));
		return;
	}
	if (handler || direct || programs) {
		struct buf info = BUF_INIT;
		url_decode(&info, rest, strlen(rest));
		if (memchr(buf_str(&info), '\0', info.len)) {
			buf_release(&info);
			refuse(r, xasprintf("'%s': an encoded NUL in PATH_INFO is refused", rel_path(o, fs)));
			return;
		}
		r->kind = RESOLVE_SCRIPT;
		r->script.filename = xstrdup(fs);
		r->script.dir = xstrndup(fs, (size_t)(name - 1 - fs));
		if (!*r->script.dir) {
			free(r->script.dir);
			r->script.dir = xstrdup("/");
		}
		r->script.script_name = xstrdup(url_path);
		r->script.path_info = buf_detach(&info, NULL);
		r->script.handler = handler;
		return;
	}
	if (*rest) {
		refuse(r, xasprintf("'%s' is a file, not a directory: nothing may follow it", rel_path(o, fs)));
		return;
	}
	if (source_kind(o, fs, name)) {
		r->kind = RESOLVE_SOURCE;
		r->path = xstrdup(fs);
		return;
	}
	r->kind = RESOLVE_STATIC;
	r->path = xstrdup(fs);
	r->size = (long long)st->st_size;
}

/* Look for the index files of directory fs (URL path url_dir, ending
 * in '/'). */
static void resolve_index(const struct origin *o, const char *base, const char *fs,
			  const char *url_dir, struct resolved *r)
{
	for (size_t i = 0; i < o->index_names.n; i++) {
		const char *name = o->index_names.items[i];
		char *path = xasprintf("%s/%s", fs, name);
		struct stat st;
		char *why = NULL;
		int found = stat_under(o, base, path, &st, &why);
		if (found == 0 && S_ISREG(st.st_mode)) {
			char *url_path = xasprintf("%s%s", url_dir, name);
			free(r->why);
			r->why = NULL;
			resolve_file(o, path, url_path, "", &st, false, r);
			free(url_path);
			free(path);
			return;
		}
		/* Missing, not refused: the front controller may answer; the
		 * reason is kept for -v. */
		if (found == -2 && !r->why)
			r->why = why;
		else
			free(why);
		free(path);
	}
	r->kind = RESOLVE_MISSING;
}

/* Walk the path of a target (raw, len bytes up to '?' or its end) from
 * offset i segment by segment under the directory base, whose URL path is
 * url_base ("" for the root): the first regular file decides. */
static void walk(const struct origin *o, const char *base, const char *url_base, const char *path,
		 size_t i, size_t len, const char *query, bool programs, struct resolved *r)
{
	struct buf fs = BUF_INIT, url_path = BUF_INIT, seg = BUF_INIT;

	buf_adds(&fs, strcmp(base, "/") ? base : "");
	buf_adds(&url_path, url_base);
	if (i == len && *url_base) {
		/* A mounted directory asked for without its slash. */
		r->kind = RESOLVE_SLASH;
		r->path = xasprintf("%s%.*s/%s%s", o->site_origin, (int)len, path,
				    query ? "?" : "", query ? query : "");
		goto out;
	}
	for (;;) {
		while (i < len && path[i] == '/')
			i++;
		if (i == len) {
			/* A directory asked for with its slash. */
			buf_addc(&url_path, '/');
			if (programs)
				refuse(r, xasprintf("'%s' is a directory of programs (--script-alias): "
						    "no index is looked for", fs.len ? fs.data : "/"));
			else
				resolve_index(o, base, fs.len ? fs.data : "/", url_path.data, r);
			break;
		}
		size_t end = i;
		while (end < len && path[end] != '/')
			end++;
		url_decode(&seg, path + i, end - i);
		if (seg.data[0] == '.') {
			refuse(r, xasprintf("'%s%s%s': a path segment starting with '.' is never served",
					    url_path.len ? url_path.data + 1 : "", url_path.len ? "/" : "",
					    buf_str(&seg)));
			break;
		}
		if (memchr(seg.data, '/', seg.len) || memchr(seg.data, '\0', seg.len)) {
			refuse(r, xasprintf("'%.*s': an encoded '/' or NUL in a path segment is refused",
					    (int)(end - i), path + i));
			break;
		}
		buf_addc(&fs, '/');
		buf_add(&fs, seg.data, seg.len);
		buf_addc(&url_path, '/');
		buf_add(&url_path, seg.data, seg.len);

		struct stat st;
		char *why = NULL;
		int found = stat_under(o, base, fs.data, &st, &why);
		if (found == -2) {
			refuse(r, why);
		} else if (found < 0) {
			r->kind = RESOLVE_MISSING;
		} else if (S_ISREG(st.st_mode)) {
			char *rest = xstrndup(path + end, len - end);
			resolve_file(o, fs.data, url_path.data, rest, &st, programs, r);
			free(rest);
		} else if (S_ISDIR(st.st_mode)) {
			if (end < len) {
				i = end;
				continue;
			}
			r->kind = RESOLVE_SLASH;
			r->path = xasprintf("%s%.*s/%s%s", o->site_origin, (int)len, path,
					    query ? "?" : "", query ? query : "");
		} else {
			refuse(r, xasprintf("'%s' is neither a file nor a directory", rel_to(base, fs.data)));
		}
		break;
	}
out:
	buf_release(&fs);
	buf_release(&url_path);
	buf_release(&seg);
}

/* A --script-alias answers: its program, with rest (raw, n bytes) decoded
 * as PATH_INFO. */
static void resolve_program(const struct origin *o, const struct mount *m, const char *rest,
			    size_t n, struct resolved *r)
{
	const char *name = strrchr(m->path, '/') + 1;
	const struct origin_handler *handler;
	bool direct;
	struct buf info = BUF_INIT;

	url_decode(&info, rest, n);
	if (memchr(buf_str(&info), '\0', info.len)) {
		buf_release(&info);
		r->kind = RESOLVE_REFUSED;
		return;
	}
	is_script(o, name, &handler, &direct);
	r->kind = RESOLVE_SCRIPT;
	r->script.filename = xstrdup(m->path);
	r->script.dir = name - 1 == m->path ? xstrdup("/") : xstrndup(m->path, (size_t)(name - 1 - m->path));
	r->script.script_name = xstrdup(m->prefix);
	r->script.path_info = buf_detach(&info, NULL);
	r->script.handler = handler;
}

/* PROGRAM's absolute path: its directory resolved, its name kept (a
 * program may look at the name it was started by). NULL when the
 * directory does not resolve. */
static char *program_path(const char *prog)
{
	const char *slash = strrchr(prog, '/');
	char *dir = !slash ? xstrdup(".") : slash == prog ? xstrdup("/") : xstrndup(prog, (size_t)(slash - prog));
	char *real = realpath(dir, NULL);
	char *path = real ? xasprintf("%s/%s", strcmp(real, "/") ? real : "", slash ? slash + 1 : prog) : NULL;
	free(dir);
	free(real);
	return path;
}

/* Why the program of a --script-alias cannot run, or NULL. */
static const char *program_problem(const struct origin *o, const char *path)
{
	const char *name = strrchr(path, '/') + 1;
	const struct origin_handler *handler;
	bool direct;
	struct stat st;

	if (!*name || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return "is not a file or a directory";
	is_script(o, name, &handler, &direct);
	if (handler)
		return access(path, R_OK) < 0 ? "is not readable" : NULL;
	if (o->kind == ORIGIN_FASTCGI)
		return "cannot run over FastCGI: the FastCGI server runs only *.php";
	return access(path, X_OK) < 0 ? "is not executable" : NULL;
}

int docroot_add_mount(struct origin *o, const char *spec, bool script, char *err)
{
	const char *opt = script ? "--script-alias" : "--path-alias";
	struct mount m;
	struct stat st;
	char *real;

	if (mount_parse(&m, spec, script, err) < 0)
		return -1;
	for (size_t i = 0; i < o->nmounts; i++) {
		if (!strcmp(o->mounts[i].prefix, m.prefix)) {
			err_set(err, "%s prefix '%s' is mounted twice", opt, *m.prefix ? m.prefix : "/");
			goto fail;
		}
	}
	if (script && stat(m.path, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* ScriptAlias /cgi-bin/ /usr/lib/cgi-bin/: a directory of programs. */
		if (o->kind == ORIGIN_FASTCGI) {
			err_set(err, "%s directory '%s' cannot run over FastCGI: the FastCGI server runs only *.php",
				opt, m.path);
			goto fail;
		}
		if (!(real = realpath(m.path, NULL))) {
			err_set(err, "%s directory '%s' is not a directory", opt, m.path);
			goto fail;
		}
		m.dir = true;
	} else if (script) {
		const char *why = NULL;
		real = program_path(m.path);
		if (!real || (why = program_problem(o, real))) {
			err_set(err, "%s program '%s' %s", opt, m.path, why ? why : "is not a file or a directory");
			free(real);
			goto fail;
		}
	} else if (stat(m.path, &st) < 0 || !S_ISDIR(st.st_mode) || !(real = realpath(m.path, NULL))) {
		err_set(err, "%s directory '%s' is not a directory", opt, m.path);
		goto fail;
	}
	free(m.path);
	m.path = real;
	o->mounts = xrealloc(o->mounts, (o->nmounts + 1) * sizeof *o->mounts);
	o->mounts[o->nmounts++] = m;
	return 0;
fail:
	mount_release(&m);
	return -1;
}

void docroot_resolve(const struct origin *o, const char *path, size_t len, const char *query,
		     struct resolved *r)
{
	size_t rest = 0;
	const struct mount *m = mount_find(o->mounts, o->nmounts, path, len, &rest);

	memset(r, 0, sizeof *r);
	if (m && m->script && !m->dir)
		resolve_program(o, m, path + rest, len - rest, r);
	else if (m)
		walk(o, m->path, m->prefix, path, rest, len, query, m->script, r);
	else if (o->root)
		walk(o, o->root, "", path, 0, len, query, false, r);
	else
		r->kind = RESOLVE_MISSING; /* mounts without --root: an empty document root */
}

/* The front controller answers a target that matched no file: its own
 * SCRIPT_NAME, no PATH_INFO. */
void docroot_front_controller(const struct origin *o, struct resolved *r)
{
	docroot_release(r);
	docroot_resolve(o, o->front_controller, strlen(o->front_controller), NULL, r);
	if (r->kind == RESOLVE_SCRIPT && *r->script.path_info) {
		free(r->script.path_info);
		r->script.path_info = xstrdup("");
	}
	if (r->kind != RESOLVE_SCRIPT && r->kind != RESOLVE_STATIC && r->kind != RESOLVE_SOURCE) {
		char *why = r->kind == RESOLVE_REFUSED && r->why
				    ? xasprintf("front controller: %s", r->why)
				    : xasprintf("front controller '%s' is not a file under '%s'",
						o->front_controller, o->root ? o->root : "the mounts");
		docroot_release(r);
		refuse(r, why);
	}
}
