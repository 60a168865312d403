/* watch.c - 'cgisnap watch': keep a snapshot fresh. The command line, the
 * start-up (a full snapshot when the tree is older than its sources), and
 * the main loop: inotify events are gathered into batches, each batch
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
 * Signals are blocked and read from a signalfd between batches, so a
 * batch in progress always finishes: SIGINT/SIGTERM stop after it (exit
 * 0), SIGUSR1 asks for a full re-crawl, as after an inotify overflow.
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
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catchup.h"
#include "base/clock.h"
#include "commands.h"
#include "control.h"
#include "cli/crawlopts.h"
#include "deps.h"
#include "deps/depstate.h"
#include "exec.h"
#include "srcwatch.h"
#include "crawl/links.h"
#include "base/log.h"
#include "tree/manifest.h"
#include "base/opts.h"
#include "cli/originopts.h"
#include "cli/profileopts.h"
#include "base/relist.h"
#include "scan.h"
#include "settle.h"
#include "base/shcmd.h"
#include "stale.h"
#include "trace/tracer.h"
#include "base/xalloc.h"

#define DEFAULT_DEBOUNCE_MS 100
/* The quiet that ends a save that may be under way: an editor's steps
 * (write a temporary, rename it, remove the backup) come within a few ms
 * of each other; --debounce is the cap. */
#define SETTLE_WINDOW_MS 25
/* A tree going or coming (settle.h: a name removed, a source back) is
 * waited for longer, for its quiet, whatever --debounce says: an rm -rf
 * or a cp -a of a source may pause under load for far longer than an
 * editor's steps, and a batch started half way would prune, or re-crawl
 * half a copy. Its cap bounds a source that never rests. */
#define TREE_WINDOW_MS 500
#define TREE_CAP_MS 10000
#define STR_(x) #x
#define STR(x) STR_(x) /* a number macro as a string, for the help */
/* Changed paths named in a batch's log line. */
#define SUMMARY_PATHS 3
#define SOURCE_BACK_REASON "a missing source came back"
/* A missing source is looked for this often besides its parent's events
 * (a parent watch the kernel refused: unreadable, the watch limit). */
#define MISSING_CHECK_MS 1000

static struct {
	struct strlist sources, depends, always, ignore;
	long debounce_ms, poll_s, settle_ms;
	char *exec;
	char *source_command;
	bool no_trace;
} watch_options;

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

struct watcher {
	struct crawl_setup s;
	struct crawl *crawl;
	struct dep_recorder recorder; /* the crawl's render hooks */
	struct stale stale;           /* the crawl's hold hook: renders that may have read half a save */
	struct srcwatch *fsw;
	struct watch_rules rules;
	struct dep_index index;
	regex_t *ignore;
	size_t nignore;
	struct strlist sources; /* absolute, symbolic links resolved */
	struct strlist missing; /* sources missing now: no batch runs */
	bool removal_refused;   /* the last run found a source missing at its end */
	char *tracer;           /* NULL: no tracing */
	int sigfd;
	bool masked;            /* signals blocked: restore old_mask at the end */
	sigset_t old_mask;
	long debounce_ms;
	bool stop;
	struct control *control; /* the socket 'cgisnap notify' talks to */
	long long poll_ms;       /* 0: no --poll */
	long long next_poll_ms;
	bool poll_due;           /* the next batch is (also) a poll */

	/* the batch being gathered */
	struct changes pending;
	struct settle settle;        /* when it is due; first_ms 0: nothing pending */
	const char *full_reason;     /* a full re-crawl is due, and why */
	long batches;
	struct exec_meta meta_at_start; /* before the settings were saved */

	/* The tree's dependencies are complete (depstate.h): as of since,
	 * recorded with these origin settings. */
	bool have_state;
	struct depstate state;
	char fingerprint[65];
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
	       "SIGINT or SIGTERM (the batch in progress is finished); SIGUSR1 asks for a\n"
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
	       STR(TREE_WINDOW_MS) " ms, and at most " STR(TREE_CAP_MS) " ms (or --debounce ms). Changes made\n"
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
	       "path is never in both. The README shows rsync and rclone commands for them.\n\n"
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

/* ---- set-up ---- */

/* Compile the --ignore regexes; -1 with err. */
static int compile_ignore(struct watcher *w, char *err)
{
	return relist_compile(&watch_options.ignore, REG_NOSUB, "--ignore", &w->ignore, &w->nignore, err);
}

/* The sources as absolute paths with symbolic links resolved (inotify and
 * the tracer both report real paths); -1 with err. */
static int resolve_sources(struct watcher *w, const struct strlist *given, char *err)
{
	for (size_t i = 0; i < given->n; i++) {
		char *real = realpath(given->items[i], NULL);
		if (!real && (errno == ENOENT || errno == ENOTDIR))
			return err_set(err, "source '%s' does not exist: watch starts only when every source is there",
				       given->items[i]);
		if (!real)
			return err_sys(err, "cannot watch source '%s'", given->items[i]);
		if (!strlist_contains(&w->sources, real))
			strlist_add(&w->sources, real);
		free(real);
	}
	return 0;
}

/* The largest output of --source-command: a few paths. */
#define SOURCE_COMMAND_MAX (64 * 1024)

/* Run --source-command in dir (the document root, or here) and add each
 * line it prints to given (a relative path taken under dir). -1 with err when it cannot run, fails, or
 * prints nothing: watch needs to know what to watch. */
static int run_source_command(const char *cmd, const char *dir, struct strlist *given, char *err)
{
	struct buf out = BUF_INIT;
	int status, rc = -1;
	bool too_long;
	if (shcmd_output("--source-command", cmd, dir, SOURCE_COMMAND_MAX, &out, &status, &too_long, err) < 0)
		return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (WIFEXITED(status))
			err_set(err, "--source-command '%s' exited %d", cmd, WEXITSTATUS(status));
		else
			err_set(err, "--source-command '%s' was killed by signal %d", cmd, WTERMSIG(status));
		goto out;
	}
	if (too_long) {
		err_set(err, "--source-command '%s' printed more than %d KiB", cmd, SOURCE_COMMAND_MAX / 1024);
		goto out;
	}
	size_t before = given->n;
	struct strlist lines = STRLIST_INIT;
	char *text = xstrndup(out.data ? out.data : "", out.len);
	strlist_split(&lines, text, '\n');
	free(text);
	/* Relative to where it ran, as it meant them. */
	for (size_t i = 0; i < lines.n; i++)
		if (lines.items[i][0] == '/' || !dir)
			strlist_add(given, lines.items[i]);
		else
			strlist_add_owned(given, xasprintf("%s/%s", dir, lines.items[i]));
	strlist_clear(&lines);
	if (given->n == before) {
		err_set(err, "--source-command '%s' printed no source", cmd);
		goto out;
	}
	rc = 0;
out:
	buf_release(&out);
	return rc;
}

