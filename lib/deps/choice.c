/* choice.c - what each traced path is recorded as, decided once a run
 * (see choice.h). */
#include "deps/choice.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* Whether path is one of the roots or under one. */
static bool under_roots(const struct strlist *roots, const char *path)
{
	for (size_t r = 0; r < roots->n; r++) {
		const char *root = roots->items[r];
		size_t n = strlen(root);
		if (!strncmp(path, root, n) && (path[n] == '/' || path[n] == '\0' || root[n - 1] == '/'))
			return true;
	}
	return false;
}

bool dep_recordable(const struct dep_recorder *r, const char *path)
{
	if (under_roots(&r->roots, path))
		return true;
	if (!r->anywhere)
		return false;
	size_t n = strlen(path);
	for (size_t i = 0; i < r->skip.n; i++) {
		const char *s = r->skip.items[i];
		size_t len = strlen(s);
		if (!strncmp(path, s, len) || (len == n + 1 && s[n] == '/' && !strncmp(path, s, n)))
			return false; /* under it, or the directory itself */
	}
	/* The directories above a root: the walk to it (PHP's realpath),
	 * not the site's data. */
	for (size_t i = 0; i < r->roots.n; i++)
		if (!strncmp(r->roots.items[i], path, n) && (r->roots.items[i][n] == '/' || n == 1))
			return false;
	return true;
}

/* What a traced path is recorded as, r->chosen's values: the path as
 * traced, nothing, or else (a malloc'ed string) its real path. */
static char as_traced, not_recorded;

/* path's choice, worked out: by its real path when that is under a root
 * too (the tracer reports the path the program opened, --root/lib/tpl/x
 * through the link lib/tpl; inotify the real one, /var/lib/.../tpl/x,
 * under a --source), else as traced if it is recordable at all. */
static void *choose(struct dep_recorder *r, const char *path)
{
	char *real = real_paths_get(&r->real, path);
	if (real && dep_recordable(r, real)) {
		if (strcmp(real, path))
			return real;
		free(real);
		return &as_traced;
	}
	free(real);
	return dep_recordable(r, path) ? &as_traced : &not_recorded;
}

static void forget_choice(void *v)
{
	if (v != &as_traced && v != &not_recorded)
		free(v);
}

/* path's choice, worked out now and kept for the run (unless another
 * render kept one meanwhile: that one). Values are freed only between
 * runs (record_commit), never beside a render. Past DEP_CHOICES_MAX paths
 * a choice is not kept: *owned says the caller frees it (forget_choice)
 * once used. The paths many pages share (the application's code) are met
 * first and kept; a page's own data file is met once a run, and keeping
 * it would cost memory that grows with the site. */
static void *choose_now(struct dep_recorder *r, const char *path, bool *owned)
{
	void *v = choose(r, path);
	pthread_mutex_lock(&r->chosen_lock);
	void *had = hashmap_get(&r->chosen, path);
	bool keep = !had && r->chosen.count < DEP_CHOICES_MAX;
	if (keep)
		hashmap_put(&r->chosen, path, v);
	pthread_mutex_unlock(&r->chosen_lock);
	*owned = !had && !keep;
	if (!had)
		return v;
	forget_choice(v);
	return had;
}

void dep_choice_filter(struct dep_recorder *r, const struct strlist *in, struct strlist *out)
{
	if (!in->n)
		return;
	void **chosen = xreallocarray(NULL, in->n, sizeof *chosen);
	pthread_mutex_lock(&r->chosen_lock);
	for (size_t i = 0; i < in->n; i++)
		chosen[i] = hashmap_get(&r->chosen, in->items[i]);
	pthread_mutex_unlock(&r->chosen_lock);
	for (size_t i = 0; i < in->n; i++) {
		bool owned = false;
		void *v = chosen[i] ? chosen[i] : choose_now(r, in->items[i], &owned);
		if (v == &as_traced)
			strlist_add(out, in->items[i]);
		else if (v != &not_recorded)
			strlist_add(out, v);
		if (owned)
			forget_choice(v);
	}
	free(chosen);
	strlist_sort(out);
	strlist_uniq(out);
}

bool dep_recorder_keeps(void *arg, const char *path)
{
	struct dep_recorder *r = arg;
	pthread_mutex_lock(&r->chosen_lock);
	void *v = hashmap_get(&r->chosen, path);
	pthread_mutex_unlock(&r->chosen_lock);
	bool owned = false;
	if (!v)
		v = choose_now(r, path, &owned);
	bool keeps = v != &not_recorded;
	if (owned)
		forget_choice(v);
	return keeps;
}

size_t dep_choices_kept(struct dep_recorder *r)
{
	pthread_mutex_lock(&r->chosen_lock);
	size_t n = r->chosen.count;
	pthread_mutex_unlock(&r->chosen_lock);
	return n;
}

void dep_choices_forget(struct dep_recorder *r)
{
	pthread_mutex_lock(&r->chosen_lock);
	hashmap_release_with(&r->chosen, forget_choice);
	pthread_mutex_unlock(&r->chosen_lock);
	real_paths_forget(&r->real);
}
