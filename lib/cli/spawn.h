/* cli/spawn.h - the servers bench and verify start themselves: this very
 * binary (/proc/self/exe) running 'serve' on a free port of 127.0.0.1.
 *
 * A child gets its own process group (a Ctrl-C at the terminal reaches
 * bench only, which then stops its servers in order) and dies with bench
 * (PR_SET_PDEATHSIG) should bench be killed outright. Its standard output
 * goes to /dev/null, its standard error to a temporary file that
 * spawn_last_line() reads for messages.
 *
 * The server takes port 0, the kernel's choice, and says which it got
 * ("serving ... on http://127.0.0.1:PORT/"): a port found free here and
 * bound by the child later could be taken meanwhile (a connection's
 * ephemeral port on a busy machine), and bench would then measure
 * nothing or, worse, another program.
 *
 *     ... argv with "--listen", "127.0.0.1:0" ...
 *     struct spawned s = SPAWNED_INIT;
 *     if (spawn_start(&s, "static server", argv, 10000, &stop, err) < 0) ...
 *     ... s.port, s.url ...
 *     spawn_stop(&s, 5000);
 */
#ifndef CGISNAP_BENCH_SPAWN_H
#define CGISNAP_BENCH_SPAWN_H

#include <signal.h>
#include <sys/types.h>

struct spawned {
	pid_t pid;      /* 0: not running */
	int port;
	char *url;      /* "http://127.0.0.1:PORT/" */
	char *name;     /* for messages: "dynamic server" */
	int log_fd;     /* the child's standard error (unlinked file), -1 */
};

/* Not running: spawn_stop() on it does nothing. */
#define SPAWNED_INIT { 0, 0, NULL, NULL, -1 }

/* Run /proc/self/exe with argv (argv[0] is the name it sees; the list ends
 * with NULL; a serve listening on 127.0.0.1:0) and wait until it says its
 * port and that port accepts connections, the child exits, timeout_ms
 * pass or *stop is set. 0 when it accepts (s->port, s->url set); else the
 * child is stopped and reaped, s is released and -1 returned with err
 * ("the static server did not start: LAST LINE OF ITS STDERR"). */
int spawn_start(struct spawned *s, const char *name, char *const *argv, int timeout_ms, volatile sig_atomic_t *stop,
		char *err);

/* The child's peak resident memory in KiB (VmHWM of /proc/PID/status),
 * -1 when it cannot be read. */
long spawn_peak_rss_kb(const struct spawned *s);

/* The last non-empty line the child wrote to its standard error (fresh
 * string; the caller frees it), NULL when none. */
char *spawn_last_line(const struct spawned *s);

/* SIGTERM, then SIGKILL after grace_ms; reap the child and release s.
 * Returns its wait status (as waitpid gives it), or -1 when no child was
 * running. Harmless on a released s. */
int spawn_stop(struct spawned *s, int grace_ms);

#endif