/* path is dir or below it. */
static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0' || (n == 1 && dir[0] == '/'));
}

/* Where dir is or would be, symbolic links resolved (fresh string); NULL
 * when not even its parent exists (tree_open will say so). */
static char *real_tree_path(const char *dir)
{
	char *real = realpath(dir, NULL);
	if (real)
		return real;
	char *parent = xstrdup(dir);
	size_t n = strlen(parent);
	while (n > 1 && parent[n - 1] == '/')
		parent[--n] = '\0';
	char *slash = strrchr(parent, '/');
	char *base = xstrdup(slash ? slash + 1 : parent);
	if (!slash)
		strcpy(parent, ".");
	else if (slash == parent)
		parent[1] = '\0'; /* "/x": the parent is "/" */
	else
		*slash = '\0';
	char *real_parent = realpath(parent, NULL);
	char *path = NULL;
	if (real_parent)
		path = xasprintf("%s/%s", strcmp(real_parent, "/") ? real_parent : "", base);
	free(real_parent);
	free(parent);
	free(base);
	return path;
}

/* A tree inside a source would see its own files change: a loop. Checked
 * before the tree is created. */
static int check_tree_outside(const struct watcher *w, const char *dir, char *err)
{
	char *real = real_tree_path(dir);
	int rc = 0;
	if (!real)
		return 0;
	for (size_t i = 0; i < w->sources.n && rc == 0; i++)
		if (path_under(real, w->sources.items[i]) || path_under(w->sources.items[i], real))
			rc = err_set(err, "the tree '%s' and the source '%s' overlap: watch would see its own writes",
				     dir, w->sources.items[i]);
	free(real);
	return rc;
}

/* Which traced paths become dependencies: the sources, the document
 * root and the mounted directories (their scripts). */
static void set_dep_roots(struct watcher *w)
{
	struct strlist *roots = &w->recorder.roots;
	for (size_t i = 0; i < w->sources.n; i++)
		strlist_add(roots, w->sources.items[i]);
	if (origin_options.root) {
		char *real = realpath(origin_options.root, NULL);
		if (real && !strlist_contains(roots, real))
			strlist_add(roots, real);
		free(real);
	}
	struct strlist mounted = STRLIST_INIT;
	origin_mount_dirs(w->s.origin, &mounted);
	for (size_t i = 0; i < mounted.n; i++)
		if (!strlist_contains(roots, mounted.items[i]))
			strlist_add(roots, mounted.items[i]);
	strlist_clear(&mounted);
}

/* What the tree says of its dependencies (depstate.h). Without tracing
 * the renders record none: whatever it said stops being true. With it,
 * what the snapshot's renders wrote counts as the renders' own writes. */
static int load_state(struct watcher *w, char *err)
{
	depstate_fingerprint(&origin_options, w->s.site.url, w->fingerprint);
	if (!w->tracer)
		return depstate_clear(&w->s.tree, err);
	int found = depstate_load(&w->s.tree, &w->state, err);
	if (found < 0)
		return -1;
	w->have_state = found > 0;
	struct strlist written = STRLIST_INIT;
	int rc = depstate_load_written(&w->s.tree, &written, err);
	for (size_t i = 0; i < written.n; i++)
		dep_recorder_note_written(&w->recorder, written.items[i]);
	strlist_clear(&written);
	return rc;
}

/* Block the signals watch handles and return a descriptor that reads
 * them; -1 with err. Blocked before any thread starts, so no renderer
 * thread ever takes one. */
static int signals_open(struct watcher *w, char *err)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	if (pthread_sigmask(SIG_BLOCK, &set, &w->old_mask) != 0)
		return err_set(err, "cannot block signals");
	w->masked = true;
	int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return err_sys(err, "cannot make a signalfd");
	return fd;
}

