/* test_watch_tracer.c - finding the tracer library, and the library itself
 * preloaded into real programs (dash and coreutils): what it reports on
 * fd 3, relative and descriptor-relative paths made absolute, programs
 * started by the traced one, and silence (no crash) without a usable
 * pipe. Needs build/cgisnap-trace.so (make builds it before the tests). */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "trace/elfinfo.h"
#include "trace/tracer.h"
#include "helpers.h"
#include "unit.h"

#define BUILT_TRACER "build/" TRACER_NAME

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
}

TEST(watch_tracer_find_order)
{
	char err[ERR_LEN];
	char *d = unit_temp_dir("trace");
	char *bin = xasprintf("%s/bin", d), *build = xasprintf("%s/bin/build", d), *lib = xasprintf("%s/lib", d);
	char *exe = xasprintf("%s/cgisnap", bin), *built = xasprintf("%s/%s", build, TRACER_NAME),
	     *installed = xasprintf("%s/%s", lib, TRACER_NAME), *env = xasprintf("%s/env.so", d);
	mkdir(bin, 0755);
	mkdir(build, 0755);
	mkdir(lib, 0755);

	/* nothing there: the error names every place tried */
	char *got = tracer_find(NULL, exe, lib, err);
	CHECK(got == NULL);
	CHECK(strstr(err, "dependency tracer cgisnap-trace.so not found (tried '") == err);
	CHECK(strstr(err, built) && strstr(err, installed) && strstr(err, "set CGISNAP_TRACE_LIB"));

	touch(installed);
	CHECK_STR_FREE(installed, tracer_find(NULL, exe, lib, err));
	touch(built); /* a build tree beside the binary wins */
	CHECK_STR_FREE(built, tracer_find("", exe, lib, err));
	touch(env); /* the environment wins over both */
	CHECK_STR_FREE(env, tracer_find(env, exe, lib, err));
	/* and when it names nothing, nothing else is tried */
	got = tracer_find("/nonexistent/trace.so", exe, lib, err);
	CHECK(got == NULL);
	CHECK_STR("dependency tracer '/nonexistent/trace.so' (from CGISNAP_TRACE_LIB) is not a readable file", err);
	/* a directory is no library */
	got = tracer_find(lib, exe, lib, err);
	CHECK(got == NULL);

	unit_drop_dir(d);
	free(bin);
	free(build);
	free(lib);
	free(exe);
	free(built);
	free(installed);
	free(env);
}

/* The check that lets the tracer empty php-cgi's realpath cache: a
 * function the file defines, not one it only imports, nor anything in a
 * file that is no ELF. */
TEST(watch_tracer_elf_exports_defined_functions_only)
{
	CHECK(elf_exports(BUILT_TRACER, "open"));	 /* the hook it defines */
	CHECK(elf_exports(BUILT_TRACER, "accept4"));
	CHECK(!elf_exports(BUILT_TRACER, "dlsym"));	 /* imported: undefined here */
	CHECK(!elf_exports(BUILT_TRACER, "realpath_cache_clean"));
	CHECK(!elf_exports(BUILT_TRACER, "ope"));	 /* a prefix of a name */
	char *d = unit_temp_dir("elf");
	unit_put(d, "php-cgi", "#!/bin/sh\nexec php-cgi \"$@\"\n");
	char *script = xasprintf("%s/php-cgi", d), *missing = xasprintf("%s/none", d);
	CHECK(!elf_exports(script, "realpath_cache_clean")); /* a wrapper script */
	CHECK(!elf_exports(missing, "open"));
	CHECK(!elf_is_static(script));
	free(script);
	free(missing);
	unit_drop_dir(d);
}

/* Run "sh -c script" in dir with the tracer preloaded and fd 3 set up by
 * mode: 'p' a pipe read into out, 'f' a regular file, 'c' a pipe whose
 * reader is gone, 'n' no CGISNAP_TRACE_FD at all. The exit status. */
