/* originfix.c - the origin tests' fixtures (originfix.h). */
#include "originfix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "base/log.h"
#include "origin/origin.h"
#include "cli/originopts.h"
#include "unit.h"
#include "url/url.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

const char *docroot(void)
{
	static char path[PATH_MAX];
	if (!path[0] && !realpath(DOCROOT, path))
		snprintf(path, sizeof path, "%s", DOCROOT);
	return path;
}

bool have_program(const char *name)
{
	char *cmd = xasprintf("command -v %s >/dev/null 2>&1", name);
	int rc = system(cmd);
	free(cmd);
	if (rc)
		printf("    # skipped: '%s' is not installed\n", name);
	return rc == 0;
}

/* A CGI configuration on the fixture docroot. */
void cgi_config(struct origin_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->root = xstrdup(docroot());
}

bool fixture_start(struct fixture *f)
{
	origin_defaults(&f->cfg);
	memset(&f->site, 0, sizeof f->site);
	if (site_init(&f->site, f->cfg.site_url, f->err) < 0)
		return false;
	f->o = origin_open(&f->cfg, &f->site, f->err);
	return f->o != NULL;
}

struct fixture cgi_fixture(void)
{
	struct fixture f = { 0 };
	cgi_config(&f.cfg);
	return f;
}

/* Open the origin of f->cfg for site_url (NULL: the default). */
bool fixture_open(struct fixture *f, const char *site_url)
{
	if (site_url)
		f->cfg.site_url = xstrdup(site_url);
	if (fixture_start(f))
		return true;
	if (f->site.url) /* the site was good: origin_open said no */
		printf("    origin_open: %s\n", f->err);
	return false;
}

void check_open_fails(const char *file, int line, struct fixture *f, const char *want)
{
	origin_defaults(&f->cfg);
	if (site_init(&f->site, "http://localhost/", f->err) < 0)
		unit_fail(file, line, "expected the site to be good: %s", f->err);
	f->o = origin_open(&f->cfg, &f->site, f->err);
	if (f->o)
		unit_fail(file, line, "expected origin_open to fail");
	char *message = xasprintf(want, docroot());
	unit_check_str(file, line, message, f->o ? "(opened)" : f->err, "the error");
	free(message);
	fixture_close(f);
}

void check_lines(const char *file, int line, struct fixture *f, const char *target, int want, ...)
{
	struct origin_response rs;
	if (render(f->o, target, NULL, &rs, f->err) != 0)
		unit_fail(file, line, "expected %s to render: %s", target, f->err);
	if (want && rs.status != want)
		unit_fail(file, line, "expected the status %d, saw %d (%s)", want, rs.status, target);
	va_list ap;
	va_start(ap, want);
	for (const char *key; (key = va_arg(ap, const char *));) {
		const char *value = va_arg(ap, const char *);
		char *got = line_value(&rs.body, key);
		unit_check_str(file, line, value, got, key);
		free(got);
	}
	va_end(ap);
	origin_response_release(&rs);
}

void fixture_close(struct fixture *f)
{
	origin_close(f->o);
	origin_config_release(&f->cfg);
	site_release(&f->site);
}

int render(struct origin *o, const char *target, const char *method,
		  struct origin_response *rs, char *err)
{
	struct origin_request rq = { target, method, NULL };
	return origin_render(o, &rq, rs, err);
}

