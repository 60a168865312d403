/* fswatch.h - the kernel's inotify behind one small interface: directories
 * watched by path, alone or with everything below them, and their events
 * read back with the watched directory they came from. The only file that
 * includes <sys/inotify.h> is fswatch.c; what a watched directory means
 * (a source of watch, the tree of serve) is the caller's.
 *
 * Steps:
 *   1. fswatch_new().
 *   2. fswatch_watch() for one directory, fswatch_add_tree() for a
 *      directory and every directory below it (symbolic links are not
 *      followed, a struct fsw_walk says what else to skip).
 *   3. poll fswatch_fd() for POLLIN; fswatch_read() hands each event of
 *      one read to the caller's function. For an event about a directory
 *      of a tree, fswatch_follow() keeps the tree watched: a directory
 *      created or moved in is added with all below it, one deleted or
 *      moved out (or renamed: moved out, then in) is forgotten. On
 *      FSW_OVERFLOW the caller walks its trees again (the events of
 *      directories created meanwhile were lost).
 *   4. fswatch_free().
 *
 * A watch descriptor is the kernel's name of a watched directory; here
 * each one has a struct fsw_dir holding its path, which the caller may
 * give data of its own.
 */
#ifndef CGISNAP_LIB_FSWATCH_H
#define CGISNAP_LIB_FSWATCH_H

#include <stdbool.h>
#include <stddef.h>

/* What happened to a path (flags may combine). */
enum {
	FSW_CHANGED = 1,   /* content written (closed after writing, modified), or its attributes */
	FSW_CREATED = 2,   /* the name appeared: created, moved or renamed in */
	FSW_REMOVED = 4,   /* the name went away: deleted, moved or renamed out */
	FSW_DIR = 8,       /* the path is a directory */
	FSW_OVERFLOW = 16, /* events were lost (no directory, no path): anything may have changed */
	FSW_SELF = 32,     /* the watched directory itself was deleted or moved (no name) */
	FSW_IGNORED = 64,  /* the kernel dropped the watch (no name); its fsw_dir goes after the call */
	/* How a change came, for callers that wait for a save to finish
	 * (with FSW_CHANGED, FSW_CREATED or FSW_REMOVED): */
	FSW_WRITING = 128, /* with FSW_CHANGED: a write while the file is still open, not its close */
	FSW_RENAMED = 256, /* with FSW_CREATED or FSW_REMOVED: the name came or went by a rename */
	FSW_FIRST_FREE = 512 /* callers' flags of their own start here */
};

/* What a directory's watch asks the kernel for (flags may combine). */
enum {
	FSW_WATCH_WRITES = 1,    /* a name closed after writing */
	FSW_WATCH_MODIFY = 2,    /* every write, also by a program keeping the file open */
	FSW_WATCH_ATTRIB = 4,    /* a name's mode, owner or times */
	FSW_WATCH_NAMES = 8,     /* names created, deleted, moved in and out */
	FSW_WATCH_NEW_NAMES = 16, /* names created and moved in only */
	FSW_WATCH_SELF = 32,     /* the directory itself deleted or moved */
	FSW_WATCH_NOFOLLOW = 64  /* a symbolic link at the path is not followed */
};

struct fsw_event {
	unsigned flags;
	char *path; /* NULL for FSW_OVERFLOW */
};

/* A growing list of events; paths are owned by the list. */
struct fsw_events {
	struct fsw_event *items;
	size_t n, cap;
};

#define FSW_EVENTS_INIT { NULL, 0, 0 }

void fsw_events_add(struct fsw_events *ev, unsigned flags, const char *path);
void fsw_events_clear(struct fsw_events *ev);

/* One watched directory. */
struct fsw_dir {
	char *path;    /* as it was watched (a move inside a tree renames it) */
	bool tree;     /* watched as part of a tree: fswatch_drop_tree forgets it */
	unsigned seen; /* the generation (fswatch_next_generation) that last watched it */
	void *data;    /* the caller's, released by the function given to fswatch_new */
	int wd;        /* the kernel's watch descriptor */
};

struct fswatch;

