/* serve/http.c - validators, byte ranges, dates and gzip negotiation (see
 * http.h). Parsers are lenient about white space and strict about
 * numbers: a value that cannot be read is treated as absent. */
#include "http.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const day_names[7] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
static const char *const month_names[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

static const char *skip_ows(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The next element of a comma-separated header list at p, past white
 * space and empty elements (RFC 9110 5.6.1), or NULL at the list's end. */
static const char *list_next(const char *p)
{
	for (;;) {
		p = skip_ows(p);
		if (*p != ',')
			return *p ? p : NULL;
		p++;
	}
}

/* Read decimal digits at *s into *out, saturating at UINT64_MAX; returns
 * false when there is no digit. Advances *s past the digits. */
static bool read_u64(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
	}
	*s = p;
	*out = v;
	return true;
}

enum http_range http_parse_range(const char *value, uint64_t size, uint64_t *first,
				 uint64_t *len)
{
	const char *p = skip_ows(value);
	if (strncasecmp(p, "bytes", 5))
		return HTTP_RANGE_NONE;
	p = skip_ows(p + 5);
	if (*p != '=')
		return HTTP_RANGE_NONE;
	p++;

	/* The list may hold empty elements ("bytes=, 0-1,"); more than one
	 * real range is answered with the whole representation. */
	int ranges = 0;
	bool have_a = false, have_b = false, suffix = false;
	uint64_t a = 0, b = 0;
	while ((p = list_next(p))) {
		if (++ranges > 1)
			return HTTP_RANGE_NONE;
		if (*p == '-') {
			suffix = true;
			p++;
			if (!read_u64(&p, &b))
				return HTTP_RANGE_NONE;
			have_b = true;
		} else {
			if (!read_u64(&p, &a))
				return HTTP_RANGE_NONE;
			have_a = true;
			if (*p != '-')
				return HTTP_RANGE_NONE;
			p++;
			if (isdigit((unsigned char)*p)) {
				read_u64(&p, &b);
				have_b = true;
			}
		}
		p = skip_ows(p);
		if (*p && *p != ',')
			return HTTP_RANGE_NONE;
	}
	if (!ranges)
		return HTTP_RANGE_NONE;

	if (suffix) {
		/* "-N": the last N bytes; nothing to give for N = 0 or an empty file. */
		if (b == 0 || size == 0)
			return HTTP_RANGE_UNSATISFIABLE;
		*len = b < size ? b : size;
		*first = size - *len;
		return HTTP_RANGE_ONE;
	}
	if (have_a && have_b && b < a)
		return HTTP_RANGE_NONE; /* invalid: ignored, not unsatisfiable */
	if (a >= size)
		return HTTP_RANGE_UNSATISFIABLE;
	uint64_t last = have_b && b < size - 1 ? b : size - 1;
	*first = a;
	*len = last - a + 1;
	return HTTP_RANGE_ONE;
}

/* The opaque part of a quoted tag, without quotes: [*start, *start + *n). */
static bool opaque_of(const char *tag, const char **start, size_t *n)
{
	size_t len = strlen(tag);
	if (len < 2 || tag[0] != '"' || tag[len - 1] != '"')
		return false;
	*start = tag + 1;
	*n = len - 2;
	return true;
}

bool http_etag_matches(const char *list, const char *etag, bool weak)
{
	const char *want;
	size_t want_len;
	if (!list || !etag || !opaque_of(etag, &want, &want_len))
		return false;
	const char *p = skip_ows(list);
	if (*p == '*' && !*skip_ows(p + 1))
		return true;
	while ((p = list_next(p))) {
		bool is_weak = false;
		if (p[0] == 'W' && p[1] == '/') {
			is_weak = true;
			p += 2;
		}
		if (*p != '"')
			return false;
		const char *end = strchr(p + 1, '"');
		if (!end)
			return false;
		size_t n = (size_t)(end - (p + 1));
		if ((weak || !is_weak) && n == want_len && !memcmp(p + 1, want, n))
			return true;
		p = skip_ows(end + 1);
		if (*p && *p != ',')
			return false;
	}
	return false;
}

void http_format_date(time_t t, char out[HTTP_DATE_LEN])
{
	struct tm tm;
	gmtime_r(&t, &tm);
	snprintf(out, HTTP_DATE_LEN, "%s, %02d %s %04d %02d:%02d:%02d GMT", day_names[tm.tm_wday],
		 tm.tm_mday, month_names[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
		 tm.tm_sec);
}

static int month_index(const char *s)
{
	for (int i = 0; i < 12; i++)
		if (!strncmp(s, month_names[i], 3))
			return i;
	return -1;
}

int http_parse_date(const char *s, time_t *out)
{
	struct tm tm;
	char mon[4], wday[16], zone[4];
	int day, year, hour, min, sec, n = 0;

	memset(&tm, 0, sizeof tm);
	s = skip_ows(s);
	if (sscanf(s, "%3s, %2d %3s %4d %2d:%2d:%2d %3s%n", wday, &day, mon, &year, &hour, &min,
		   &sec, zone, &n) == 8 && n && !strcmp(zone, "GMT")) {
		/* IMF-fixdate */
	} else if (n = 0, sscanf(s, "%15[A-Za-z], %2d-%3s-%2d %2d:%2d:%2d %3s%n", wday, &day, mon,
				 &year, &hour, &min, &sec, zone, &n) == 8 &&
		   n && !strcmp(zone, "GMT")) {
		/* RFC 850: a two-digit year more than 50 years ahead is in the past. */
		year += year < 70 ? 2000 : 1900;
	} else if (n = 0, sscanf(s, "%3s %3s %2d %2d:%2d:%2d %4d%n", wday, mon, &day, &hour, &min,
				 &sec, &year, &n) == 7 && n) {
		/* asctime */
	} else {
		return -1;
	}
	if (*skip_ows(s + n))
		return -1;
	int m = month_index(mon);
	if (m < 0 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60 || year < 1970 ||
	    hour < 0 || min < 0 || sec < 0)
		return -1;
	tm.tm_year = year - 1900;
	tm.tm_mon = m;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	time_t t = timegm(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = t;
	return 0;
}

/* The q value of one Accept-Encoding element's parameters at p (after the
 * coding): 1 unless a "q=" parameter says otherwise; 0 only for q=0[.000]. */
static bool q_nonzero(const char *p, const char *end)
{
	while (p < end) {
		p = skip_ows(p);
		if (*p == ';') {
			p = skip_ows(p + 1);
			if ((*p == 'q' || *p == 'Q') && p + 1 < end) {
				const char *v = skip_ows(p + 1);
				if (*v == '=') {
					v = skip_ows(v + 1);
					/* q = 0, 0., 0.0, 0.00, 0.000 */
					if (*v == '0') {
						v++;
						if (*v == '.')
							for (v++; *v == '0'; v++)
								;
						return !(v >= end || *v == ' ' || *v == '\t' ||
							 *v == ';' || *v == ',') &&
						       isdigit((unsigned char)*v);
					}
					return true;
				}
			}
		}
		while (p < end && *p != ';')
			p++;
	}
	return true;
}

bool http_accepts_gzip(const char *ae)
{
	int gzip = -1, star = -1; /* -1 not listed, 0 refused, 1 accepted */
	if (!ae)
		return false;
	const char *p = ae;
	while (*p) {
		p = skip_ows(p);
		const char *end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		const char *name_end = p;
		while (name_end < end && *name_end != ';' && *name_end != ' ' && *name_end != '\t')
			name_end++;
		size_t n = (size_t)(name_end - p);
		int ok = q_nonzero(name_end, end) ? 1 : 0;
		if ((n == 4 && !strncasecmp(p, "gzip", 4)) || (n == 6 && !strncasecmp(p, "x-gzip", 6)))
			gzip = gzip == 1 ? 1 : ok;
		else if (n == 1 && *p == '*')
			star = ok;
		p = *end ? end + 1 : end;
	}
	if (gzip >= 0)
		return gzip == 1;
	return star == 1;
}
