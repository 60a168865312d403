/* interrupt.c - SIGINT and SIGTERM heard while a crawl runs (watcher.h:
 * watcher_crawl). Between batches watch reads its signals from a
 * signalfd in its loop; a crawl (the first snapshot of a big site, a full
 * re-crawl) holds that loop for minutes, so while one runs a thread of
 * its own reads them and stops the crawl as snapshot's Ctrl-C does: no
 * new render starts, those under way finish and are recorded, nothing is
 * pruned and the manifest is saved. The tree is consistent when watch
 * exits; the next start sees the run unfinished and crawls again. */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "watcher.h"
#include "base/log.h"

struct guard {
	struct watcher *w;
	int sigfd; /* SIGINT and SIGTERM only: SIGUSR1 waits for the loop */
	int done;  /* eventfd: the crawl ended */
};

static void *guard_thread(void *arg)
{
	struct guard *g = arg;
	for (;;) {
		struct pollfd p[2] = { { g->sigfd, POLLIN, 0 }, { g->done, POLLIN, 0 } };
		if (poll(p, 2, -1) < 0)
			continue; /* EINTR: every signal here is blocked, but be safe */
		if (p[1].revents)
			return NULL;
		struct signalfd_siginfo si;
		if (p[0].revents && read(g->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
			g->w->crawl_stop = 1;
			log_info("stopping: %s received during the crawl; the renders under way finish and are"
				 " recorded, no other starts", si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
			return NULL;
		}
	}
}

int watcher_crawl(struct watcher *w, const struct strlist *targets, struct crawl_result *res, char *err)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	struct guard g = { w, signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC), eventfd(0, EFD_CLOEXEC) };
	pthread_t thread;
	/* Without the guard (no descriptor left) the crawl runs as before:
	 * the signal is read after it. */
	bool guarded = g.sigfd >= 0 && g.done >= 0 && pthread_create(&thread, NULL, guard_thread, &g) == 0;
	w->crawl_stop = 0;
	int rc = targets ? crawl_update(w->crawl, targets, res, err) : crawl_full(w->crawl, res, err);
	if (guarded) {
		uint64_t one = 1;
		while (write(g.done, &one, sizeof one) < 0)
			;
		pthread_join(thread, NULL);
	}
	if (g.sigfd >= 0)
		close(g.sigfd);
	if (g.done >= 0)
		close(g.done);
	if (w->crawl_stop)
		w->stop = true;
	return rc;
}
