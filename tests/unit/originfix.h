/* originfix.h - what the origin tests (test_origin_*.c) share: the
 * fixture docroot of CGI programs, an origin opened on it, renders, the
 * log captured, and php-cgi -b or php -S started as a server.
 *
 *     struct fixture f = cgi_fixture();   // then set what the test needs
 *     if (fixture_open(&f, NULL)) { render(f.o, "/env.cgi", NULL, &rs, f.err); ... }
 *     fixture_close(&f);
 */
#ifndef CGISNAP_UNIT_ORIGINFIX_H
#define CGISNAP_UNIT_ORIGINFIX_H

#include <stdbool.h>
#include <stdlib.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/log.h"
#include "origin/origin.h"
#include "unit.h"
#include "url/url.h"

#define DOCROOT "tests/fixtures/cgi/docroot"

/* The fixture docroot's real path (a static buffer). */
const char *docroot(void);
/* Whether name is on PATH; says the test is skipped when not. */
bool have_program(const char *name);
/* A CGI configuration on the fixture docroot (cfg emptied first). */
void cgi_config(struct origin_config *cfg);

struct fixture {
	struct origin_config cfg;
	struct site site;
	struct origin *o;
	char err[ERR_LEN];
};
/* A fixture whose configuration is cgi_config's, not yet opened. */
struct fixture cgi_fixture(void);
/* Open the origin of f->cfg for site_url (NULL: the default); false with
 * f->err printed when it cannot be. */
bool fixture_open(struct fixture *f, const char *site_url);
/* The same with f->cfg as it is, saying nothing when it fails (a test
 * may expect it to). */
bool fixture_start(struct fixture *f);
void fixture_close(struct fixture *f);

/* Opening the origin of f->cfg for http://localhost/ fails, saying
 * want (a format: "%s" is the docroot); f is closed after. */
#define CHECK_OPEN_FAILS(f, want) check_open_fails(__FILE__, __LINE__, (f), (want))
void check_open_fails(const char *file, int line, struct fixture *f, const char *want);

/* A GET of target in fixture f renders, with the status want. */
#define CHECK_STATUS(f, target, want)                                              \
	do {                                                                       \
		struct origin_response rs_;                                        \
		CHECK_INT(0, render((f)->o, (target), NULL, &rs_, (f)->err));      \
		CHECK_INT((want), rs_.status);                                     \
		origin_response_release(&rs_);                                     \
	} while (0)

/* A GET of target in fixture f renders with the status want (0: any),
 * its body holding each line "KEY=VALUE" given as "KEY", "VALUE":
 * CHECK_LINE's lines of one render, in one go. */
#define CHECK_LINES(f, target, want, ...) \
	check_lines(__FILE__, __LINE__, (f), (target), (want), __VA_ARGS__, (const char *)NULL)
void check_lines(const char *file, int line, struct fixture *f, const char *target, int want, ...);

/* origin_render of target with method (NULL: GET). */
int render(struct origin *o, const char *target, const char *method,
	   struct origin_response *rs, char *err);

/* The value of a "KEY=VALUE" line of a body (fresh), or NULL. */
char *line_value(const struct buf *body, const char *key);
#define CHECK_LINE(expected, body, key) CHECK_STR_FREE((expected), line_value((body), (key)))

/* stderr into a file while the log is watched: capture_begin, then
 * capture_end gives what was logged (fresh). */
struct capture {
	char path[64];
	int saved;
};
void capture_begin(struct capture *c);
char *capture_end(struct capture *c);

/* A server in a process group of its own, its stdio on /dev/null; the
 * pid, or -1. stop_server kills the group and reaps it. */
pid_t spawn_server(char *const argv[], char *const envp[]);
void stop_server(pid_t pid);
/* Wait until the server answers on port (0: on unix_path); false when it
 * exited (its address was taken) or took too long. */
bool wait_listening(pid_t pid, int port, const char *unix_path);

enum server_kind { PHP_FCGI, PHP_HTTP };
/* Start php-cgi -b or php -S on a free port from a base chosen by pid;
 * the pid, or -1. */
pid_t start_server(enum server_kind kind, int *port_out);

/* A thread's renders of target, times times, for concurrency tests:
 * hammer_run(h) counts the failures, the slowest render and the most
 * "pipe:" lines a body showed (a CGI program's open pipes). */
struct hammer {
	struct origin *o;
	const char *target;
	int times;
	int failures;
	long slowest_ms;
	int pipes_seen;         /* most "pipe:" in a body */
};
void *hammer_run(void *arg);

#endif