/* A watcher with nothing watched yet; release (NULL: none) is called for
 * each directory forgotten that has data. NULL with err when inotify
 * cannot be set up ("cannot start inotify: Too many open files"). */
struct fswatch *fswatch_new(void (*release)(void *data), char *err);

/* The descriptor to poll (non-blocking). */
int fswatch_fd(const struct fswatch *w);

/* Watch the directory at path for want (FSW_WATCH_*), added to what its
 * watch asks for already: one directory may serve several purposes. The
 * entry for it, existing (renamed to path if the directory moved) or
 * new, stamped with the current generation. NULL with err, errno kept
 * (ENOSPC: the kernel's watch limit; ENOENT, ENOTDIR: no directory). */
struct fsw_dir *fswatch_watch(struct fswatch *w, const char *path, unsigned want, char *err);

/* Make d's watch ask for want only (no longer what it asked for before). */
void fswatch_narrow(struct fswatch *w, struct fsw_dir *d, unsigned want);

/* Stop watching d and forget it (d is freed). */
void fswatch_unwatch(struct fswatch *w, struct fsw_dir *d);

/* How fswatch_add_tree walks. */
struct fsw_walk {
	unsigned want; /* what each directory's watch asks for */
	/* Whether to watch the directory name found in the directory at
	 * path (and what is below it); NULL: every one. */
	bool (*enter)(void *ctx, const char *path, const char *name);
	/* A directory that could not be watched, and why (an errno other
	 * than ENOENT and ENOTDIR: gone meanwhile, always skipped); the walk
	 * goes on. NULL: the walk stops at the first such failure. */
	void (*failed)(void *ctx, const char *path, int errnum);
	void *ctx;
	/* Not NULL: what the walk finds below path is appended to it as
	 * FSW_CREATED (it appeared before its directory's watch did). */
	struct fsw_events *report;
};

/* Watch the directory at path and every directory below it (breadth
 * first, no descriptor held per level), each marked as part of a tree.
 * A directory gone meanwhile is skipped, one that cannot be read is
 * watched but not entered. 0, or -1 with err (errno kept) when a
 * directory could not be watched and walk->failed is NULL. */
int fswatch_add_tree(struct fswatch *w, const char *path, const struct fsw_walk *walk, char *err);

/* Forget the tree directories at and below path (deleted, moved away). */
void fswatch_drop_tree(struct fswatch *w, const char *path);

/* Keep a tree watched after an event about path (a name in one of its
 * directories) with flags: a directory removed is forgotten with all
 * below it, one created is added with all below it as walk says. 0, or
 * -1 as fswatch_add_tree. */
int fswatch_follow(struct fswatch *w, const char *path, unsigned flags, const struct fsw_walk *walk,
		   char *err);

/* The path of name in d (fresh string). */
char *fswatch_path(const struct fsw_dir *d, const char *name);

/* Called by fswatch_read for each event: d is NULL for FSW_OVERFLOW, name
 * NULL for an event about d itself (FSW_SELF, FSW_IGNORED). The function
 * may watch and forget directories, d included, except for FSW_IGNORED:
 * then d is forgotten right after the call. */
typedef void fswatch_fn(void *ctx, struct fsw_dir *d, const char *name, unsigned flags);

/* Read the events ready now, as many as one read returns, and hand each
 * to fn. 1 when some were read (call again for more), 0 when none were
 * ready (never blocks), -1 with err when reading failed. */
int fswatch_read(struct fswatch *w, fswatch_fn *fn, void *ctx, char *err);

/* Start a new generation: fswatch_watch stamps what it watches from now on
 * with it, so that what was not watched again can be found (after an
 * overflow). Returns it. */
unsigned fswatch_next_generation(struct fswatch *w);

/* Iterate over the watched directories (order unspecified): *it starts at
 * 0; NULL at the end. Forgetting the one just returned is safe. */
struct fsw_dir *fswatch_next(const struct fswatch *w, size_t *it);

/* The kernel's limit of watches for this user: the smaller of the global
 * setting and the user namespace's own (lower inside a container); -1
 * when unknown. */
long fswatch_max_watches(void);

void fswatch_free(struct fswatch *w);

#endif