static int traced(const char *dir, const char *script, char mode, struct buf *out)
{
	char *lib = realpath(BUILT_TRACER, NULL);
	if (!lib)
		return -1;
	char *preload = xasprintf("LD_PRELOAD=%s", lib);
	char *envp[] = { preload, mode == 'n' ? "X=1" : "CGISNAP_TRACE_FD=3", "PATH=/usr/bin:/bin", NULL };
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	int p[2] = { -1, -1 }, fd3 = -1;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t dfl;
	pid_t pid;
	int status = -1;

	if (mode == 'f') {
		char *f = xasprintf("%s/trace-file", dir);
		fd3 = open(f, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		free(f);
	} else if (pipe2(p, O_CLOEXEC) == 0) {
		fd3 = p[1];
		if (mode == 'c') {
			close(p[0]);
			p[0] = -1;
		}
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd3, 3);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	posix_spawnattr_init(&attr);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE); /* as a CGI program gets it: deadly */
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	if (posix_spawn(&pid, argv[0], &fa, &attr, argv, envp) == 0) {
		close(fd3);
		fd3 = -1;
		char chunk[4096];
		ssize_t r;
		while (p[0] >= 0 && (r = read(p[0], chunk, sizeof chunk)) > 0)
			buf_add(out, chunk, (size_t)r);
		waitpid(pid, &status, 0);
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (fd3 >= 0)
		close(fd3);
	if (p[0] >= 0)
		close(p[0]);
	free(preload);
	free(lib);
	return status;
}

/* Whether the trace holds the line "KIND DIR/NAME". */
static bool has_line(const struct buf *trace, char kind, const char *dir, const char *name)
{
	char *line = name ? xasprintf("\n%c %s/%s\n", kind, dir, name) : xasprintf("\n%c %s\n", kind, dir);
	char *all = xasprintf("\n%s", buf_str(trace));
	bool found = strstr(all, line) != NULL;
	free(line);
	free(all);
	return found;
}

/* How many lines of the trace are of this kind. */
static size_t count_lines(const struct buf *trace, char kind)
{
	struct strlist lines = STRLIST_INIT;
	strlist_split(&lines, buf_str(trace), '\n');
	size_t n = 0;
	for (size_t i = 0; i < lines.n; i++)
		n += lines.items[i][0] == kind;
	strlist_clear(&lines);
	return n;
}

/* How many lines of the trace are "KIND DIR/NAME". */
static size_t count_exact(const struct buf *trace, char kind, const char *dir, const char *name)
{
	char *want = xasprintf("%c %s/%s", kind, dir, name);
	struct strlist lines = STRLIST_INIT;
	strlist_split(&lines, buf_str(trace), '\n');
	size_t n = 0;
	for (size_t i = 0; i < lines.n; i++)
		n += !strcmp(lines.items[i], want);
	strlist_clear(&lines);
	free(want);
	return n;
}

/* A traced test's scratch directory, holding the empty files named in
 * files (separated by spaces; a name ending in '/' is a directory). */
static char *trace_dir(const char *files)
{
	char *d = unit_temp_dir("trace");
	struct strlist names = STRLIST_INIT;
	strlist_split(&names, files, ' ');
	for (size_t i = 0; i < names.n; i++) {
		const char *name = names.items[i];
		if (name[strlen(name) - 1] == '/')
			unit_make_dir(d, name);
		else
			unit_put(d, name, "");
	}
	strlist_clear(&names);
	return d;
}

/* A traced test's end: its trace t and its directory d go. */
static void trace_end(struct buf *t, char *d)
{
	buf_release(t);
	unit_drop_dir(d);
}

TEST(watch_tracer_reports_reads_lists_and_writes)
{
	char *d = trace_dir("t/ t/x");
	struct buf t = BUF_INIT;

	int status = traced(d,
			    "cat t/x >/dev/null && ls t >/dev/null && [ ! -e missing.txt ] && [ -r t/x ] && "
			    "touch w && mv w w2 && mkdir m && rm -r t && rm w2 && "
			    "echo hi >redirected && cat nothere 2>err; grep -q 'No such file' err",
			    'p', &t);
	CHECK_INT(0, status);
	CHECK(has_line(&t, 'R', d, "t/x"));          /* relative to the working directory */
	CHECK(has_line(&t, 'L', d, "t"));            /* opendir */
	CHECK(has_line(&t, 'R', d, "missing.txt"));  /* a stat of what is not there */
	CHECK(has_line(&t, 'E', d, "t/x"));          /* access(2): whether it exists, no more */
	CHECK(has_line(&t, 'W', d, "w"));            /* created */
	CHECK(has_line(&t, 'W', d, "w2"));           /* renamed: both names */
	CHECK(has_line(&t, 'W', d, "m"));            /* mkdir */
	CHECK(has_line(&t, 'W', d, "t/x"));          /* unlinkat relative to a directory fd */
	CHECK(has_line(&t, 'W', d, "redirected"));   /* the shell's own open for writing */
	CHECK(has_line(&t, 'R', d, "nothere"));      /* and errno intact: cat said why */
	CHECK(!has_line(&t, 'W', d, "nothere"));     /* a failed read is no write */
	/* every line is whole: "K /path", or a process's hello "H PID" */
	struct strlist lines = STRLIST_INIT;
	strlist_split(&lines, buf_str(&t), '\n');
	size_t bad = 0, hello = 0;
	for (size_t i = 0; i < lines.n; i++) {
		const char *l = lines.items[i];
		if (l[0] == 'H' && l[1] == ' ' && l[2] && strspn(l + 2, "0123456789") == strlen(l + 2))
			hello++;
		else
			bad += !(strchr("RELW", l[0]) && l[1] == ' ' && l[2] == '/');
	}
	CHECK_INT(0, bad);
	CHECK(hello >= 2); /* the shell and the programs it started */
	CHECK(lines.n > 10);
	strlist_clear(&lines);

	trace_end(&t, d);
}

/* Traced, a program's lstat of a directory always tells the directory as
 * it is now: after the program's own change, a child's, a chmod and a
 * touch, and after its removal (a cache of a render's answers, tried
 * once, failed these). PHP's own lstat(), its stat cache cleared before
 * each. */
/* Told to empty PHP's realpath cache at each request boundary, in a
 * program that has none to empty (python, not php-cgi: cgisnap read
 * another file's symbol table), the tracer says the next request's trace
 * misses something: that page goes untraced rather than wrong. */
TEST(watch_tracer_without_a_realpath_cache_to_empty_says_the_trace_is_incomplete)
{
	char *d = trace_dir("");
	struct buf t = BUF_INIT;
	/* fd 5 listens; one connection is accepted, then the program
	 * enters accept again (non-blocking: nothing more comes). */
	const char *py = "import os, socket\n"
			 "l = socket.socket(socket.AF_UNIX)\n"
			 "l.bind(\"sock\"); l.listen(4); os.dup2(l.fileno(), 5)\n"
			 "s = socket.socket(fileno=5); s.setblocking(False)\n"
			 "c = socket.socket(socket.AF_UNIX); c.connect(\"sock\")\n"
			 "s.accept()\n"
			 "try:\n    s.accept()\nexcept BlockingIOError:\n    pass\n"
			 "os.unlink(\"sock\")\n";
	unit_put(d, "accept.py", py);
	int status = traced(d,
			    "CGISNAP_TRACE_ACCEPT=5 CGISNAP_TRACE_PHP_REALPATHS=1 python3 accept.py && "
			    "CGISNAP_TRACE_ACCEPT=5 CGISNAP_TRACE_PHP_REALPATHS=0 python3 accept.py",
			    'p', &t);
	CHECK_INT(0, status);
	const char *x = "X kept PHP's realpath cache: no realpath_cache_clean to empty it\n";
	const char *b1 = strstr(buf_str(&t), "B 1\n"), *first_x = strstr(buf_str(&t), x);
	CHECK(b1 && first_x && b1 < first_x); /* after the boundary: the next request's */
	CHECK_INT(2, count_lines(&t, 'X'));	 /* at both boundaries of the first python */
	CHECK_INT(4, count_lines(&t, 'B'));	 /* and none from the second, not asked */
	trace_end(&t, d);
}

TEST(watch_tracer_directory_lstats_see_every_change)
{
	char *d = trace_dir("t/");
	struct buf t = BUF_INIT;
	/* In the shell's single quotes: PHP's strings are double-quoted. */
	const char *php = "$d = getcwd() . \"/t\"; "
			  "clearstatcache(); $a = lstat($d); clearstatcache(); $b = lstat($d); "
			  "mkdir(\"$d/sub\"); clearstatcache(); $c = lstat($d); "
			  "exec(\"mkdir $d/sub2\"); clearstatcache(); $x = lstat($d); "
			  "chmod($d, 0700); clearstatcache(); $m = lstat($d); "
			  "touch($d, 1000000000); clearstatcache(); $u = lstat($d); "
			  "exec(\"rmdir $d/sub2\"); rmdir(\"$d/sub\"); rmdir($d); clearstatcache(); $e = @lstat($d); "
			  "echo ($a == $b ? \"same\" : \"differ\"), \" \", "
			  "($c[\"nlink\"] == $a[\"nlink\"] + 1 ? \"seen\" : \"stale\"), \" \", "
			  "($x[\"nlink\"] == $a[\"nlink\"] + 2 ? \"child\" : \"stale\"), \" \", "
			  "(($m[\"mode\"] & 0777) == 0700 ? \"mode\" : \"stale\"), \" \", "
			  "($u[\"mtime\"] == 1000000000 ? \"time\" : \"stale\"), \" \", "
			  "($e === false ? \"gone\" : \"kept\");";
	char *script = xasprintf("php -n -r '%s' >out", php);
	int status = traced(d, script, 'p', &t);
	CHECK_INT(0, status);
	CHECK_STR_FREE("same seen child mode time gone", unit_read(d, "out"));
	CHECK(has_line(&t, 'R', d, "t"));
	CHECK(has_line(&t, 'W', d, "t/sub"));
	CHECK(has_line(&t, 'W', d, "t/sub2")); /* the child's mkdir, traced too */
	free(script);
	trace_end(&t, d);
}

TEST(watch_tracer_silent_without_a_usable_pipe)
{
	char *d = trace_dir("");
	struct buf t = BUF_INIT;
	const char *script = "for i in 1 2 3; do cat /etc/hostname >/dev/null; done; echo ok >out; cat out >/dev/null";

	/* fd 3 a regular file: nothing written into it */
	CHECK_INT(0, traced(d, script, 'f', &t));
	char *f = xasprintf("%s/trace-file", d);
	struct stat st;
	CHECK_INT(0, stat(f, &st));
	CHECK_INT(0, st.st_size);
	free(f);
	/* a pipe nobody reads: no SIGPIPE death */
	CHECK_INT(0, traced(d, script, 'c', &t));
	/* no descriptor named at all */
	CHECK_INT(0, traced(d, script, 'n', &t));
	CHECK_INT(0, t.len);

	trace_end(&t, d);
}

TEST(watch_tracer_says_when_the_program_takes_fd_3_away)
{
	char *d = trace_dir("x y z");
	struct buf t = BUF_INIT;

	/* The shell closes fd 3: the programs it starts after that are not
	 * traced, and one X line says so; the shell's own copy goes on. */
	CHECK_INT(0, traced(d, "cat x >/dev/null; exec 3>&-; cat y >/dev/null; [ -r z ]", 'p', &t));
	CHECK(has_line(&t, 'R', d, "x"));
	CHECK(!has_line(&t, 'R', d, "y"));
	CHECK(has_line(&t, 'E', d, "z"));
	CHECK(has_line(&t, 'X', "closed or replaced the trace descriptor", NULL));
	CHECK_INT(1, count_lines(&t, 'X'));
	buf_reset(&t);

	/* A file of the shell's own put on fd 3 (dup2): cat, which inherits
	 * it, writes no trace line into it. */
	CHECK_INT(0, traced(d, "exec 3>own; cat x >/dev/null; cat y >/dev/null", 'p', &t));
	CHECK(has_line(&t, 'X', "closed or replaced the trace descriptor", NULL));
	CHECK(!has_line(&t, 'R', d, "y"));
	char *own = xasprintf("%s/own", d);
	struct stat st;
	CHECK_INT(0, stat(own, &st));
	CHECK_INT(0, st.st_size);
	free(own);

	trace_end(&t, d);
}

/* The library holds lines back and writes many with one write(2): none
 * may be lost where the process image ends without its destructor (an
 * exec, _exit), none written twice by a forked child from its copy of
 * the buffer, and a path goes once per process however often it is
 * used. */
TEST(watch_tracer_held_lines_are_written_once_whatever_ends_the_process)
{
	char *d = trace_dir("x y");
	struct buf t = BUF_INIT;

	/* The shell's own checks, held when it execs cat. */
	CHECK_INT(0, traced(d, "[ -r x ] && [ -r x ] && [ -r x ] && exec cat y >/dev/null", 'p', &t));
	CHECK_INT(1, count_exact(&t, 'E', d, "x")); /* three access(2) calls, one line */
	CHECK(has_line(&t, 'R', d, "y"));           /* cat, the new image */
	buf_reset(&t);

	/* A subshell is a fork: its copy of the shell's held lines is not
	 * written a second time; its own are written. */
	CHECK_INT(0, traced(d, "[ -r x ] && ( [ -r y ] ) && [ -e missing ] || true", 'p', &t));
	CHECK_INT(1, count_exact(&t, 'E', d, "x"));
	CHECK_INT(1, count_exact(&t, 'E', d, "y"));
	CHECK_INT(1, count_exact(&t, 'R', d, "missing")); /* test -e: a stat */
	buf_reset(&t);

	/* _exit skips the destructor that writes what is held. */
	CHECK_INT(0, traced(d, "exec /usr/bin/python3 -c 'import os; os.stat(\"x\"); os._exit(0)'", 'p', &t));
	CHECK(has_line(&t, 'R', d, "x"));
	buf_reset(&t);

	/* A string the kernel refuses as a path (PATH_MAX bytes: DokuWiki's
	 * LESS compiler asks whether CSS text is a file) names no file that
	 * could ever appear: no line, and the trace stays whole. */
	CHECK_INT(0, traced(d, "exec /usr/bin/python3 -c 'import os; os.path.exists(\"a\" * 5000); os.stat(\"x\")'",
			    'p', &t));
	CHECK_INT(0, count_lines(&t, 'X'));
	CHECK(has_line(&t, 'R', d, "x"));

	trace_end(&t, d);
}