/* Why the tree needs a full snapshot before watching, or NULL when it is
 * as new as its sources (the manifest exists, holds recorded
 * dependencies when tracing is on, and is newer than every source file). */
static const char *initial_crawl_reason(struct watcher *w)
{
	const struct manifest *m = crawl_manifest(w->crawl);
	if (manifest_count(m) == 0)
		return "the tree is empty";
	if (w->tracer) {
		/* A traced snapshot, or a watch, said its dependencies are
		 * complete: the changes since come from the files' times. */
		if (!w->have_state)
			return "the tree has no recorded dependencies";
		if (w->state.policy != DEPREC_POLICY)
			return "the tree's dependencies were recorded by another version of cgisnap";
		if (strcmp(w->state.origin, w->fingerprint))
			return "the tree's dependencies were recorded with other origin settings";
		return NULL;
	}
	struct timespec handled;
	char err[ERR_LEN];
	if (manifest_handled(&w->s.tree, &handled, err) != 0)
		return "the tree has no manifest";
	struct scan_stats st;
	memset(&st, 0, sizeof st);
	for (size_t i = 0; i < w->sources.n; i++)
		scan_path(w->sources.items[i], &st);
	if (timespec_after(&st.newest, &handled))
		return "the sources changed since the last snapshot";
	return NULL;
}

static int take_events(struct watcher *w, char *err);

/* The dependencies are complete up to now when every change read is
 * handled: record it (depstate.h), so that a later start catches up from
 * here. The time is taken before the events are read: a change after it
 * may not be handled yet. Only with tracing: the dependencies are then
 * watch's own. */
static void state_advance(struct watcher *w)
{
	char err[ERR_LEN];
	struct timespec now;
	if (!w->tracer)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	if (take_events(w, err) < 0)
		return; /* the main loop reads (and says) it again */
	if (w->settle.first_ms || w->full_reason || w->missing.n || w->removal_refused)
		return;
	w->state.policy = DEPREC_POLICY;
	memcpy(w->state.origin, w->fingerprint, sizeof w->state.origin);
	w->state.since = now;
	w->have_state = true;
	if (depstate_save(&w->s.tree, &w->state, err) < 0)
		log_warn("%s", err);
}

/* ---- batches ---- */

/* Whether a changed path starts nothing: the renders wrote it, or
 * --ignore says so. */
static bool ignored(struct watcher *w, const char *path)
{
	if (dep_recorder_written(&w->recorder, path))
		return true; /* the site's own output (caches, indexes, logs) */
	return relist_match(w->ignore, w->nignore, path);
}

/* ignored() for the hold hook (stale.h). */
static bool stale_ignored(void *arg, const char *path)
{
	return ignored(arg, path);
}

/* A file closed empty: most likely truncated by a writer that writes
 * next (truncate then append, ': > f' then 'cat >> f'), so its save is
 * taken as under way until the quiet window passes. A file emptied on
 * purpose is published that much later. */
static bool closed_empty(const struct fsw_event *e)
{
	struct stat st;
	if (!(e->flags & FSW_CHANGED) || (e->flags & (FSW_WRITING | FSW_DIR | FSW_REMOVED)))
		return false;
	return lstat(e->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

/* A change with nothing to finish (a signal, a notify, a poll) came now:
 * it starts (or extends) the pending batch. */
static void note_activity(struct watcher *w)
{
	settle_note_now(&w->settle, now_ms());
}

/* Take a string out of a list (its first copy). */
static void strlist_take_out(struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i], s)) {
			free(l->items[i]);
			memmove(&l->items[i], &l->items[i + 1], (l->n - i - 1) * sizeof *l->items);
			l->n--;
			return;
		}
}

/* A source went missing or came back. */
static void source_event(struct watcher *w, const struct fsw_event *e)
{
	if (e->flags & FSW_GONE) {
		if (!strlist_contains(&w->missing, e->path)) {
			strlist_add(&w->missing, e->path);
			log_error("source '%s' is missing: pages are neither re-rendered nor pruned until it is back",
				  e->path);
		}
		return;
	}
	strlist_take_out(&w->missing, e->path);
	w->full_reason = SOURCE_BACK_REASON;
	/* A source comes back by a rename or by a copy still being made
	 * (cp -a, a deploy): the re-crawl waits for the tree's quiet window,
	 * capped from now, not from a change made while it was missing, so
	 * that it does not read half a copy. */
	settle_note_back(&w->settle, now_ms());
	if (!w->missing.n)
		log_info("source '%s' is back: re-crawling", e->path);
	else
		log_info("source '%s' is back: re-crawling when '%s' is too", e->path, w->missing.items[0]);
}

