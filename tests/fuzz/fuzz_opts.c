/* fuzz_opts.c - option files (opts_load_file in lib/base/opts.h).
 *
 * The input is an option file, handed to the parser through a memfd (it
 * reads files by path). The tables hold one option of each type.
 * Invariants: 0 or -1; a refusal is one line naming the file; numbers
 * stay within their bounds; and what was read, written back as
 * "name = value" lines (strings double-quoted, '\\' and '"' escaped),
 * reads back to the same values.
 */
#include "fuzz.h"

#include <sys/mman.h>
#include <unistd.h>

#include "base/opts.h"

struct values {
	bool verbose;
	char *site_url;
	long jobs, delay;
	struct strlist exclude;
};

static void tables_for(struct values *v, struct opt out[6])
{
	const struct opt t[] = {
		{ "verbose", 'v', OPT_BOOL, &v->verbose, NULL, "", 0, 0 },
		{ "site-url", 0, OPT_STR, &v->site_url, "URL", "", 0, 0 },
		{ "jobs", 'j', OPT_INT, &v->jobs, "N", "", 1, 1024 },
		{ "delay", 0, OPT_INT, &v->delay, "MS", "", 0, 0 },
		{ "exclude", 0, OPT_LIST, &v->exclude, "GLOB", "", 0, 0 },
		OPT_END,
	};
	memcpy(out, t, sizeof t);
}

/* Load data[0..size) into fresh values through fd; the return value. */
static int load(int fd, const void *data, size_t size, struct values *v, struct opt t[6],
		char *err)
{
	memset(v, 0, sizeof *v);
	tables_for(v, t);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	const struct opt *tables[] = { t, NULL };
	err[0] = '\0';
	return opts_load_file(tables, path, err);
}

/* "name = "value"" with value's backslashes and quotes escaped: any
 * string an option file can give (no newline, no NUL) reads back as it. */
static void add_quoted(struct buf *f, const char *name, const char *value)
{
	buf_addf(f, "%s = \"", name);
	for (const char *c = value; *c; c++)
		buf_addf(f, "%s%c", *c == '\\' || *c == '"' ? "\\" : "", *c);
	buf_addf(f, "\"\n");
}

static void release(struct opt t[6])
{
	const struct opt *tables[] = { t, NULL };
	opts_release(tables);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	if (fd < 0 && (fd = memfd_create("cgisnap-fuzz-opts", 0)) < 0)
		abort();
	struct values v, w;
	struct opt t[6], u[6];
	char err[ERR_LEN];

	int rc = load(fd, data, size, &v, t, err);
	FUZZ_CHECK(rc == 0 || rc == -1, "opts_load_file returned %d", rc);
	if (rc < 0) {
		FUZZ_CHECK(*err && !strchr(err, '\n'), "refused with '%s'", err);
		FUZZ_CHECK(strstr(err, "/proc/self/fd/"), "refusal '%s' does not name the file", err);
		release(t);
		return 0;
	}
	FUZZ_CHECK(v.jobs == 0 || (v.jobs >= 1 && v.jobs <= 1024), "jobs = %ld", v.jobs);

	/* Write the values back as a file and read it again. */
	struct buf f = BUF_INIT;
	buf_addf(&f, "# written back\nverbose = %s\n", v.verbose ? "yes" : "no");
	if (v.site_url)
		add_quoted(&f, "site-url", v.site_url);
	if (v.jobs)
		buf_addf(&f, "jobs = %ld\n", v.jobs);
	buf_addf(&f, "delay = %ld\n", v.delay);
	for (size_t i = 0; i < v.exclude.n; i++)
		add_quoted(&f, "exclude", v.exclude.items[i]);
	rc = load(fd, f.data, f.len, &w, u, err);
	FUZZ_CHECK(rc == 0, "written back as\n%s\nit is refused: %s", f.data, err);
	FUZZ_CHECK(w.verbose == v.verbose && w.jobs == v.jobs && w.delay == v.delay,
		   "written back as\n%s\nit reads differently", f.data);
	FUZZ_CHECK((!v.site_url && !w.site_url) || fuzz_streq(v.site_url, w.site_url),
		   "site-url '%s' reads back as '%s'", fuzz_show(v.site_url), fuzz_show(w.site_url));
	FUZZ_CHECK(w.exclude.n == v.exclude.n, "%zu excludes read back as %zu", v.exclude.n,
		   w.exclude.n);
	for (size_t i = 0; i < v.exclude.n; i++)
		FUZZ_CHECK(!strcmp(v.exclude.items[i], w.exclude.items[i]),
			   "exclude '%s' reads back as '%s'", v.exclude.items[i], w.exclude.items[i]);
	buf_release(&f);
	release(u);
	release(t);
	return 0;
}
