/* verify/findings.c - verify's report: text, JSON, HTML (findings.h). */
#include "findings.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "base/textesc.h"
#include "base/xalloc.h"
#include "crawl/budget.h"

static int by_group(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	if (x->family_requests != y->family_requests)
		return x->family_requests > y->family_requests ? -1 : 1;
	int c = strcmp(x->family, y->family);
	if (c)
		return c;
	if (x->requests != y->requests)
		return x->requests > y->requests ? -1 : 1;
	return strcmp(x->target, y->target);
}

void findings_prepare(struct findings *f)
{
	struct hashmap totals = HASHMAP_INIT;
	struct buf key = BUF_INIT;
	for (size_t i = 0; i < f->n; i++) {
		struct finding *x = &f->items[i];
		budget_family(x->target, &key);
		free(x->family);
		x->family = xstrdup(buf_str(&key));
		buf_reset(&key);
		buf_addf(&key, "%d\t%s", (int)x->cause, x->family);
		intptr_t sum = (intptr_t)hashmap_get(&totals, buf_str(&key));
		hashmap_put(&totals, buf_str(&key), (void *)(sum + x->requests));
		buf_reset(&key);
	}
	for (size_t i = 0; i < f->n; i++) {
		struct finding *x = &f->items[i];
		buf_reset(&key);
		buf_addf(&key, "%d\t%s", (int)x->cause, x->family);
		x->family_requests = (intptr_t)hashmap_get(&totals, buf_str(&key));
	}
	qsort(f->items, f->n, sizeof *f->items, by_group);
	buf_release(&key);
	hashmap_release(&totals);
}

void findings_count(const struct findings *f, size_t urls[NCAUSES], long long requests[NCAUSES])
{
	memset(urls, 0, NCAUSES * sizeof *urls);
	memset(requests, 0, NCAUSES * sizeof *requests);
	for (size_t i = 0; i < f->n; i++) {
		urls[f->items[i].cause]++;
		requests[f->items[i].cause] += f->items[i].requests;
	}
}

static bool is_change(enum cause c)
{
	return c != CAUSE_ALIKE && c != CAUSE_ORIGIN_FAILED;
}

bool findings_changes(const struct findings *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (is_change(f->items[i].cause))
			return true;
	return false;
}

bool findings_compared(const struct findings *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->items[i].cause != CAUSE_ORIGIN_FAILED)
			return true;
	return false;
}

/* part of whole as a percentage a reader can trust: never "100.0%" for
 * less than all, nor "0.0%" for more than none. */
static const char *pct(char *out, size_t len, long long part, long long whole)
{
	double p = whole ? 100.0 * (double)part / (double)whole : 0;
	if (part == whole && whole)
		snprintf(out, len, "100%%");
	else if (part == 0)
		snprintf(out, len, "0%%");
	else if (p < 0.1)
		snprintf(out, len, "<0.1%%");
	else if (p >= 99.95)
		snprintf(out, len, ">99.9%%");
	else
		snprintf(out, len, "%.1f%%", p);
	return out;
}

/* pct() for HTML: its "<0.1%" and ">99.9%" escaped. */
static const char *hpct(char *out, size_t len, long long part, long long whole)
{
	char plain[16];
	pct(plain, sizeof plain, part, whole);
	const char *esc = plain[0] == '<' ? "&lt;" : plain[0] == '>' ? "&gt;" : "";
	snprintf(out, len, "%s%.10s", esc, *esc ? plain + 1 : plain); /* "100%", "99.9%": 10 is plenty */
	return out;
}

struct totals {
	size_t urls[NCAUSES];
	long long requests[NCAUSES];
	long long all_requests;
	size_t change_urls;
	long long change_requests;
};

static void totals_of(const struct findings *f, struct totals *t)
{
	memset(t, 0, sizeof *t);
	findings_count(f, t->urls, t->requests);
	for (int c = 0; c < NCAUSES; c++) {
		t->all_requests += t->requests[c];
		if (is_change((enum cause)c)) {
			t->change_urls += t->urls[c];
			t->change_requests += t->requests[c];
		}
	}
}