/* Add events to the pending batch. */
static void take(struct watcher *w, const struct fsw_events *ev)
{
	for (size_t i = 0; i < ev->n; i++) {
		const struct fsw_event *e = &ev->items[i];
		if (e->flags & (FSW_GONE | FSW_BACK)) {
			source_event(w, e);
			continue;
		}
		if (e->flags & FSW_OVERFLOW) {
			if (!w->full_reason)
				log_warn("inotify dropped events (its queue overflowed): re-crawling everything");
			w->full_reason = "the inotify event queue overflowed, changes were lost";
			stale_note(&w->stale, NULL, FSW_OVERFLOW, now_ms());
			note_activity(w);
			continue;
		}
		if (ignored(w, e->path))
			continue;
		log_debug("change: %s%s%s%s %s", e->flags & FSW_CHANGED ? "W" : "",
			  e->flags & FSW_CREATED ? "C" : "", e->flags & FSW_REMOVED ? "D" : "",
			  e->flags & FSW_DIR ? "/" : "", e->path);
		changes_add(&w->pending, e->path, e->flags);
		long long now = now_ms();
		settle_note(&w->settle, e->path, e->flags | (closed_empty(e) ? FSW_WRITING : 0), now);
		stale_note(&w->stale, e->path, e->flags, now);
	}
}

/* After a crawl run: the events its hold checks read are the next
 * batch's, and so are the pages it held (stale.h): each is rendered
 * again with the change that held it, or when the file it read is
 * closed. They start no batch themselves: the event, or the close, does. */
static void take_early(struct watcher *w, const struct crawl_result *res)
{
	char err[ERR_LEN];
	struct fsw_events ev = FSW_EVENTS_INIT;
	long long retry_at;
	if (stale_take_early(&w->stale, &ev, &retry_at, err) < 0)
		log_warn("%s: the pages rendered since were held", err);
	take(w, &ev);
	fsw_events_clear(&ev);
	for (size_t i = 0; i < res->held_targets.n; i++)
		changes_add_url(&w->pending, res->held_targets.items[i]);
	/* Due then, or sooner with an event: a change noted at a time to
	 * come makes a batch due at that time (settle.h). */
	if (retry_at && res->held_targets.n)
		settle_note_now(&w->settle, retry_at);
}

/* Add what the kernel reported to the pending batch. */
static int take_events(struct watcher *w, char *err)
{
	struct fsw_events ev = FSW_EVENTS_INIT;
	int rc = srcwatch_read(w->fsw, &ev, err);
	take(w, &ev);
	fsw_events_clear(&ev);
	return rc;
}

/* Every source is there now (looked at, not only told by events: a parent
 * directory moved, the events not read yet). */
static bool sources_present(struct watcher *w)
{
	struct fsw_events ev = FSW_EVENTS_INIT;
	srcwatch_check(w->fsw, &ev);
	take(w, &ev);
	fsw_events_clear(&ev);
	return w->missing.n == 0;
}

/* The crawl's question before it removes files, asked after the renders:
 * a source that vanished meanwhile made its pages fail, not go. */
static bool removal_ok(void *arg)
{
	struct watcher *w = arg;
	w->removal_refused = w->missing.n || !srcwatch_intact(w->fsw);
	return !w->removal_refused;
}

/* After a run that found a source gone: what it rendered without the
 * source is rendered again when the source is back. */
static void note_refused_removal(struct watcher *w)
{
	if (!w->removal_refused)
		return;
	log_warn("a source went missing during the run: nothing was removed");
	w->full_reason = SOURCE_BACK_REASON;
	w->removal_refused = false;
}

/* SIGINT/SIGTERM: stop; SIGUSR1: a full re-crawl is due. */
static void take_signals(struct watcher *w)
{
	struct signalfd_siginfo si;
	while (read(w->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGUSR1) {
			w->full_reason = "SIGUSR1 received";
			note_activity(w);
			if (w->missing.n)
				log_info("SIGUSR1 received: the full re-crawl waits until every source is back");
		} else {
			w->stop = true;
		}
	}
}

/* The --exec hook after a batch that wrote or removed files (meta: the
 * metadata files before it); its failure is logged, never fatal. */
static void run_exec(const struct watcher *w, const struct crawl_result *res, const struct exec_meta *meta)
{
	char err[ERR_LEN];
	if (!watch_options.exec)
		return;
	struct strlist written = STRLIST_INIT, removed = STRLIST_INIT;
	for (size_t i = 0; i < res->written_paths.n; i++)
		strlist_add(&written, res->written_paths.items[i]);
	for (size_t i = 0; i < res->removed_paths.n; i++)
		strlist_add(&removed, res->removed_paths.items[i]);
	exec_meta_changes(w->s.tree.meta_fd, meta, &written, &removed);
	if (written.n || removed.n) {
		exec_order(&written, &removed);
		int status = watch_exec(watch_options.exec, w->s.tree.path, &written, &removed, err);
		if (status < 0)
			log_error("%s", err);
		else if (status > 0)
			log_error("--exec '%s' exited with status %d", watch_options.exec, status);
	}
	strlist_clear(&written);
	strlist_clear(&removed);
}

/* The batch's line: what changed, what was rendered, how long it took
 * from the first change seen to the last file published. A poll alone
 * that changed nothing says so only with -v. */
