/* families.h - what the query parameters of a crawl did: the URL families
 * that multiplied URLs without adding content, and the options that would
 * remove them (docs/families.md has the rules with an example).
 *
 * The crawl notes every URL a full crawl stored with a 2xx answer: its
 * canonical target (after --ignore-param, --sort-query) and the sha256 of
 * the stored body (after --strip, the hash the crawl compares anyway).
 * At the end families_report() reads them:
 *  - a query parameter K never changes a body when, among the URLs that
 *    differ only in K's value (the URL without K included, when it was
 *    crawled), every group of two or more has one body, and such groups
 *    hold FAMILIES_MIN_URLS URLs or more: "--ignore-param K". A bare
 *    token that looks like a timestamp or nonce (9+ digits, or 16+ hex
 *    digits: DokuWiki's "taskrunner.php?id=X&1700000000") is the value
 *    of one nameless parameter, and its glob matches such tokens only;
 *  - a family - the URLs of one path with a query, or those of one path
 *    carrying one piece "K=V" ("do=index") - is a duplicate when it has
 *    at most FAMILIES_FEW distinct bodies and FAMILIES_MIN_URLS URLs or
 *    more per body. When a parameter that varies in it changes bodies
 *    elsewhere (DokuWiki's id, with and without do=index), no
 *    --ignore-param can remove it. A family of one body gets
 *    "--canonical 'REGEX => URL'": its copies answer a 302 to one URL
 *    holding the body (one outside the family, else the family's own,
 *    which REGEX spells out as not matched, POSIX having no negation;
 *    pieces an --ignore-param line drops optional in REGEX, absent from
 *    URL), so links to them still work; the rule is compiled and checked
 *    against the family before it is printed. Several bodies, or pieces
 *    in no one order, get "--exclude REGEX" (on targets, as the crawl
 *    matches it), with a "--seed" per body found at no other URL (and
 *    for a URL a rule sends to), so that one copy of each is stored;
 *  - a parameter whose every URL has a new value, a time within a day of
 *    the crawl (Unix seconds to nanoseconds), and whose bodies differ is
 *    named as a cache-buster or timestamp, with a "?" and no option: a
 *    revision's older date (DokuWiki's rev=) is content.
 * Each line is the option(s) to paste, then "# why". A family inside one
 * already reported, or a parameter only in excluded families, is not
 * repeated; a body counts as found elsewhere only at a URL no reported
 * line excludes; the FAMILIES_EXAMINED largest duplicate families are
 * looked at. Lines come worst first (the URLs they would remove), at most
 * FAMILIES_LINES, then "...and N more". Output is sorted: the same crawl
 * gives the same lines.
 *
 *     struct families f;
 *     families_init(&f);
 *     families_set_now(&f, time(NULL));
 *     families_set_default_seed(&f, "/");       // when the user gave no --seed
 *     families_note(&f, "/x?a=1", sha256_hex, "text/html");   // each 2xx URL
 *     families_report(&f, &notes, &table);
 *     families_release(&f);
 *
 * Memory: one record per URL (its target, 8 bytes of its hash), at most
 * FAMILIES_MAX_URLS; later URLs are counted and said, not analysed. The
 * report's tables (some 250 bytes per URL while it runs: its parameters,
 * groups and families; a piece on fewer than FAMILIES_MIN_URLS URLs of
 * its path, as each "id=N", makes no family, being none) are freed
 * before it returns. Not thread-safe: the crawl calls it under its lock.
 */
#ifndef CGISNAP_FAMILIES_H
#define CGISNAP_FAMILIES_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/hashmap.h"

#define FAMILIES_MIN_URLS 3      /* URLs per distinct body that make a duplicate */
#define FAMILIES_FEW 3           /* a family of more distinct bodies is none */
#define FAMILIES_LINES 8         /* option lines printed; the rest are counted */
#define FAMILIES_TABLE 200       /* parameters in the -v table */
#define FAMILIES_PARAMS 16       /* parameters looked at per URL */
#define FAMILIES_MAX_URLS 100000 /* URLs analysed */
#define FAMILIES_EXAMINED 256    /* duplicate families examined, the largest first */

struct families_url {
	char *target;
	uint64_t body;    /* the first 64 bits of the body's sha256 */
	const char *type; /* interned in families.types; NULL: none */
};

struct families {
	struct families_url *urls;
	size_t n, cap;
	long dropped;          /* URLs past FAMILIES_MAX_URLS */
	char *default_seed;    /* the crawl's seed when the user gave none */
	long long now;         /* the crawl's time (Unix seconds); 0: unknown */
	struct hashmap types;  /* content type -> itself (interned) */
};

void families_init(struct families *f);
/* The time of the crawl, for telling a render's timestamps from dates. */
void families_set_now(struct families *f, long long now);
/* The seed the crawl starts from when no --seed was given: a suggested
 * --seed replaces it, so the suggestion names it too. */
void families_set_default_seed(struct families *f, const char *target);
/* Note a stored URL: canonical target, the body's sha256 as 64 hex
 * digits, its content type (NULL: none). */
void families_note(struct families *f, const char *target, const char *sha256_hex, const char *type);
/* Add to notes the report's lines (a heading, then "  OPTIONS  # why"
 * lines; nothing when nothing fired) and to table one line per query
 * parameter, most URLs first ("'id': 40 URLs on 2 paths, 25 distinct
 * bodies, 40 distinct values"), for --verbose. */
void families_report(const struct families *f, struct strlist *notes, struct strlist *table);
/* Free everything; f is empty and may be initialised again. */
void families_release(struct families *f);

#endif
