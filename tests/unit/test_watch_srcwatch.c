/* test_watch_srcwatch.c - the sources watcher (recursive, over inotify) on real
 * directories: writes, new and removed directories, moves, a single file
 * replaced by rename, a real queue overflow, the watch-limit message, and
 * sources that go missing and come back (deleted, moved, a parent moved).
 * The kernel queues events when the system call returns, so each check
 * reads right after the change, without waiting. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"
#include "../../watch/srcwatch.h"
#include "helpers.h"
#include "unit.h"

/* Every flag reported for path itself, or-ed. */
static unsigned flags_at(const struct fsw_events *ev, const char *path)
{
	unsigned f = 0;
	for (size_t i = 0; i < ev->n; i++)
		if (ev->items[i].path && !strcmp(ev->items[i].path, path))
			f |= ev->items[i].flags;
	/* How a change came (a write still open, a rename) is passed on as
	 * fswatch says it; test_fswatch and test_watch_settle look at it. */
	return f & ~(unsigned)(FSW_WRITING | FSW_RENAMED);
}

/* Every flag reported for dir/name, or-ed. */
static unsigned flags_of(const struct fsw_events *ev, const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	unsigned f = flags_at(ev, p);
	free(p);
	return f;
}

/* Events carrying flag. */
static size_t count_flag(const struct fsw_events *ev, unsigned flag)
{
	size_t n = 0;
	for (size_t i = 0; i < ev->n; i++)
		n += (ev->items[i].flags & flag) != 0;
	return n;
}

static bool overflowed(const struct fsw_events *ev)
{
	for (size_t i = 0; i < ev->n; i++)
		if (ev->items[i].flags & FSW_OVERFLOW)
			return true;
	return false;
}

/* Read what is ready into a fresh list. */
static void drain(struct srcwatch *w, struct fsw_events *ev)
{
	char err[ERR_LEN];
	fsw_events_clear(ev);
	CHECK_INT(0, srcwatch_read(w, ev, err));
}

TEST(watch_sources_tree_writes_creates_removes)
{
	char err[ERR_LEN];
	char *d = unit_temp_dir("watch");
	CHECK(d != NULL);
	unit_make_dir(d, "sub");
	unit_put(d, "sub/old.txt", "x");
	struct srcwatch *w = srcwatch_new(err);
	CHECK_INT(0, srcwatch_add(w, d, err));
	CHECK_INT(2, srcwatch_count(w));

	struct fsw_events ev = FSW_EVENTS_INIT;
	drain(w, &ev);
	CHECK_INT(0, ev.n); /* nothing happened yet */

	unit_put(d, "sub/new.txt", "1");
	unit_put(d, "sub/old.txt", "2");
	char *old = xasprintf("%s/sub/old.txt", d);
	unlink(old);
	drain(w, &ev);
	CHECK_INT(FSW_CREATED | FSW_CHANGED, flags_of(&ev, d, "sub/new.txt"));
	CHECK_INT(FSW_CHANGED | FSW_REMOVED, flags_of(&ev, d, "sub/old.txt"));

	/* an editor's save: write a temp file, rename it over the page */
	unit_put(d, "sub/.new.txt.swp", "3");
	char *from = xasprintf("%s/sub/.new.txt.swp", d), *to = xasprintf("%s/sub/new.txt", d);
	CHECK_INT(0, rename(from, to));
	drain(w, &ev);
	CHECK_INT(FSW_CREATED, flags_of(&ev, d, "sub/new.txt"));
	CHECK_INT(FSW_CREATED | FSW_CHANGED | FSW_REMOVED, flags_of(&ev, d, "sub/.new.txt.swp"));

	fsw_events_clear(&ev);
	srcwatch_free(w);
	unit_remove_tree(d);
	free(old);
	free(from);
	free(to);
	free(d);
}

