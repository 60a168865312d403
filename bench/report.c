/* bench/report.c - the table and the JSON of 'cgisnap bench' (report.h). */
#include "report.h"

#include <string.h>

#include "base/textesc.h"
#include "base/xalloc.h"

double report_rps(const struct loadgen_result *r)
{
	return r->elapsed_s > 0 ? (double)r->complete / r->elapsed_s : 0;
}

static double kb_per_s(const struct loadgen_result *r)
{
	return r->elapsed_s > 0 ? (double)r->bytes_total / 1024.0 / r->elapsed_s : 0;
}

static double ms(uint64_t us)
{
	return (double)us / 1000.0;
}

double report_path_rps(const struct loadgen_result *r, size_t i)
{
	return r->elapsed_s > 0 && i < r->npaths ? (double)r->paths[i].complete / r->elapsed_s : 0;
}

bool report_have_paths(const struct report *rep)
{
	for (size_t i = 0; i < rep->nsides; i++)
		if (rep->sides[i].r->npaths != rep->npaths)
			return false;
	return rep->npaths > 0;
}

double report_ratio(const struct report *rep)
{
	const struct loadgen_result *dyn = NULL, *st = NULL;
	for (size_t i = 0; i < rep->nsides; i++) {
		if (!strcmp(rep->sides[i].name, "dynamic"))
			dyn = rep->sides[i].r;
		else if (!strcmp(rep->sides[i].name, "static"))
			st = rep->sides[i].r;
	}
	if (!dyn || !st || report_rps(dyn) <= 0)
		return -1;
	return report_rps(st) / report_rps(dyn);
}

void report_warnings(struct strlist *warnings, const char *side, const struct loadgen_result *r,
		     long cores, bool server_here)
{
	for (long t = 0; t < r->threads && t < LOADGEN_MAX_THREADS; t++) {
		if (!loadgen_thread_saturated(r->cpu[t]))
			continue;
		strlist_add_owned(warnings,
				  xasprintf("%s: client thread %ld was busy %.0f%% of the time: the load "
					    "generator may have been the bottleneck (--client-threads %ld now; "
					    "%ld cores%s)",
					    side, t + 1, 100 * r->cpu[t], r->threads, cores,
					    server_here ? ", shared with the server" : ""));
	}
	long long hard = r->failed_connect + r->failed_receive + r->failed_exceptions;
	if (hard)
		strlist_add_owned(warnings, xasprintf("%s: %lld request%s failed; the first: %s", side, hard,
						      hard == 1 ? "" : "s", r->first_failure));
	if (!r->complete && !r->interrupted)
		strlist_add_owned(warnings, xasprintf("%s: no request completed", side));
}

/* One row: a label, a value per side (printf format with one double or
 * long long, chosen by the caller through fn), a unit. */
#define LABEL_W 30
#define VALUE_W 14

static void row_ll(FILE *out, const struct report *rep, const char *label, const char *unit,
		   long long (*get)(const struct loadgen_result *))
{
	fprintf(out, "%-*s", LABEL_W, label);
	for (size_t i = 0; i < rep->nsides; i++)
		fprintf(out, "%*lld", VALUE_W, get(rep->sides[i].r));
	fprintf(out, "%s%s\n", unit ? "  " : "", unit ? unit : "");
}

static void row_f(FILE *out, const struct report *rep, const char *label, const char *unit,
		  int decimals, double (*get)(const struct loadgen_result *))
{
	fprintf(out, "%-*s", LABEL_W, label);
	for (size_t i = 0; i < rep->nsides; i++)
		fprintf(out, "%*.*f", VALUE_W, decimals, get(rep->sides[i].r));
	fprintf(out, "%s%s\n", unit ? "  " : "", unit ? unit : "");
}

static long long get_complete(const struct loadgen_result *r) { return r->complete; }
static long long get_failed(const struct loadgen_result *r) { return loadgen_failed(r); }
static long long get_connect(const struct loadgen_result *r) { return r->failed_connect; }
static long long get_receive(const struct loadgen_result *r) { return r->failed_receive; }
static long long get_length(const struct loadgen_result *r) { return r->failed_length; }
static long long get_exceptions(const struct loadgen_result *r) { return r->failed_exceptions; }
static long long get_non2xx(const struct loadgen_result *r) { return r->non_2xx; }
static long long get_total(const struct loadgen_result *r) { return r->bytes_total; }
static long long get_body(const struct loadgen_result *r) { return r->bytes_body; }
static long long get_conns(const struct loadgen_result *r) { return r->connections; }
static double get_time(const struct loadgen_result *r) { return r->elapsed_s; }
static double get_kbs(const struct loadgen_result *r) { return kb_per_s(r); }
static double get_mean(const struct loadgen_result *r) { return histogram_mean(&r->latency) / 1000.0; }
static double get_p50(const struct loadgen_result *r) { return ms(histogram_percentile(&r->latency, 50)); }
static double get_p90(const struct loadgen_result *r) { return ms(histogram_percentile(&r->latency, 90)); }
static double get_p99(const struct loadgen_result *r) { return ms(histogram_percentile(&r->latency, 99)); }
static double get_max(const struct loadgen_result *r) { return ms(r->latency.max); }
static double get_cpu(const struct loadgen_result *r) { return 100.0 * r->cpu_busiest; }