/* The value of a "KEY=VALUE" line of a body (fresh), or NULL. */
char *line_value(const struct buf *body, const char *key)
{
	const char *s = buf_str(body);
	size_t n = strlen(key);
	while (s && *s) {
		if (!strncmp(s, key, n) && s[n] == '=') {
			const char *end = strchr(s + n + 1, '\n');
			return end ? xstrndup(s + n + 1, (size_t)(end - s - n - 1)) : xstrdup(s + n + 1);
		}
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return NULL;
}

void capture_begin(struct capture *c)
{
	snprintf(c->path, sizeof c->path, "/tmp/cgisnap-log-XXXXXX");
	fflush(stderr);
	int fd = mkstemp(c->path);
	c->saved = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* What was logged (fresh). */
char *capture_end(struct capture *c)
{
	struct buf b = BUF_INIT;
	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	int fd = open(c->path, O_RDONLY);
	if (fd >= 0) {
		buf_read_fd(&b, fd, (size_t)1 << 30);
		close(fd);
	}
	unlink(c->path);
	return buf_detach(&b, NULL);
}


pid_t spawn_server(char *const argv[], char *const envp[])
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	pid_t pid;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, envp);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return rc ? -1 : pid;
}

void stop_server(pid_t pid)
{
	int status;
	if (pid <= 0)
		return;
	kill(-pid, SIGKILL);
	waitpid(pid, &status, 0);
}

static bool can_connect(const struct sockaddr *sa, socklen_t len)
{
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok = fd >= 0 && connect(fd, sa, len) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static bool port_answers(int port)
{
	struct sockaddr_in sin = { 0 };
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return can_connect((struct sockaddr *)&sin, sizeof sin);
}

static bool unix_answers(const char *path)
{
	struct sockaddr_un sun = { 0 };
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	return can_connect((struct sockaddr *)&sun, sizeof sun);
}

/* Wait until the server answers; false when it exited (its address was
 * taken) or took too long. */
bool wait_listening(pid_t pid, int port, const char *unix_path)
{
	struct timespec ts = { 0, 10000000 };
	int status;
	for (int i = 0; i < 500; i++) {
		if (port ? port_answers(port) : unix_answers(unix_path)) {
			/* Ours, not another test's: ours would have exited
			 * by now had it found the address taken. */
			nanosleep(&ts, NULL);
			nanosleep(&ts, NULL);
			if (waitpid(pid, &status, WNOHANG) == pid)
				return false;
			return true;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			return false;
		nanosleep(&ts, NULL);
	}
	stop_server(pid);
	return false;
}

/* Start php-cgi -b or php -S on a free port from a base chosen by pid;
 * the pid, or -1. */
pid_t start_server(enum server_kind kind, int *port_out)
{
	char path_env[PATH_MAX + 8];
	snprintf(path_env, sizeof path_env, "PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	char *fcgi_env[] = { path_env, "PHP_FCGI_CHILDREN=2", "PHP_FCGI_MAX_REQUESTS=3", NULL };
	char *http_env[] = { path_env, "PHP_CLI_SERVER_WORKERS=2", NULL };
	int base = 39000 + (int)(getpid() % 1000);

	for (int i = 0; i < 40; i++) {
		int port = base + i * 37 % 1000;
		if (port_answers(port))
			continue;
		char addr[64];
		snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
		char *fcgi_argv[] = { "php-cgi", "-b", addr, NULL };
		char *http_argv[] = { "php", "-S", addr, "-t", (char *)docroot(), NULL };
		pid_t pid = kind == PHP_FCGI ? spawn_server(fcgi_argv, fcgi_env)
					     : spawn_server(http_argv, http_env);
		if (pid < 0)
			return -1;
		if (wait_listening(pid, port, NULL)) {
			*port_out = port;
			return pid;
		}
	}
	return -1;
}

static int count(const char *s, const char *needle)
{
	int n = 0;
	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

void *hammer_run(void *arg)
{
	struct hammer *h = arg;
	for (int i = 0; i < h->times; i++) {
		struct origin_response rs;
		char err[ERR_LEN];
		if (render(h->o, h->target, NULL, &rs, err) < 0 || rs.status != 200) {
			printf("    %s: %s\n", h->target, err);
			h->failures++;
		}
		if (rs.render_ms > h->slowest_ms)
			h->slowest_ms = rs.render_ms;
		int pipes = count(buf_str(&rs.body), "pipe:");
		if (pipes > h->pipes_seen)
			h->pipes_seen = pipes;
		origin_response_release(&rs);
	}
	return NULL;
}
