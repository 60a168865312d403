/* test_fswatch.c - lib/fswatch on real directories: a tree walked with
 * directories skipped, what the walk finds reported, a directory renamed
 * inside a tree and followed, a directory deleted (its own events, then
 * forgotten), a watch narrowed, the caller's data released, paths joined.
 * The kernel queues events when the system call returns, so each check
 * reads right after the change, without waiting. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fswatch.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "helpers.h"
#include "unit.h"

/* What the tests' fswatch_fn sees: each event as a path and its flags,
 * trees kept watched with walk. */
struct seen {
	struct fswatch *w;
	const struct fsw_walk *walk;
	struct fsw_events ev;
};

static void record(void *ctx, struct fsw_dir *d, const char *name, unsigned flags)
{
	struct seen *s = ctx;
	char err[ERR_LEN];
	if (!d) {
		fsw_events_add(&s->ev, flags, NULL);
		return;
	}
	/* an event about d itself is told apart from its parent's about it */
	char *path = name ? fswatch_path(d, name) : xasprintf("%s (itself)", d->path);
	fsw_events_add(&s->ev, flags, path);
	if (name && d->tree && s->walk)
		CHECK_INT(0, fswatch_follow(s->w, path, flags, s->walk, err));
	free(path);
}

static void drain(struct seen *s)
{
	char err[ERR_LEN];
	fsw_events_clear(&s->ev);
	while (fswatch_read(s->w, record, s, err) > 0)
		;
}

/* Every flag reported for dir/name, or-ed (name " (itself)": for the
 * events about the directory dir itself). */
static unsigned flags_of(const struct fsw_events *ev, const char *dir, const char *name)
{
	char *p = name ? xasprintf(*name == ' ' ? "%s%s" : "%s/%s", dir, name) : xstrdup(dir);
	unsigned f = 0;
	for (size_t i = 0; i < ev->n; i++)
		if (ev->items[i].path && !strcmp(ev->items[i].path, p))
			f |= ev->items[i].flags;
	free(p);
	return f;
}

/* The watched directory at dir/name, or NULL. */
static struct fsw_dir *dir_at(const struct fswatch *w, const char *dir, const char *name)
{
	char *p = name ? xasprintf("%s/%s", dir, name) : xstrdup(dir);
	size_t it = 0;
	struct fsw_dir *d;
	while ((d = fswatch_next(w, &it)) && strcmp(d->path, p))
		;
	free(p);
	return d;
}

static size_t count_dirs(const struct fswatch *w)
{
	size_t n = 0, it = 0;
	while (fswatch_next(w, &it))
		n++;
	return n;
}

/* Skips dot-directories (an fsw_walk.enter). */
static bool no_dot_dirs(void *ctx, const char *path, const char *name)
{
	(void)ctx;
	(void)path;
	return name[0] != '.';
}

#define WANT (FSW_WATCH_WRITES | FSW_WATCH_NAMES | FSW_WATCH_SELF)

/* A test's start: s seeing through walk (NULL: no tree followed) with a
 * fresh watch that releases the data of its directories with release,
 * and the scratch directory returned. */
static char *see_start(struct seen *s, const struct fsw_walk *walk, void (*release)(void *data))
{
	char err[ERR_LEN];
	*s = (struct seen){ fswatch_new(release, err), walk, FSW_EVENTS_INIT };
	return unit_temp_dir("fswatch");
}

/* A test's end: the events, the watch and the directory d go. */
static void see_end(struct seen *s, char *d)
{
	fsw_events_clear(&s->ev);
	fswatch_free(s->w);
	unit_drop_dir(d);
}

TEST(fswatch_tree_walk_skips_and_reports)
{
	char err[ERR_LEN];
	struct fsw_events found = FSW_EVENTS_INIT;
	const struct fsw_walk walk = { WANT, no_dot_dirs, NULL, NULL, &found };
	struct seen s;
	char *d = see_start(&s, &walk, NULL);
	CHECK(d != NULL);
	CHECK(s.w != NULL);
	unit_make_dir(d, "a");
	unit_make_dir(d, "a/b");
	unit_make_dir(d, ".hidden");
	unit_put(d, "a/b/f.txt", "f");
	unit_put(d, ".hidden/h.txt", "h");
	CHECK_INT(0, fswatch_add_tree(s.w, d, &walk, err));
	CHECK_INT(3, count_dirs(s.w)); /* d, a, a/b: not .hidden */
	CHECK(dir_at(s.w, d, "a/b") && dir_at(s.w, d, "a/b")->tree);
	CHECK(!dir_at(s.w, d, ".hidden"));
	CHECK_INT(FSW_CREATED | FSW_DIR, flags_of(&found, d, "a"));
	CHECK_INT(FSW_CREATED | FSW_DIR, flags_of(&found, d, "a/b"));
	CHECK_INT(FSW_CREATED, flags_of(&found, d, "a/b/f.txt"));
	CHECK_INT(0, flags_of(&found, d, ".hidden/h.txt"));
	fsw_events_clear(&found);

	unit_put(d, ".hidden/h.txt", "h2"); /* not watched */
	unit_put(d, "a/b/f.txt", "f2");
	drain(&s);
	CHECK_INT(0, flags_of(&s.ev, d, ".hidden/h.txt"));
	CHECK_INT(FSW_CHANGED, flags_of(&s.ev, d, "a/b/f.txt"));

	/* a directory gone before its watch was added is skipped */
	CHECK_INT(0, fswatch_add_tree(s.w, "/nonexistent/cgisnap/tree", &walk, err));
	CHECK_INT(3, count_dirs(s.w));

	fsw_events_clear(&found);
	see_end(&s, d);
}

