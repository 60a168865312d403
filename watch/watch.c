/* watch.c - 'cgisnap watch': keep a snapshot fresh. This file holds the
 * command line (the options, --help) and runs the steps of watcher.h:
 * the set-up (setup.c), the start (start.c: a full snapshot when the tree
 * is older than its sources, or a catch-up), and the main loop (batch.c):
 * inotify events are gathered into batches (gather.c), each batch
 * re-renders the pages that depend on what changed, publishes them, logs
 * one line and runs the --exec hook.
 *
 * No fixed debounce: a batch starts as soon as the changes gathered end
 * in finished saves (settle.h: a file closed, a temporary renamed over
 * the page), after a few ms of quiet while a save may still be under way
 * (an editor's temporary file, a file still open), and at the latest
 * --debounce ms after its first change; a name removed or a source come
 * back (a tree going or coming) waits for a longer quiet. Changes that
 * come while a batch renders wait in the kernel's queue and make the
 * next batch.
 *
 * Signals are blocked and read from a signalfd: between batches by the
 * loop, during a crawl by a thread of its own (interrupt.c), so that
 * SIGINT/SIGTERM stop watch at once (exit 0): the renders under way
 * finish and are recorded, none other starts. SIGUSR1 asks for a full
 * re-crawl, as after an inotify overflow.
 *
 * Changes inotify cannot see (a database row) come in two ways: 'cgisnap
 * notify' names pages or paths on the control socket (control.h), which
 * join the pending batch like a change; --poll S re-renders the --always
 * and --depends pages every S seconds. Both write only what changed.
 *
 * A source that goes missing is an error, not the deletion of the site:
 * while one is missing no batch runs (changes wait), and a run that finds
 * one gone at its end removes nothing; when every source is back, a full
 * re-crawl brings the tree up to date (anything may have changed).
 */
#include <stdio.h>
#include <string.h>

#include "watcher.h"
#include "commands.h"
#include "base/log.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/originopts.h"
#include "cli/profileopts.h"
#include "crawl/links.h"
#include "trace/tracer.h"

#define STR_(x) #x
#define STR(x) STR_(x) /* a number macro as a string, for the help */

struct watch_options watch_options;

static const struct opt watch_opts[] = {
	{ "source", 0, OPT_LIST, &watch_options.sources, "PATH",
	  "a directory or file holding the site's data (repeatable; more PATHs may follow before DIR)", 0, 0 },
	{ "depends", 0, OPT_LIST, &watch_options.depends, "'REGEX => URL'",
	  "re-render URL when a changed path matches REGEX ($1..$9: its groups; repeatable)", 0, 0 },
	{ "always", 0, OPT_LIST, &watch_options.always, "URL", "re-render URL on every change (repeatable)", 0, 0 },
	{ "ignore", 0, OPT_LIST, &watch_options.ignore, "REGEX",
	  "changes to paths matching REGEX start nothing (repeatable)", 0, 0 },
	{ "settle", 0, OPT_INT, &watch_options.settle_ms, "MS",
	  "wait for MS ms without events before every batch, also after a finished save (default 0: at once); "
	  "for an application whose one save writes several files one after the other (the dokuwiki profile "
	  "sets it: a page, its changelogs, its index)", 0, 10000 },
	{ "debounce", 0, OPT_INT, &watch_options.debounce_ms, "MS",
	  "the longest a batch waits for a save under way, from its first change (default 100). A finished "
	  "save (a file closed, a temporary renamed in) starts the batch at once; one that may still be under "
	  "way (an editor's temporary file, a file still open) after " STR(SETTLE_WINDOW_MS) " ms without events "
	  "(MS if smaller)",
	  1, 60000 },
	{ "poll", 0, OPT_INT, &watch_options.poll_s, "S",
	  "every S seconds, re-render the --always pages and every page a --depends rule names (for data "
	  "inotify cannot see, such as a database; only what changed is written)", 1, 86400 },
	{ "exec", 0, OPT_STR, &watch_options.exec, "CMD",
	  "after each batch that wrote or removed files, run CMD (sh -c, in DIR): stdin lists the paths written, "
	  "$CGISNAP_REMOVED names a list of those removed (see below)", 0, 0 },
	{ "source-command", 0, OPT_STR, &watch_options.source_command, "CMD",
	  "run CMD (sh -c, in --root) at start: each line it prints is a --source (profiles: DokuWiki's savedir)",
	  0, 0 },
	{ "no-trace", 0, OPT_BOOL, &watch_options.no_trace, NULL,
	  "do not record what CGI renders read (use --depends/--always, or re-crawl)", 0, 0 },
	OPT_END
};

