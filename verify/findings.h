/* verify/findings.h - what 'cgisnap verify' found, grouped for people:
 * by cause (compare.h's order), within a cause by URL family (the path
 * and its parameter names, or a URL's directory: budget_family), the
 * families and their URLs by how often the logs requested them, most
 * first. Counts are weighted by requests: "99.2% of the requests answer
 * alike; 31 URLs, 0.8% of the requests, would change". As text (the
 * first 10 URLs of a family, then how many more), one JSON object
 * (every URL), or one self-contained HTML page (the requests as a bar of
 * the causes' shares, then every URL; inline SVG and CSS, nothing
 * fetched).
 *
 * A URL the origin itself fails is listed, not counted as a change: the
 * snapshot cannot be compared with an answer the origin does not give.
 */
#ifndef CGISNAP_VERIFY_FINDINGS_H
#define CGISNAP_VERIFY_FINDINGS_H

#include <stdio.h>

#include "compare.h"

/* URLs of one family shown in the text report. */
#define FINDINGS_TEXT_URLS 10

struct finding {
	char *target;       /* as requested, normalised */
	long requests;      /* in the logs */
	enum cause cause;
	int origin_status;  /* 0: none */
	int tree_status;    /* 0: none */
	char *detail;       /* how it differs, or why it is missing; NULL */
	char *family;       /* budget_family's key (findings_prepare) */
	long long family_requests; /* the requests of its cause and family (findings_prepare) */
	char body_sha[65];  /* not in the tree: the origin's 2xx body's sha256 (as stored), else "" */
};

struct findings {
	struct finding *items;
	size_t n;
	/* The header: where the requests came from and what was compared. */
	const char *site_url;
	const char *origin;       /* origin_describe's words */
	const char *tree;         /* the tree's directory */
	const char *tree_server;  /* "cgisnap serve" or the --server URL */
	size_t logs;              /* files read */
	long long lines, other_methods, malformed, outside;
	const char *first_malformed;
	size_t distinct;          /* distinct URLs in the logs */
	long long sampled_out;    /* requests of the URLs --sample left out */
	bool interrupted;         /* stopped before every URL was replayed */
};

/* Sort the findings and fill in their families. */
void findings_prepare(struct findings *f);
/* URLs and requests per cause. */
void findings_count(const struct findings *f, size_t urls[NCAUSES], long long requests[NCAUSES]);
/* Whether some URL would change (any cause but alike and origin-failed). */
bool findings_changes(const struct findings *f);
/* Whether some URL was compared at all (the origin answered it). */
bool findings_compared(const struct findings *f);

void findings_text(FILE *out, const struct findings *f);
void findings_json(FILE *out, const struct findings *f);
void findings_html(FILE *out, const struct findings *f);

void findings_release(struct findings *f);

#endif
