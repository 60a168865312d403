/* volatile.c - spans that change on every render, learned (volatile.h). */
#include "crawl/volatile.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xalloc.h"

/* A span as found: [start, end) in a, and its value in b. */
struct span {
	size_t start, end;
	size_t bstart, bend;
};

static bool token_byte(unsigned char ch)
{
	return isalnum(ch) || ch == '+' || ch == '/' || ch == '_' || ch == '.' || ch == '-';
}

static size_t token_end(const char *s, size_t len, size_t i)
{
	while (i < len && token_byte((unsigned char)s[i]))
		i++;
	return i;
}

static size_t other_end(const char *s, size_t len, size_t i)
{
	while (i < len && !token_byte((unsigned char)s[i]))
		i++;
	return i;
}

static bool has_digit(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (isdigit((unsigned char)s[i]))
			return true;
	return false;
}

static bool has_letter(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (isalpha((unsigned char)s[i]))
			return true;
	return false;
}

static void set_add(unsigned char *set, unsigned char b)
{
	set[b >> 3] |= (unsigned char)(1u << (b & 7));
}

static bool in_set(const unsigned char *set, unsigned char b)
{
	return set[b >> 3] & (1u << (b & 7));
}

static void set_range(unsigned char *set, char from, char to)
{
	for (int b = from; b <= to; b++)
		set_add(set, (unsigned char)b);
}

/* The bytes a span like s may hold (volatile.h). */
static void set_widen(unsigned char *set, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		if (isdigit((unsigned char)ch))
			set_range(set, '0', '9');
		else if (ch >= 'a' && ch <= 'f')
			set_range(set, 'a', 'f');
		else if (ch >= 'g' && ch <= 'z')
			set_range(set, 'a', 'z');
		else if (ch >= 'A' && ch <= 'F')
			set_range(set, 'A', 'F');
		else if (ch >= 'G' && ch <= 'Z')
			set_range(set, 'A', 'Z');
		else
			set_add(set, (unsigned char)ch);
	}
}

/* Two samples of a random token show a few of its bytes: one with a
 * letter beyond hex may hold any letter, digit or byte of base64 and
 * its URL form (a nonce); "+/" absent from both samples would cut the
 * span at the first one the next render writes. */
static void set_generalize(unsigned char *set)
{
	/* Spans joined over other bytes (a date and a time) are no token. */
	for (int b = 1; b < 256; b++)
		if (in_set(set, (unsigned char)b) && !token_byte((unsigned char)b))
			return;
	bool letters = false;
	for (int b = 'g'; b <= 'z' && !letters; b++)
		letters = in_set(set, (unsigned char)b) || in_set(set, (unsigned char)(b - 'a' + 'A'));
	if (!letters)
		return;
	set_range(set, 'a', 'z');
	set_range(set, 'A', 'Z');
	set_range(set, '0', '9');
	set_add(set, '+');
	set_add(set, '/');
	set_add(set, '_');
	set_add(set, '-');
}

void volatiles_init(struct volatiles *v)
{
	memset(v, 0, sizeof *v);
}

void volatiles_release(struct volatiles *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->rules[i].context);
	free(v->rules);
	memset(v, 0, sizeof *v);
}

/* Add (or widen) the rule of context: whether v changed. */
static bool add_rule(struct volatiles *v, const char *context, size_t len, const unsigned char *set)
{
	for (size_t i = 0; i < v->n; i++) {
		struct volatile_rule *r = &v->rules[i];
		if (r->len != len || memcmp(r->context, context, len))
			continue;
		bool wider = false;
		for (int k = 0; k < 32; k++) {
			if (set[k] & ~r->set[k])
				wider = true;
			r->set[k] |= set[k];
		}
		return wider;
	}
	if (v->n == VOLATILE_MAX_RULES)
		return false;
	v->rules = xrealloc(v->rules, (v->n + 1) * sizeof *v->rules);
	struct volatile_rule *r = &v->rules[v->n++];
	r->context = xstrndup(context, len);
	r->len = len;
	memcpy(r->set, set, sizeof r->set);
	return true;
}

/* The spans where a and b differ, token by token; false when the two do
 * not line up. */