static void print_help(const struct opt *const *tables)
{
	printf("usage: cgisnap watch [OPTIONS] --source PATH [PATH...] DIR\n\n"
	       "Keep the snapshot in DIR fresh: when a file under a --source changes,\n"
	       "re-render the pages that depend on it and publish them. A tree that is\n"
	       "empty or older than its sources first gets a full snapshot; with tracing,\n"
	       "one whose dependencies are complete (made by a traced 'cgisnap snapshot'\n"
	       "or left by watch, with the same origin options: DIR/.cgisnap/depstate)\n"
	       "gets none: watch starts at once and its first batch re-renders what the\n"
	       "files changed since the tree's last run touch (-v lists them). Runs until\n"
	       "SIGINT or SIGTERM, at once even mid-crawl: the renders under way finish and\n"
	       "are recorded, no other starts, and the next start redoes what was left;\n"
	       "SIGUSR1 asks for a\n"
	       "full re-crawl (only changed files are rewritten).\n\n"
	       "Every source must exist at start. One that goes missing later (deleted,\n"
	       "moved away) is an error, not the deletion of the site: it is logged,\n"
	       "nothing is re-rendered or removed until it is back, and then the whole\n"
	       "site is re-crawled. --source-command, or a site profile (the dokuwiki one\n"
	       "asks DokuWiki's configuration for its data directory, the wordpress one\n"
	       "WordPress's for wp-content and wp-config.php), can name the sources instead.\n\n"
	       "Which pages depend on a file: for CGI origins (--root) every render is\n"
	       "traced (an LD_PRELOAD library records what it reads and lists); for any\n"
	       "origin, --depends and --always rules; with neither, any change re-crawls\n"
	       "the whole site. A file read through a symbolic link counts where the link\n"
	       "leads: make that directory a --source. A render the tracer cannot see whole\n"
	       "(a statically linked program, one that closes or replaces descriptor 3) is\n"
	       "said once per program, and its page re-renders on every change.\n\n"
	       "A batch starts as soon as the changes seen end in finished saves (a file\n"
	       "closed after writing, a temporary file renamed over it: sed -i, vim,\n"
	       "gedit): no fixed wait. While a save may still be under way (an editor's\n"
	       "temporary or backup file, a file still open) it waits until no change\n"
	       "came for " STR(SETTLE_WINDOW_MS) " ms, and never more than --debounce ms after its first\n"
	       "change. A name removed, or a source that came back, may be a whole tree\n"
	       "going or coming (rm -rf, cp -a): then it waits until no change came for\n"
	       STR(TREE_WINDOW_MS) " ms, and at most " STR(TREE_CAP_MS) " ms (or --debounce ms). A file the\n"
	       "renders write too (a database), written by another program that still\n"
	       "has it open, keeps the batch waiting until it is closed, as long. Changes made\n"
	       "while a batch renders make the next one; a page whose render read a file\n"
	       "that changed meanwhile, or one still open for writing (rewritten in\n"
	       "place), is held: the tree keeps its last version until the next batch\n"
	       "renders it again.\n\n"
	       "Data no file change stands for (a database): 'cgisnap notify DIR URL...'\n"
	       "re-renders pages at once, through the socket DIR/.cgisnap/control (see\n"
	       "'cgisnap notify --help'); --poll S re-renders the --always and --depends\n"
	       "pages every S seconds. Either writes only the files whose bytes changed.\n\n"
	       "-v says why each URL is re-rendered, then what became of it:\n"
	       "  re-render /doku.php?id=a: /w/data/pages/a.txt changed (R /w/data/pages/a.txt)\n"
	       "  200 changed 41 ms 5123 bytes /doku.php?id=a\n"
	       "the changed path (changed, created, removed) and the recorded dependency of\n"
	       "the page it touches (R read, E checked for existence, L directory listed, C\n"
	       "directory's files all read, U untraced), or the --depends rule, --always, or\n"
	       "notified. 'cgisnap why DIR URL' shows a page's recorded dependencies.\n\n"
	       "--exec CMD keeps mirrors exact. It runs after the initial snapshot and each\n"
	       "batch that wrote or removed anything, in DIR. Its stdin (also the file\n"
	       "$CGISNAP_WRITTEN) lists every path written, one per line, relative to DIR:\n"
	       "pages, their .gz siblings, and .cgisnap/tree.db (checkpointed first), settings\n"
	       "and 404.html when they changed (serve and the nginx and Apache configurations\n"
	       "read those; a mirror needs nothing else of .cgisnap/). The file $CGISNAP_REMOVED lists\n"
	       "every path removed: files, and each directory left empty as 'dir/', listed\n"
	       "after everything that was in it (rm -f, rmdir in that order apply it). A\n"
	       "path is never in both. docs/watch.md shows rsync and rclone commands for them.\n\n"
	       "Examples:\n"
	       "  cgisnap watch --root /var/www/wiki --cgi php=php-cgi --seed /doku.php \\\n"
	       "      --source /var/www/wiki/data out/\n"
	       "  cgisnap watch --origin http://127.0.0.1:8080/ --source /srv/wiki/data/pages \\\n"
	       "      --depends 'pages/(.*)\\.txt$ => /doku.php?id=$1' \\\n"
	       "      --always '/doku.php?id=start&do=recent' \\\n"
	       "      --exec 'rsync -a --files-from=- . edge:/www/' out/\n\n"
	       "Options (also from a file with -c FILE, one 'name = value' per line):\n");
	opts_print_help(stdout, tables);
	opts_print_common(stdout, tables, OPTS_CONFIG_FILE);
	printf("\nThe tracer is $%s, else build/%s beside the program, else\n"
	       "%s/%s.\n"
	       "Exit status: 0 stopped by a signal; 1 watching failed; 2 usage or set-up error;\n"
	       "75 the tree is busy: another cgisnap holds its lock (silent under -q).\n",
	       TRACER_ENV, TRACER_NAME, CGISNAP_LIBDIR, TRACER_NAME);
}