/* A row per URL: each side's requests per second and latency 50% and
 * 99% (ms), the URL last, as URLs vary in length. */
static void per_url_rows(FILE *out, const struct report *rep)
{
	if (!report_have_paths(rep)) {
		fprintf(out, "Per URL: not kept for more than %d URLs\n\n", LOADGEN_PATHS_MAX);
		return;
	}
	fprintf(out, "Per URL: requests per second, latency 50%% and 99%% [ms]\n");
	for (size_t i = 0; i < rep->nsides; i++)
		fprintf(out, i + 1 < rep->nsides ? "%-29s" : "%s\n", rep->sides[i].name);
	for (size_t i = 0; i < rep->nsides; i++)
		fprintf(out, "%9s%9s%9s  ", "req/s", "50%", "99%");
	fprintf(out, "URL\n");
	for (size_t u = 0; u < rep->npaths; u++) {
		for (size_t i = 0; i < rep->nsides; i++) {
			const struct loadgen_result *r = rep->sides[i].r;
			fprintf(out, "%9.2f%9.3f%9.3f  ", report_path_rps(r, u),
				ms(histogram_percentile(&r->paths[u].latency, 50)),
				ms(histogram_percentile(&r->paths[u].latency, 99)));
		}
		fprintf(out, "%s\n", rep->paths[u]);
	}
	fprintf(out, "\n");
}

static void describe_load(FILE *out, const struct report *rep)
{
	fprintf(out, "Load: %ld connection%s, %s, ", rep->concurrency, rep->concurrency == 1 ? "" : "s",
		rep->keepalive ? "keep-alive" : "a new connection per request");
	if (rep->requests > 0)
		fprintf(out, "%lld requests per server", rep->requests);
	else
		fprintf(out, "%g s per server", rep->duration_s);
	fprintf(out, ", %ld client thread%s, timeout %g s\n", rep->threads, rep->threads == 1 ? "" : "s",
		rep->timeout_s);
	fprintf(out, "URLs: %zu (%s), requested in turn", rep->npaths, rep->paths_from);
	if (rep->npaths == 1)
		fprintf(out, ": %s", rep->paths[0]);
	fprintf(out, "\n");
}

void report_text(FILE *out, const struct report *rep)
{
	describe_load(out, rep);
	for (size_t i = 0; i < rep->nsides; i++)
		fprintf(out, "%-8s %s at %s\n", rep->sides[i].name, rep->sides[i].server, rep->sides[i].url);
	for (size_t i = 0; i < rep->nsides; i++)
		fprintf(out, "%-8s mode: %s\n", rep->sides[i].name,
			rep->sides[i].mode ? rep->sides[i].mode : "not known (a server bench did not start)");
	fprintf(out, "\n%-*s", LABEL_W, "");
	for (size_t i = 0; i < rep->nsides; i++)
		fprintf(out, "%*s", VALUE_W, rep->sides[i].name);
	fprintf(out, "\n");
	row_f(out, rep, "Time taken for tests:", "seconds", 3, get_time);
	row_ll(out, rep, "Complete requests:", NULL, get_complete);
	row_ll(out, rep, "Failed requests:", NULL, get_failed);
	row_ll(out, rep, "   Connect:", NULL, get_connect);
	row_ll(out, rep, "   Receive:", NULL, get_receive);
	row_ll(out, rep, "   Length:", NULL, get_length);
	row_ll(out, rep, "   Exceptions:", NULL, get_exceptions);
	row_ll(out, rep, "Non-2xx responses:", NULL, get_non2xx);
	row_ll(out, rep, "Total transferred:", "bytes", get_total);
	row_ll(out, rep, "HTML transferred:", "bytes", get_body);
	row_f(out, rep, "Requests per second:", "[#/sec]", 2, report_rps);
	row_f(out, rep, "Transfer rate:", "[Kbytes/sec] received", 2, get_kbs);
	row_f(out, rep, "Latency mean:", "[ms]", 3, get_mean);
	row_f(out, rep, "Latency 50%:", "[ms]", 3, get_p50);
	row_f(out, rep, "Latency 90%:", "[ms]", 3, get_p90);
	row_f(out, rep, "Latency 99%:", "[ms]", 3, get_p99);
	row_f(out, rep, "Latency max:", "[ms]", 3, get_max);
	row_ll(out, rep, "Connections opened:", NULL, get_conns);
	row_f(out, rep, "Client CPU, busiest thread:", "[% of a core]", 0, get_cpu);
	fprintf(out, "%-*s", LABEL_W, "Server peak RSS:");
	for (size_t i = 0; i < rep->nsides; i++) {
		if (rep->sides[i].peak_rss_kb >= 0)
			fprintf(out, "%*.1f", VALUE_W, rep->sides[i].peak_rss_kb / 1024.0);
		else
			fprintf(out, "%*s", VALUE_W, "-");
	}
	fprintf(out, "  [MiB]\n\n");
	per_url_rows(out, rep);
	fprintf(out, "Length failures are complete responses whose body length differs from the first\n"
		     "response to the same URL (ab's test, per URL): pages that change on every request\n"
		     "count there even when they are right. Server peak RSS: the server process alone\n"
		     "(VmHWM; CGI programs it runs are not included), for servers bench started.\n");
	double ratio = report_ratio(rep);
	if (ratio >= 0)
		fprintf(out, "Ratio static/dynamic: %.2f (requests per second)\n", ratio);
	else if (rep->nsides == 2)
		fprintf(out, "Ratio static/dynamic: - (the dynamic side completed no request)\n");
	for (size_t i = 0; rep->warnings && i < rep->warnings->n; i++)
		fprintf(out, "Warning: %s\n", rep->warnings->items[i]);
}

