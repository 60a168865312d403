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
 * The file is published by temp+rename (cli/outfile.h). */
#ifndef CGISNAP_BENCH_REPORTHTML_H
#define CGISNAP_BENCH_REPORTHTML_H

#include <stdio.h>

#include "cli/outfile.h"
#include "machine.h"
#include "report.h"

/* Latency bins of the distribution chart. */
#define REPORT_HTML_BINS 24

/* Write the page for rep, run on m, to out. */
void report_html(FILE *out, const struct report *rep, const struct machine *m);

/* Write the page into h (outfile.h: opened with outfile_open before the
 * measurement) and rename it over its path. -1 with err (the temporary
 * file is removed). Releases h either way. */
int report_html_commit(struct outfile *h, const struct report *rep, const struct machine *m, char *err);

#endif
