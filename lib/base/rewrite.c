/* rewrite.c - "REGEX => TEMPLATE" rules (rewrite.h). */
#include "base/rewrite.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/xalloc.h"

int rewrite_parse(struct rewrite *rw, const char *spec, const char *option, char *err)
{
	memset(rw, 0, sizeof *rw);
	const char *arrow = NULL;
	for (const char *p = strstr(spec, "=>"); p; p = strstr(p + 1, "=>"))
		arrow = p;
	if (!arrow)
		return err_set(err, "bad %s rule '%s': expected 'REGEX => URL'", option, spec);
	const char *re_end = arrow;
	while (re_end > spec && (re_end[-1] == ' ' || re_end[-1] == '\t'))
		re_end--;
	const char *tmpl = arrow + 2;
	tmpl += strspn(tmpl, " \t");
	size_t tmpl_len = strlen(tmpl);
	while (tmpl_len && (tmpl[tmpl_len - 1] == ' ' || tmpl[tmpl_len - 1] == '\t'))
		tmpl_len--;
	if (re_end == spec || !tmpl_len)
		return err_set(err, "bad %s rule '%s': expected 'REGEX => URL'", option, spec);

	char *re = xstrndup(spec, (size_t)(re_end - spec));
	int rc = regcomp(&rw->re, re, REG_EXTENDED);
	if (rc) {
		char msg[128];
		regerror(rc, &rw->re, msg, sizeof msg);
		free(re);
		return err_set(err, "bad %s regex in '%s': %s", option, spec, msg);
	}
	rw->regex = re;
	rw->url = xstrndup(tmpl, tmpl_len);
	rw->spec = xstrdup(spec);
	return 0;
}

void rewrite_release(struct rewrite *rw)
{
	if (rw->spec)
		regfree(&rw->re);
	free(rw->regex);
	free(rw->url);
	free(rw->spec);
	memset(rw, 0, sizeof *rw);
}

char *rewrite_expand(const char *tmpl, const char *subject, const regmatch_t *m, size_t nmatch)
{
	struct buf b = BUF_INIT;
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '$' && p[1] == '$') {
			buf_addc(&b, '$');
			p++;
		} else if (p[0] == '$' && p[1] >= '0' && p[1] <= '9') {
			size_t g = (size_t)(p[1] - '0');
			if (g < nmatch && m[g].rm_so >= 0)
				buf_add(&b, subject + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so));
			p++;
		} else {
			buf_addc(&b, *p);
		}
	}
	buf_adds(&b, ""); /* an empty template still gives "" */
	return buf_detach(&b, NULL);
}

char *rewrite_apply(const struct rewrite *rw, const char *subject)
{
	regmatch_t m[10];
	if (regexec(&rw->re, subject, 10, m, 0) != 0)
		return NULL;
	return rewrite_expand(rw->url, subject, m, 10);
}
