/* test_workers.c - the worker pool's pure parts: php-cgi's arguments, the
 * reason a reaped worker gives, when one is recycled; and its runtime
 * directory; a worker binding its own socket that never listens (a shell;
 * t0345 and t0349 run real workers); a traced php-cgi worker's start-up
 * paths filtered once by the caller's keep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/spill.h"
#include "base/xalloc.h"
#include "unit.h"
#include "origin/origin.h"
#include "origin/workers.h"
#include "trace/tracer.h"

TEST(workers_php_args_turn_opcache_on_and_keep_the_session_directory)
{
	struct strlist a = STRLIST_INIT;
	workers_php_args(&a, "/tmp/s", true);
	CHECK_INT(12, a.n);
	CHECK_STR("-d", a.items[0]);
	CHECK_STR("opcache.enable=1", a.items[1]);
	CHECK_STR("opcache.validate_timestamps=1", a.items[3]);
	CHECK_STR("opcache.revalidate_freq=0", a.items[5]);
	CHECK_STR("-d", a.items[6]);
	CHECK_STR("session.save_path=/tmp/s", a.items[7]);
	CHECK_STR("opcache.lockfile_path=/tmp/s", a.items[9]);
	CHECK_STR("session.gc_probability=1", a.items[11]); /* a long watch's sessions are collected */
	strlist_clear(&a);
	workers_php_args(&a, NULL, true);
	CHECK_INT(6, a.n);
	strlist_clear(&a);
	/* renders passed on (serve --dynamic): opcache on, its checks as php.ini says */
	workers_php_args(&a, NULL, false);
	CHECK_INT(2, a.n);
	CHECK_STR("opcache.enable=1", a.items[1]);
	strlist_clear(&a);
}

TEST(workers_exit_reason_names_the_signal_or_the_status)
{
	char err[ERR_LEN];
	CHECK_INT(-1, workers_exit_reason(SIGSEGV, err)); /* as waitpid reports a signal */
	CHECK_STR("killed by signal 11 (SIGSEGV)", err);
	workers_exit_reason(SIGKILL, err);
	CHECK_STR("killed by signal 9 (SIGKILL)", err);
	workers_exit_reason(255 << 8, err);
	CHECK_STR("exited with status 255", err);
	workers_exit_reason(0, err);
	CHECK_STR("exited with status 0", err);
}

TEST(workers_worn_out_after_max_requests_or_the_default)
{
	CHECK(!workers_worn_out(1, 2));
	CHECK(workers_worn_out(2, 2));
	CHECK(!workers_worn_out(WORKERS_MAX_REQUESTS - 1, 0));
	CHECK(workers_worn_out(WORKERS_MAX_REQUESTS, 0));
}

TEST(workers_runtime_directory_is_private_and_removed_at_close)
{
	char err[ERR_LEN];
	struct strlist none = STRLIST_INIT;
	struct workers_config cfg = { "/usr/bin/php-cgi", &none, &none, "/", 3, 0, false, false, NULL, false };
	struct workers *ws = workers_open(&cfg, err);
	CHECK(ws != NULL);
	if (!ws)
		return;
	char *dir = strdup(workers_dir(ws));
	struct stat st;
	CHECK_INT(0, stat(dir, &st));
	CHECK(S_ISDIR(st.st_mode));
	CHECK_INT(0700, st.st_mode & 0777);
	workers_close(ws);
	CHECK_INT(-1, stat(dir, &st));
	free(dir);
}

