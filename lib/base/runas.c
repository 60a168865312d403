/* runas.c - who runs the site's programs (runas.h). */
#include "base/runas.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"

void runas_release(struct runas *ra)
{
	free(ra->groups);
	free(ra->name);
	free(ra->home);
	*ra = (struct runas)RUNAS_INIT;
}

/* A decimal id, or -1. */
static long long parse_id(const char *s)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	return errno || *end || v >= (unsigned long long)(uid_t)-1 ? -1 : (long long)v;
}

/* Fill ra from user's passwd entry, or from the bare uid when it has
 * none (a file's owner may have no name): 0, or -1 when not found. */
static int take_user(struct runas *ra, const char *user, long long uid)
{
	struct passwd *pw = user ? getpwnam(user) : NULL;
	if (!pw && uid >= 0)
		pw = getpwuid((uid_t)uid);
	if (!pw && (user || uid < 0))
		return -1;
	if (pw) {
		ra->uid = pw->pw_uid;
		ra->gid = pw->pw_gid;
		ra->name = xstrdup(pw->pw_name);
		ra->home = xstrdup(pw->pw_dir && *pw->pw_dir ? pw->pw_dir : "/");
	} else {
		ra->uid = (uid_t)uid;
		ra->gid = (gid_t)uid; /* no entry: the caller sets the file's group */
		ra->name = xasprintf("#%lld", uid);
		ra->home = xstrdup("/");
	}
	return 0;
}

/* The supplementary groups: the user's (as login's initgroups), or only
 * gid when a group was named. */
static void take_groups(struct runas *ra, bool named_group)
{
	int n = 16;
	if (!named_group && ra->name[0] != '#') {
		for (int tries = 0; tries < 4; tries++) {
			free(ra->groups);
			ra->groups = xcalloc((size_t)n, sizeof *ra->groups);
			int got = n;
			if (getgrouplist(ra->name, ra->gid, ra->groups, &got) >= 0) {
				ra->ngroups = (size_t)got;
				return;
			}
			n = got > n ? got : n * 2;
		}
	}
	free(ra->groups);
	ra->groups = xcalloc(1, sizeof *ra->groups);
	ra->groups[0] = ra->gid;
	ra->ngroups = 1;
}

/* spec, "USER[:GROUP]", into ra. */
static int from_spec(struct runas *ra, const char *spec, const char *from, char *err)
{
	char *user = xstrdup(spec), *group = strchr(user, ':');
	int rc = -1;
	if (group)
		*group++ = '\0';
	if (!*user || take_user(ra, user, parse_id(user)) < 0) {
		err_set(err, "%s '%s': no such user%s", from, spec, *user ? "" : " (expected USER[:GROUP])");
		goto out;
	}
	if (group) {
		struct group *gr = *group ? getgrnam(group) : NULL;
		long long gid = parse_id(group);
		if (!gr && gid >= 0)
			gr = getgrgid((gid_t)gid);
		if (!gr && gid < 0) {
			err_set(err, "%s '%s': no such group '%s'", from, spec, group);
			goto out;
		}
		ra->gid = gr ? gr->gr_gid : (gid_t)gid;
	}
	take_groups(ra, group != NULL);
	ra->why = from;
	rc = 0;
out:
	free(user);
	return rc;
}

/* Root with no --user: the owner of site, else www-data, else none. */
static int by_default(struct runas *ra, const char *site, char *err)
{
	struct stat st;
	if (site && stat(site, &st) == 0 && st.st_uid != 0) {
		take_user(ra, NULL, st.st_uid);
		if (ra->name[0] == '#')
			ra->gid = st.st_gid;
		take_groups(ra, false);
		ra->why = "the owner of the site's files";
		return 0;
	}
	if (take_user(ra, RUNAS_DEFAULT_USER, -1) == 0) {
		take_groups(ra, false);
		ra->why = site ? "the site's files are root's" : "the default";
		return 0;
	}
	return err_set(err, "cgisnap runs as root and will not run the site as root: the site's files are root's"
			    " and there is no user '" RUNAS_DEFAULT_USER "'; say which user renders it with --user"
			    " USER (--user root to render as root)");
}

int runas_resolve(struct runas *ra, const char *spec, const char *site, char *err)
{
	const char *from = "--user";
	runas_release(ra);
	if (!spec || !*spec) {
		spec = getenv(RUNAS_ENV);
		from = RUNAS_ENV;
	}
	bool root = geteuid() == 0;
	if (spec && *spec) {
		if (from_spec(ra, spec, from, err) < 0)
			goto fail;
	} else if (!root) {
		return 0; /* the caller's own self */
	} else if (by_default(ra, site, err) < 0) {
		goto fail;
	}
	if (!root) {
		if (ra->uid != geteuid() || ra->gid != getegid()) {
			err_set(err, "%s '%s': only root can run the site as another user or group", from, spec);
			goto fail;
		}
		ra->active = false; /* ourselves already */
		return 0;
	}
	ra->active = ra->uid != 0; /* "--user root": as asked */
	return 0;
fail:
	runas_release(ra);
	return -1;
}

int runas_enter(const struct runas *ra)
{
	if (!ra || !ra->active)
		return 0;
	/* Raw calls: glibc's wrappers would signal the threads the parent
	 * had, which this child does not. Groups first, the user last:
	 * after it nothing may be changed. */
	if (syscall(SYS_setgroups, ra->ngroups, ra->groups) < 0 ||
	    syscall(SYS_setresgid, ra->gid, ra->gid, ra->gid) < 0 ||
	    syscall(SYS_setresuid, ra->uid, ra->uid, ra->uid) < 0)
		return -1;
	return 0;
}

/* s on fd 2, with write(2) alone. */
static void say(const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(2, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void runas_enter_failed(const struct runas *ra, const char *prog)
{
	int e = errno;
	char num[16], *p = num + sizeof num;
	*--p = '\0';
	do
		*--p = (char)('0' + e % 10);
	while ((e /= 10) && p > num);
	say("cgisnap: cannot run ");
	say(prog);
	say(" as ");
	say(ra->name);
	say(": the system refused (errno ");
	say(p);
	say(")\n");
	_exit(127);
}

bool runas_can(const struct runas *ra, const char *path, int mode)
{
	if (!ra || !ra->active)
		return true;
	pid_t pid = fork();
	if (pid < 0)
		return access(path, mode) == 0;
	if (pid == 0)
		_exit(runas_enter(ra) == 0 && access(path, mode) == 0 ? 0 : 1);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int runas_give(const struct runas *ra, const char *path, char *err)
{
	if (!ra || !ra->active)
		return 0;
	if (chown(path, ra->uid, ra->gid) < 0)
		return err_sys(err, "cannot give '%s' to %s", path, runas_text(ra));
	return 0;
}

const char *runas_text(const struct runas *ra)
{
	static __thread char text[96];
	if (!ra || !ra->name)
		return "this user";
	snprintf(text, sizeof text, "%s (uid %lu)", ra->name, (unsigned long)ra->uid);
	return text;
}