TEST(watch_sources_new_directories_are_scanned_and_watched)
{
	char err[ERR_LEN];
	char *d = unit_temp_dir("watch");
	struct srcwatch *w = srcwatch_new(err);
	struct fsw_events ev = FSW_EVENTS_INIT;
	CHECK_INT(0, srcwatch_add(w, d, err));

	/* files made before watch has seen the new directories */
	unit_make_dir(d, "ns");
	unit_make_dir(d, "ns/deep");
	unit_put(d, "ns/a.txt", "a");
	unit_put(d, "ns/deep/b.txt", "b");
	drain(w, &ev);
	CHECK_INT(FSW_CREATED | FSW_DIR, flags_of(&ev, d, "ns"));
	CHECK(flags_of(&ev, d, "ns/deep") & FSW_CREATED);
	CHECK(flags_of(&ev, d, "ns/a.txt") & FSW_CREATED);
	CHECK(flags_of(&ev, d, "ns/deep/b.txt") & FSW_CREATED);
	CHECK_INT(3, srcwatch_count(w));

	/* and from now on watched directly */
	unit_put(d, "ns/deep/c.txt", "c");
	drain(w, &ev);
	CHECK_INT(FSW_CREATED | FSW_CHANGED, flags_of(&ev, d, "ns/deep/c.txt"));

	/* removed: reported, and the watches are gone */
	char *ns = xasprintf("%s/ns", d);
	unit_remove_tree(ns);
	drain(w, &ev);
	CHECK(flags_of(&ev, d, "ns") & FSW_REMOVED);
	CHECK(flags_of(&ev, d, "ns/deep/c.txt") & FSW_REMOVED);
	CHECK_INT(1, srcwatch_count(w));

	fsw_events_clear(&ev);
	srcwatch_free(w);
	unit_remove_tree(d);
	free(ns);
	free(d);
}

TEST(watch_sources_directories_moved_out_and_in)
{
	char err[ERR_LEN];
	char *d = unit_temp_dir("watch"), *outside = unit_temp_dir("watch");
	struct srcwatch *w = srcwatch_new(err);
	struct fsw_events ev = FSW_EVENTS_INIT;
	unit_make_dir(d, "pages");
	unit_make_dir(d, "pages/ns");
	unit_put(d, "pages/ns/p.txt", "p");
	CHECK_INT(0, srcwatch_add(w, d, err));
	CHECK_INT(3, srcwatch_count(w));

	char *from = xasprintf("%s/pages/ns", d), *away = xasprintf("%s/ns", outside);
	CHECK_INT(0, rename(from, away));
	drain(w, &ev);
	CHECK_INT(FSW_REMOVED | FSW_DIR, flags_of(&ev, d, "pages/ns"));
	CHECK_INT(2, srcwatch_count(w));
	unit_put(outside, "ns/later.txt", "x"); /* no longer ours */
	drain(w, &ev);
	CHECK_INT(0, ev.n);

	char *back = xasprintf("%s/pages/back", d);
	CHECK_INT(0, rename(away, back));
	drain(w, &ev);
	CHECK_INT(FSW_CREATED | FSW_DIR, flags_of(&ev, d, "pages/back"));
	CHECK_INT(FSW_CREATED, flags_of(&ev, d, "pages/back/p.txt"));
	CHECK_INT(FSW_CREATED, flags_of(&ev, d, "pages/back/later.txt"));
	CHECK_INT(3, srcwatch_count(w));
	unit_put(d, "pages/back/p.txt", "q");
	drain(w, &ev);
	CHECK_INT(FSW_CHANGED, flags_of(&ev, d, "pages/back/p.txt"));

	fsw_events_clear(&ev);
	srcwatch_free(w);
	unit_remove_tree(d);
	unit_remove_tree(outside);
	free(from);
	free(away);
	free(back);
	free(d);
	free(outside);
}

