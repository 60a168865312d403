/* kept.c - what a crawl learns that the next runs keep (kept.h). */
#include "crawl/kept.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "crawl/engine.h"
#include "tree/publish.h"
#include "base/log.h"
#include "base/xalloc.h"

void kept_read_volatiles(struct volatiles *v, int meta_fd, const struct crawl_config *cfg)
{
	char err[ERR_LEN];
	struct buf text = BUF_INIT;
	volatiles_init(v);
	if (meta_fd >= 0 && faccessat(meta_fd, VOLATILE_FILE, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		if (publish_read(meta_fd, VOLATILE_FILE, 1 << 20, &text, err) == 0)
			volatiles_parse(v, buf_str(&text), text.len);
		else
			log_warn("%s", err);
	}
	buf_release(&text);
	for (size_t i = 0; i < cfg->volatile_rules.n; i++)
		volatiles_parse(v, cfg->volatile_rules.items[i], strlen(cfg->volatile_rules.items[i]));
}

/* The rules c knows, one line each as .cgisnap/volatile has them, into out. */
void kept_volatile_lines(const struct crawl *c, struct strlist *out)
{
	struct buf text = BUF_INIT;
	volatiles_format(&c->volatiles, &text);
	for (const char *s = buf_str(&text), *nl; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl)
			break;
		if (*s != '#')
			strlist_add_owned(out, xstrndup(s, (size_t)(nl - s)));
	}
	buf_release(&text);
}

/* Keep what this run learned for the next. */
static void save_volatiles(struct crawl *c)
{
	char err[ERR_LEN];
	if (!c->volatiles.changed || c->tree->meta_fd < 0)
		return;
	struct buf text = BUF_INIT;
	volatiles_format(&c->volatiles, &text);
	if (write_file_atomic(c->tree->meta_fd, VOLATILE_FILE, text.data, text.len, err) < 0)
		log_warn("%s", err);
	else
		c->volatiles.changed = false;
	buf_release(&text);
}

/* The views as the options make them: the sample size, the given
 * families. */
void kept_init_views(struct crawl *c)
{
	views_release(&c->views);
	views_init(&c->views, c->cfg->robots_meta == ROBOTS_META_IGNORE ? 0 : c->cfg->noindex_sample);
	for (size_t i = 0; i < c->cfg->view_families.n; i++)
		views_give(&c->views, c->cfg->view_families.items[i]);
}

/* The families the last full crawl cut by their sample (views.h), for
 * this process's updates; none when the file is missing or unreadable. */
static void load_views(struct crawl *c)
{
	char err[ERR_LEN];
	struct buf text = BUF_INIT;
	struct strlist lines = STRLIST_INIT;
	kept_init_views(c);
	if (c->tree->meta_fd < 0 || faccessat(c->tree->meta_fd, VIEWS_FILE, F_OK, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	if (publish_read(c->tree->meta_fd, VIEWS_FILE, 16 << 20, &text, err) < 0) {
		log_warn("%s", err);
	} else {
		strlist_split(&lines, buf_str(&text), '\n');
		for (size_t i = 0; i < lines.n; i++)
			views_learn(&c->views, lines.items[i], c->cfg->robots_meta != ROBOTS_META_IGNORE);
	}
	views_format_learned(&c->views, &c->views_saved);
	c->views.noindex_changed = false;
	strlist_clear(&lines);
	buf_release(&text);
}

/* Keep the families this full crawl cut and the noindex URLs for later
 * processes' updates (when they differ from the file's; an update changes
 * only the URLs). */
static void save_views(struct crawl *c)
{
	char err[ERR_LEN];
	struct buf text = BUF_INIT;
	if (c->update_mode && !c->views.noindex_changed)
		return;
	views_format_learned(&c->views, &text);
	bool same = text.len == c->views_saved.len && (!text.len || !memcmp(text.data, c->views_saved.data, text.len));
	if (same) {
		c->views.noindex_changed = false;
	} else if (c->tree->meta_fd >= 0) {
		if (write_file_atomic(c->tree->meta_fd, VIEWS_FILE, text.data, text.len, err) < 0) {
			log_warn("%s", err);
		} else {
			c->views.noindex_changed = false;
			buf_release(&c->views_saved);
			c->views_saved = text;
			text = (struct buf)BUF_INIT;
		}
	}
	buf_release(&text);
}

void kept_load(struct crawl *c)
{
	kept_read_volatiles(&c->volatiles, c->tree->meta_fd, c->cfg);
	load_views(c);
}

void kept_save(struct crawl *c, bool views)
{
	save_volatiles(c);
	if (views)
		save_views(c);
}