static bool log_batch(const struct watcher *w, const char *full_reason, const struct crawl_result *res,
		      long long ms)
{
	struct buf b = BUF_INIT;
	size_t n = changes_count(&w->pending), nurls = w->pending.urls.n;
	const char *sep = "";
	if (w->poll_due && !n && !nurls && !full_reason && !res->changed_keys.n && !res->failed &&
	    !res->kept.n && !res->bound_note) {
		log_debug("poll: %ld URL%s re-rendered, nothing changed, %lld ms", res->pages,
			  res->pages == 1 ? "" : "s", ms);
		return false;
	}
	buf_adds(&b, "batch: ");
	if (n) {
		char *summary = changes_summary(&w->pending, SUMMARY_PATHS);
		buf_addf(&b, "%zu changed (%s)", n, summary);
		free(summary);
		sep = "; ";
	}
	if (nurls) {
		buf_addf(&b, "%s%zu notified (", sep, nurls);
		for (size_t i = 0; i < nurls && i < SUMMARY_PATHS; i++)
			buf_addf(&b, "%s%s", i ? ", " : "", w->pending.urls.items[i]);
		if (nurls > SUMMARY_PATHS)
			buf_addf(&b, " and %zu more", nurls - SUMMARY_PATHS);
		buf_adds(&b, ")");
		sep = "; ";
	}
	if (w->poll_due && !full_reason) {
		buf_addf(&b, "%spoll", sep);
		sep = "; ";
	}
	if (full_reason)
		buf_addf(&b, "%sfull re-crawl, %s", sep, full_reason);
	buf_addf(&b, ": %ld URL%s re-rendered, %ld file%s changed, %ld removed", res->pages,
		 res->pages == 1 ? "" : "s", res->stored_new + res->stored_changed,
		 res->stored_new + res->stored_changed == 1 ? "" : "s", res->removed);
	if (res->failed)
		buf_addf(&b, ", %ld failed", res->failed);
	if (res->skipped)
		buf_addf(&b, ", %ld skipped", res->skipped);
	if (res->held)
		buf_addf(&b, ", %ld held (a source was being written)", res->held);
	buf_addf(&b, ", %lld ms", ms);
	log_info("%s", b.data);
	/* What the commit cost: with the change, not the tree (tests/t0583). */
	log_debug("commit: %ld entries visited, %lld manifest rows compared", res->commit_visited,
		  res->rows_compared);
	buf_release(&b);
	for (size_t i = 0; i < res->errors.n; i++)
		log_warn("%s", res->errors.items[i]);
	for (size_t i = 0; i < res->nfailures; i++)
		log_warn("failed: %s: %s", res->failures[i].target, res->failures[i].reason);
	for (size_t i = 0; i < res->kept.n; i++)
		log_warn("%s", res->kept.items[i]);
	if (res->bound_note)
		log_warn("%s", res->bound_note);
	return true;
}

/* Forget the batch that was gathered; the notifies it held are answered
 * (res NULL: nothing needed re-rendering). */
static void batch_done(struct watcher *w, const struct crawl_result *res, const char *error)
{
	struct crawl_result none;
	memset(&none, 0, sizeof none);
	control_batch_done(w->control, res ? res : &none, error);
	changes_clear(&w->pending);
	settle_reset(&w->settle);
	w->poll_due = false;
}

/* Re-render what the pending changes affect (everything for a full
 * re-crawl), publish it, log it, and run the hook (the index of
 * recorded dependencies is the database the batch saved). */
static void run_batch(struct watcher *w)
{
	struct crawl_result res;
	struct strlist targets = STRLIST_INIT;
	char err[ERR_LEN];
	const char *full;
	int rc;

	if (!sources_present(w))
		return; /* held: the changes wait for the source */
	if (log_verbose()) {
		enum settle_why why;
		settle_due(&w->settle, &why);
		log_debug("batch due %s, %lld ms after its first change, %zu path%s left open", settle_why_text(why),
			  now_ms() - w->settle.first_ms, settle_open_count(&w->settle),
			  settle_open_count(&w->settle) == 1 ? "" : "s");
	}
	full = w->full_reason;
	/* Notified pages and polls name their pages: only a changed path
	 * with nothing to map it needs everything. */
	if (!full && changes_count(&w->pending) && !w->tracer && watch_rules_empty(&w->rules))
		full = "no dependencies are known (no tracing, no --depends or --always)";
	if (!full) {
		struct strlist why = STRLIST_INIT;
		deps_targets_why(&w->index, &w->rules, &w->s.site, &w->pending, &targets,
				 log_verbose() ? &why : NULL);
		/* -v: why each page is re-rendered, before its render says what it gave. */
		for (size_t i = 0; i < why.n; i++)
			log_info("re-render %s: %s", targets.items[i], why.items[i]);
		strlist_clear(&why);
		if (w->poll_due) {
			struct strlist polled = STRLIST_INIT;
			deps_poll_targets(&w->rules, &w->s.site, crawl_manifest(w->crawl), &polled);
			for (size_t i = 0; i < polled.n; i++)
				if (!strlist_contains(&targets, polled.items[i]))
					strlist_add(&targets, polled.items[i]);
			strlist_clear(&polled);
		}
		if (!targets.n) {
			char *summary = changes_summary(&w->pending, SUMMARY_PATHS);
			log_debug("no page depends on %s", summary);
			free(summary);
			batch_done(w, NULL, NULL);
			state_advance(w);
			return;
		}
	}
	struct exec_meta meta;
	exec_meta_snap(w->s.tree.meta_fd, &meta);
	rc = full ? crawl_full(w->crawl, &res, err) : crawl_update(w->crawl, &targets, &res, err);
	w->batches++;
	bool logged = log_batch(w, full, &res, now_ms() - w->settle.first_ms);
	/* A batch that changed nothing writes nothing: only full crawls
	 * are recorded as the tree's last run. */
	if (full)
		crawl_record_run(&w->s.tree, "watch (full re-crawl)", &res,
				 rc < 0 || res.failed || res.errors.n ? EXIT_PARTIAL : 0);
	w->full_reason = NULL;
	note_refused_removal(w);
	if (rc < 0) {
		/* The manifest may not match the tree now: the next change
		 * brings everything back in step. */
		log_error("%s", err);
		w->full_reason = "the last batch could not write the tree";
	}
	for (size_t i = 0; logged && i < res.rendered.n && log_verbose(); i++)
		log_debug("rendered %s", res.rendered.items[i]);
	/* The sources were handled up to now (initial_crawl_reason asks). */
	if (rc == 0 && changes_count(&w->pending) && manifest_set_handled(&w->s.tree, err) < 0)
		log_warn("%s", err);
	/* After every batch, or the log grows with each; whole for a mirror
	 * the hook copies tree.db to, waiting for no reader otherwise. */
	if (manifest_checkpoint(&w->s.tree, watch_options.exec != NULL, err) < 0)
		log_warn("%s", err);
	run_exec(w, &res, &meta);
	batch_done(w, &res, rc < 0 ? err : NULL);
	take_early(w, &res);
	crawl_result_release(&res);
	strlist_clear(&targets);
	if (rc == 0)
		state_advance(w);
}

