/* runas.h - who runs the site's programs: never root by accident.
 *
 * Started by root, cgisnap itself stays root (it writes the tree where
 * root asked), but what it runs of the site — CGI programs, php-cgi and
 * --cgi-spawn workers, the seed, site-URL and source commands — runs as an
 * unprivileged user, as Apache's User, php-fpm and nginx's workers do: a
 * file the application creates belongs to that user, and a flaw in it
 * has no more privilege than the live site's.
 *
 * Which user (runas_resolve): --user USER[:GROUP] when given (the
 * environment's CGISNAP_USER when not); else the owner of the site's
 * files (--root, or the first mount's program or directory) when that is
 * not root; else www-data where it exists; else none, and the run is
 * refused: guessing would be worse. "--user root" renders as root, on
 * purpose. Started by anyone else, programs run as that caller, and a
 * --user naming somebody else is refused.
 *
 * The switch happens in the child, before its exec (runas_enter):
 * supplementary groups, group, then user, all three ids of each, with
 * raw system calls, so that it is safe in a child of a threaded process
 * and in one that borrows its memory (base/vmfork.h). The directories
 * cgisnap makes for the programs (workers' sockets, PHP's sessions) are
 * given to the user (runas_give).
 */
#ifndef CGISNAP_RUNAS_H
#define CGISNAP_RUNAS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define RUNAS_DEFAULT_USER "www-data"
#define RUNAS_ENV "CGISNAP_USER"

struct runas {
	bool active;     /* switch in the child; false: run as we are */
	uid_t uid;
	gid_t gid;
	gid_t *groups;   /* supplementary groups, ngroups of them */
	size_t ngroups;
	char *name;      /* "www-data", or "#1234" for a uid with no name */
	char *home;      /* its home directory, "/" when it has none */
	const char *why; /* how it was chosen: "--user", "the owner of ...", ... */
};

#define RUNAS_INIT { false, 0, 0, NULL, 0, NULL, NULL, NULL }

/* Decide who runs the site's programs into *ra (released first). spec
 * is --user's value (NULL: none given; then RUNAS_ENV's), site the path
 * whose owner renders by default (NULL: none). -1 with err when spec
 * names no user or group, names another user and we are not root, or we
 * are root and there is no user to choose. */
int runas_resolve(struct runas *ra, const char *spec, const char *site, char *err);

/* In the child, before exec: become ra's user. System calls only, no
 * allocation. -1 with errno when the kernel refused. */
int runas_enter(const struct runas *ra);

/* In the child, after runas_enter failed: say so on stderr ("cgisnap:
 * cannot run PROG as USER: the system refused (errno N)") and _exit(127).
 * System calls only. */
__attribute__((noreturn)) void runas_enter_failed(const struct runas *ra, const char *prog);

/* Whether ra's user may access path with mode (access(2)'s R_OK, X_OK):
 * asked of a child that switches, so the kernel's answer, ACLs and all.
 * True when ra is not active. */
bool runas_can(const struct runas *ra, const char *path, int mode);

/* Give path (a directory cgisnap made for the programs) to ra's user;
 * nothing when ra is not active. -1 with err. */
int runas_give(const struct runas *ra, const char *path, char *err);

/* "www-data (uid 33)": for messages. Static storage. */
const char *runas_text(const struct runas *ra);

void runas_release(struct runas *ra);

#endif
