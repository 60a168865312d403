/* serve/treewatch.h - inotify on a whole snapshot tree, as a stream of
 * "this file changed" / "everything under this directory changed" calls,
 * on lib/base/fswatch.h (which keeps the tree's directories watched).
 *
 * Every directory of the tree gets a watch (symbolic links are not
 * followed; dot-directories other than the top .cgisnap/ are skipped, as
 * nothing in them is ever served). New directories are watched as they
 * appear; directories moved away or deleted lose their watches. Events
 * about dotfiles (the temporary files of an atomic publish) are ignored:
 * their rename to the real name is the event that matters.
 *
 * A directory that cannot be watched (the kernel's max_user_watches is
 * reached) makes the watch incomplete: treewatch_complete() turns false
 * and stays false, and the caller must stop trusting cached files.
 */
#ifndef CGISNAP_SERVE_TREEWATCH_H
#define CGISNAP_SERVE_TREEWATCH_H

#include <stdbool.h>

struct treewatch_ops {
	/* A file changed, appeared or went away; key is relative to the root. */
	void (*file_changed)(void *ctx, const char *key);
	/* A directory appeared, went away or moved: anything under it changed. */
	void (*dir_changed)(void *ctx, const char *dir);
	/* A file of .cgisnap/ changed: name is "manifest", "settings", ... */
	void (*meta_changed)(void *ctx, const char *name);
	/* Events were lost (the kernel queue overflowed) or the root itself
	 * went away: anything may have changed. */
	void (*overflow)(void *ctx);
};

struct treewatch;

/* Watch the tree at root (a path). NULL with err when inotify cannot be
 * set up at all. */
struct treewatch *treewatch_open(const char *root, char *err);

/* The descriptor to poll for POLLIN. */
int treewatch_fd(const struct treewatch *w);

/* Read every pending event and report it through ops. */
void treewatch_process(struct treewatch *w, const struct treewatch_ops *ops, void *ctx);

/* False once some directory could not be watched. */
bool treewatch_complete(const struct treewatch *w);

void treewatch_close(struct treewatch *w);

#endif
