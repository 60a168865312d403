/* helpers.h - what several unit tests need around the code under test:
 * a scratch directory, its removal, and the config tests' tree entries.
 *
 *     char *dir = unit_temp_dir("exec");   // /tmp/cgisnap-unit-exec.XXXXXX
 *     ...
 *     unit_remove_tree(dir);
 *     free(dir);
 */
#ifndef CGISNAP_UNIT_HELPERS_H
#define CGISNAP_UNIT_HELPERS_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct manifest_entry;
struct strlist;
struct tree;
struct treeinfo;

/* A fresh directory under $TMPDIR (or /tmp) named after tag, as a real
 * path (inotify and the tracer report real paths: /tmp may be a link);
 * the caller frees it. NULL when it cannot be made. */
char *unit_temp_dir(const char *tag);

/* Remove path and everything under it, never following a link; a path
 * still there afterwards fails the running test. */
void unit_remove_tree(const char *path);

/* The end of a unit_temp_dir: unit_remove_tree(dir), then free(dir). */
void unit_drop_dir(char *dir);

/* A fresh scratch directory (unit_temp_dir(tag)) with a tree created and
 * opened in t at dir/sub (sub NULL: the directory itself); a failure fails
 * the running test. Returns the directory, for unit_remove_tree; the
 * caller frees it. */
char *unit_tree_open(struct tree *t, const char *tag, const char *sub);

/* Write text to dir/name (created or emptied first). */
void unit_put(const char *dir, const char *name, const char *text);

/* What dir/name holds (the caller frees it), NULL when it cannot be read. */
char *unit_read(const char *dir, const char *name);

/* Make the directory dir/name. */
void unit_make_dir(const char *dir, const char *name);

/* The items of l joined by sep ("a | b"), for one comparison of a whole
 * list; the caller frees it. */
char *unit_joined(const struct strlist *l, const char *sep);

/* A manifest entry as the snapshot would have recorded it; key, type and
 * location may be NULL. The caller frees it (manifest_entry_free). */
struct manifest_entry *unit_entry(const char *target, int status, const char *key, const char *type,
				  const char *location);

/* Add unit_entry(target, ...) to ti. */
void unit_treeinfo_add(struct treeinfo *ti, const char *target, int status, const char *key, const char *type,
		       const char *location);

/* ti initialised for site_url in "t", served from /t, nothing recorded. */
void unit_empty_tree(struct treeinfo *ti, const char *site_url);

/* The start of a blog-like tree for the config writers' tests: ti
 * initialised for http://blog.example.com/ in "out", served from root,
 * with a 404 page, its front page, a 301, a 302 from /cost to cost_to, a
 * feed, a 404 and a 410. The caller adds what its writer needs more. */
void unit_blog_tree(struct treeinfo *ti, const char *root, const char *cost_to);

/* What the Apache writer, or the nginx one, writes for ti, listening on
 * listen with the cache control cc (NULL: the defaults); the caller frees
 * it. */
char *unit_apache_text(const struct treeinfo *ti, const char *listen, const char *cc);
char *unit_nginx_text(const struct treeinfo *ti, const char *listen, const char *cc);

/* Table tests of a function of one string: each case is what goes in and
 * what must come out, a string (NULL equals only NULL) or a yes or no.
 *
 *     static const struct str_case cases[] = { { "a.css", "text/css" }, ... };
 *     CHECK_MAP(mime_from_name, cases);
 *
 * A case that does not hold fails the running test, naming the function,
 * the input and both answers, at the line of the CHECK_ macro. */
struct str_case {
	const char *in, *want;
};
struct bool_case {
	const char *in;
	bool want;
};

/* want == fn(in) for a function that returns a string it keeps. */
#define CHECK_MAP(fn, cases) unit_check_map(__FILE__, __LINE__, #fn, (fn), (cases), COUNT(cases))
/* want == the text fn(&b, in) leaves in an empty buffer b. */
#define CHECK_WRITES(fn, cases) unit_check_writes(__FILE__, __LINE__, #fn, (fn), (cases), COUNT(cases))
/* want == fn(in) for a yes-or-no function. */
#define CHECK_TESTS(fn, cases) unit_check_tests(__FILE__, __LINE__, #fn, (fn), (cases), COUNT(cases))

void unit_check_map(const char *file, int line, const char *name, const char *(*fn)(const char *),
		    const struct str_case *cases, size_t n);
void unit_check_writes(const char *file, int line, const char *name, void (*fn)(struct buf *, const char *),
		       const struct str_case *cases, size_t n);
void unit_check_tests(const char *file, int line, const char *name, bool (*fn)(const char *),
		      const struct bool_case *cases, size_t n);

#endif
