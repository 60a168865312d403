/* settle.c - when a batch of watched changes may start (see settle.h). */
#include "settle.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/fswatch.h"

void settle_init(struct settle *s, long window_ms, long cap_ms)
{
	memset(s, 0, sizeof *s);
	s->window_ms = s->tree_window_ms = window_ms;
	s->cap_ms = s->tree_cap_ms = cap_ms;
}

void settle_set_tree(struct settle *s, long window_ms, long cap_ms)
{
	s->tree_window_ms = window_ms > s->window_ms ? window_ms : s->window_ms;
	s->tree_cap_ms = cap_ms > s->cap_ms ? cap_ms : s->cap_ms;
}

void settle_set_quiet(struct settle *s, long quiet_ms)
{
	s->quiet_ms = quiet_ms > 0 ? quiet_ms : 0;
}

/* name ends with suffix (and is longer). */
static bool ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);
	return n > k && !strcmp(name + n - k, suffix);
}

bool settle_temp_name(const char *name)
{
	size_t n = strlen(name);
	if (!n)
		return false;
	/* vim probes whether it may create files with "4913", then 4913 +
	 * 123 k while that name is taken (bufwrite.c). */
	if (n <= 9 && strspn(name, "0123456789") == n) {
		long v = strtol(name, NULL, 10);
		return v >= 4913 && (v - 4913) % 123 == 0;
	}
	if (name[n - 1] == '~' || ends_with(name, ".swp") || ends_with(name, ".swx") || ends_with(name, ".swo") ||
	    ends_with(name, ".tmp"))
		return true;
	if (!strncmp(name, ".goutputstream-", 15) || !strncmp(name, ".#", 2))
		return true;
	if (n > 2 && name[0] == '#' && name[n - 1] == '#')
		return true;
	/* sed -i writes "sed" and six random letters or digits, then renames. */
	if (n == 9 && !strncmp(name, "sed", 3)) {
		for (size_t i = 3; i < n; i++)
			if (!isalnum((unsigned char)name[i]))
				return false;
		return true;
	}
	return false;
}

/* The values of s->open. */
#define OPEN ((void *)1)
/* vim's probe file, removed: the save proper comes next, and closes it. */
#define PROBE ((void *)2)
/* A name removed: a save may bring it back, or a whole tree may be going. */
#define REMOVED ((void *)3)
/* A save's temporary or backup still there (save_temp): the save may
 * pause that long before it goes (a loaded machine, an fsync). */
#define SAVE_TEMP ((void *)4)
/* A file the renders write, written by another program, not closed yet. */
#define WRITER ((void *)5)

/* Whether a name is vim's probe (4913, 5036, ...). */
static bool is_probe(const char *name)
{
	size_t n = strlen(name);
	return n && n <= 9 && strspn(name, "0123456789") == n && settle_temp_name(name);
}

/* Whether a temporary name (settle_temp_name) belongs to one save, not
 * to a whole editing session: a backup x~ (vim removes it once x is
 * written and closed), sed's, gedit's or a .tmp file (renamed over the
 * file once written). A swap file and emacs' lock and auto-save files
 * stay while the file is edited, and are not waited out longer. */
static bool save_temp(const char *name)
{
	size_t n = strlen(name);
	if (!settle_temp_name(name) || ends_with(name, ".swp") || ends_with(name, ".swx") ||
	    ends_with(name, ".swo") || !strncmp(name, ".#", 2) || (n > 2 && name[0] == '#' && name[n - 1] == '#'))
		return false;
	return !(strspn(name, "0123456789") == n); /* vim's probe has rules of its own */
}

/* The last path component of path. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Whether a change with flags leaves path open (a save may be under way). */
static bool leaves_open(const char *path, unsigned flags)
{
	bool temp = settle_temp_name(base_name(path));
	if (flags & FSW_WRITING)
		return true; /* still being written */
	if ((flags & FSW_REMOVED) && !(flags & FSW_CREATED))
		return !temp; /* a temporary used up; a real name may come back */
	if ((flags & FSW_CREATED) && !(flags & (FSW_CHANGED | FSW_DIR | FSW_RENAMED)))
		return true; /* created, its close to come */
	return temp; /* closed or renamed in: done, unless it is still a temporary */
}

/* A real name in path's directory was saved: vim's probes there are done. */
static void close_probes(struct settle *s, const char *path)
{
	size_t dirlen = (size_t)(base_name(path) - path);
	size_t it = 0;
	const char *key;
	void *v;
	while (hashmap_next(&s->open, &it, &key, &v))
		if (v == PROBE && !strncmp(key, path, dirlen) && !strchr(key + dirlen, '/')) {
			hashmap_remove(&s->open, key);
			s->probes--;
		}
}

