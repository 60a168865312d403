/* test_watch_stale.c - watch/stale: a page whose source was found empty
 * is held when the source was emptied after its run began (or just
 * before), however late the check after the render comes. */
#include <stdlib.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "tree/manifest.h"
#include "../../watch/stale.h"
#include "helpers.h"
#include "unit.h"

static bool never_ignored(void *arg, const char *path)
{
	(void)arg;
	(void)path;
	return false;
}

/* Whether stale_hold holds a copy of a page file written with text, its
 * check come late (wait_ms after the write), the run begun before the
 * write when begun_first, else after the wait. */
static bool held_late(const char *text, bool begun_first, long wait_ms, long long *retry_at)
{
	char *dir = unit_temp_dir("stale");
	CHECK(dir != NULL);
	if (!dir)
		return false;
	struct stale s;
	stale_init(&s, NULL, true, never_ignored, NULL);
	if (begun_first)
		stale_begin_run(&s);
	unit_put(dir, "page.html", text);
	usleep((useconds_t)wait_ms * 1000);
	if (!begun_first)
		stale_begin_run(&s);
	struct manifest_entry *e = manifest_entry_new("/page.html");
	char *path = xasprintf("%s/page.html", dir);
	bool hold = stale_hold(&s, e, NULL, path);
	struct fsw_events ev = FSW_EVENTS_INIT;
	char err[ERR_LEN];
	CHECK_INT(0, stale_take_early(&s, &ev, retry_at, err));
	fsw_events_clear(&ev);
	free(path);
	manifest_entry_free(e);
	stale_release(&s);
	unit_drop_dir(dir);
	return hold;
}

TEST(stale_emptied_during_the_run_is_held_however_late_the_check)
{
	long long retry_at = 0;
	/* the writer truncated it (its event not queued yet), the render read
	 * it empty, and the check came late */
	CHECK(held_late("", true, 150, &retry_at));
	CHECK(retry_at > 0); /* tried again, event or not */
}

TEST(stale_emptied_long_before_the_run_is_not_held)
{
	long long retry_at = 0;
	/* emptied on purpose before the batch: published as it is */
	CHECK(!held_late("", false, STALE_EMPTY_MS + 100, &retry_at));
	CHECK_INT(0, retry_at);
}

TEST(stale_emptied_shortly_before_the_run_is_held_until_the_window_ends)
{
	long long retry_at = 0;
	/* a truncation 300 ms before the batch, its event still not queued
	 * (a writer descheduled on a loaded machine): held, and tried again
	 * once STALE_EMPTY_MS has passed since, not every few ms */
	CHECK(held_late("", false, 300, &retry_at));
	CHECK(retry_at > 0);
}

TEST(stale_written_during_the_run_is_not_held_without_an_event)
{
	long long retry_at = 0;
	/* not empty: only the events (none here) hold it */
	CHECK(!held_late("<p>whole</p>\n", true, 150, &retry_at));
}
