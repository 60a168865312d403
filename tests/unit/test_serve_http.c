/* test_serve_http.c - Range, validators, dates and gzip negotiation
 * (serve/http.c), as tables. */
#include <stdint.h>

#include "../../serve/http.h"
#include "helpers.h"
#include "unit.h"

TEST(serve_http_range_table)
{
	static const struct {
		const char *value;
		uint64_t size;
		enum http_range want;
		uint64_t first, len;
	} cases[] = {
		{ "bytes=0-499", 1000, HTTP_RANGE_ONE, 0, 500 },
		{ "bytes=500-999", 1000, HTTP_RANGE_ONE, 500, 500 },
		{ "bytes=500-", 1000, HTTP_RANGE_ONE, 500, 500 },
		{ "bytes=-200", 1000, HTTP_RANGE_ONE, 800, 200 },
		{ "bytes=-5000", 1000, HTTP_RANGE_ONE, 0, 1000 },   /* suffix longer than the file */
		{ "bytes=0-0", 1000, HTTP_RANGE_ONE, 0, 1 },
		{ "bytes=999-999", 1000, HTTP_RANGE_ONE, 999, 1 },
		{ "bytes=900-5000", 1000, HTTP_RANGE_ONE, 900, 100 }, /* end clamped */
		{ "bytes=0-99999999999999999999999", 1000, HTTP_RANGE_ONE, 0, 1000 }, /* saturates */
		{ "BYTES = 1-2", 1000, HTTP_RANGE_ONE, 1, 2 },
		{ "bytes= 1-2 ,", 1000, HTTP_RANGE_ONE, 1, 2 },    /* empty list elements */
		{ "bytes=1000-", 1000, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=1000-2000", 1000, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=-0", 1000, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=0-", 0, HTTP_RANGE_UNSATISFIABLE, 0, 0 },  /* empty file */
		{ "bytes=-1", 0, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=99999999999999999999999-", 10, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=0-1,5-6", 1000, HTTP_RANGE_NONE, 0, 0 },  /* several: whole 200 */
		{ "bytes=5-1", 1000, HTTP_RANGE_NONE, 0, 0 },      /* invalid: ignored */
		{ "items=0-1", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "bytes=abc", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "bytes=", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "bytes=1", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "bytes=-", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "bytes=1-2x", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "bytes 0-1", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "", 1000, HTTP_RANGE_NONE, 0, 0 },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		uint64_t first = 12345, len = 12345;
		enum http_range r = http_parse_range(cases[i].value, cases[i].size, &first, &len);
		if (r != cases[i].want)
			unit_fail(__FILE__, __LINE__, "'%s' (size %llu): result %d, expected %d",
				  cases[i].value, (unsigned long long)cases[i].size, r, cases[i].want);
		else if (r == HTTP_RANGE_ONE && (first != cases[i].first || len != cases[i].len))
			unit_fail(__FILE__, __LINE__, "'%s': got %llu+%llu, expected %llu+%llu",
				  cases[i].value, (unsigned long long)first, (unsigned long long)len,
				  (unsigned long long)cases[i].first, (unsigned long long)cases[i].len);
	}
}

TEST(serve_http_etag_table)
{
	static const struct {
		const char *list, *etag;
		bool weak, want;
	} cases[] = {
		{ "\"abc\"", "\"abc\"", true, true },
		{ "\"abc\"", "\"abc\"", false, true },
		{ "W/\"abc\"", "\"abc\"", true, true },    /* weak comparison ignores W/ */
		{ "W/\"abc\"", "\"abc\"", false, false },  /* strong comparison does not */
		{ "\"x\", \"abc\"", "\"abc\"", true, true },
		{ "\"x\",\"y\"", "\"abc\"", true, false },
		{ " \"x\" ,W/\"abc\" ", "\"abc\"", true, true },
		{ "*", "\"abc\"", true, true },
		{ " * ", "\"abc\"", false, true },
		{ "\"ab\"", "\"abc\"", true, false },
		{ "\"abcd\"", "\"abc\"", true, false },
		{ "abc", "\"abc\"", true, false },          /* unquoted: malformed */
		{ "\"abc", "\"abc\"", true, false },
		{ "\"x\" junk, \"abc\"", "\"abc\"", true, false },
		{ "", "\"abc\"", true, false },
		{ "\"\"", "\"\"", true, true },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		bool got = http_etag_matches(cases[i].list, cases[i].etag, cases[i].weak);
		if (got != cases[i].want)
			unit_fail(__FILE__, __LINE__, "'%s' vs %s (%s): %d, expected %d", cases[i].list,
				  cases[i].etag, cases[i].weak ? "weak" : "strong", got, cases[i].want);
	}
	CHECK(!http_etag_matches(NULL, "\"a\"", true));
}

TEST(serve_http_dates)
{
	char out[HTTP_DATE_LEN];
	time_t t;
	http_format_date(784111777, out);
	CHECK_STR("Sun, 06 Nov 1994 08:49:37 GMT", out);
	http_format_date(0, out);
	CHECK_STR("Thu, 01 Jan 1970 00:00:00 GMT", out);

	/* The three formats RFC 9110 5.6.7 names, all the same instant. */
	CHECK_INT(0, http_parse_date("Sun, 06 Nov 1994 08:49:37 GMT", &t));
	CHECK_INT(784111777, t);
	t = 0;
	CHECK_INT(0, http_parse_date("Sunday, 06-Nov-94 08:49:37 GMT", &t));
	CHECK_INT(784111777, t);
	t = 0;
	CHECK_INT(0, http_parse_date("Sun Nov  6 08:49:37 1994", &t));
	CHECK_INT(784111777, t);
	CHECK_INT(0, http_parse_date("Thu, 01 Jan 2037 00:00:00 GMT", &t));
	CHECK_INT(2114380800LL, t);

	static const char *const bad[] = {
		"", "yesterday", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Foo 1994 08:49:37 GMT",
		"Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
		"Sun, 06 Nov 1994 08:49:37 GMT trailing", "Sun, 06 Nov 1960 08:49:37 GMT",
	};
	for (size_t i = 0; i < COUNT(bad); i++)
		if (http_parse_date(bad[i], &t) == 0)
			unit_fail(__FILE__, __LINE__, "'%s' parsed as a date", bad[i]);
}

TEST(serve_http_accept_gzip_table)
{
	static const struct bool_case cases[] = {
		{ "gzip", true },
		{ "gzip, deflate, br", true },
		{ "deflate, gzip;q=0.5", true },
		{ "GZIP", true },
		{ "x-gzip", true },
		{ "br;q=1.0, gzip;q=0.8, *;q=0.1", true },
		{ "gzip;q=0", false },
		{ "gzip; q=0.000", false },
		{ "gzip;q=0.001", true },
		{ "gzip;q=1", true },
		{ "identity", false },
		{ "deflate, br", false },
		{ "*", true },
		{ "*;q=0", false },
		{ "*, gzip;q=0", false },     /* refused by name beats the wildcard */
		{ "gzipx", false },
		{ "", false },
	};
	CHECK_TESTS(http_accepts_gzip, cases);
	CHECK(!http_accepts_gzip(NULL));
}
