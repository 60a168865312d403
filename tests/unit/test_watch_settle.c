/* test_watch_settle.c - watch/settle: when a batch is due after the event
 * sequences editors and tools really make (as inotify reports them), an
 * open save waiting out the quiet window, the cap, the temporary names. */
#include <stdio.h>

#include "base/fswatch.h"
#include "../../watch/settle.h"
#include "unit.h"

#define W FSW_CHANGED
#define OPENW (FSW_CHANGED | FSW_WRITING)
#define C FSW_CREATED
#define MT (FSW_CREATED | FSW_RENAMED)
#define D FSW_REMOVED
#define MF (FSW_REMOVED | FSW_RENAMED)

struct step {
	const char *path;
	unsigned flags;
};

/* Note steps at 1 ms apart from t = 1000; returns why the batch is due
 * and sets *due. */
static enum settle_why run(struct settle *s, const struct step *steps, size_t n, long long *due)
{
	enum settle_why why;
	for (size_t i = 0; i < n; i++)
		settle_note(s, steps[i].path, steps[i].flags, 1000 + (long long)i);
	*due = settle_due(s, &why);
	return why;
}

/* The batch of s is due at the time at (-1: none) for the reason want. */
#define CHECK_DUE(s, at, want)                                   \
	do {                                                     \
		enum settle_why why_;                            \
		CHECK_INT((at), settle_due((s), &why_));         \
		CHECK_INT((want), why_);                         \
	} while (0)

#define RUN(s, steps, due) run((s), (steps), sizeof(steps) / sizeof((steps)[0]), (due))

TEST(settle_a_closed_write_is_due_at_once)
{
	struct settle s;
	long long due;
	enum settle_why why;
	settle_init(&s, 10, 100);
	CHECK_DUE(&s, -1, SETTLE_NONE);
	const struct step echo[] = { { "/d/p/a.txt", W } };
	CHECK_INT(SETTLE_AT_ONCE, RUN(&s, echo, &due));
	CHECK_INT(1000, due);
	settle_reset(&s);
	/* created, then closed: printf > new.txt */
	const struct step create[] = { { "/d/p/new.txt", C }, { "/d/p/new.txt", W } };
	CHECK_INT(SETTLE_AT_ONCE, RUN(&s, create, &due));
	settle_reset(&s);
	/* a directory made has nothing to close */
	settle_note(&s, "/d/p/ns", C | FSW_DIR, 5);
	CHECK_INT(SETTLE_AT_ONCE, (settle_due(&s, &why), why));
	settle_release(&s);
}

TEST(settle_an_open_write_waits_for_its_close_or_the_quiet)
{
	struct settle s;
	long long due;
	settle_init(&s, 10, 100);
	const struct step open_write[] = { { "/d/db.sqlite", OPENW }, { "/d/db.sqlite", OPENW } };
	CHECK_INT(SETTLE_QUIET, RUN(&s, open_write, &due));
	CHECK_INT(1001 + 10, due);
	CHECK_INT(1, settle_open_count(&s));
	settle_note(&s, "/d/db.sqlite", W, 1003);
	CHECK_DUE(&s, 1003, SETTLE_AT_ONCE);
	settle_reset(&s);
	/* a file created, not closed yet (or a link, which never closes) */
	settle_note(&s, "/d/link", C, 2000);
	CHECK_DUE(&s, 2010, SETTLE_QUIET);
	settle_release(&s);
}

/* A database the renders write too, written by another program (an
 * edit saved by a maintenance script): the batch waits for its close,
 * past the quiet window and the --debounce cap, up to the tree cap; a
 * program that kept it open that long is not waited for again until it
 * closes it. */
