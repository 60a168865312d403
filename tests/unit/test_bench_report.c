/* test_bench_report.c - what 'cgisnap bench' prints (bench/report.c): the
 * warnings a result calls for (the client as the bottleneck, per thread),
 * the table's rows and ratio, and JSON with escaped strings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/report.h"
#include "unit.h"
#include "base/xalloc.h"

static struct loadgen_result *result(long long complete, double elapsed)
{
	struct loadgen_result *r = xcalloc(1, sizeof *r);
	histogram_init(&r->latency);
	r->complete = complete;
	r->elapsed_s = elapsed;
	r->threads = 2;
	for (long long i = 1; i <= 100; i++)
		histogram_add(&r->latency, (uint64_t)i * 10); /* exact below 1024 us */
	return r;
}

TEST(bench_report_warns_per_busy_client_thread)
{
	struct strlist w = STRLIST_INIT;
	struct loadgen_result *r = result(100, 1);
	r->cpu[0] = 0.50;
	r->cpu[1] = 0.95;
	report_warnings(&w, "static", r, 2, true);
	CHECK_INT(1, w.n);
	CHECK(strstr(w.items[0], "static: client thread 2 was busy 95% of the time") != NULL);
	CHECK(strstr(w.items[0], "shared with the server") != NULL);
	strlist_clear(&w);

	r->cpu[0] = 0.70; /* the threshold itself warns */
	r->cpu[1] = 0.69;
	report_warnings(&w, "dynamic", r, 2, false);
	CHECK_INT(1, w.n);
	CHECK(strstr(w.items[0], "client thread 1") != NULL);
	CHECK(strstr(w.items[0], "shared") == NULL);
	strlist_clear(&w);

	r->cpu[0] = 0.2;
	report_warnings(&w, "static", r, 2, true);
	CHECK_INT(0, w.n);
	free(r);
}

TEST(bench_report_client_thread_threshold_is_70_percent)
{
	CHECK(!loadgen_thread_saturated(0));
	CHECK(!loadgen_thread_saturated(0.5));
	CHECK(!loadgen_thread_saturated(0.699));
	CHECK(loadgen_thread_saturated(0.70));
	CHECK(loadgen_thread_saturated(0.75));
	CHECK(loadgen_thread_saturated(1.2)); /* CPU time can pass wall time a little */

	/* A thread at 75% (under the old 90%) now warns, with its figure. */
	struct strlist w = STRLIST_INIT;
	struct loadgen_result *r = result(100, 1);
	r->threads = 1;
	r->cpu[0] = 0.75;
	report_warnings(&w, "static", r, 2, false);
	CHECK_INT(1, w.n);
	CHECK(w.n && strstr(w.items[0], "client thread 1 was busy 75% of the time") != NULL);
	strlist_clear(&w);
	free(r);
}

TEST(bench_report_warns_about_failures_not_length)
{
	struct strlist w = STRLIST_INIT;
	struct loadgen_result *r = result(10, 1);
	r->failed_length = 5; /* expected with dynamic pages: no warning */
	report_warnings(&w, "dynamic", r, 2, true);
	CHECK_INT(0, w.n);
	r->failed_receive = 2;
	r->failed_exceptions = 1;
	strcpy(r->first_failure, "receive: Connection reset by peer");
	report_warnings(&w, "dynamic", r, 2, true);
	CHECK_INT(1, w.n);
	CHECK_STR("dynamic: 3 requests failed; the first: receive: Connection reset by peer", w.items[0]);
	strlist_clear(&w);
	r->complete = 0;
	report_warnings(&w, "dynamic", r, 2, true);
	CHECK_INT(2, w.n);
	CHECK_STR("dynamic: no request completed", w.items[1]);
	strlist_clear(&w);
	free(r);
}

static char *render(const struct report *rep, bool json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (json)
		report_json(f, rep);
	else
		report_text(f, rep);
	fclose(f);
	return text;
}

