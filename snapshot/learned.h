/* learned.h - 'snapshot --write-profile FILE': what a run learned by
 * itself, as an option file that -c FILE reads back, so that the next
 * run starts from those decisions instead of learning them again, and a
 * reader sees what was left out and why.
 *
 * Written (temp + rename, mode 0644 less the umask):
 *  - view-family lines: the families cut as views (views.h), each with
 *    the URLs it left unrendered; read back, they are cut unsampled;
 *  - volatile lines: the spans pages are compared without (volatile.h);
 *  - as comments: the aliases recorded as 301s (rel=canonical, and the
 *    spellings of one file), which the pages say again on every run, and
 *    the parameters and families the summary suggests removing, which
 *    this run did not apply.
 * An existing FILE is replaced only when it is such a profile (its first
 * line says so): cgisnap overwrites no file it did not write.
 */
#ifndef CGISNAP_SNAPSHOT_LEARNED_H
#define CGISNAP_SNAPSHOT_LEARNED_H

#include "crawl/crawl.h"

/* The first line of every profile written. */
#define LEARNED_HEADER "# cgisnap profile, written by 'cgisnap snapshot --write-profile'"

/* 0 when path may be written: absent, or a profile written before; -1
 * with err ("'FILE' exists and is not a profile cgisnap wrote: not
 * overwritten"). Asked before the crawl, so that a wrong name costs no run. */
int learned_check(const char *path, char *err);

/* Write what res learned of site_url to path. 0, or -1 with err. */
int learned_write(const char *path, const struct crawl_result *res, const char *site_url, char *err);

#endif