TEST(settle_a_database_the_renders_write_waits_for_its_writer)
{
	struct settle s;
	settle_init(&s, 10, 100);
	settle_set_tree(&s, 500, 5000);
	const unsigned DBW = OPENW | SETTLE_SHARED;
	settle_note(&s, "/d/wiki.sqlite", DBW, 1000);
	CHECK_DUE(&s, 6000, SETTLE_WRITER);
	settle_note(&s, "/d/wiki.sqlite", DBW, 3000); /* seconds between its transactions */
	CHECK_DUE(&s, 6000, SETTLE_WRITER);
	settle_note(&s, "/d/wiki.sqlite", W | SETTLE_SHARED, 3500); /* its close */
	CHECK_DUE(&s, 3500, SETTLE_AT_ONCE);
	settle_reset(&s);
	/* a file no render writes: the quiet window, as before */
	settle_note(&s, "/d/other.sqlite", OPENW, 4000);
	CHECK_DUE(&s, 4010, SETTLE_QUIET);
	settle_reset(&s);
	/* a daemon keeping it open: once waited to the cap, then as any file open */
	settle_note(&s, "/d/wiki.sqlite", DBW, 10000);
	CHECK_DUE(&s, 15000, SETTLE_WRITER);
	settle_reset(&s); /* the batch ran at the cap */
	settle_note(&s, "/d/wiki.sqlite", DBW, 20000);
	CHECK_DUE(&s, 20010, SETTLE_QUIET);
	settle_note(&s, "/d/wiki.sqlite", W | SETTLE_SHARED, 20005); /* closed at last */
	settle_reset(&s);
	settle_note(&s, "/d/wiki.sqlite", DBW, 30000);
	CHECK_DUE(&s, 35000, SETTLE_WRITER);
	/* a source come back since: its quiet window from the return wins */
	settle_note_back(&s, 34900);
	CHECK_DUE(&s, 35400, SETTLE_BACK);
	settle_release(&s);
}

TEST(settle_a_stream_of_open_writes_is_cut_at_the_cap)
{
	struct settle s;
	settle_init(&s, 10, 100);
	for (long long t = 0; t < 95; t += 5)
		settle_note(&s, "/d/log", OPENW, 1000 + t);
	CHECK_DUE(&s, 1100, SETTLE_CAP);
	settle_release(&s);
}

TEST(settle_sed_i_is_one_save)
{
	struct settle s;
	long long due;
	settle_init(&s, 10, 100);
	const struct step before[] = { { "/d/p/sedA1b2C3", C }, { "/d/p/sedA1b2C3", W } };
	CHECK_INT(SETTLE_QUIET, RUN(&s, before, &due)); /* the temporary waits for its rename */
	const struct step rename[] = { { "/d/p/sedA1b2C3", MF }, { "/d/p/a.txt", MT } };
	CHECK_INT(SETTLE_AT_ONCE, RUN(&s, rename, &due));
	settle_release(&s);
}

TEST(settle_gedit_and_emacs_saves_are_one_save)
{
	struct settle s;
	long long due;
	settle_init(&s, 10, 100);
	const struct step gedit[] = { { "/d/.goutputstream-XY12ZQ", C }, { "/d/.goutputstream-XY12ZQ", W },
				      { "/d/.goutputstream-XY12ZQ", MF } };
	/* A temporary renamed away is used up: the kernel queues the
	 * rename's other half with it, so one read holds both. */
	CHECK_INT(SETTLE_AT_ONCE, RUN(&s, gedit, &due));
	settle_note(&s, "/d/a.txt", MT, 1005);
	enum settle_why why;
	settle_due(&s, &why);
	CHECK_INT(SETTLE_AT_ONCE, why);
	CHECK_INT(0, settle_open_count(&s));
	settle_reset(&s);
	/* emacs: the lock link, the file renamed to its backup, written anew */
	const struct step emacs[] = { { "/d/.#a.txt", C },     { "/d/a.txt", MF }, { "/d/a.txt~", MT },
				      { "/d/a.txt", C },       { "/d/a.txt", W },  { "/d/.#a.txt", D } };
	CHECK_INT(SETTLE_QUIET, RUN(&s, emacs, &due)); /* the backup stays: a save may go on */
	CHECK_INT(1005 + 10, due);
	settle_release(&s);
}

TEST(settle_vim_save_is_one_save)
{
	struct settle s;
	long long due;
	settle_init(&s, 10, 100);
	/* vim probes the directory first: nothing is saved yet */
	const struct step probe[] = { { "/d/p/4913", C }, { "/d/p/4913", W }, { "/d/p/4913", D } };
	CHECK_INT(SETTLE_QUIET, RUN(&s, probe, &due));
	/* then renames the file to its backup, writes it anew, drops the backup */
	const struct step save[] = { { "/d/p/a.txt", MF }, { "/d/p/a.txt~", MT }, { "/d/p/a.txt", C },
				     { "/d/p/a.txt", W }, { "/d/p/a.txt", W }, { "/d/p/a.txt~", D } };
	CHECK_INT(SETTLE_AT_ONCE, RUN(&s, save, &due));
	CHECK_INT(0, settle_open_count(&s));
	settle_reset(&s);
	/* a probe in another directory is not closed by this save */
	const struct step other[] = { { "/d/q/4913", C }, { "/d/q/4913", D }, { "/d/p/b.txt", W } };
	CHECK_INT(SETTLE_QUIET, RUN(&s, other, &due));
	settle_release(&s);
}