static bool diff_tokens(const char *a, size_t alen, const char *b, size_t blen, struct span **out, size_t *n)
{
	size_t i = 0, j = 0;
	*out = NULL;
	*n = 0;
	while (i < alen && j < blen) {
		bool ta = token_byte((unsigned char)a[i]), tb = token_byte((unsigned char)b[j]);
		if (ta != tb)
			goto misaligned;
		size_t ie = ta ? token_end(a, alen, i) : other_end(a, alen, i);
		size_t je = tb ? token_end(b, blen, j) : other_end(b, blen, j);
		bool same = ie - i == je - j && !memcmp(a + i, b + j, ie - i);
		if (!same && !ta)
			goto misaligned;
		if (!same) {
			*out = xrealloc(*out, (*n + 1) * sizeof **out);
			(*out)[(*n)++] = (struct span){ i, ie, j, je };
		}
		i = ie;
		j = je;
	}
	if (i == alen && j == blen)
		return true;
misaligned:
	free(*out);
	*out = NULL;
	*n = 0;
	return false;
}

/* Merge spans with at most two bytes between them (08:47:30). */
static size_t merge_close(struct span *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && s[i].start - s[k - 1].end <= 2 && s[i].bstart - s[k - 1].bend <= 2) {
			s[k - 1].end = s[i].end;
			s[k - 1].bend = s[i].bend;
		} else {
			s[k++] = s[i];
		}
	}
	return k;
}

/* Grow s to the left over a date's parts: tokens that start with a digit
 * ("2026-12-05T08", "05"), joined by at most two other bytes (the date
 * before a time); both renders hold them alike. A word with a digit
 * further in ("v2", "r123") is content, even beside a nonce. */
static void grow_left(const char *a, struct span *s)
{
	for (;;) {
		size_t sep = s->start;
		while (sep > 0 && !token_byte((unsigned char)a[sep - 1]) && s->start - sep < 3)
			sep--;
		if (sep == s->start || s->start - sep > 2 || sep == 0 || !token_byte((unsigned char)a[sep - 1]))
			return;
		size_t t = sep;
		while (t > 0 && token_byte((unsigned char)a[t - 1]))
			t--;
		if (!isdigit((unsigned char)a[t]))
			return;
		size_t grown = s->start - t;
		s->start = t;
		s->bstart -= grown;
	}
}

/* The context of a span starting at start: the word before it (a token
 * of three bytes or more with a letter; shorter tokens before it are
 * taken too: "Rendered in ") and the bytes between, at most
 * VOLATILE_CONTEXT bytes; its start, or (size_t)-1 when there is none
 * ("p>" before a number is no name). Short words after a number are a
 * context too when they hold three letters in four bytes or more: " s at "
 * of "rendered in 0.0123 s at 2026-12-05 13:07:29", where a context
 * reaching back over the number would never be seen again. */
static size_t context_start(const char *a, size_t start)
{
	size_t i = start;
	for (int tokens = 0; tokens < 3; tokens++) {
		while (i > 0 && !token_byte((unsigned char)a[i - 1]) && start - i < VOLATILE_CONTEXT)
			i--;
		size_t sep = i;
		while (i > 0 && token_byte((unsigned char)a[i - 1]) && start - i < VOLATILE_CONTEXT)
			i--;
		if (sep - i >= 3 && has_letter(a + i, sep - i))
			return i;
		if (i < sep && !has_letter(a + i, sep - i)) {
			size_t letters = 0;
			for (size_t k = sep; k < start; k++)
				letters += ((unsigned char)a[k] | 0x20) >= 'a' && ((unsigned char)a[k] | 0x20) <= 'z';
			return start - sep >= 4 && letters >= 3 ? sep : (size_t)-1;
		}
		if (i == sep || start - i >= VOLATILE_CONTEXT)
			break;
	}
	return (size_t)-1;
}

/* Whether s (a span's value) is a measurement, a decimal with three
 * fractional digits or more: "rendered in 0.0004 s". Back-to-back renders
 * often take the same time to the tenth of a millisecond, so the pair
 * may never differ there; the stored file, rendered a run earlier, does.
 * A price or a count has fewer digits after its point. */
static bool measurement(const char *s, size_t len)
{
	size_t i = 0, frac = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == 0 || i == len || s[i] != '.')
		return false;
	for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		frac++;
	return i == len && frac >= 3;
}

/* Whether s (a span's value) is a time within a day of now: an ISO
 * date and time (2026-12-05T08:52:06Z), fourteen digits
 * (20261205085206) or Unix seconds. In UTC, give or take a day. */
static bool near_now(const char *s, size_t len, time_t now)
{
	char tmp[40];
	if (len >= sizeof tmp)
		return false;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	struct tm tm = { 0 };
	int n = 0;
	long long secs;
	if (sscanf(tmp, "%4d-%2d-%2d%*1[T ]%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
		   &tm.tm_min, &n) >= 5 ||
	    (len == 14 && sscanf(tmp, "%4d%2d%2d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
				 &tm.tm_min) == 5)) {
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		secs = (long long)timegm(&tm);
	} else if (len == 10 && strspn(tmp, "0123456789") == 10) {
		secs = atoll(tmp);
	} else {
		return false;
	}
	return secs > (long long)now - 86400 && secs < (long long)now + 86400;
}