/* A request on the control socket: its URLs and paths join the pending
 * batch, as changes do (control_fn). All or nothing: a URL of another
 * site refuses the whole request. */
static int on_notify(void *arg, const struct control_request *rq, struct strlist *targets, char *reply,
		     size_t replylen, char *err)
{
	struct watcher *w = arg;
	for (size_t i = 0; i < rq->urls.n; i++) {
		char *abs = url_resolve(w->s.site.url, rq->urls.items[i]);
		char *t = abs ? site_target(&w->s.site, abs) : NULL;
		free(abs);
		if (!t)
			return err_set(err, "'%s' is not a URL of the site '%s'", rq->urls.items[i], w->s.site.url);
		strlist_add_owned(targets, t);
	}
	for (size_t i = 0; i < targets->n; i++)
		changes_add_url(&w->pending, targets->items[i]);
	/* A path told is a change of any kind: every page that read it,
	 * checked it or listed its directory. */
	for (size_t i = 0; i < rq->paths.n; i++)
		changes_add(&w->pending, rq->paths.items[i], FSW_CHANGED | FSW_CREATED | FSW_REMOVED);
	note_activity(w);
	log_debug("notified: %zu URL%s, %zu path%s", rq->urls.n, rq->urls.n == 1 ? "" : "s", rq->paths.n,
		  rq->paths.n == 1 ? "" : "s");
	int n = snprintf(reply, replylen, "%zu URL%s and %zu path%s queued", rq->urls.n, rq->urls.n == 1 ? "" : "s",
			 rq->paths.n, rq->paths.n == 1 ? "" : "s");
	if (w->missing.n && n >= 0 && (size_t)n < replylen)
		snprintf(reply + n, replylen - (size_t)n, " (held until the missing source '%.100s' is back)",
			 w->missing.items[0]);
	return 0;
}

