/* test_bench_reporthtml.c - the page of 'cgisnap bench --html'
 * (bench/reporthtml.c): bar heights in proportion to the rates, text
 * from the run escaped, a side measured alone keeps its colour, and
 * the file published by rename only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../bench/reporthtml.h"
#include "base/log.h"
#include "unit.h"
#include "base/xalloc.h"

static struct loadgen_result *result(long long complete)
{
	struct loadgen_result *r = xcalloc(1, sizeof *r);
	histogram_init(&r->latency);
	r->complete = complete;
	r->elapsed_s = 2;
	r->threads = 1;
	for (uint64_t i = 1; i <= 50; i++)
		histogram_add(&r->latency, i * 1000);
	return r;
}

static char *page(const struct report *rep)
{
	char *text = NULL;
	size_t len = 0;
	struct machine m = { .cpu = "Test <CPU>", .cores = 2, .kernel = "Linux 6.1 x86_64",
			     .mem_kb = 2 * 1024 * 1024, .version = "9.9" };
	FILE *f = open_memstream(&text, &len);
	report_html(f, rep, &m);
	fclose(f);
	return text;
}

TEST(bench_reporthtml_bars_escaping_and_colours)
{
	struct loadgen_result *dyn = result(50), *st = result(400);
	char *paths[] = { "/a<b>&c" };
	struct report rep = {
		.sides = { { "dynamic", "cgisnap serve --dynamic", "http://127.0.0.1:1/", dyn, -1 },
			   { "static", "cgisnap serve 'out'", "http://127.0.0.1:2/", st, -1 } },
		.nsides = 2, .paths = paths, .npaths = 1, .paths_from = "--url", .concurrency = 1,
		.threads = 1, .duration_s = 2, .timeout_s = 30,
	};
	char *html = page(&rep);
	/* 25 and 200 requests/s: the static bar is the full 170, dynamic 1/8. */
	CHECK(strstr(html, "data-side=\"dynamic\" data-rps=\"25.00\" x=\"60\" y=\"178.75\" width=\"120\" "
			   "height=\"21.25\" fill=\"#c0504d\"") != NULL);
	CHECK(strstr(html, "data-side=\"static\" data-rps=\"200.00\" x=\"230\" y=\"30.00\" width=\"120\" "
			   "height=\"170.00\" fill=\"#4f81bd\"") != NULL);
	CHECK_HAS(html, "/a&lt;b&gt;&amp;c");
	CHECK(strstr(html, "<b>") == NULL);
	CHECK_HAS(html, "<th>CPU</th><td>Test &lt;CPU&gt;</td>");
	CHECK_HAS(html, "<th>Memory</th><td>2.0 GiB</td>");
	CHECK_HAS(html, "class=\"bin\"");
	CHECK(strstr(html, "<script") == NULL);
	free(html);

	/* The static side alone: still blue, the full height. */
	rep.sides[0] = rep.sides[1];
	rep.nsides = 1;
	html = page(&rep);
	CHECK(strstr(html, "data-side=\"static\" data-rps=\"200.00\" x=\"60\" y=\"30.00\" width=\"120\" "
			   "height=\"170.00\" fill=\"#4f81bd\"") != NULL);
	CHECK(strstr(html, "The snapshot answered") == NULL);
	free(html);
	free(dyn);
	free(st);
}

TEST(bench_reporthtml_file_by_rename)
{
	char dir[] = "/tmp/cgisnap-unit-html.XXXXXX", err[ERR_LEN];
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/r.html", dir);
	FILE *f = fopen(path, "w");
	fputs("old", f);
	fclose(f);
	struct loadgen_result *st = result(10);
	struct report rep = { .sides = { { "static", "s", "http://127.0.0.1:2/", st, -1 } }, .nsides = 1,
			      .paths = NULL, .npaths = 0, .paths_from = "--url", .concurrency = 1,
			      .threads = 1, .duration_s = 1, .timeout_s = 1 };
	struct outfile h;
	/* Aborted: the old file stays, no temporary file. */
	CHECK_INT(0, outfile_open(&h, "--html", path, err));
	outfile_abort(&h);
	char buf[32] = "";
	f = fopen(path, "r");
	CHECK(f && fgets(buf, sizeof buf, f));
	fclose(f);
	CHECK_STR("old", buf);
	/* Committed: the page. */
	CHECK_INT(0, outfile_open(&h, "--html", path, err));
	CHECK_INT(0, report_html_commit(&h, &rep, &(struct machine){ .version = "x", .cores = -1, .mem_kb = -1 }, err));
	f = fopen(path, "r");
	CHECK(f && fgets(buf, sizeof buf, f));
	fclose(f);
	CHECK_STR("<!DOCTYPE html>\n", buf);
	/* A directory is refused by name. */
	CHECK_INT(-1, outfile_open(&h, "--html", dir, err));
	CHECK_HAS(err, "is a directory");
	unlink(path);
	CHECK_INT(0, rmdir(dir)); /* nothing else left in it */
	free(path);
	free(st);
}