/* A small count (all digits, fewer than nine): a version, a number of
 * comments as likely as a time in milliseconds. */
static bool small_count(const char *s, size_t len)
{
	size_t d = 0;
	while (d < len && isdigit((unsigned char)s[d]))
		d++;
	while (len > d && s[len - 1] == '.') /* the end of a sentence */
		len--;
	return d && d < 9 && d == len;
}

/* Whether the counts x and y (their leading digits) are one. */
static bool same_count(const char *x, size_t xl, const char *y, size_t yl)
{
	size_t i = 0, j = 0;
	while (i < xl && isdigit((unsigned char)x[i]))
		i++;
	while (j < yl && isdigit((unsigned char)y[j]))
		j++;
	return i == j && !memcmp(x, y, i);
}

/* The value a third text (the stored file) holds where a holds the span
 * at start after its context ctx: after the same occurrence of ctx (the
 * k-th in a is the k-th in it), its run of digits; false when it has no
 * such occurrence. */
static bool digits_after(const char *a, size_t start, const char *ctx, size_t ctxlen, const char *third,
			 size_t thirdlen, const char **val, size_t *vallen)
{
	size_t k = 0;
	for (const char *p = a; (p = memmem(p, (size_t)(a + start - p), ctx, ctxlen)) && p + ctxlen < a + start; p++)
		k++;
	const char *p = third, *end = third + thirdlen;
	for (;; p++) {
		p = memmem(p, (size_t)(end - p), ctx, ctxlen);
		if (!p)
			return false;
		if (!k--)
			break;
	}
	p += ctxlen;
	*val = p;
	*vallen = 0;
	while (p + *vallen < end && isdigit((unsigned char)p[*vallen]))
		(*vallen)++;
	return true;
}

/* Learn the spans where a and b differ; with now, only those whose
 * value in a is a time near now. A small count that differs between two
 * renders may be content that changed in between (a page rewritten as
 * it is rendered again): it is learned only when third (the stored
 * file, or NULL: never) holds a value of its own there too. */
static size_t learn(struct volatiles *v, const char *a, size_t alen, const char *b, size_t blen,
		    const char *third, size_t thirdlen, time_t now)
{
	struct span *s;
	size_t n;
	if (!diff_tokens(a, alen, b, blen, &s, &n))
		return 0;
	n = merge_close(s, n);
	size_t learned = 0;
	for (size_t i = 0; i < n; i++) {
		grow_left(a, &s[i]);
		const char *av = a + s[i].start, *bv = b + s[i].bstart;
		size_t al = s[i].end - s[i].start, bl = s[i].bend - s[i].bstart;
		if (!((has_digit(av, al) || al >= 16) && (has_digit(bv, bl) || bl >= 16)))
			continue;
		if (now && !near_now(av, al, now) && !(measurement(av, al) && measurement(bv, bl)))
			continue;
		size_t c = context_start(a, s[i].start);
		if (c == (size_t)-1)
			continue;
		if (!now && small_count(av, al) && small_count(bv, bl)) {
			const char *tv;
			size_t tl;
			if (!third || !digits_after(a, s[i].start, a + c, s[i].start - c, third, thirdlen, &tv, &tl) ||
			    same_count(tv, tl, av, al) || same_count(tv, tl, bv, bl))
				continue;
		}
		unsigned char set[32] = { 0 };
		set_widen(set, av, al);
		set_widen(set, bv, bl);
		set_generalize(set);
		if (add_rule(v, a + c, s[i].start - c, set))
			learned++;
	}
	free(s);
	if (learned)
		v->changed = true;
	return learned;
}

size_t volatiles_learn(struct volatiles *v, const char *a, size_t alen, const char *b, size_t blen,
		       const char *stored, size_t storedlen)
{
	return learn(v, a, alen, b, blen, stored, storedlen, 0);
}

size_t volatiles_learn_times(struct volatiles *v, const char *now_page, size_t len, const char *old,
			     size_t oldlen, time_t now)
{
	return learn(v, now_page, len, old, oldlen, NULL, 0, now);
}