static const char *plural(long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The lines every format starts with, as text into out; t filled. */
static void summary(struct buf *out, const struct findings *f, struct totals *t)
{
	totals_of(f, t);
	char a[16], b[16];
	buf_addf(out, "Replayed %zu distinct URL%s (%lld GET/HEAD request%s in %zu log%s) against the origin (%s) "
		      "and the tree '%s' (%s).\n",
		 f->n, f->n == 1 ? "" : "s", t->all_requests, plural(t->all_requests, "", "s"), f->logs,
		 f->logs == 1 ? "" : "s", f->origin, f->tree, f->tree_server);
	if (f->sampled_out)
		buf_addf(out, "--sample: the %zu most requested of %zu distinct URLs; %lld request%s of the others "
			      "not replayed.\n",
			 f->n, f->distinct, f->sampled_out, plural(f->sampled_out, "", "s"));
	if (f->other_methods || f->outside || f->malformed) {
		buf_adds(out, "Skipped:");
		const char *sep = " ";
		if (f->other_methods) {
			buf_addf(out, "%s%lld request%s of other methods than GET and HEAD", sep, f->other_methods,
				 plural(f->other_methods, "", "s"));
			sep = "; ";
		}
		if (f->outside) {
			buf_addf(out, "%s%lld request%s for other sites", sep, f->outside, plural(f->outside, "", "s"));
			sep = "; ";
		}
		if (f->malformed)
			buf_addf(out, "%s%lld line%s in no access-log format (the first: %s)", sep, f->malformed,
				 plural(f->malformed, "", "s"), f->first_malformed ? f->first_malformed : "?");
		buf_adds(out, ".\n");
	}
	if (f->interrupted)
		buf_adds(out, "Interrupted: the URLs not replayed yet are not counted.\n");
	if (!t->change_urls && !t->urls[CAUSE_ALIKE] && t->urls[CAUSE_ORIGIN_FAILED])
		buf_adds(out, "Nothing compared: the origin failed every URL.\n");
	else if (!t->change_urls)
		buf_addf(out, "%s of the requests answer alike (%zu URL%s): nothing would change.\n",
			 pct(a, sizeof a, t->requests[CAUSE_ALIKE], t->all_requests), t->urls[CAUSE_ALIKE],
			 t->urls[CAUSE_ALIKE] == 1 ? "" : "s");
	else
		buf_addf(out, "%s of the requests answer alike (%zu URL%s); %zu URL%s, %s of the requests, would "
			      "change.\n",
			 pct(a, sizeof a, t->requests[CAUSE_ALIKE], t->all_requests), t->urls[CAUSE_ALIKE],
			 t->urls[CAUSE_ALIKE] == 1 ? "" : "s", t->change_urls, t->change_urls == 1 ? "" : "s",
			 pct(b, sizeof b, t->change_requests, t->all_requests));
	if (t->urls[CAUSE_ORIGIN_FAILED])
		buf_addf(out, "%zu URL%s, %s of the requests, fail%s on the origin itself (not compared).\n",
			 t->urls[CAUSE_ORIGIN_FAILED], t->urls[CAUSE_ORIGIN_FAILED] == 1 ? "" : "s",
			 pct(a, sizeof a, t->requests[CAUSE_ORIGIN_FAILED], t->all_requests),
			 t->urls[CAUSE_ORIGIN_FAILED] == 1 ? "s" : "");
}

/* The end of the group (same cause and family) that starts at i. */
static size_t group_end(const struct findings *f, size_t i)
{
	size_t j = i + 1;
	while (j < f->n && f->items[j].cause == f->items[i].cause && !strcmp(f->items[j].family, f->items[i].family))
		j++;
	return j;
}

void findings_text(FILE *out, const struct findings *f)
{
	struct totals t;
	struct buf head = BUF_INIT;
	char a[16];
	summary(&head, f, &t);
	fputs(buf_str(&head), out);
	buf_release(&head);
	for (size_t i = 0; i < f->n;) {
		enum cause c = f->items[i].cause;
		if (c == CAUSE_ALIKE) {
			i++;
			continue;
		}
		fprintf(out, "\n%s: %zu URL%s, %s of the requests\n", cause_title(c), t.urls[c], t.urls[c] == 1 ? "" : "s",
			pct(a, sizeof a, t.requests[c], t.all_requests));
		while (i < f->n && f->items[i].cause == c) {
			size_t end = group_end(f, i);
			fprintf(out, "  %s (%zu URL%s, %s)\n", f->items[i].family, end - i, end - i == 1 ? "" : "s",
				pct(a, sizeof a, f->items[i].family_requests, t.all_requests));
			for (size_t k = i; k < end && k < i + FINDINGS_TEXT_URLS; k++)
				fprintf(out, "    %s (%ld request%s): %s\n", f->items[k].target, f->items[k].requests,
					f->items[k].requests == 1 ? "" : "s",
					f->items[k].detail ? f->items[k].detail : "-");
			if (end - i > FINDINGS_TEXT_URLS)
				fprintf(out, "    ...and %zu more (--json or --html lists them all)\n",
					end - i - FINDINGS_TEXT_URLS);
			i = end;
		}
	}
}

static void json_count(FILE *out, const char *name, size_t urls, long long requests)
{
	fprintf(out, "\"%s\":{\"urls\":%zu,\"requests\":%lld}", name, urls, requests);
}

void findings_json(FILE *out, const struct findings *f)
{
	struct totals t;
	totals_of(f, &t);
	fputs("{\"site\":", out);
	json_string(out, f->site_url);
	fputs(",\"origin\":", out);
	json_string(out, f->origin);
	fputs(",\"tree\":", out);
	json_string(out, f->tree);
	fputs(",\"tree_server\":", out);
	json_string(out, f->tree_server);
	fprintf(out, ",\"logs\":%zu,\"lines\":%lld,\"distinct_urls\":%zu,\"replayed_urls\":%zu,\"requests\":%lld,"
		     "\"sampled_out_requests\":%lld,\"interrupted\":%s,",
		f->logs, f->lines, f->distinct, f->n, t.all_requests, f->sampled_out, f->interrupted ? "true" : "false");
	fprintf(out, "\"skipped\":{\"other_methods\":%lld,\"outside\":%lld,\"malformed\":%lld},", f->other_methods,
		f->outside, f->malformed);
	json_count(out, "alike", t.urls[CAUSE_ALIKE], t.requests[CAUSE_ALIKE]);
	fputc(',', out);
	json_count(out, "changes", t.change_urls, t.change_requests);
	fputs(",\"causes\":[", out);
	bool first_cause = true;
	for (size_t i = 0; i < f->n;) {
		enum cause c = f->items[i].cause;
		if (c == CAUSE_ALIKE) {
			i++;
			continue;
		}
		fprintf(out, "%s{\"cause\":\"%s\",\"title\":", first_cause ? "" : ",", cause_name(c));
		first_cause = false;
		json_string(out, cause_title(c));
		fprintf(out, ",\"urls\":%zu,\"requests\":%lld,\"families\":[", t.urls[c], t.requests[c]);
		bool first_family = true;
		while (i < f->n && f->items[i].cause == c) {
			size_t end = group_end(f, i);
			fprintf(out, "%s{\"family\":", first_family ? "" : ",");
			first_family = false;
			json_string(out, f->items[i].family);
			fprintf(out, ",\"urls\":%zu,\"requests\":%lld,\"items\":[", end - i, f->items[i].family_requests);
			for (size_t k = i; k < end; k++) {
				const struct finding *x = &f->items[k];
				fprintf(out, "%s{\"url\":", k > i ? "," : "");
				json_string(out, x->target);
				fprintf(out, ",\"requests\":%ld,\"origin_status\":%d,\"tree_status\":%d,\"detail\":",
					x->requests, x->origin_status, x->tree_status);
				if (x->detail)
					json_string(out, x->detail);
				else
					fputs("null", out);
				fputc('}', out);
			}
			fputs("]}", out);
			i = end;
		}
		fputs("]}", out);
	}
	fputs("]}\n", out);
}

/* Each cause's colour in the page's bar; alike green, the origin's own
 * failures grey. */
static const char *const cause_colors[NCAUSES] = {
	[CAUSE_ALIKE] = "#4c9a4c",	  [CAUSE_NOT_IN_TREE] = "#c0504d", [CAUSE_GONE_IN_TREE] = "#d9822b",
	[CAUSE_REDIRECT] = "#8064a2",	  [CAUSE_STATUS] = "#b8860b",	  [CAUSE_TYPE] = "#4f81bd",
	[CAUSE_BODY] = "#e377c2",	  [CAUSE_TREE_FAILED] = "#222222", [CAUSE_ORIGIN_FAILED] = "#999999",
};

#define BAR_W 800
#define BAR_H 28

/* The requests as one bar, a stretch per cause in proportion to its
 * requests, with a legend: inline SVG, nothing fetched. */
static void share_bar(FILE *out, const struct totals *t)
{
	char a[16];
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"share\" width=\"%d\" height=\"%d\" "
		     "viewBox=\"0 0 %d %d\" role=\"img\">\n<title>The requests by cause</title>\n",
		BAR_W, BAR_H, BAR_W, BAR_H);
	double x = 0;
	for (int c = 0; c < NCAUSES; c++) {
		if (!t->requests[c] || !t->all_requests)
			continue;
		double w = (double)BAR_W * (double)t->requests[c] / (double)t->all_requests;
		fprintf(out, "<rect class=\"cause\" data-cause=\"%s\" data-requests=\"%lld\" x=\"%.2f\" y=\"0\" "
			     "width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>",
			cause_name((enum cause)c), t->requests[c], x, w, BAR_H, cause_colors[c]);
		html_escaped(out, cause_title((enum cause)c));
		fputs(": ", out);
		fputs(hpct(a, sizeof a, t->requests[c], t->all_requests), out);
		fputs("</title></rect>\n", out);
		x += w;
	}
	fputs("</svg>\n<ul class=\"legend\">\n", out);
	for (int c = 0; c < NCAUSES; c++) {
		if (!t->requests[c])
			continue;
		fprintf(out, "<li><span class=\"swatch\" style=\"background:%s\"></span>", cause_colors[c]);
		html_escaped(out, cause_title((enum cause)c));
		fprintf(out, ": %zu URL%s, ", t->urls[c], t->urls[c] == 1 ? "" : "s");
		fputs(hpct(a, sizeof a, t->requests[c], t->all_requests), out);
		fputs(" of the requests</li>\n", out);
	}
	fputs("</ul>\n", out);
}