int cmd_watch(int argc, char **argv)
{
	const struct opt *const tables[] = { origin_opts, crawl_opts, profile_opts, watch_opts, NULL };
	struct strlist args = STRLIST_INIT;
	struct watcher w;
	bool links_ready = false;
	char err[ERR_LEN];
	int rc = profile_opts_parse("watch", tables, argc, argv, &args, err);

	memset(&w, 0, sizeof w);
	w.sigfd = -1;
	dep_recorder_init(&w.recorder);
	stale_init(&w.stale, NULL, false, watcher_stale_ignored, &w);
	rc = cli_parsed("watch", rc, err, print_help, tables);
	if (rc != CLI_GO_ON)
		goto out;
	if (args.n == 0) {
		rc = usage_error("watch", "no output directory given");
		goto out;
	}
	if (!watch_options.sources.n && !watch_options.source_command) {
		rc = usage_error("watch", args.n > 1 ? "give the sources with --source PATH"
						     : "no --source given: which files hold the site's data?");
		goto out;
	}
	links_init();
	links_ready = true;
	rc = watcher_open(&w, &args);
	if (rc)
		goto out;
	if (watcher_start(&w) < 0 || watcher_loop(&w) < 0)
		rc = EXIT_PARTIAL;
	else
		log_info("stopped after %ld batch%s", w.batches, w.batches == 1 ? "" : "es");
out:
	watcher_release(&w);
	if (links_ready)
		links_cleanup();
	cli_release(&args, tables);
	return rc;
}
