/* setup.c - watch's set-up: the sources (given or printed by --source-command),
 * the rules, tracing, the signals, the tree and its control socket, the
 * crawl and its hooks, the watches; and their release. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "watcher.h"
#include "base/log.h"
#include "cli/cli.h"
#include "base/relist.h"
#include "base/shcmd.h"
#include "base/xalloc.h"
#include "cli/originopts.h"
#include "cli/profileopts.h"
#include "tree/manifest.h"
#include "trace/tracer.h"

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
	if (shcmd_output("--source-command", cmd, dir, origin_options.runas, SOURCE_COMMAND_MAX, &out, &status,
			 &too_long, err) < 0)
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

/* Free all of w, restoring the signal mask. */
void watcher_release(struct watcher *w)
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
	if (w->sigfd >= 0) {
		/* A second SIGTERM that came while watch was stopping would
		 * kill it once unblocked below: it asked for what is done. */
		struct signalfd_siginfo si;
		while (read(w->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
			;
		close(w->sigfd);
	}
	crawl_setup_close(&w->s);
	origin_options.trace_lib = NULL;
	free(w->tracer);
	if (w->masked)
		pthread_sigmask(SIG_SETMASK, &w->old_mask, NULL);
}

/* Everything up to the first wait. EXIT_USAGE (EXIT_BUSY: another cgisnap
 * holds the tree) with the error logged. */
int watcher_open(struct watcher *w, const struct strlist *args)
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
	bool cgi = !origin_options.fastcgi.n && !origin_options.origin_url;
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
	w->s.crawl.stop = &w->crawl_stop;
	/* Traced, a batch asks tree.db for the pages a change touches and
	 * reads only their entries: watch keeps none between batches. */
	w->s.crawl.lazy_manifest = w->tracer != NULL;
	if (!(w->crawl = crawl_new(&w->s.crawl, w->s.origin, &w->s.site, &w->s.tree, err)))
		goto fail;
	struct crawl_hooks hooks = dep_recorder_hooks(&w->recorder);
	hooks.hold = stale_hold;
	hooks.hold_arg = &w->stale;
	crawl_set_hooks(w->crawl, &hooks);
	origin_set_trace_keep(w->s.origin, dep_recorder_keeps, &w->recorder);
	crawl_set_removal_check(w->crawl, watcher_removal_ok, w);

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