TEST(workers_open_refuses_a_runtime_directory_too_deep_for_a_socket)
{
	char err[ERR_LEN];
	char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	char *base = unit_temp_dir("workers");
	char name[91];
	memset(name, 'd', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	unit_make_dir(base, name);
	char *deep = malloc(strlen(base) + sizeof name + 2);
	sprintf(deep, "%s/%s", base, name);
	setenv("TMPDIR", deep, 1);
	struct strlist none = STRLIST_INIT;
	for (int children = 0; children <= 1; children++) {
		struct workers_config cfg = { "/usr/bin/php-cgi", &none, &none, "/", 1, 0, false, false, NULL, children };
		struct workers *ws = workers_open(&cfg, err);
		CHECK(ws == NULL);
		CHECK_HAS(err, "too deep for a socket path (set TMPDIR)");
		workers_close(ws);
	}
	if (old)
		setenv("TMPDIR", old, 1), free(old);
	else
		unsetenv("TMPDIR");
	/* the directory made for the pool is gone too */
	CHECK_INT(0, rmdir(deep));
	free(deep);
	unit_drop_dir(base);
}

/* One render through a shell running script as the worker, expected to
 * fail with err: one that binds its socket itself ($FCGI_SOCKET,
 * cfg.binds), or a master of php-cgi's children (cfg.children). */
static void run_failing(const char *script, long timeout_s, bool binds, bool children, char *err)
{
	struct strlist args = STRLIST_INIT, none = STRLIST_INIT;
	strlist_add(&args, "-c");
	strlist_add(&args, script);
	struct workers_config cfg = { "/bin/sh", &args, &none, "/", 1, 0, false, binds, NULL, children };
	struct workers *ws = workers_open(&cfg, err);
	CHECK(ws != NULL);
	if (!ws)
		goto out;
	struct spill out;
	unsigned long status;
	spill_init(&out, 1 << 20, -1);
	CHECK_INT(-1, workers_run(ws, "/", &none, timeout_s, 1 << 20, &out, &status, NULL, NULL, err));
	spill_release(&out);
	workers_close(ws);
out:
	strlist_clear(&args);
}

/* A worker that binds its socket: one that ends before listening, and
 * one that never listens, fail the render with why. */
TEST(workers_that_bind_their_socket_fail_with_why_when_they_do_not_listen)
{
	char err[ERR_LEN];
	/* the path is in the environment: the shell sees it */
	run_failing("case \"$FCGI_SOCKET\" in */w0.sock) exit 3;; esac; exit 4", 5, true, false, err);
	CHECK_HAS(err, "exited with status 3 before listening on '");
	CHECK_HAS(err, "/w0.sock'");
	run_failing("exec sleep 5", 1, true, false, err);
	CHECK_HAS(err, "did not listen on '");
	CHECK_HAS(err, "' within 1 s");
}

/* A master of php-cgi's children that never forks a child into its
 * slot: one that ends (tried twice, then its status), one that runs on
 * without the tracer. */
TEST(workers_a_master_that_forks_no_child_fails_with_why)
{
	char err[ERR_LEN];
	char *dir = unit_temp_dir("wmaster"), *script = xasprintf("echo x >>'%s/starts'; exit 3", dir);
	run_failing(script, 5, false, true, err);
	CHECK_STR("exited with status 3 before forking a child into its slot", err);
	char *starts = unit_read(dir, "starts");
	CHECK_STR("x\nx\n", starts ? starts : "");
	free(starts);
	free(script);
	run_failing("exec sleep 5", 1, false, true, err);
	CHECK_STR("did not fork a child into its slot within 1 s (cgisnap's tracer did not run in it)", err);
	unit_drop_dir(dir);
}

/* keep for the test: nothing of PHP's configuration. */
static bool not_php_config(void *arg, const char *path)
{
	(*(int *)arg)++;
	return strncmp(path, "/etc/php/", 9) != 0;
}

/* One traced request of x.php on a fresh php-cgi worker (children: a
 * child of a php-cgi that forks it, workers.h), keep set when calls is
 * not NULL: how many of its read paths are under /etc/php/, and whether
 * the script itself is among them; -1 when it did not render. */
static int config_paths(bool children, int *calls, bool *script_read)
{
	char err[ERR_LEN], *tracer = realpath("build/" TRACER_NAME, NULL);
	char *dir = unit_temp_dir("wtrace");
	unit_put(dir, "x.php", "<?php echo 'x';\n");
	char *script = xasprintf("%s/x.php", dir);
	struct strlist args = STRLIST_INIT, env = STRLIST_INIT, params = STRLIST_INIT;
	strlist_add(&env, children ? "PHP_FCGI_CHILDREN=1" : "PHP_FCGI_CHILDREN=0");
	strlist_add_owned(&env, xasprintf("LD_PRELOAD=%s", tracer ? tracer : "none"));
	strlist_add_owned(&params, xasprintf("SCRIPT_FILENAME=%s", script));
	strlist_add(&params, "SCRIPT_NAME=/x.php");
	strlist_add(&params, "REQUEST_URI=/x.php");
	strlist_add(&params, "REQUEST_METHOD=GET");
	strlist_add(&params, "QUERY_STRING=");
	strlist_add(&params, "GATEWAY_INTERFACE=CGI/1.1");
	strlist_add(&params, "SERVER_PROTOCOL=HTTP/1.1");
	strlist_add(&params, "REDIRECT_STATUS=200");
	struct workers_config cfg = { "/usr/bin/php-cgi", &args, &env, dir, 1, 0, true, false, NULL, children };
	struct workers *ws = workers_open(&cfg, err);
	int n = -1;
	*script_read = false;
	if (ws) {
		if (calls)
			workers_set_trace_keep(ws, not_php_config, calls);
		struct spill out;
		struct origin_response rs;
		unsigned long status;
		spill_init(&out, 1 << 20, -1);
		origin_response_init(&rs);
		if (workers_run(ws, "/x.php", &params, 10, 1 << 20, &out, &status, &rs, dir, err) == 0 && !rs.untraced) {
			n = 0;
			for (size_t i = 0; i < rs.deps_read.n; i++) {
				n += !strncmp(rs.deps_read.items[i], "/etc/php/", 9);
				*script_read = *script_read || !strcmp(rs.deps_read.items[i], script);
			}
		}
		origin_response_release(&rs);
		spill_release(&out);
		workers_close(ws);
	}
	strlist_clear(&args);
	strlist_clear(&env);
	strlist_clear(&params);
	free(script);
	free(tracer);
	unit_drop_dir(dir);
	return n;
}

TEST(workers_trace_keep_drops_what_the_caller_cannot_use_from_the_start_up)
{
	/* Debian's php-cgi, whose configuration is under /etc/php/ (make
	 * test installs it); elsewhere there is nothing to run. */
	if (access("/usr/bin/php-cgi", X_OK) != 0 || access("/etc/php", F_OK) != 0)
		return;
	for (int children = 0; children <= 1; children++) {
		int calls = 0;
		bool script_all, script_kept;
		int all = config_paths(children, NULL, &script_all);
		int kept = config_paths(children, &calls, &script_kept);
		/* php.ini and conf.d, read as the worker starts (children: as
		 * their master starts, before it forks them) */
		CHECK(all > 0);
		CHECK_INT(0, kept);
		CHECK(calls > all); /* asked of each start-up path, once */
		CHECK(script_all);
		CHECK(script_kept); /* the request's own paths are left to the caller */
	}
}

/* Render name (a script of dir printing its pid) on ws: its pid, or -1;
 * its dependencies in rs. */
static long render_pid(struct workers *ws, const char *dir, const char *name, struct origin_response *rs)
{
	char err[ERR_LEN];
	struct strlist params = STRLIST_INIT;
	strlist_add_owned(&params, xasprintf("SCRIPT_FILENAME=%s/%s", dir, name));
	strlist_add_owned(&params, xasprintf("SCRIPT_NAME=/%s", name));
	strlist_add(&params, "REQUEST_METHOD=GET");
	strlist_add(&params, "GATEWAY_INTERFACE=CGI/1.1");
	strlist_add(&params, "SERVER_PROTOCOL=HTTP/1.1");
	strlist_add(&params, "REDIRECT_STATUS=200");
	struct spill out;
	unsigned long status;
	spill_init(&out, 1 << 20, -1);
	origin_response_release(rs);
	long pid = -1;
	if (workers_run(ws, name, &params, 10, 1 << 20, &out, &status, rs, dir, err) == 0 && out.mem.len) {
		const char *body = strstr(buf_str(&out.mem), "\r\n\r\n");
		pid = body ? atol(body + 4) : -1;
	}
	spill_release(&out);
	strlist_clear(&params);
	return pid;
}

/* Whether pid is dead: a zombie its parent has not reaped yet, or gone. */
static bool dead(long pid)
{
	char *path = xasprintf("/proc/%ld/stat", pid);
	char *text = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "r");
	bool gone = !f || getline(&text, &cap, f) < 0;
	const char *end = gone ? NULL : strrchr(text, ')');
	bool zombie = end && (end[2] == 'Z' || end[2] == 'X');
	if (f)
		fclose(f);
	free(text);
	free(path);
	return gone || zombie;
}