TEST(settle_a_removal_waits_for_what_may_follow)
{
	struct settle s;
	long long due;
	settle_init(&s, 10, 100);
	const struct step rm[] = { { "/d/p/a.txt", D } };
	CHECK_INT(SETTLE_QUIET, RUN(&s, rm, &due));
	settle_reset(&s);
	CHECK_INT(0, settle_open_count(&s));
	settle_note_now(&s, 7);
	CHECK_DUE(&s, 7, SETTLE_AT_ONCE);
	settle_release(&s);
}

TEST(settle_temp_names)
{
	const char *temp[] = { "4913", "5036", "a.txt~", ".a.txt.swp", "a.swx", ".a.swo", "sedX1y2Z3",
			       ".goutputstream-ABC123", ".#a.txt", "#a.txt#", "x.tmp" };
	const char *real[] = { "4914", "123", "a.txt", "sed.txt", "sedabc", "~a", "swp", "#", "##", ".tmpx", "" };
	for (size_t i = 0; i < sizeof temp / sizeof temp[0]; i++)
		if (!settle_temp_name(temp[i]))
			unit_fail(__FILE__, __LINE__, "'%s' is a temporary name", temp[i]);
	for (size_t i = 0; i < sizeof real / sizeof real[0]; i++)
		if (settle_temp_name(real[i]))
			unit_fail(__FILE__, __LINE__, "'%s' is no temporary name", real[i]);
}

TEST(settle_quiet_waits_even_after_a_finished_save)
{
	struct settle s;
	enum settle_why why;
	settle_init(&s, 10, 100);
	settle_set_quiet(&s, 50);
	/* a finished write no longer starts at once: 50 ms of quiet first */
	settle_note(&s, "/d/p/a.txt", W, 1000);
	CHECK_DUE(&s, 1050, SETTLE_QUIET);
	/* the next file of the same save moves it on */
	settle_note(&s, "/d/meta/a.changes", W, 1030);
	CHECK_INT(1080, settle_due(&s, &why));
	/* never past the cap */
	settle_note(&s, "/d/meta/a.indexed", W, 1090);
	CHECK_DUE(&s, 1100, SETTLE_CAP);
	settle_reset(&s);
	/* the setting outlives a batch */
	settle_note(&s, "/d/p/b.txt", W, 2000);
	CHECK_INT(2050, settle_due(&s, &why));
	settle_release(&s);
}

TEST(settle_a_removal_waits_for_the_tree_window)
{
	struct settle s;
	enum settle_why why;
	settle_init(&s, 10, 100);
	settle_set_tree(&s, 500, 10000);
	/* rm -rf: files, then their directory; the source itself comes last */
	settle_note(&s, "/d/p/ns/a.txt", D, 1000);
	settle_note(&s, "/d/p/ns/b.txt", D, 1001);
	settle_note(&s, "/d/p/ns", D | FSW_DIR, 1300);
	CHECK_DUE(&s, 1800, SETTLE_QUIET);
	/* past --debounce: a pause in the removal does not start the batch */
	settle_note(&s, "/d/p/c.txt", D, 1700);
	CHECK_INT(2200, settle_due(&s, &why));
	/* vim's probe: its save may come after as long a pause */
	settle_reset(&s);
	settle_note(&s, "/d/p/4913", C, 2000);
	settle_note(&s, "/d/p/4913", D, 2001);
	CHECK_DUE(&s, 2501, SETTLE_QUIET);
	/* a name saved again is no removal left open */
	settle_reset(&s);
	settle_note(&s, "/d/p/a.txt", D, 3000);
	settle_note(&s, "/d/p/a.txt", C, 3001);
	settle_note(&s, "/d/p/a.txt", W, 3002);
	CHECK_DUE(&s, 3002, SETTLE_AT_ONCE);
	/* a removal that never rests is cut at the tree cap */
	settle_reset(&s);
	for (long long t = 0; t < 10500; t += 100)
		settle_note(&s, "/d/p/log.txt", D, 5000 + t);
	CHECK_DUE(&s, 15000, SETTLE_CAP);
	settle_release(&s);
}

