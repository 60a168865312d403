/* families_impl.h - what the parts of families.c share: families.c (the
 * notes and the report), famanalysis.c (the URLs' parameters, siblings
 * and families), famoptions.c (the option lines) and famcanonical.c (a
 * family's --canonical rule). Not for use outside those files.
 *
 * families_report sorts the URLs and splits each (fam_parse_url), then
 * fam_fill and fam_judge_params build the analysis; fam_family_lines and
 * fam_param_lines make the lines, worst first once sorted.
 */
#ifndef CGISNAP_FAMILIES_IMPL_H
#define CGISNAP_FAMILIES_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "crawl/families.h"

/* A bare token that is a timestamp or a nonce, not a parameter's name. */
enum nonce { NONCE_NO, NONCE_DIGITS, NONCE_HEX };
#define NONCE_DIGITS_MIN 9  /* a Unix time has 10 digits since 2001 */
#define NONCE_HEX_MIN 16
#define NEAR_NOW 86400      /* seconds: a time "of this crawl" */

struct piece {
	const char *s;       /* "K=V" or "K" as the target has it */
	size_t len;
	const char *name;    /* the parameter's name; a pseudo-name for a nonce */
	size_t nlen;
	const char *val;     /* after '=', or the nonce token; NULL for a bare name */
	size_t vlen;
	enum nonce nonce;    /* of a bare token */
};

struct purl {
	const struct families_url *u;
	size_t plen; /* the path is u->target[0..plen) */
	bool query;
	struct piece *p;  /* np of them, owned */
	size_t np;
};

struct group {
	long n;
	uint64_t *bodies; /* every member's body; sorted by group_done */
	size_t *members;  /* their indexes, in the order added */
	size_t cap;
	long distinct;
	size_t first;     /* the first member in sort order */
};

/* A query parameter, over every URL carrying it. */
struct param {
	char *name;
	enum nonce nonce;   /* a pseudo-name's kind */
	struct group urls;  /* the URLs carrying it */
	struct group vals;  /* their values (as hashes) */
	long paths;
	bool all_nonce;     /* every value looks like a timestamp or nonce */
	bool all_now;       /* every value is a time of the crawl's day (s, ms, us or ns) */
	long evidence;      /* URLs in sibling groups of 2+ with one body */
	long groups, lone;  /* sibling groups; those without the URL lacking it */
	bool changed;       /* a sibling group of 2+ had 2+ bodies */
	bool irrelevant, stamp, render_time;
};

/* URLs that differ only in one parameter's value (or its absence): only
 * whether they share one body matters. */
struct sibling {
	struct param *k;
	long n;
	uint64_t body;      /* the first member's */
	bool mixed;         /* another member had another body */
};

/* The distinct bodies of a family, FAMILIES_FEW + 1 at most, with their
 * counts: a duplicate's are all kept, exactly. */
struct bodyset {
	uint64_t body[FAMILIES_FEW + 1];
	long count[FAMILIES_FEW + 1];
	int distinct;       /* kept; more: there were more than that */
	bool more;
};

/* The URLs of one path with a query, or of one path carrying a piece.
 * The URLs are sorted: those of one path with a query are one run, its
 * families' members lie in it, from first to last. */
struct family {
	const char *path, *piece; /* into a member's target; piece NULL: any query */
	size_t plen, len;
	const char *key;          /* the map's */
	long n;
	size_t first, last;
	struct bodyset b;
	bool reported;            /* its --canonical or --exclude line was made */
};

struct analysis {
	const struct families *f;
	struct purl *p;
	size_t n;
	struct hashmap params;   /* name -> struct param * */
	struct hashmap paths;    /* "name\tpath" -> 1: a parameter's paths */
	struct hashmap sibs;     /* "name\tpath\tquery without it" -> struct sibling * */
	struct hashmap fams;     /* "path\t" or "path\tpiece" -> struct family * */
	uint64_t *all;           /* every body, sorted */
	bool *excluded;          /* URLs a reported --exclude or --canonical removes */
	bool *kept;              /* a reported --canonical's URL: no line may remove it */
	struct gone { uint64_t body; long n; } *gone; /* their bodies, how many of each */
	size_t ngone;
};

struct line {
	long weight; /* URLs it removes */
	char *text;
};

/* A name seen in a family's URLs: whether its value stays the same. */
struct seen_name {
	const char *name;
	size_t nlen;
	uint64_t value;
	long count;
	bool varies;
};

#define SEEN_NAMES 64

/* famanalysis.c */
void fam_parse_url(const struct families_url *u, struct purl *p);
bool fam_same_name(const struct piece *a, const struct piece *b);
bool fam_first_of_name(const struct purl *p, size_t i);
uint64_t fam_value_of(const struct purl *p, const struct piece *n);
int fam_cmp_u64(const void *a, const void *b);
long fam_left_with(const struct analysis *a, uint64_t body);
void fam_exclude_url(struct analysis *a, size_t idx);
void fam_fill(struct analysis *a);
void fam_judge_params(struct analysis *a);
bool fam_in_family(const struct family *fam, const struct purl *p);
void fam_analysis_release(struct analysis *a);

/* famoptions.c */
void fam_add_shell(struct buf *b, const char *s);
void fam_add_ere(struct buf *b, const char *s, size_t len);
struct param *fam_param_named(const struct analysis *a, const char *name, size_t nlen);
void fam_family_lines(struct analysis *a, struct line **lines, size_t *nlines);
void fam_param_lines(struct analysis *a, struct param **ks, struct line **lines, size_t *nlines);

/* famcanonical.c */
long fam_canonical_line(struct analysis *a, const struct family *fam, const char *fam_re,
			struct buf *opt, struct buf *why);

#endif
