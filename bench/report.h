/* bench/report.h - what 'cgisnap bench' prints: an ab-like table with one
 * column per server measured (dynamic, static), a row per URL (its
 * request rate and latency 50%/99% on each side), the ratio of their
 * request rates, and the same figures as JSON (--json). The HTML page
 * is reporthtml.h's. */
#ifndef CGISNAP_BENCH_REPORT_H
#define CGISNAP_BENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/buf.h"
#include "loadgen.h"

struct report_side {
	const char *name;     /* "dynamic" or "static" */
	const char *server;   /* what it is, e.g. "cgisnap serve --dynamic (the origin renders every request)" */
	const char *url;
	const struct loadgen_result *r;
	long peak_rss_kb;     /* the server's peak RSS, -1 when unknown */
	/* What renders run on ("php-cgi workers (4)", "fork", "fastcgi
	 * 127.0.0.1:9000", "http http://..."; origin_describe) or "static files";
	 * NULL for a server bench did not start (not known). Text: a "mode:"
	 * line per side; JSON: "mode", null when not known. */
	const char *mode;
};

struct report {
	struct report_side sides[2];
	size_t nsides;
	char *const *paths;
	size_t npaths;
	const char *paths_from;  /* how the list was made, e.g. "20 of the tree's 187 HTML pages" */
	long concurrency;
	long threads;            /* client threads */
	long long requests;      /* -n, or 0 */
	double duration_s;       /* -d when requests is 0 */
	bool keepalive;
	double timeout_s;
	const struct strlist *warnings; /* printed after the table; may be NULL */
};

/* Requests per second of a result (complete responses / elapsed). */
double report_rps(const struct loadgen_result *r);

/* Requests per second of the i-th path of a result (its complete
 * responses / the run's elapsed time); 0 without per-path results. */
double report_path_rps(const struct loadgen_result *r, size_t i);

/* Whether every side kept per-path results for rep's paths (not for
 * more than LOADGEN_PATHS_MAX of them). */
bool report_have_paths(const struct report *rep);

/* static / dynamic requests per second; -1 when not both were measured or
 * the dynamic side completed nothing. */
double report_ratio(const struct report *rep);

/* Add to warnings what the result of side (its name) calls for: each
 * client thread busy LOADGEN_CPU_WARN of its time or more (the generator
 * may have been the bottleneck; cores and whether bench started the server
 * on this machine go into the text), requests that failed other than by
 * length (with the first reason), no request completed at all. */
void report_warnings(struct strlist *warnings, const char *side, const struct loadgen_result *r,
		     long cores, bool server_here);

/* The table (ab's names and units) and the ratio, for people. */
void report_text(FILE *out, const struct report *rep);

/* The same figures as one JSON object. */
void report_json(FILE *out, const struct report *rep);

#endif