/* s without the spans the rules match, into out. */
static void mask(const struct volatiles *v, const char *s, size_t len, struct buf *out)
{
	/* drop[i]: byte i is left out */
	unsigned char *drop = xcalloc(len ? len : 1, 1);
	for (size_t r = 0; r < v->n; r++) {
		const struct volatile_rule *rule = &v->rules[r];
		const char *p = s, *end = s + len;
		while ((size_t)(end - p) > rule->len) {
			const char *hit = memmem(p, (size_t)(end - p), rule->context, rule->len);
			if (!hit)
				break;
			const char *q = hit + rule->len;
			while (q < end && in_set(rule->set, (unsigned char)*q))
				drop[q++ - s] = 1;
			p = q > hit + 1 ? q : hit + 1;
		}
	}
	for (size_t i = 0; i < len;) {
		size_t k = i;
		while (k < len && !drop[k])
			k++;
		buf_add(out, s + i, k - i);
		while (k < len && drop[k])
			k++;
		i = k;
	}
	free(drop);
}

bool volatiles_same(const struct volatiles *v, const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen == blen && !memcmp(a, b, alen))
		return true;
	if (!v->n)
		return false;
	struct buf ma = BUF_INIT, mb = BUF_INIT;
	mask(v, a, alen, &ma);
	mask(v, b, blen, &mb);
	bool same = ma.len == mb.len && !memcmp(buf_str(&ma), buf_str(&mb), ma.len);
	buf_release(&ma);
	buf_release(&mb);
	return same;
}

/* One byte of a class or a context, escaped: '\\', '-', tab, newline
 * and carriage return. */
static void format_byte(int b, struct buf *out)
{
	if (b == '\t')
		buf_adds(out, "\\t");
	else if (b == '\n')
		buf_adds(out, "\\n");
	else if (b == '\r')
		buf_adds(out, "\\r");
	else if (b == '\\' || b == '-')
		buf_addf(out, "\\%c", b);
	else
		buf_addc(out, (char)b);
}

/* The set as a class: runs of three or more bytes as "a-z". */
static void format_set(const unsigned char *set, struct buf *out)
{
	for (int b = 1; b < 256; b++) {
		if (!in_set(set, (unsigned char)b))
			continue;
		int e = b;
		while (e + 1 < 256 && in_set(set, (unsigned char)(e + 1)))
			e++;
		if (e - b >= 2) {
			format_byte(b, out);
			buf_addc(out, '-');
			format_byte(e, out);
		} else {
			for (int k = b; k <= e; k++)
				format_byte(k, out);
		}
		b = e;
	}
}

static void format_escaped(const char *s, size_t len, struct buf *out)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\')
			buf_adds(out, "\\\\");
		else if (s[i] == '\t')
			buf_adds(out, "\\t");
		else if (s[i] == '\n')
			buf_adds(out, "\\n");
		else if (s[i] == '\r')
			buf_adds(out, "\\r");
		else
			buf_addc(out, s[i]);
	}
}

void volatiles_format(const struct volatiles *v, struct buf *out)
{
	buf_adds(out, "# cgisnap: spans that change on every render; the bytes a span may hold, a tab, "
		      "the text before it\n");
	for (size_t i = 0; i < v->n; i++) {
		format_set(v->rules[i].set, out);
		buf_addc(out, '\t');
		format_escaped(v->rules[i].context, v->rules[i].len, out);
		buf_addc(out, '\n');
	}
}

/* One escaped byte at *p (advanced): -1 at the end. */
static int unescape(const char **p, const char *end)
{
	if (*p >= end)
		return -1;
	char ch = *(*p)++;
	if (ch != '\\' || *p >= end)
		return (unsigned char)ch;
	ch = *(*p)++;
	return ch == 't' ? '\t' : ch == 'n' ? '\n' : ch == 'r' ? '\r' : (unsigned char)ch;
}

static void parse_line(struct volatiles *v, const char *s, const char *end)
{
	const char *tab = memchr(s, '\t', (size_t)(end - s));
	if (!tab || tab == s || tab + 1 >= end || *s == '#')
		return;
	unsigned char set[32] = { 0 };
	int prev = -1;
	for (const char *p = s; p < tab;) {
		bool range = *p == '-' && prev >= 0;
		if (range)
			p++;
		int ch = unescape(&p, tab);
		if (ch < 0)
			return;
		if (range)
			for (int k = prev; k <= ch; k++)
				set_add(set, (unsigned char)k);
		else
			set_add(set, (unsigned char)ch);
		prev = range ? -1 : ch;
	}
	struct buf ctx = BUF_INIT;
	for (const char *p = tab + 1; p < end;) {
		int ch = unescape(&p, end);
		if (ch < 0)
			break;
		buf_addc(&ctx, (char)ch);
	}
	if (ctx.len && has_letter(buf_str(&ctx), ctx.len))
		add_rule(v, buf_str(&ctx), ctx.len, set);
	buf_release(&ctx);
}

void volatiles_parse(struct volatiles *v, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		parse_line(v, p, le);
		p = nl ? nl + 1 : end;
	}
}