TEST(bench_report_table_and_json)
{
	struct loadgen_result *dyn = result(50, 2), *st = result(400, 2);
	dyn->failed_length = 7;
	dyn->non_2xx = 3;
	char *paths[] = { "/a\"b\\c", "/x\ty" };
	/* Per URL: the first path slow and rare on the dynamic side. */
	struct loadgen_path_result pd[2], ps[2];
	memset(pd, 0, sizeof pd);
	memset(ps, 0, sizeof ps);
	pd[0].complete = 10;
	histogram_add(&pd[0].latency, 337000);
	pd[1].complete = 40;
	histogram_add(&pd[1].latency, 134000);
	ps[0].complete = ps[1].complete = 200;
	histogram_add(&ps[0].latency, 500);
	histogram_add(&ps[1].latency, 700);
	dyn->paths = pd;
	st->paths = ps;
	dyn->npaths = st->npaths = 2;
	struct strlist w = STRLIST_INIT;
	strlist_add(&w, "something to say");
	struct report rep = {
		.sides = { { "dynamic", "cgisnap serve --dynamic", "http://127.0.0.1:1/", dyn, 2048,
			     "php-cgi workers (4)" },
			   { "static", "cgisnap serve 'out'", "http://127.0.0.1:2/", st, -1, NULL } },
		.nsides = 2, .paths = paths, .npaths = 2, .paths_from = "--url", .concurrency = 10,
		.threads = 1, .requests = 0, .duration_s = 2, .keepalive = true, .timeout_s = 30,
		.warnings = &w,
	};
	CHECK(report_ratio(&rep) == 8.0);

	char *text = render(&rep, false);
	CHECK_HAS(text, "Ratio static/dynamic: 8.00 (requests per second)\n");
	CHECK_HAS(text, "Requests per second:                   25.00        200.00  [#/sec]");
	CHECK_HAS(text, "   Length:                                 7             0");
	CHECK_HAS(text, "Failed requests:                           7             0");
	CHECK_HAS(text, "Non-2xx responses:                         3             0");
	CHECK_HAS(text, "Latency 90%:                           0.900         0.900  [ms]");
	CHECK_HAS(text, "Server peak RSS:                         2.0             -  [MiB]");
	CHECK_HAS(text, "Warning: something to say\n");
	CHECK_HAS(text, "dynamic  mode: php-cgi workers (4)\n");
	CHECK_HAS(text, "static   mode: not known (a server bench did not start)\n");
	CHECK_HAS(text, "Length failures are complete responses");
	CHECK_HAS(text, "Per URL: requests per second, latency 50% and 99% [ms]\n");
	CHECK_HAS(text, "     5.00  337.000  337.000     100.00    0.500    0.500  /a\"b\\c\n");
	CHECK_HAS(text, "    20.00  134.000  134.000     100.00    0.700    0.700  /x\ty\n");
	free(text);

	char *json = render(&rep, true);
	CHECK_HAS(json, "\"urls\": [\"/a\\\"b\\\\c\", \"/x\\u0009y\"]");
	CHECK_HAS(json, "\"ratio\": 8.00");
	CHECK_HAS(json, "\"failed_length\": 7");
	CHECK_HAS(json, "\"mode\": \"php-cgi workers (4)\"");
	CHECK_HAS(json, "\"mode\": null");
	CHECK(strstr(json, "\"per_url\": [\n      {\"url\": \"/a\\\"b\\\\c\", \"complete\": 10, "
			   "\"requests_per_s\": 5.00, \"latency_ms\": {\"p50\": 337.000, \"p99\": 337.000}}") != NULL);
	CHECK_HAS(json, "\"peak_rss_kb\": null");
	CHECK_HAS(json, "\"requests\": null, \"duration_s\": 2");
	CHECK_HAS(json, "\"warnings\": [\"something to say\"]}");
	free(json);

	/* One side alone: no ratio. */
	rep.nsides = 1;
	CHECK(report_ratio(&rep) < 0);
	text = render(&rep, false);
	CHECK(strstr(text, "Ratio") == NULL);
	free(text);
	json = render(&rep, true);
	CHECK_HAS(json, "\"ratio\": null");
	free(json);

	/* Per-path results not kept (too many URLs): said, not made up. */
	rep.nsides = 2;
	dyn->npaths = 0;
	dyn->paths = NULL;
	CHECK(!report_have_paths(&rep));
	text = render(&rep, false);
	CHECK_HAS(text, "Per URL: not kept for more than");
	free(text);
	json = render(&rep, true);
	CHECK_HAS(json, "\"per_url\": null");
	free(json);

	strlist_clear(&w);
	free(dyn);
	free(st);
}