TEST(settle_a_retry_noted_ahead_keeps_the_first_change_first)
{
	struct settle s;
	enum settle_why why;
	settle_init(&s, 10, 100);
	/* a held page's retry, due in 1 s; then an edit before it */
	settle_note_now(&s, 2000);
	CHECK_INT(2000, settle_due(&s, &why)); /* nothing left open: at once, then */
	settle_note(&s, "/d/p/a.txt", W, 1200);
	CHECK_INT(1200, s.first_ms);
	CHECK_INT(2000, s.last_ms);
	settle_release(&s);
}

TEST(settle_a_source_back_waits_for_its_quiet_from_its_return)
{
	struct settle s;
	enum settle_why why;
	settle_init(&s, 10, 100);
	settle_set_tree(&s, 500, 10000);
	/* changes noted while it was missing, long before it came back */
	settle_note(&s, "/d/p/a.txt", W, 1000);
	settle_note_now(&s, 2000);
	settle_note_back(&s, 60000);
	CHECK_DUE(&s, 60500, SETTLE_BACK);
	/* the copy goes on: finished files move it on */
	settle_note(&s, "/d/p/b.txt", C, 60300);
	settle_note(&s, "/d/p/b.txt", W, 60301);
	CHECK_DUE(&s, 60801, SETTLE_BACK);
	/* capped from the return */
	settle_note(&s, "/d/p/c.txt", W, 69900);
	CHECK_DUE(&s, 70000, SETTLE_CAP);
	settle_reset(&s);
	settle_note(&s, "/d/p/a.txt", W, 80000);
	CHECK_DUE(&s, 80000, SETTLE_AT_ONCE);
	/* without settle_set_tree, the windows are settle_init's */
	settle_init(&s, 10, 100);
	settle_note_back(&s, 1000);
	CHECK_INT(1010, settle_due(&s, &why));
	settle_release(&s);
}

TEST(settle_a_save_temporary_or_backup_left_waits_for_the_tree_window)
{
	struct settle s;
	long long due;
	enum settle_why why;
	settle_init(&s, 10, 100);
	settle_set_tree(&s, 50, 1000);
	/* vim, backupcopy=no: the file renamed to its backup, written anew
	 * and closed; it removes the backup next, and may pause first */
	const struct step save[] = { { "/d/p/a.txt", MF }, { "/d/p/a.txt~", MT }, { "/d/p/a.txt", C },
				     { "/d/p/a.txt", OPENW }, { "/d/p/a.txt", W } };
	CHECK_INT(SETTLE_QUIET, RUN(&s, save, &due));
	CHECK_INT(1004 + 50, due); /* not the 10 ms window: the save is not over */
	settle_note(&s, "/d/p/a.txt~", D, 1040);
	CHECK_DUE(&s, 1040, SETTLE_AT_ONCE);
	settle_reset(&s);
	/* backupcopy=yes: the backup is a copy, the file written in place */
	const struct step copy[] = { { "/d/p/a.txt~", C }, { "/d/p/a.txt~", OPENW }, { "/d/p/a.txt~", W },
				     { "/d/p/a.txt", OPENW }, { "/d/p/a.txt", W } };
	CHECK_INT(SETTLE_QUIET, RUN(&s, copy, &due));
	CHECK_INT(1004 + 50, due);
	settle_reset(&s);
	CHECK_INT(0, s.save_temps);
	/* gedit's temporary made, its writer paused before writing it */
	settle_note(&s, "/d/p/.goutputstream-XY12ZQ", C, 1000);
	CHECK_INT(1000 + 50, settle_due(&s, &why));
	settle_reset(&s);
	/* a swap file or emacs' lock stays while the file is edited: the
	 * quiet window only */
	settle_note(&s, "/d/p/.a.txt.swp", C, 1000);
	settle_note(&s, "/d/p/.#a.txt", C, 1001);
	CHECK_DUE(&s, 1001 + 10, SETTLE_QUIET);
	settle_release(&s);
}