/* ms until the next --poll; -1 without --poll. */
static int poll_wait(const struct watcher *w)
{
	if (!w->poll_ms)
		return -1;
	long long left = w->next_poll_ms - now_ms();
	return left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/* The sooner of two poll(2) timeouts (-1: none). */
static int sooner(int a, int b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/* ms until the pending batch is due (settle.h); -1 when nothing is
 * pending. */
static int batch_wait(const struct watcher *w)
{
	enum settle_why why;
	long long due = settle_due(&w->settle, &why);
	if (why == SETTLE_NONE)
		return -1;
	long long left = due - now_ms();
	return left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/* Wait for changes and signals, run batches when they are due; 0 when a
 * signal stopped it, -1 when watching failed (logged). */
static int main_loop(struct watcher *w)
{
	char err[ERR_LEN];
	while (!w->stop) {
		struct pollfd pfd[2 + 1 + CONTROL_MAX_CLIENTS] = { { srcwatch_fd(w->fsw), POLLIN, 0 },
								   { w->sigfd, POLLIN, 0 } };
		size_t nctl = control_pollfds(w->control, pfd + 2, 1 + CONTROL_MAX_CLIENTS);
		/* While a source is missing only its return starts a batch. */
		int timeout = w->missing.n ? MISSING_CHECK_MS : sooner(batch_wait(w), poll_wait(w));
		int ready = poll(pfd, 2 + nctl, timeout);
		if (ready < 0 && errno != EINTR)
			return err_sys(err, "cannot wait for changes"), log_error("%s", err), -1;
		if (ready < 0)
			continue; /* the revents are not to be read */
		if (pfd[1].revents)
			take_signals(w);
		if (w->stop)
			break;
		if (pfd[0].revents && take_events(w, err) < 0)
			return log_error("%s", err), -1;
		control_handle(w->control, pfd + 2, nctl, on_notify, w);
		if (w->missing.n)
			sources_present(w);
		if (w->missing.n)
			continue;
		if (w->poll_ms && poll_wait(w) == 0) {
			/* A poll runs at once, with whatever is pending. */
			w->poll_due = true;
			note_activity(w);
			run_batch(w);
			w->next_poll_ms = now_ms() + w->poll_ms;
		} else if (w->settle.first_ms && batch_wait(w) == 0) {
			run_batch(w);
		}
	}
	return 0;
}

/* ---- the command ---- */

/* Free all of w, restoring the signal mask. */
static void watcher_release(struct watcher *w)
{
	control_close(w->control);
	crawl_free(w->crawl);
	dep_recorder_release(&w->recorder);
	srcwatch_free(w->fsw);
	watch_rules_release(&w->rules);
	relist_free(w->ignore, w->nignore);
	strlist_clear(&w->sources);
	strlist_clear(&w->missing);
	changes_clear(&w->pending);
	settle_release(&w->settle);
	stale_release(&w->stale);
	if (w->sigfd >= 0)
		close(w->sigfd);
	crawl_setup_close(&w->s);
	origin_options.trace_lib = NULL;
	free(w->tracer);
	if (w->masked)
		pthread_sigmask(SIG_SETMASK, &w->old_mask, NULL);
}

/* Everything up to the first wait. EXIT_USAGE (EXIT_BUSY: another cgisnap
 * holds the tree) with the error logged. */
static int watcher_open(struct watcher *w, const struct strlist *args)
{
	char err[ERR_LEN];
	struct strlist given = STRLIST_INIT;
	const char *dir = args->items[args->n - 1];
	int rc = EXIT_USAGE;

	for (size_t i = 0; i < watch_options.sources.n; i++)
		strlist_add(&given, watch_options.sources.items[i]);
	for (size_t i = 0; i + 1 < args->n; i++)
		strlist_add(&given, args->items[i]);
	if (watch_options.source_command &&
	    run_source_command(watch_options.source_command, origin_options.root, &given, err) < 0)
		goto fail;
	w->debounce_ms = watch_options.debounce_ms > 0 ? watch_options.debounce_ms : DEFAULT_DEBOUNCE_MS;
	settle_init(&w->settle, w->debounce_ms < SETTLE_WINDOW_MS ? w->debounce_ms : SETTLE_WINDOW_MS, w->debounce_ms);
	settle_set_quiet(&w->settle, watch_options.settle_ms);
	settle_set_tree(&w->settle, TREE_WINDOW_MS, TREE_CAP_MS);
	if (resolve_sources(w, &given, err) < 0 || compile_ignore(w, err) < 0)
		goto fail;
	for (size_t i = 0; i < watch_options.depends.n; i++)
		if (watch_rules_add(&w->rules, watch_options.depends.items[i], err) < 0)
			goto fail;

	/* Tracing: CGI origins only, and only with the library at hand. */
	bool cgi = !origin_options.fastcgi && !origin_options.origin_url;
	bool have_rules = watch_options.depends.n || watch_options.always.n;
	if (cgi && !watch_options.no_trace) {
		w->tracer = tracer_locate(err);
		if (!w->tracer && !have_rules) {
			char *msg = xasprintf("%s; or give --depends/--always rules, or --no-trace", err);
			err_set(err, "%s", msg);
			free(msg);
			goto fail;
		}
		if (!w->tracer)
			log_warn("%s: dependencies come from --depends/--always only", err);
	}
	origin_options.trace_lib = w->tracer;

	if (check_tree_outside(w, dir, err) < 0 || (w->sigfd = signals_open(w, err)) < 0)
		goto fail;
	if (watch_options.poll_s && !have_rules) {
		err_set(err, "--poll re-renders the --always pages and those of --depends rules: give at least one");
		goto fail;
	}
	int setup = crawl_setup_open(&w->s, dir, err);
	if (setup < 0) {
		strlist_clear(&given);
		return crawl_setup_exit(setup, err);
	}
	/* After the tree's lock: any socket there is a killed watch's. */
	if (!(w->control = control_open(&w->s.tree, err)))
		goto fail;
	w->poll_ms = watch_options.poll_s * 1000LL;
	for (size_t i = 0; i < watch_options.always.n; i++)
		if (watch_rules_always(&w->rules, &w->s.site, watch_options.always.items[i], err) < 0)
			goto fail;
	exec_meta_snap(w->s.tree.meta_fd, &w->meta_at_start);
	if (tree_save_settings(&w->s.tree, &w->s.site, err) < 0 ||
	    tree_save_profile(&w->s.tree, profile_opts_used(), err) < 0)
		goto fail;
	if (load_state(w, err) < 0)
		goto fail;
	set_dep_roots(w);
	if (!(w->crawl = crawl_new(&w->s.crawl, w->s.origin, &w->s.site, &w->s.tree, err)))
		goto fail;
	struct crawl_hooks hooks = dep_recorder_hooks(&w->recorder);
	hooks.hold = stale_hold;
	hooks.hold_arg = &w->stale;
	crawl_set_hooks(w->crawl, &hooks);
	crawl_set_removal_check(w->crawl, removal_ok, w);

	/* Watch before the first crawl: nothing changed meanwhile is lost. */
	if (!(w->fsw = srcwatch_new(err)))
		goto fail;
	w->stale.fsw = w->fsw;
	w->stale.traced = w->tracer != NULL;
	for (size_t i = 0; i < w->sources.n; i++) {
		struct stat st;
		if (srcwatch_add(w->fsw, w->sources.items[i], err) < 0)
			goto fail;
		if (stat(w->sources.items[i], &st) == 0 && S_ISREG(st.st_mode))
			stale_add_file(&w->stale, w->sources.items[i]);
	}
	rc = 0;
fail:
	if (rc)
		log_error("%s", err);
	strlist_clear(&given);
	return rc;
}

/* Whether a path the catch-up found starts nothing (catchup.h). */
static bool catch_up_skip(void *arg, const char *path)
{
	return ignored(arg, path);
}

/* A tree whose dependencies are complete: no re-crawl, only the changes
 * made since its last run, as the first batch. */
static void catch_up(struct watcher *w)
{
	catchup_changes(&w->sources, crawl_manifest(w->crawl), &w->state.since, catch_up_skip, w, &w->pending);
	/* Published by a run killed before its save, new to the tree: what
	 * they read is not known, so their sources would never be followed. */
	const struct strlist *fresh = crawl_recovered_new(w->crawl);
	for (size_t i = 0; i < fresh->n; i++) {
		log_debug("recovered without dependencies: %s", fresh->items[i]);
		changes_add_url(&w->pending, fresh->items[i]);
	}
	size_t n = changes_count(&w->pending);
	for (size_t i = 0; i < n && log_verbose(); i++) {
		const char *path = w->pending.order.items[i];
		unsigned f = changes_flags(&w->pending, path);
		log_debug("changed since the last run: %s%s %s", f & FSW_REMOVED ? "D" : "W",
			  f & FSW_DIR ? "/" : "", path);
	}
	if (n) {
		char *summary = changes_summary(&w->pending, SUMMARY_PATHS);
		log_info("the tree's dependencies are complete: no initial snapshot; catching up with %zu path%s "
			 "changed since its last run (%s)", n, n == 1 ? "" : "s", summary);
		free(summary);
	} else {
		log_info("the tree's dependencies are complete and no source changed since its last run: no initial "
			 "snapshot");
	}
	if (!n && !fresh->n)
		return;
	if (fresh->n)
		log_info("rendering again %zu page%s an interrupted run published before recording what %s read",
			 fresh->n, fresh->n == 1 ? "" : "s", fresh->n == 1 ? "it" : "they");
	note_activity(w);
}

/* The full snapshot a stale or empty tree needs first. */
static int initial_crawl(struct watcher *w)
{
	char err[ERR_LEN];
	const char *why = NULL;
	int rc = 0;
	if (sources_present(w))
		why = initial_crawl_reason(w);
	if (w->missing.n) {
		/* gone since the set-up (logged): crawled when it is back */
	} else if (!why && w->tracer) {
		catch_up(w);
	} else if (!why) {
		log_info("the tree is newer than its sources: no initial snapshot");
	} else {
		struct crawl_result res;
		log_info("initial snapshot: %s", why);
		if (crawl_full(w->crawl, &res, err) < 0)
			rc = log_error("%s", err);
		note_refused_removal(w);
		/* A mirror that started as a copy of the tree (or empty, for a
		 * tree made now) follows from the first snapshot on. */
		if (watch_options.exec && manifest_checkpoint(&w->s.tree, true, err) < 0)
			log_warn("%s", err);
		run_exec(w, &res, &w->meta_at_start);
		sources_present(w); /* one gone meanwhile is logged before the watching line */
		char *what = xasprintf("snapshot of %s into '%s'", w->s.site.url, w->s.tree.path);
		crawl_report(&res, what, crawl_options.quiet);
		free(what);
		crawl_record_run(&w->s.tree, "watch (initial snapshot)", &res,
				 rc < 0 || res.failed || res.errors.n ? EXIT_PARTIAL : 0);
		take_early(w, &res);
		crawl_result_release(&res);
	}
	if (w->tracer)
		dep_index_open(&w->index, &w->s.tree, crawl_manifest(w->crawl));
	if (!w->missing.n && rc == 0)
		state_advance(w); /* saved only when nothing is pending */
	w->next_poll_ms = now_ms() + w->poll_ms;
	log_info("watching %zu director%s of %zu source%s (%s)", srcwatch_count(w->fsw),
		 srcwatch_count(w->fsw) == 1 ? "y" : "ies", w->sources.n, w->sources.n == 1 ? "" : "s",
		 w->tracer ? "dependencies traced" : watch_rules_empty(&w->rules) ? "every change re-crawls"
										: "--depends/--always rules");
	return rc;
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
	stale_init(&w.stale, NULL, false, stale_ignored, &w);
	if (rc == OPTS_VERSION) {
		opts_print_version(stdout);
		rc = 0;
		goto out;
	}
	if (rc == OPTS_HELP) {
		print_help(tables);
		rc = 0;
		goto out;
	}
	if (rc == PROFILE_LISTED) {
		rc = 0;
		goto out;
	}
	if (rc == OPTS_ERROR) {
		rc = usage_error("watch", err);
		goto out;
	}
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
	if (initial_crawl(&w) < 0 || main_loop(&w) < 0)
		rc = EXIT_PARTIAL;
	else
		log_info("stopped after %ld batch%s", w.batches, w.batches == 1 ? "" : "es");
out:
	watcher_release(&w);
	if (links_ready)
		links_cleanup();
	strlist_clear(&args);
	opts_release(tables);
	profile_opts_release();
	return rc;
}
