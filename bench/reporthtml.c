/* bench/reporthtml.c - the HTML page of 'cgisnap bench' (reporthtml.h). */
#include "reporthtml.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/textesc.h"

/* Chart geometry (SVG user units). */
#define RPS_W 420
#define RPS_H 240
#define RPS_PLOT_H 170 /* the tallest bar */
#define RPS_BASE 200   /* y of the bars' base line */
#define LAT_W 680
#define LAT_H 260
#define LAT_X0 50
#define LAT_PLOT_W 600
#define LAT_BASE 210
#define LAT_PLOT_H 180

/* A side's colour by its name, so that a static side measured alone is
 * drawn as it is beside the dynamic one. */
static const char *color(const struct report_side *side)
{
	return strcmp(side->name, "static") ? "#c0504d" : "#4f81bd";
}

static void rps_chart(FILE *out, const struct report *rep)
{
	double max = 0;
	for (size_t i = 0; i < rep->nsides; i++)
		if (report_rps(rep->sides[i].r) > max)
			max = report_rps(rep->sides[i].r);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart rps\" width=\"%d\" "
		     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n"
		     "<title>Requests per second</title>\n",
		RPS_W, RPS_H, RPS_W, RPS_H);
	fprintf(out, "<line x1=\"20\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", RPS_BASE,
		RPS_W - 20, RPS_BASE);
	for (size_t i = 0; i < rep->nsides; i++) {
		double rps = report_rps(rep->sides[i].r);
		/* Heights in proportion to the figures: the fastest side is the
		 * full plot height. */
		double h = max > 0 ? RPS_PLOT_H * rps / max : 0;
		int x = 60 + (int)i * 170;
		fprintf(out, "<rect class=\"bar\" data-side=\"%s\" data-rps=\"%.2f\" x=\"%d\" y=\"%.2f\" "
			     "width=\"120\" height=\"%.2f\" fill=\"%s\"/>\n",
			rep->sides[i].name, rps, x, RPS_BASE - h, h, color(&rep->sides[i]));
		fprintf(out, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"middle\">%.2f</text>\n", x + 60,
			RPS_BASE - h - 6, rps);
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", x + 60, RPS_BASE + 20);
		html_escaped(out, rep->sides[i].name);
		fprintf(out, "</text>\n");
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"axis\">requests per "
		     "second</text>\n</svg>\n",
		RPS_W / 2, RPS_H - 6);
}

/* Latency bin edges, microseconds, evenly spaced on a log scale from the
 * fastest response of any side to the slowest. */
static void bin_edges(const struct report *rep, double edge[REPORT_HTML_BINS + 1])
{
	uint64_t lo = 0, hi = 0;
	for (size_t i = 0; i < rep->nsides; i++) {
		const struct histogram *h = &rep->sides[i].r->latency;
		if (!h->count)
			continue;
		if (!lo || h->min < lo)
			lo = h->min;
		if (h->max > hi)
			hi = h->max;
	}
	if (lo < 1)
		lo = 1;
	if (hi <= lo)
		hi = lo + 1;
	for (int k = 0; k <= REPORT_HTML_BINS; k++)
		edge[k] = (double)lo * pow((double)hi / (double)lo, (double)k / REPORT_HTML_BINS);
}

/* The share of h's samples in bin k: (edge[k], edge[k+1]], the first bin
 * from 0. */
static double bin_share(const struct histogram *h, const double *edge, int k)
{
	if (!h->count)
		return 0;
	uint64_t below = k ? histogram_count_upto(h, (uint64_t)edge[k]) : 0;
	uint64_t upto = k == REPORT_HTML_BINS - 1 ? h->count : histogram_count_upto(h, (uint64_t)edge[k + 1]);
	return upto > below ? (double)(upto - below) / (double)h->count : 0;
}