/* Whether rs's read paths hold dir/name. */
static bool read_script(const struct origin_response *rs, const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	bool found = strlist_contains(&rs->deps_read, path);
	free(path);
	return found;
}

TEST(workers_a_php_cgi_child_that_ends_while_idle_leaves_each_request_its_own_trace)
{
	if (access("/usr/bin/php-cgi", X_OK) != 0)
		return;
	char err[ERR_LEN], *tracer = realpath("build/" TRACER_NAME, NULL);
	char *dir = unit_temp_dir("wkids");
	const char *pages[] = { "a.php", "b.php", "c.php" };
	for (size_t i = 0; i < COUNT(pages); i++)
		unit_put(dir, pages[i], "<?php echo getmypid();\n");
	struct strlist args = STRLIST_INIT, env = STRLIST_INIT;
	strlist_add(&env, "PHP_FCGI_CHILDREN=1");
	strlist_add_owned(&env, xasprintf("LD_PRELOAD=%s", tracer ? tracer : "none"));
	struct workers_config cfg = { "/usr/bin/php-cgi", &args, &env, dir, 1, 0, true, false, NULL, true };
	struct workers *ws = workers_open(&cfg, err);
	CHECK(ws != NULL);
	if (!ws)
		goto out;
	struct origin_response rs;
	origin_response_init(&rs);
	long first = render_pid(ws, dir, "a.php", &rs);
	CHECK(first > 0);
	CHECK_INT(first, render_pid(ws, dir, "b.php", &rs));
	CHECK(read_script(&rs, dir, "b.php"));
	/* The child is killed while it waits for the next request: php-cgi
	 * forks the next into its slot. The request goes as soon as the
	 * child is dead, whether php-cgi reaped it (and said so on the
	 * slot's pipe) or not yet: the child's end is not taken for the
	 * request's. */
	CHECK_INT(0, kill((pid_t)first, SIGKILL));
	for (int i = 0; i < 5000 && !dead(first); i++)
		usleep(1000);
	long next = render_pid(ws, dir, "c.php", &rs);
	CHECK(next > 0 && next != first);
	CHECK(!rs.untraced);
	CHECK_STR(NULL, rs.untraced_why);
	CHECK(read_script(&rs, dir, "c.php"));
	CHECK(!read_script(&rs, dir, "b.php"));
	CHECK_INT(next, render_pid(ws, dir, "a.php", &rs));
	CHECK(!rs.untraced);
	CHECK(read_script(&rs, dir, "a.php"));
	CHECK(!read_script(&rs, dir, "c.php"));
	origin_response_release(&rs);
	workers_close(ws);
out:
	strlist_clear(&args);
	strlist_clear(&env);
	free(tracer);
	unit_drop_dir(dir);
}
