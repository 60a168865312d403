/* main.c - runs the registered unit tests; see unit.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

struct unit_case {
	const char *name;
	unit_fn fn;
};

static struct unit_case *cases;
static size_t ncases, cap;
static int failures_in_case;

void unit_register(const char *name, unit_fn fn)
{
	if (ncases == cap) {
		cap = cap ? cap * 2 : 64;
		cases = realloc(cases, cap * sizeof *cases);
		if (!cases)
			abort();
	}
	cases[ncases].name = name;
	cases[ncases].fn = fn;
	ncases++;
}

void unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	failures_in_case++;
	printf("    not ok: %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void unit_check_str(const char *file, int line, const char *expected, const char *actual, const char *what)
{
	if ((expected == NULL) != (actual == NULL) || (expected && strcmp(expected, actual)))
		unit_fail(file, line, "expected \"%s\", saw \"%s\" (%s)", expected ? expected : "(null)",
			  actual ? actual : "(null)", what);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct unit_case *)a)->name, ((const struct unit_case *)b)->name);
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int passed = 0, failed = 0;

	qsort(cases, ncases, sizeof *cases, by_name);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < ncases; i++) {
		if (filter && !strstr(cases[i].name, filter))
			continue;
		failures_in_case = 0;
		cases[i].fn();
		if (failures_in_case) {
			printf("FAIL - unit: %s\n", cases[i].name);
			failed++;
		} else {
			printf("ok - unit: %s\n", cases[i].name);
			passed++;
		}
	}
	free(cases);
	printf("# counts: %d %d\n", passed, failed);
	return failed ? 1 : 0;
}