TEST(watch_sources_single_file_survives_rename)
{
	char err[ERR_LEN];
	char *d = unit_temp_dir("watch");
	struct srcwatch *w = srcwatch_new(err);
	struct fsw_events ev = FSW_EVENTS_INIT;
	unit_put(d, "db.sqlite", "v1");
	char *db = xasprintf("%s/db.sqlite", d);
	CHECK_INT(0, srcwatch_add(w, db, err));
	CHECK_INT(1, srcwatch_count(w));

	unit_put(d, "db.sqlite-journal", "j"); /* a neighbour: not watched */
	unit_put(d, "db.sqlite", "v2");
	drain(w, &ev);
	CHECK_INT(FSW_CHANGED, flags_of(&ev, d, "db.sqlite"));
	CHECK_INT(0, flags_of(&ev, d, "db.sqlite-journal"));

	/* written in place by a program that keeps it open: IN_MODIFY */
	int fd = open(db, O_WRONLY | O_APPEND);
	CHECK(write(fd, "+", 1) == 1);
	drain(w, &ev);
	CHECK_INT(FSW_CHANGED, flags_of(&ev, d, "db.sqlite"));
	close(fd);
	drain(w, &ev);
	CHECK_INT(FSW_CHANGED, flags_of(&ev, d, "db.sqlite"));

	/* replaced by a rename (a new database built beside it) */
	unit_put(d, "db.new", "v3");
	char *tmp = xasprintf("%s/db.new", d);
	CHECK_INT(0, rename(tmp, db));
	drain(w, &ev);
	CHECK_INT(FSW_CREATED, flags_of(&ev, d, "db.sqlite"));
	CHECK_INT(0, flags_of(&ev, d, "db.new"));
	/* and still watched afterwards */
	unit_put(d, "db.sqlite", "v4");
	drain(w, &ev);
	CHECK(flags_of(&ev, d, "db.sqlite") & FSW_CHANGED);

	/* the same directory as a tree too: now every name counts */
	CHECK_INT(0, srcwatch_add(w, d, err));
	CHECK_INT(1, srcwatch_count(w));
	unit_put(d, "other", "o");
	drain(w, &ev);
	CHECK(flags_of(&ev, d, "other") & FSW_CREATED);

	fsw_events_clear(&ev);
	srcwatch_free(w);
	unit_remove_tree(d);
	free(db);
	free(tmp);
	free(d);
}