void settle_note(struct settle *s, const char *path, unsigned flags, long long now)
{
	void *was = hashmap_get(&s->open, path);
	void *now_v = NULL;
	bool removal = (flags & FSW_REMOVED) && !(flags & FSW_CREATED);
	bool shared_write = (flags & SETTLE_SHARED) && (flags & FSW_WRITING) && !(flags & FSW_REMOVED);
	if (!shared_write && (flags & SETTLE_SHARED))
		hashmap_remove(&s->kept_open, path); /* closed: its next writer is waited for */
	if (is_probe(base_name(path)) && removal)
		now_v = PROBE; /* vim probed the directory: it saves next */
	else if (shared_write && !hashmap_get(&s->kept_open, path))
		now_v = WRITER;
	else if (leaves_open(path, flags))
		now_v = removal ? REMOVED : save_temp(base_name(path)) ? SAVE_TEMP : OPEN;
	s->probes -= was == PROBE;
	s->probes += now_v == PROBE;
	s->removed -= was == REMOVED;
	s->removed += now_v == REMOVED;
	s->save_temps -= was == SAVE_TEMP;
	s->save_temps += now_v == SAVE_TEMP;
	s->writers -= was == WRITER;
	s->writers += now_v == WRITER;
	if (now_v)
		hashmap_put(&s->open, path, now_v);
	else
		hashmap_remove(&s->open, path);
	if (!now_v && s->probes && !settle_temp_name(base_name(path)))
		close_probes(s, path);
	settle_note_now(s, now);
}

void settle_note_now(struct settle *s, long long now)
{
	/* A held page's retry is noted at a time to come (gather.c): a
	 * change seen before it is still the batch's first, or the batch's
	 * time from its first change would come out negative. */
	if (!s->first_ms || now < s->first_ms)
		s->first_ms = now;
	if (now > s->last_ms)
		s->last_ms = now;
}

void settle_note_back(struct settle *s, long long now)
{
	if (!s->back_ms)
		s->back_ms = now;
	settle_note_now(s, now);
}

/* When the batch is due by the saves' rules (settle_due without the
 * writers). */
static long long saves_due(const struct settle *s, enum settle_why *why)
{
	if (s->back_ms || s->removed || s->probes || s->save_temps) {
		long window = s->quiet_ms > s->tree_window_ms ? s->quiet_ms : s->tree_window_ms;
		long long quiet = s->last_ms + window;
		long long cap = (s->back_ms ? s->back_ms : s->first_ms) + s->tree_cap_ms;
		*why = cap <= quiet ? SETTLE_CAP : s->back_ms ? SETTLE_BACK : SETTLE_QUIET;
		return cap <= quiet ? cap : quiet;
	}
	if (!s->open.count && !s->quiet_ms) {
		*why = SETTLE_AT_ONCE;
		return s->last_ms;
	}
	if (!s->open.count) {
		long long quiet = s->last_ms + s->quiet_ms, cap = s->first_ms + s->cap_ms;
		*why = cap <= quiet ? SETTLE_CAP : SETTLE_QUIET;
		return cap <= quiet ? cap : quiet;
	}
	long long quiet = s->last_ms + s->window_ms, cap = s->first_ms + s->cap_ms;
	*why = cap <= quiet ? SETTLE_CAP : SETTLE_QUIET;
	return cap <= quiet ? cap : quiet;
}

long long settle_due(const struct settle *s, enum settle_why *why)
{
	if (!s->first_ms) {
		*why = SETTLE_NONE;
		return -1;
	}
	long long due = saves_due(s, why);
	if (s->writers && s->first_ms + s->tree_cap_ms > due) {
		*why = SETTLE_WRITER;
		return s->first_ms + s->tree_cap_ms;
	}
	return due;
}

size_t settle_open_count(const struct settle *s)
{
	return s->open.count;
}

const char *settle_why_text(enum settle_why why)
{
	switch (why) {
	case SETTLE_AT_ONCE:
		return "at once: no save under way";
	case SETTLE_QUIET:
		return "after the settle window: a save may have been under way";
	case SETTLE_CAP:
		return "at the --debounce cap: a save was still under way";
	case SETTLE_BACK:
		return "after the sources' quiet: a source came back, a copy may have been under way";
	case SETTLE_WRITER:
		return "at the tree cap: another program kept a file the renders write open for writing";
	default:
		return "nothing pending";
	}
}

void settle_reset(struct settle *s)
{
	size_t it = 0;
	const char *path;
	void *v;
	while (s->writers && hashmap_next(&s->open, &it, &path, &v))
		if (v == WRITER)
			hashmap_put(&s->kept_open, path, WRITER);
	hashmap_release(&s->open);
	s->probes = s->removed = s->save_temps = s->writers = 0;
	s->first_ms = s->last_ms = s->back_ms = 0;
}

void settle_release(struct settle *s)
{
	settle_reset(s);
	hashmap_release(&s->kept_open);
}
