/* unit.h - the C unit tests' tiny framework.
 *
 * Each tests/unit/test_*.c file defines cases with TEST(name) { ... }; they
 * register themselves at start-up, so adding a file needs no list to edit.
 * The runner (main.c) runs every case, or those whose name contains the
 * first argument, and prints "ok - name" or "FAIL - name" with each failed
 * check as "file:line: expected X, saw Y". What several tests need around
 * the code (scratch directories, fixtures) is in helpers.h, once.
 *
 *     TEST(url_removes_dot_segments) {
 *             char *s = url_normalize("http://a/b/../c");
 *             CHECK_STR("http://a/c", s);
 *             free(s);
 *     }
 */
#ifndef CGISNAP_UNIT_H
#define CGISNAP_UNIT_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*unit_fn)(void);
void unit_register(const char *name, unit_fn fn);
void unit_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define TEST(name)                                                        \
	static void test_##name(void);                                    \
	__attribute__((constructor)) static void register_##name(void)    \
	{                                                                 \
		unit_register(#name, test_##name);                        \
	}                                                                 \
	static void test_##name(void)

/* How many cases a table holds; every table test walks its cases as
 * for (size_t i = 0; i < COUNT(cases); i++). */
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond))                                              \
			unit_fail(__FILE__, __LINE__, "expected %s", #cond); \
	} while (0)

/* Strings; NULL is shown as (null) and equals only NULL. */
#define CHECK_STR(expected, actual) unit_check_str(__FILE__, __LINE__, (expected), (actual), #actual)

/* The same for a fresh string, freed after: the many "char *got = f();
 * CHECK_STR(want, got); free(got);" in one line. */
#define CHECK_STR_FREE(expected, fresh)                                          \
	do {                                                                     \
		char *f_ = (fresh);                                              \
		unit_check_str(__FILE__, __LINE__, (expected), f_, #fresh);      \
		free(f_);                                                        \
	} while (0)

void unit_check_str(const char *file, int line, const char *expected, const char *actual, const char *what);

#define CHECK_INT(expected, actual)                                          \
	do {                                                                 \
		long long e_ = (long long)(expected), a_ = (long long)(actual); \
		if (e_ != a_)                                                \
			unit_fail(__FILE__, __LINE__, "expected %lld, saw %lld (%s)", e_, a_, #actual); \
	} while (0)

/* Substrings, for generated text such as configuration files. */
#define CHECK_HAS(text, want)                                                \
	do {                                                                 \
		const char *t_ = (text), *w_ = (want);                      \
		if (!strstr(t_, w_))                                         \
			unit_fail(__FILE__, __LINE__, "expected the output to contain \"%s\"", w_); \
	} while (0)

#define CHECK_LACKS(text, unwanted)                                          \
	do {                                                                 \
		const char *t_ = (text), *u_ = (unwanted);                  \
		if (strstr(t_, u_))                                          \
			unit_fail(__FILE__, __LINE__, "expected the output not to contain \"%s\"", u_); \
	} while (0)

#include <stdlib.h>
#include <string.h>

#endif