static long max_queued_events(void)
{
	long v = -1;
	FILE *f = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

TEST(watch_sources_real_overflow_then_rescan)
{
	long max = max_queued_events();
	if (max <= 0 || max > 200000)
		return; /* a queue this large takes too long to fill here */
	char err[ERR_LEN];
	char *d = unit_temp_dir("watch");
	struct srcwatch *w = srcwatch_new(err);
	struct fsw_events ev = FSW_EVENTS_INIT;
	CHECK_INT(0, srcwatch_add(w, d, err));
	/* Each rename is two events (moved from, moved to), and back and
	 * forth never repeats the last event (which the kernel would merge). */
	unit_put(d, "a", "");
	char *a = xasprintf("%s/a", d), *b = xasprintf("%s/b", d);
	for (long i = 0; i < max / 2 + 64; i++)
		rename(i % 2 ? b : a, i % 2 ? a : b);
	free(a);
	free(b);
	/* made while the queue is full: its event is lost */
	unit_make_dir(d, "late");
	drain(w, &ev);
	CHECK(overflowed(&ev));
	CHECK_INT(0, flags_of(&ev, d, "late"));
	/* the rescan after the overflow watches it all the same */
	CHECK_INT(2, srcwatch_count(w));
	unit_put(d, "late/x", "x");
	drain(w, &ev);
	CHECK(!overflowed(&ev));
	CHECK(flags_of(&ev, d, "late/x") & FSW_CREATED);

	fsw_events_clear(&ev);
	srcwatch_free(w);
	unit_drop_dir(d);
}

TEST(watch_sources_missing_source_and_limit_message)
{
	char err[ERR_LEN];
	struct srcwatch *w = srcwatch_new(err);
	CHECK_INT(-1, srcwatch_add(w, "/nonexistent/cgisnap/source", err));
	CHECK_STR("cannot watch '/nonexistent/cgisnap/source': No such file or directory", err);
	srcwatch_free(w);

	char *m = srcwatch_limit_message("/srv/wiki/data", 8192, 120);
	CHECK_STR("cannot watch '/srv/wiki/data': the inotify watch limit is reached "
		  "(fs.inotify.max_user_watches = 8192); the sources need 120 watches (one per directory) "
		  "besides those other programs hold: raise it, e.g. sysctl fs.inotify.max_user_watches=8312",
		  m);
	free(m);
	m = srcwatch_limit_message("/d", -1, 1);
	CHECK_STR("cannot watch '/d': the inotify watch limit is reached (fs.inotify.max_user_watches); "
		  "the sources need 1 watch (one per directory) besides those other programs hold: "
		  "raise it with sysctl",
		  m);
	free(m);
}

TEST(watch_sources_source_deleted_then_recreated)
{
	char err[ERR_LEN];
	char *top = unit_temp_dir("watch");
	char *src = xasprintf("%s/pages", top);
	struct srcwatch *w = srcwatch_new(err);
	struct fsw_events ev = FSW_EVENTS_INIT;
	unit_make_dir(top, "pages");
	unit_make_dir(top, "pages/ns");
	unit_put(top, "pages/ns/p.txt", "p");
	CHECK_INT(0, srcwatch_add(w, src, err));
	CHECK_INT(2, srcwatch_count(w));
	CHECK(srcwatch_intact(w));

	unit_remove_tree(src);
	CHECK(!srcwatch_intact(w)); /* seen by stat, before any event is read */
	drain(w, &ev);
	CHECK_INT(FSW_GONE | FSW_DIR, flags_at(&ev, src)); /* not FSW_REMOVED: not a deletion of its pages */
	CHECK_INT(1, count_flag(&ev, FSW_GONE));
	CHECK_INT(0, count_flag(&ev, FSW_BACK));
	CHECK_INT(0, srcwatch_count(w));
	struct fsw_events none = FSW_EVENTS_INIT;
	CHECK_INT(1, srcwatch_check(w, &none));
	CHECK_INT(0, none.n); /* reported once */

	/* made again, with content: back, and watched below too */
	unit_make_dir(top, "pages");
	unit_make_dir(top, "pages/ns");
	unit_put(top, "pages/ns/p.txt", "p2");
	drain(w, &ev);
	CHECK_INT(FSW_BACK | FSW_DIR, flags_at(&ev, src));
	CHECK_INT(0, count_flag(&ev, FSW_GONE));
	CHECK_INT(2, srcwatch_count(w));
	CHECK(srcwatch_intact(w));
	CHECK_INT(0, srcwatch_check(w, &none));
	CHECK_INT(0, none.n);
	unit_put(top, "pages/ns/p.txt", "p3");
	drain(w, &ev);
	CHECK_INT(FSW_CHANGED, flags_of(&ev, top, "pages/ns/p.txt"));
	/* the parent is watched for names no longer: nothing about it */
	unit_put(top, "neighbour", "n");
	drain(w, &ev);
	CHECK_INT(0, ev.n);

	fsw_events_clear(&ev);
	srcwatch_free(w);
	unit_remove_tree(top);
	free(src);
	free(top);
}

TEST(watch_sources_source_moved_away_and_back)
{
	char err[ERR_LEN];
	char *top = unit_temp_dir("watch");
	char *src = xasprintf("%s/pages", top), *away = xasprintf("%s/away", top);
	char *other = xasprintf("%s/other", top);
	struct srcwatch *w = srcwatch_new(err);
	struct fsw_events ev = FSW_EVENTS_INIT;
	unit_make_dir(top, "pages");
	unit_make_dir(top, "pages/ns");
	CHECK_INT(0, srcwatch_add(w, src, err));

	CHECK_INT(0, rename(src, away));
	drain(w, &ev);
	CHECK_INT(FSW_GONE | FSW_DIR, flags_at(&ev, src));
	CHECK_INT(0, srcwatch_count(w));
	unit_put(top, "away/ns/x.txt", "x"); /* the moved copy is not the source */
	drain(w, &ev);
	CHECK_INT(0, ev.n);

	CHECK_INT(0, rename(away, src));
	drain(w, &ev);
	CHECK_INT(FSW_BACK | FSW_DIR, flags_at(&ev, src));
	CHECK_INT(2, srcwatch_count(w));
	unit_put(top, "pages/ns/x.txt", "y");
	drain(w, &ev);
	CHECK_INT(FSW_CHANGED, flags_of(&ev, top, "pages/ns/x.txt"));

	/* replaced by another directory in one step */
	unit_make_dir(top, "other");
	unit_put(top, "other/o.txt", "o");
	CHECK_INT(0, rename(src, away));
	CHECK_INT(0, rename(other, src));
	drain(w, &ev);
	CHECK_INT(FSW_GONE | FSW_BACK | FSW_DIR, flags_at(&ev, src));
	CHECK_INT(1, srcwatch_count(w));
	unit_put(top, "pages/o.txt", "o2");
	unit_put(top, "away/ns/x.txt", "z");
	drain(w, &ev);
	CHECK_INT(FSW_CHANGED, flags_of(&ev, top, "pages/o.txt"));
	CHECK_INT(0, flags_of(&ev, top, "pages/ns/x.txt"));

	fsw_events_clear(&ev);
	srcwatch_free(w);
	unit_remove_tree(top);
	free(src);
	free(away);
	free(other);
	free(top);
}

TEST(watch_sources_parent_of_source_moved_then_replaced)
{
	char err[ERR_LEN];
	char *top = unit_temp_dir("watch");
	char *data = xasprintf("%s/data", top), *old = xasprintf("%s/data.old", top);
	char *src = xasprintf("%s/data/pages", top);
	struct srcwatch *w = srcwatch_new(err);
	struct fsw_events ev = FSW_EVENTS_INIT;
	unit_make_dir(top, "data");
	unit_make_dir(top, "data/pages");
	CHECK_INT(0, srcwatch_add(w, src, err));
	CHECK_INT(1, srcwatch_count(w));

	/* a deploy: the site's directory moved aside, a new one put there */
	CHECK_INT(0, rename(data, old));
	drain(w, &ev);
	CHECK_INT(FSW_GONE | FSW_DIR, flags_at(&ev, src));
	unit_put(top, "data.old/pages/a.txt", "a"); /* no longer the source */
	drain(w, &ev);
	CHECK_INT(0, ev.n);
	unit_make_dir(top, "data");
	drain(w, &ev);
	CHECK_INT(0, ev.n); /* on the way, not there yet */
	unit_make_dir(top, "data/pages");
	unit_put(top, "data/pages/b.txt", "b");
	drain(w, &ev);
	CHECK_INT(FSW_BACK | FSW_DIR, flags_at(&ev, src));
	CHECK_INT(1, srcwatch_count(w));
	unit_put(top, "data/pages/b.txt", "b2");
	drain(w, &ev);
	CHECK_INT(FSW_CHANGED, flags_of(&ev, top, "data/pages/b.txt"));

	/* the whole parent deleted, then made again in one go */
	unit_remove_tree(data);
	drain(w, &ev);
	CHECK_INT(FSW_GONE | FSW_DIR, flags_at(&ev, src));
	CHECK_INT(0, mkdir(data, 0755));
	CHECK_INT(0, mkdir(src, 0755));
	drain(w, &ev);
	CHECK_INT(FSW_BACK | FSW_DIR, flags_at(&ev, src));
	unit_put(top, "data/pages/c.txt", "c");
	drain(w, &ev);
	CHECK(flags_of(&ev, top, "data/pages/c.txt") & FSW_CREATED);

	fsw_events_clear(&ev);
	srcwatch_free(w);
	unit_remove_tree(top);
	free(data);
	free(old);
	free(src);
	free(top);
}

TEST(watch_sources_single_file_source_gone_and_back)
{
	char err[ERR_LEN];
	char *d = unit_temp_dir("watch");
	char *db = xasprintf("%s/db.sqlite", d);
	struct srcwatch *w = srcwatch_new(err);
	struct fsw_events ev = FSW_EVENTS_INIT;
	unit_put(d, "db.sqlite", "v1");
	CHECK_INT(0, srcwatch_add(w, db, err));

	/* replaced by a rename: a change, not a source gone */
	unit_put(d, "db.new", "v2");
	char *tmp = xasprintf("%s/db.new", d);
	CHECK_INT(0, rename(tmp, db));
	drain(w, &ev);
	CHECK_INT(FSW_CREATED, flags_at(&ev, db));

	unlink(db);
	drain(w, &ev);
	CHECK_INT(FSW_REMOVED | FSW_GONE, flags_at(&ev, db));
	CHECK(!srcwatch_intact(w));
	unit_put(d, "db.sqlite", "v3");
	drain(w, &ev);
	CHECK(flags_at(&ev, db) & FSW_BACK);
	CHECK(srcwatch_intact(w));
	CHECK_INT(1, srcwatch_count(w));

	/* its directory deleted and made again */
	unit_remove_tree(d);
	drain(w, &ev);
	CHECK(flags_at(&ev, db) & FSW_GONE);
	CHECK_INT(0, srcwatch_count(w));
	CHECK_INT(0, mkdir(d, 0755));
	unit_put(d, "db.sqlite", "v4");
	drain(w, &ev);
	CHECK(flags_at(&ev, db) & FSW_BACK);
	unit_put(d, "db.sqlite", "v5");
	drain(w, &ev);
	CHECK_INT(FSW_CHANGED, flags_at(&ev, db));

	fsw_events_clear(&ev);
	srcwatch_free(w);
	unit_remove_tree(d);
	free(db);
	free(tmp);
	free(d);
}

TEST(watch_sources_subdirectory_deleted_and_recreated)
{
	char err[ERR_LEN];
	char *d = unit_temp_dir("watch");
	char *ns = xasprintf("%s/ns", d);
	struct srcwatch *w = srcwatch_new(err);
	struct fsw_events ev = FSW_EVENTS_INIT;
	unit_make_dir(d, "ns");
	unit_make_dir(d, "ns/deep");
	unit_put(d, "ns/deep/a.txt", "a");
	CHECK_INT(0, srcwatch_add(w, d, err));
	CHECK_INT(3, srcwatch_count(w));

	for (int round = 0; round < 3; round++) {
		unit_remove_tree(ns);
		drain(w, &ev);
		CHECK(flags_of(&ev, d, "ns") & FSW_REMOVED); /* a deletion inside a source */
		CHECK_INT(0, count_flag(&ev, FSW_GONE));
		CHECK_INT(1, srcwatch_count(w));
		unit_make_dir(d, "ns");
		unit_make_dir(d, "ns/deep");
		unit_put(d, "ns/deep/a.txt", "a");
		drain(w, &ev);
		CHECK(flags_of(&ev, d, "ns/deep/a.txt") & FSW_CREATED);
		CHECK_INT(3, srcwatch_count(w));
		unit_put(d, "ns/deep/a.txt", "b");
		drain(w, &ev);
		CHECK_INT(FSW_CHANGED, flags_of(&ev, d, "ns/deep/a.txt"));
	}

	fsw_events_clear(&ev);
	srcwatch_free(w);
	unit_remove_tree(d);
	free(ns);
	free(d);
}
