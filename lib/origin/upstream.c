/* upstream.c - the --fastcgi servers as one upstream pool (origin_impl.h).
 *
 * A site too big for one machine's PHP renders on several: php-fpm pools
 * on other machines, each given with its own --fastcgi. The crawl's jobs
 * (-j) are the requests under way across all of them; each goes to the
 * server with the fewest under way (nginx's least_conn), so that a slow
 * or small pool gets fewer. A server that cannot be reached, or that
 * breaks its connections (a pool stopped, a machine gone), is skipped for
 * UPSTREAM_DOWN_MS and the page is tried on the next one: pages are GET
 * requests, and a render that never answered changed nothing we keep.
 * After that time one request tries it again; if it answers, it is back.
 * A render that fails otherwise (a timeout, output past --max-output, a
 * bad response) is the page's failure, as with one server: trying it
 * elsewhere would only fail again, slower.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "origin/origin_impl.h"

struct backend {
	struct fcgi_pool *pool;
	char *addr;             /* as given, for messages */
	long busy;              /* requests under way */
	long long down_until;   /* now_ms() before this: skipped (0: up) */
};

struct upstream {
	pthread_mutex_t lock;
	struct backend *servers;
	size_t n;
};

struct upstream *upstream_open(const struct strlist *addrs, char *err)
{
	struct upstream *u = xcalloc(1, sizeof *u);
	pthread_mutex_init(&u->lock, NULL);
	u->servers = xcalloc(addrs->n ? addrs->n : 1, sizeof *u->servers);
	for (size_t i = 0; i < addrs->n; i++) {
		struct backend *b = &u->servers[u->n];
		if (!(b->pool = fcgi_open(addrs->items[i], err))) {
			upstream_close(u);
			return NULL;
		}
		b->addr = xstrdup(addrs->items[i]);
		u->n++;
	}
	return u;
}

/* The server for the next request: the one with the fewest requests
 * under way among those up and not tried yet, the first on a tie; when
 * every one left is down, the one down longest ago. Its busy count is
 * taken. -1 when every one was tried. Locked. */
static long pick_locked(struct upstream *u, const bool *tried, long long now)
{
	long best = -1;
	bool best_up = false;
	for (size_t i = 0; i < u->n; i++) {
		const struct backend *b = &u->servers[i];
		if (tried[i])
			continue;
		bool up = b->down_until <= now;
		if (best < 0 || (up && !best_up) ||
		    (up == best_up && (up ? b->busy < u->servers[best].busy
					  : b->down_until < u->servers[best].down_until))) {
			best = (long)i;
			best_up = up;
		}
	}
	if (best >= 0)
		u->servers[best].busy++;
	return best;
}

int upstream_run(struct upstream *u, const char *target, const struct strlist *env, long timeout_s,
		 size_t max_output, struct spill *out, unsigned long *app_status, char *err)
{
	bool tried_one[1] = { false };
	bool *tried = u->n > 1 ? xcalloc(u->n, sizeof *tried) : tried_one;
	int rc = FCGI_GONE;
	for (;;) {
		pthread_mutex_lock(&u->lock);
		long i = pick_locked(u, tried, now_ms());
		pthread_mutex_unlock(&u->lock);
		if (i < 0)
			break;
		struct backend *b = &u->servers[i];
		tried[i] = true;
		rc = fcgi_run(b->pool, target, env, timeout_s, max_output, out, app_status, err);
		pthread_mutex_lock(&u->lock);
		b->busy--;
		bool was_up = b->down_until <= now_ms();
		if (rc == FCGI_GONE) {
			b->down_until = now_ms() + UPSTREAM_DOWN_MS;
		} else if (b->down_until) {
			b->down_until = 0;
			if (u->n > 1)
				log_info("FastCGI server '%s' answers again", b->addr);
		}
		pthread_mutex_unlock(&u->lock);
		if (rc != FCGI_GONE)
			break;
		if (u->n > 1 && was_up)
			log_warn("%s: its pages go to the other --fastcgi servers for %d s", err,
				 UPSTREAM_DOWN_MS / 1000);
		spill_reset(out);
		*app_status = 0;
	}
	if (tried != tried_one)
		free(tried);
	return rc == FCGI_GONE ? -1 : rc;
}

void upstream_close(struct upstream *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++) {
		fcgi_close(u->servers[i].pool);
		free(u->servers[i].addr);
	}
	free(u->servers);
	pthread_mutex_destroy(&u->lock);
	free(u);
}
