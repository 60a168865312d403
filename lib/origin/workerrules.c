/* workerrules.c - the rules of a worker's life (workers.h): php-cgi's
 * settings as a worker, when one is worn out, what its end says. Apart
 * from the pool, so that they are read and tested without one. */
#include "origin/workers.h"
#include "origin/origin_impl.h"

#include <string.h>
#include <sys/wait.h>

#include "base/log.h"
#include "base/xalloc.h"

void workers_php_args(struct strlist *args, const char *session_dir, bool fresh)
{
	static const char *const opcache[] = { "opcache.enable=1", "opcache.validate_timestamps=1",
					       "opcache.revalidate_freq=0" };
	for (size_t i = 0; i < (fresh ? sizeof opcache / sizeof opcache[0] : 1); i++) {
		strlist_add(args, "-d");
		strlist_add(args, opcache[i]);
	}
	if (session_dir) {
		strlist_add(args, "-d");
		strlist_add_owned(args, xasprintf("session.save_path=%s", session_dir));
		/* opcache's lock file goes to /tmp otherwise, which a sandbox
		 * (the systemd units' ProtectSystem=strict) may not let it
		 * write: then php-cgi dies at start. The session directory is
		 * ours and writable. */
		strlist_add(args, "-d");
		strlist_add_owned(args, xasprintf("opcache.lockfile_path=%s", session_dir));
		strlist_add(args, "-d");
		strlist_add(args, SESSION_GC_ARG);
	}
}

int workers_exit_reason(int status, char *err)
{
	if (WIFSIGNALED(status)) {
		const char *name = sigabbrev_np(WTERMSIG(status));
		return err_set(err, "killed by signal %d (SIG%s)", WTERMSIG(status), name ? name : "?");
	}
	return err_set(err, "exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : 0);
}

bool workers_worn_out(long served, long max_requests)
{
	return served >= (max_requests > 0 ? max_requests : WORKERS_MAX_REQUESTS);
}