static void json_side(FILE *out, const struct report *rep, const struct report_side *side)
{
	const struct loadgen_result *r = side->r;
	fprintf(out, "{\"server\": ");
	json_string(out, side->server);
	fprintf(out, ", \"url\": ");
	json_string(out, side->url);
	fprintf(out, ", \"mode\": ");
	if (side->mode)
		json_string(out, side->mode);
	else
		fprintf(out, "null");
	fprintf(out, ",\n    \"time_s\": %.6f, \"complete\": %lld, \"failed\": %lld, "
		     "\"failed_connect\": %lld, \"failed_receive\": %lld, \"failed_length\": %lld, "
		     "\"failed_exceptions\": %lld, \"timeouts\": %lld, \"non_2xx\": %lld,\n"
		     "    \"total_bytes\": %lld, \"html_bytes\": %lld, \"requests_per_s\": %.2f, "
		     "\"transfer_kb_s\": %.2f, \"connections\": %lld,\n"
		     "    \"latency_ms\": {\"mean\": %.3f, \"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, "
		     "\"max\": %.3f},\n    \"client_cpu_busiest\": %.2f, \"interrupted\": %s, "
		     "\"peak_rss_kb\": ",
		r->elapsed_s, r->complete, loadgen_failed(r), r->failed_connect, r->failed_receive,
		r->failed_length, r->failed_exceptions, r->timeouts, r->non_2xx, r->bytes_total,
		r->bytes_body, report_rps(r), kb_per_s(r), r->connections, get_mean(r), get_p50(r),
		get_p90(r), get_p99(r), get_max(r), r->cpu_busiest, r->interrupted ? "true" : "false");
	if (side->peak_rss_kb >= 0)
		fprintf(out, "%ld", side->peak_rss_kb);
	else
		fprintf(out, "null");
	fprintf(out, ", \"first_failure\": ");
	if (r->first_failure[0])
		json_string(out, r->first_failure);
	else
		fprintf(out, "null");
	fprintf(out, ",\n    \"per_url\": ");
	if (!report_have_paths(rep)) {
		fprintf(out, "null}");
		return;
	}
	fprintf(out, "[");
	for (size_t u = 0; u < rep->npaths; u++) {
		fprintf(out, "%s{\"url\": ", u ? ",\n      " : "\n      ");
		json_string(out, rep->paths[u]);
		fprintf(out, ", \"complete\": %lld, \"requests_per_s\": %.2f, "
			     "\"latency_ms\": {\"p50\": %.3f, \"p99\": %.3f}}",
			r->paths[u].complete, report_path_rps(r, u),
			ms(histogram_percentile(&r->paths[u].latency, 50)),
			ms(histogram_percentile(&r->paths[u].latency, 99)));
	}
	fprintf(out, "]}");
}

void report_json(FILE *out, const struct report *rep)
{
	fprintf(out, "{\"concurrency\": %ld, \"keepalive\": %s, \"client_threads\": %ld, ",
		rep->concurrency, rep->keepalive ? "true" : "false", rep->threads);
	if (rep->requests > 0)
		fprintf(out, "\"requests\": %lld, \"duration_s\": null, ", rep->requests);
	else
		fprintf(out, "\"requests\": null, \"duration_s\": %g, ", rep->duration_s);
	fprintf(out, "\"timeout_s\": %g,\n  \"urls_from\": ", rep->timeout_s);
	json_string(out, rep->paths_from);
	fprintf(out, ", \"urls\": [");
	for (size_t i = 0; i < rep->npaths; i++) {
		fprintf(out, i ? ", " : "");
		json_string(out, rep->paths[i]);
	}
	fprintf(out, "]");
	for (size_t i = 0; i < rep->nsides; i++) {
		fprintf(out, ",\n  ");
		json_string(out, rep->sides[i].name);
		fprintf(out, ": ");
		json_side(out, rep, &rep->sides[i]);
	}
	double ratio = report_ratio(rep);
	if (ratio >= 0)
		fprintf(out, ",\n  \"ratio\": %.2f", ratio);
	else
		fprintf(out, ",\n  \"ratio\": null");
	fprintf(out, ",\n  \"warnings\": [");
	for (size_t i = 0; rep->warnings && i < rep->warnings->n; i++) {
		fprintf(out, i ? ", " : "");
		json_string(out, rep->warnings->items[i]);
	}
	fprintf(out, "]}\n");
}
