/* tests/fuzz/fuzz.h - what every libFuzzer target in tests/fuzz/ shares:
 * FUZZ_CHECK, which stops the run when an invariant is broken, and the
 * self-test mode that proves the checks are really made.
 *
 * A target is one fuzz_NAME.c defining LLVMFuzzerTestOneInput(); `make
 * fuzz` builds it with clang -fsanitize=fuzzer,address,undefined into
 * build/fuzz/fuzz_NAME and runs it on a copy of tests/fuzz/corpus/NAME/.
 * Run one input by hand: build/fuzz/fuzz_NAME FILE.
 *
 * With CGISNAP_FUZZ_SELFTEST=1 in the environment every check is inverted,
 * so the first invariant that holds is reported as broken: tests/t0900
 * uses it to see that a target's checks run on its seeds and that a broken
 * one makes libFuzzer fail and save the input.
 */
#ifndef CGISNAP_FUZZ_H
#define CGISNAP_FUZZ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline bool fuzz_selftest(void)
{
	static int on = -1;
	if (on < 0) {
		const char *e = getenv("CGISNAP_FUZZ_SELFTEST");
		on = e && !strcmp(e, "1");
	}
	return on;
}

/* Report a broken invariant on one line and abort(): libFuzzer counts it
 * as a crash, prints the stack and saves the input. */
static inline void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));
static inline void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "invariant broken at %s:%d: %s%s: ", file, line, cond,
		fuzz_selftest() ? " (self-test)" : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* FUZZ_CHECK(cond, "what, with %s", ...): cond must hold. */
#define FUZZ_CHECK(cond, ...) \
	do { \
		if ((bool)(cond) == fuzz_selftest()) \
			fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

/* The input as a C string (fresh; an inner NUL ends it early). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static inline bool fuzz_streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* For messages: s, or "(null)". */
static inline const char *fuzz_show(const char *s)
{
	return s ? s : "(null)";
}

#endif
