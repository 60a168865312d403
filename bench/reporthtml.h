/* bench/reporthtml.h - 'cgisnap bench --html FILE': the results as one
 * self-contained HTML page to put in a ticket or a post. Inline SVG and
 * CSS only: no script, no image, font or style sheet fetched, no link
 * out. The page has the request rate of each side as bars (heights in
 * proportion to the figures), the latency distribution of each side
 * (share of requests per latency bin, bins spaced evenly on a log scale
 * from the fastest to the slowest response), the machine (machine.h) and
 * what each side was, and the text table of report.h verbatim (with its
 * per-URL rows and warnings), so the page and the terminal agree.
 *
 * The file is published by temp+rename: report_html_open() creates a
 * temporary dotfile beside FILE before the measurement (a FILE that
 * cannot be written fails at once, not after the run), commit renames
 * it over FILE, so a reader never sees half a page. */
#ifndef CGISNAP_BENCH_REPORTHTML_H
#define CGISNAP_BENCH_REPORTHTML_H

#include <stdio.h>

#include "machine.h"
#include "report.h"

/* Latency bins of the distribution chart. */
#define REPORT_HTML_BINS 24

/* Write the page for rep, run on m, to out. */
void report_html(FILE *out, const struct report *rep, const struct machine *m);

struct report_html_file {
	char *path; /* FILE as given */
	char *tmp;  /* the temporary file beside it, NULL once renamed or removed */
	FILE *f;
};

/* Create the temporary file for path. -1 with err naming path: a
 * directory, something other than a regular file, a directory that
 * cannot be written. */
int report_html_open(struct report_html_file *h, const char *path, char *err);

/* Write the page into the temporary file and rename it over the path.
 * -1 with err (the temporary file is removed). Releases h either way. */
int report_html_commit(struct report_html_file *h, const struct report *rep,
		       const struct machine *m, char *err);

/* Remove the temporary file and release h (the run ended without a
 * report). Does nothing after commit or on a zeroed h. */
void report_html_abort(struct report_html_file *h);

#endif
