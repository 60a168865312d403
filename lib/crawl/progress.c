/* progress.c - the progress bar and line of a crawl. */
#include "crawl/progress.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"

double progress_seconds(const struct crawl *c)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - c->start.tv_sec) + (now.tv_nsec - c->start.tv_nsec) / 1e9;
}

/* Where the run stands: done of total (total a lower bound when plus),
 * the rate and the seconds left (-1: unknown). The total is the URLs the
 * tree held when a full crawl began - a re-run meets about as many -
 * or, when more are known already, those: done, queued and rendering.
 * Locked. */
struct progress_state {
	long done, total;
	bool plus;
	double rate, eta;
	long failed;
};

static void progress_state_locked(const struct crawl *c, struct progress_state *p)
{
	double t = progress_seconds(c);
	long known = c->res->pages + c->queued + c->busy;
	p->done = c->res->pages;
	p->failed = c->res->failed;
	p->plus = !c->prev_total || known > c->prev_total;
	p->total = p->plus ? known : c->prev_total;
	p->rate = t > 0 ? p->done / t : 0.0;
	p->eta = p->rate > 0 && p->done ? (p->total - p->done) / p->rate : -1;
}

static void eta_text(double eta, char *out, size_t len)
{
	if (eta < 0)
		snprintf(out, len, "?");
	else if (eta < 100)
		snprintf(out, len, "%.0f s", eta);
	else if (eta < 6000)
		snprintf(out, len, "%.0f min", eta / 60);
	else
		snprintf(out, len, "%.1f h", eta / 3600);
}

/* Redraw the bar (CRAWL_PROGRESS_BAR): "[=====>    ] 412/611 67% 24.8
 * pages/s ETA 8 s  /doku.php?id=..." cut to the terminal's width.
 * Locked. */
static void show_bar_locked(struct crawl *c, bool force)
{
	struct progress_state p;
	progress_state_locked(c, &p);
	long pct = p.total > 0 ? p.done * 100 / p.total : 0;
	enum { WIDTH = 20 };
	char bar[WIDTH + 3];
	long fill = pct * WIDTH / 100;
	bar[0] = '[';
	for (long i = 0; i < WIDTH; i++)
		bar[1 + i] = i < fill ? '=' : i == fill ? '>' : ' ';
	bar[WIDTH + 1] = ']';
	bar[WIDTH + 2] = '\0';
	char eta[32], failed[32] = "";
	eta_text(p.eta, eta, sizeof eta);
	if (p.failed)
		snprintf(failed, sizeof failed, " %ld failed", p.failed);
	char head[160];
	int n = snprintf(head, sizeof head, "%s %ld/%ld%s %ld%% %.1f pages/s ETA %s%s  ", bar, p.done, p.total,
			 p.plus ? "+" : "", pct, p.rate, eta, failed);
	/* The URL fills what is left of the line, its end cut to "..." */
	long room = (long)progress_columns() - 1 - n;
	size_t ulen = strlen(c->current);
	if (room < 4)
		progress_update(force, "%s", head);
	else if ((long)ulen <= room)
		progress_update(force, "%s%s", head, c->current);
	else
		progress_update(force, "%s%.*s...", head, (int)(room - 3), c->current);
}

/* The progress line (CRAWL_PROGRESS_LINE), for a log: "progress: 412/611
 * URLs (67%), 24.8 pages/s, ETA 8 s, 0 failed". Locked. */
static void show_line_locked(struct crawl *c)
{
	struct progress_state p;
	progress_state_locked(c, &p);
	char eta[32];
	eta_text(p.eta, eta, sizeof eta);
	log_info("progress: %ld/%ld%s URLs (%ld%%), %.1f pages/s, ETA %s, %ld failed", p.done, p.total,
		 p.plus ? "+" : "", p.total > 0 ? p.done * 100 / p.total : 0, p.rate, eta, p.failed);
}

/* After each render: the bar follows every step (progress_update draws
 * it at most 10 times a second). Locked. */
void progress_show_locked(struct crawl *c, bool force)
{
	if (c->cfg->progress == CRAWL_PROGRESS_BAR)
		show_bar_locked(c, force);
}

/* While the workers run: the progress line every progress_interval
 * seconds, and the bar redrawn each second, so that its rate and ETA
 * move while a slow render holds every thread, and a stop request is
 * seen. */
void progress_tick_until_done(struct crawl *c)
{
	long period_ms = c->cfg->progress == CRAWL_PROGRESS_LINE
				 ? (c->cfg->progress_interval > 0 ? c->cfg->progress_interval : CRAWL_PROGRESS_INTERVAL) * 1000
				 : 1000;
	pthread_mutex_lock(&c->lock);
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (c->running > 0) {
		next.tv_sec += period_ms / 1000;
		next.tv_nsec += (period_ms % 1000) * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		int rc = 0;
		while (c->running > 0 && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&c->cond, &c->lock, &next);
		if (c->running == 0)
			break;
		if (c->cfg->progress == CRAWL_PROGRESS_LINE)
			show_line_locked(c);
		else if (c->cfg->progress == CRAWL_PROGRESS_BAR)
			show_bar_locked(c, true);
	}
	pthread_mutex_unlock(&c->lock);
}