static void latency_chart(FILE *out, const struct report *rep)
{
	double edge[REPORT_HTML_BINS + 1], top = 0;
	bin_edges(rep, edge);
	for (size_t i = 0; i < rep->nsides; i++)
		for (int k = 0; k < REPORT_HTML_BINS; k++)
			if (bin_share(&rep->sides[i].r->latency, edge, k) > top)
				top = bin_share(&rep->sides[i].r->latency, edge, k);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart latency\" width=\"%d\" "
		     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n"
		     "<title>Latency distribution</title>\n",
		LAT_W, LAT_H, LAT_W, LAT_H);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", LAT_X0,
		LAT_BASE, LAT_X0 + LAT_PLOT_W, LAT_BASE);
	double bw = (double)LAT_PLOT_W / REPORT_HTML_BINS;
	for (size_t i = 0; i < rep->nsides; i++) {
		const struct histogram *h = &rep->sides[i].r->latency;
		for (int k = 0; k < REPORT_HTML_BINS; k++) {
			double share = bin_share(h, edge, k);
			if (share <= 0)
				continue;
			double hgt = top > 0 ? LAT_PLOT_H * share / top : 0;
			double x = LAT_X0 + k * bw + (double)i * bw / (double)rep->nsides;
			fprintf(out, "<rect class=\"bin\" data-side=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				     "height=\"%.2f\" fill=\"%s\"><title>%s: %.1f%% of requests in %.3f-%.3f "
				     "ms</title></rect>\n",
				rep->sides[i].name, x, LAT_BASE - hgt, bw / (double)rep->nsides - 1, hgt,
				color(&rep->sides[i]), rep->sides[i].name, 100 * share, edge[k] / 1000,
				edge[k + 1] / 1000);
		}
	}
	for (int k = 0; k <= REPORT_HTML_BINS; k += REPORT_HTML_BINS / 4)
		fprintf(out, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\" class=\"axis\">%.3g</text>\n",
			LAT_X0 + k * bw, LAT_BASE + 18, edge[k] / 1000);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"axis\">latency [ms], "
		     "log scale; bar height: share of the side's requests (tallest %.1f%%)</text>\n",
		LAT_X0 + LAT_PLOT_W / 2, LAT_H - 10, 100 * top);
	for (size_t i = 0; i < rep->nsides; i++) {
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			     "<text x=\"%d\" y=\"%d\">",
			LAT_X0 + 10 + (int)i * 120, 8, color(&rep->sides[i]), LAT_X0 + 28 + (int)i * 120, 19);
		html_escaped(out, rep->sides[i].name);
		fprintf(out, "</text>\n");
	}
	fprintf(out, "</svg>\n");
}

static void machine_table(FILE *out, const struct report *rep, const struct machine *m)
{
	fprintf(out, "<table class=\"machine\">\n<tr><th>CPU</th><td>");
	html_escaped(out, m->cpu[0] ? m->cpu : "unknown");
	fprintf(out, "</td></tr>\n<tr><th>Cores</th><td>");
	if (m->cores > 0)
		fprintf(out, "%ld online", m->cores);
	else
		fprintf(out, "unknown");
	fprintf(out, "</td></tr>\n<tr><th>Kernel</th><td>");
	html_escaped(out, m->kernel[0] ? m->kernel : "unknown");
	fprintf(out, "</td></tr>\n<tr><th>Memory</th><td>");
	if (m->mem_kb > 0)
		fprintf(out, "%.1f GiB", (double)m->mem_kb / (1024.0 * 1024.0));
	else
		fprintf(out, "unknown");
	fprintf(out, "</td></tr>\n<tr><th>cgisnap</th><td>");
	html_escaped(out, m->version);
	fprintf(out, "</td></tr>\n");
	for (size_t i = 0; i < rep->nsides; i++) {
		fprintf(out, "<tr><th>");
		html_escaped(out, rep->sides[i].name);
		fprintf(out, "</th><td>");
		html_escaped(out, rep->sides[i].server);
		fprintf(out, " at ");
		html_escaped(out, rep->sides[i].url);
		fprintf(out, "; renders: ");
		html_escaped(out, rep->sides[i].mode ? rep->sides[i].mode : "not known");
		fprintf(out, "</td></tr>\n");
	}
	fprintf(out, "</table>\n");
}

void report_html(FILE *out, const struct report *rep, const struct machine *m)
{
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		     "<title>cgisnap bench: ");
	for (size_t i = 0; i < rep->nsides; i++)
		fprintf(out, "%s%s", i ? " against " : "", rep->sides[i].name);
	fprintf(out, "</title>\n<style>\n"
		     "body { font-family: sans-serif; max-width: 60em; margin: 1em auto; padding: 0 1em; }\n"
		     "pre { font-size: 0.85em; overflow-x: auto; background: #f6f6f6; padding: 0.5em; }\n"
		     "table.machine th { text-align: left; padding-right: 1em; }\n"
		     "svg text { font-size: 13px; } svg .axis { fill: #444; }\n"
		     "</style>\n</head>\n<body>\n<h1>cgisnap bench</h1>\n");
	double ratio = report_ratio(rep);
	if (ratio >= 0)
		fprintf(out, "<p class=\"ratio\">The snapshot answered %.2f times the requests per second "
			     "of the dynamic site.</p>\n",
			ratio);
	fprintf(out, "<h2>Requests per second</h2>\n");
	rps_chart(out, rep);
	fprintf(out, "<h2>Latency distribution</h2>\n");
	latency_chart(out, rep);
	fprintf(out, "<h2>Machine</h2>\n");
	machine_table(out, rep, m);
	/* The table as the terminal shows it: one source for both. */
	char *text = NULL;
	size_t len = 0;
	FILE *t = open_memstream(&text, &len);
	if (t) {
		report_text(t, rep);
		fclose(t);
	}
	fprintf(out, "<h2>Table</h2>\n<pre class=\"table\">");
	html_escaped(out, text ? text : "");
	fprintf(out, "</pre>\n</body>\n</html>\n");
	free(text);
}

int report_html_commit(struct outfile *h, const struct report *rep, const struct machine *m, char *err)
{
	report_html(h->f, rep, m);
	return outfile_commit(h, err);
}