void findings_html(FILE *out, const struct findings *f)
{
	struct buf head = BUF_INIT;
	struct totals t;
	char a[16];
	summary(&head, f, &t);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>cgisnap verify: ", out);
	html_escaped(out, f->site_url);
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em;color:#222}\n"
	      "table{border-collapse:collapse;width:100%;margin-bottom:2em}\n"
	      "td,th{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}\n"
	      "th.family{background:#f2f2f2}\ntd.n{text-align:right;white-space:nowrap}\n"
	      "code{word-break:break-all}\n.ok{color:#2a7d2a}.bad{color:#b22}\n"
	      "ul.legend{list-style:none;padding:0}\n"
	      ".swatch{display:inline-block;width:1em;height:1em;margin-right:.4em;vertical-align:middle}\n"
	      "</style>\n</head>\n<body>\n<h1>cgisnap verify: ", out);
	html_escaped(out, f->site_url);
	fprintf(out, "</h1>\n<p class=\"%s\">", t.change_urls ? "bad" : "ok");
	struct strlist lines = STRLIST_INIT;
	strlist_split(&lines, buf_str(&head), '\n');
	for (size_t i = 0; i < lines.n; i++) {
		if (!*lines.items[i])
			continue;
		html_escaped(out, lines.items[i]);
		fputs(i + 1 < lines.n ? "<br>\n" : "\n", out);
	}
	fputs("</p>\n", out);
	share_bar(out, &t);
	for (size_t i = 0; i < f->n;) {
		enum cause c = f->items[i].cause;
		if (c == CAUSE_ALIKE) {
			i++;
			continue;
		}
		fputs("<h2>", out);
		html_escaped(out, cause_title(c));
		fprintf(out, ": %zu URL%s, %s of the requests</h2>\n<table>\n"
			     "<tr><th>Requests</th><th>URL</th><th>Origin</th><th>Tree</th><th>Why</th></tr>\n",
			t.urls[c], t.urls[c] == 1 ? "" : "s", hpct(a, sizeof a, t.requests[c], t.all_requests));
		while (i < f->n && f->items[i].cause == c) {
			size_t end = group_end(f, i);
			fputs("<tr><th class=\"family\" colspan=\"5\"><code>", out);
			html_escaped(out, f->items[i].family);
			fprintf(out, "</code> (%zu URL%s, %s of the requests)</th></tr>\n", end - i, end - i == 1 ? "" : "s",
				hpct(a, sizeof a, f->items[i].family_requests, t.all_requests));
			for (size_t k = i; k < end; k++) {
				const struct finding *x = &f->items[k];
				fprintf(out, "<tr><td class=\"n\">%ld</td><td><code>", x->requests);
				html_escaped(out, x->target);
				fputs("</code></td>", out);
				if (x->origin_status)
					fprintf(out, "<td>%d</td>", x->origin_status);
				else
					fputs("<td>-</td>", out);
				if (x->tree_status)
					fprintf(out, "<td>%d</td>", x->tree_status);
				else
					fputs("<td>-</td>", out);
				fputs("<td>", out);
				html_escaped(out, x->detail ? x->detail : "");
				fputs("</td></tr>\n", out);
			}
			i = end;
		}
		fputs("</table>\n", out);
	}
	fputs("</body>\n</html>\n", out);
	strlist_clear(&lines);
	buf_release(&head);
}

void findings_release(struct findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->items[i].target);
		free(f->items[i].detail);
		free(f->items[i].family);
	}
	free(f->items);
	f->items = NULL;
	f->n = 0;
}
