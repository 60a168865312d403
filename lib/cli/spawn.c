/* bench/spawn.c - start, wait for and stop the servers bench measures
 * (spawn.h). */
#include "cli/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sa;
}

/* Does 127.0.0.1:port accept a connection now? */
static int accepts(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	struct sockaddr_in sa = loopback(port);
	int ok = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
	close(fd);
	return ok;
}

static void release(struct spawned *s)
{
	if (s->log_fd >= 0)
		close(s->log_fd);
	free(s->url);
	free(s->name);
	s->url = s->name = NULL;
	s->log_fd = -1;
	s->pid = 0;
}

/* A temporary file, already unlinked, for the child's standard error. */
static int temp_log(char *err)
{
	const char *dir = getenv("TMPDIR");
	char *path = xasprintf("%s/cgisnap-bench.XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		err_sys(err, "cannot create a temporary file in '%s'", dir && *dir ? dir : "/tmp");
	else
		unlink(path);
	free(path);
	return fd;
}

/* The port of serve's "serving ... on http://127.0.0.1:PORT/" line in the
 * child's log, or 0 while there is none. */
static int said_port(const struct spawned *s)
{
	char buf[8192];
	ssize_t n = pread(s->log_fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	const char *at = strstr(buf, " on http://127.0.0.1:");
	if (!at)
		return 0;
	char *end;
	long port = strtol(at + strlen(" on http://127.0.0.1:"), &end, 10);
	return *end == '/' && port > 0 && port < 65536 ? (int)port : 0;
}

int spawn_start(struct spawned *s, const char *name, char *const *argv, int timeout_ms, volatile sig_atomic_t *stop,
		char *err)
{
	memset(s, 0, sizeof *s);
	s->log_fd = temp_log(err);
	if (s->log_fd < 0)
		return -1;
	s->name = xstrdup(name);
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		err_sys(err, "cannot start the %s", name);
		release(s);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		dup2(s->log_fd, 2);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "cannot run '/proc/self/exe': %s\n", strerror(errno));
		_exit(127);
	}
	s->pid = pid;

	for (long waited = 0;; waited += 20) {
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			s->pid = 0;
			char *line = spawn_last_line(s);
			if (WIFEXITED(status))
				err_set(err, "the %s exited with status %d%s%s", name, WEXITSTATUS(status),
					line ? ": " : "", line ? line : "");
			else
				err_set(err, "the %s was killed by signal %d%s%s", name, WTERMSIG(status),
					line ? ": " : "", line ? line : "");
			free(line);
			release(s);
			return -1;
		}
		if (!s->port && (s->port = said_port(s)) > 0)
			s->url = xasprintf("http://127.0.0.1:%d/", s->port);
		if (s->port && accepts(s->port))
			return 0;
		if (waited >= timeout_ms || (stop && *stop)) {
			char *line = spawn_last_line(s);
			if (stop && *stop)
				err_set(err, "interrupted while the %s was starting", name);
			else
				err_set(err, "the %s did not accept connections on 127.0.0.1:%d within %d s%s%s",
					name, s->port, timeout_ms / 1000, line ? ": " : "", line ? line : "");
			free(line);
			spawn_stop(s, 2000);
			return -1;
		}
		sleep_ms(20);
	}
}

long spawn_peak_rss_kb(const struct spawned *s)
{
	if (!s->pid)
		return -1;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/status", (int)s->pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[256];
	long kb = -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

char *spawn_last_line(const struct spawned *s)
{
	if (s->log_fd < 0)
		return NULL;
	struct stat st;
	if (fstat(s->log_fd, &st) < 0 || st.st_size <= 0)
		return NULL;
	/* The tail is enough: the last line is what matters. */
	char buf[4096];
	off_t from = st.st_size > (off_t)sizeof buf - 1 ? st.st_size - (off_t)sizeof buf + 1 : 0;
	ssize_t n = pread(s->log_fd, buf, sizeof buf - 1, from);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	if (!n)
		return NULL;
	char *start = strrchr(buf, '\n');
	return xstrdup(start ? start + 1 : buf);
}

int spawn_stop(struct spawned *s, int grace_ms)
{
	int status = -1;
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		long waited = 0;
		pid_t r;
		while ((r = waitpid(s->pid, &status, WNOHANG)) == 0 && waited < grace_ms) {
			sleep_ms(10);
			waited += 10;
		}
		if (r == 0) {
			kill(s->pid, SIGKILL);
			while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
				;
		} else if (r < 0) {
			status = -1;
		}
	}
	release(s);
	return status;
}
