/* rewrite.h - a "REGEX => TEMPLATE" rule, the syntax of watch's
 * --depends and of --canonical: a POSIX extended regex, an arrow, and a
 * template in which $0..$9 stand for the match and its groups.
 *
 * The spec splits at its last "=>", spaces and tabs around the arrow and
 * at the template's end dropped; neither side may be empty. In the
 * template $0..$9 are replaced by the match and its groups (an unmatched
 * group gives ""), $$ by one '$'; any other '$' stays as it is.
 *
 * Steps: rewrite_parse; rewrite_apply (or regexec + rewrite_expand) per
 * subject; rewrite_release. */
#ifndef CGISNAP_REWRITE_H
#define CGISNAP_REWRITE_H

#include <regex.h>
#include <stddef.h>

struct rewrite {
	regex_t re;
	char *regex; /* its text */
	char *url;  /* the template, with $N references */
	char *spec; /* as given, for messages */
};

/* Parse spec into rw. option names the option in messages: -1 with err
 * "bad OPTION rule 'SPEC': expected 'REGEX => URL'" or "bad OPTION regex
 * in 'SPEC': why", rw then holding nothing to release. */
int rewrite_parse(struct rewrite *rw, const char *spec, const char *option, char *err);
void rewrite_release(struct rewrite *rw);

/* The template with $0..$9 replaced from a match m (nmatch entries) of
 * subject, as above. The caller frees it. */
char *rewrite_expand(const char *tmpl, const char *subject, const regmatch_t *m, size_t nmatch);

/* The expansion of rw's template when its regex matches subject
 * (anywhere: anchor it with ^ and $), else NULL. The caller frees it. */
char *rewrite_apply(const struct rewrite *rw, const char *subject);

#endif