TEST(fswatch_rename_inside_a_tree_is_followed)
{
	char err[ERR_LEN];
	const struct fsw_walk walk = { WANT, NULL, NULL, NULL, NULL };
	struct seen s;
	char *d = see_start(&s, &walk, NULL);
	unit_make_dir(d, "old");
	unit_make_dir(d, "old/deep");
	CHECK_INT(0, fswatch_add_tree(s.w, d, &walk, err));
	CHECK_INT(3, count_dirs(s.w));

	char *from = xasprintf("%s/old", d), *to = xasprintf("%s/new", d);
	CHECK_INT(0, rename(from, to));
	drain(&s);
	CHECK_INT(FSW_REMOVED | FSW_RENAMED | FSW_DIR, flags_of(&s.ev, d, "old"));
	CHECK_INT(FSW_CREATED | FSW_RENAMED | FSW_DIR, flags_of(&s.ev, d, "new"));
	/* watched under the new name only */
	CHECK_INT(3, count_dirs(s.w));
	CHECK(!dir_at(s.w, d, "old/deep"));
	CHECK(dir_at(s.w, d, "new/deep") != NULL);
	unit_put(d, "new/deep/x.txt", "x");
	drain(&s);
	CHECK_INT(FSW_CREATED | FSW_CHANGED, flags_of(&s.ev, d, "new/deep/x.txt"));
	CHECK_INT(0, flags_of(&s.ev, d, "old/deep/x.txt"));

	free(from);
	free(to);
	see_end(&s, d);
}

static int released;

static void release_count(void *data)
{
	released++;
	free(data);
}

TEST(fswatch_deleted_directory_reports_itself_then_is_forgotten)
{
	char err[ERR_LEN];
	struct seen s; /* a single directory, not a tree: nothing follows it */
	char *d = see_start(&s, NULL, release_count);
	unit_make_dir(d, "gone");
	char *gone = xasprintf("%s/gone", d);
	struct fsw_dir *g = fswatch_watch(s.w, gone, WANT, err);
	CHECK(g != NULL);
	CHECK(!g->tree);
	g->data = xstrdup("mine");
	struct fsw_dir *top = fswatch_watch(s.w, d, WANT, err);
	top->data = xstrdup("top");
	/* asked again: the same entry, its data kept */
	CHECK(fswatch_watch(s.w, gone, FSW_WATCH_MODIFY, err) == g);
	CHECK_INT(2, count_dirs(s.w));

	released = 0;
	CHECK_INT(0, rmdir(gone));
	drain(&s);
	CHECK_INT(FSW_SELF | FSW_IGNORED, flags_of(&s.ev, gone, " (itself)"));
	CHECK_INT(FSW_REMOVED | FSW_DIR, flags_of(&s.ev, d, "gone"));
	CHECK_INT(1, count_dirs(s.w));
	CHECK_INT(1, released);

	CHECK(fswatch_watch(s.w, gone, WANT, err) == NULL);
	CHECK_HAS(err, gone);
	CHECK_HAS(err, "No such file or directory");

	free(gone);
	see_end(&s, d);
	CHECK_INT(2, released); /* the watch freed */
}

/* A write to a file still open is told from its close (a save under way,
 * then done); each step is read right after it. */
TEST(fswatch_open_write_and_close_told_apart)
{
	char err[ERR_LEN];
	struct seen s;
	char *d = see_start(&s, NULL, NULL);
	CHECK(fswatch_watch(s.w, d, FSW_WATCH_WRITES | FSW_WATCH_MODIFY | FSW_WATCH_NAMES, err) != NULL);
	char *path = xasprintf("%s/f", d);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	drain(&s);
	CHECK_INT(FSW_CREATED, flags_of(&s.ev, d, "f"));
	fputs("x", f);
	fflush(f);
	drain(&s);
	CHECK_INT(FSW_CHANGED | FSW_WRITING, flags_of(&s.ev, d, "f"));
	fclose(f);
	drain(&s);
	CHECK_INT(FSW_CHANGED, flags_of(&s.ev, d, "f"));
	unlink(path);
	drain(&s);
	CHECK_INT(FSW_REMOVED, flags_of(&s.ev, d, "f"));

	free(path);
	see_end(&s, d);
}

TEST(fswatch_narrowed_watch_asks_for_less)
{
	char err[ERR_LEN];
	struct seen s;
	char *d = see_start(&s, NULL, NULL);
	struct fsw_dir *a = fswatch_watch(s.w, d, FSW_WATCH_NEW_NAMES | FSW_WATCH_SELF, err);
	CHECK(a != NULL);
	unit_put(d, "one", "1");
	drain(&s);
	CHECK_INT(FSW_CREATED, flags_of(&s.ev, d, "one")); /* not its close: not asked */

	fswatch_narrow(s.w, a, FSW_WATCH_SELF);
	unit_put(d, "two", "2");
	drain(&s);
	CHECK_INT(0, s.ev.n);
	CHECK_INT(1, count_dirs(s.w));

	see_end(&s, d);
}

TEST(fswatch_paths_join_once)
{
	struct fsw_dir root = { "/", true, 0, NULL, 1 }, slash = { "out/", true, 0, NULL, 2 },
		       plain = { "out", true, 0, NULL, 3 };
	CHECK_STR_FREE("/a", fswatch_path(&root, "a"));
	CHECK_STR_FREE("out/a", fswatch_path(&slash, "a"));
	CHECK_STR_FREE("out/a", fswatch_path(&plain, "a"));
}
