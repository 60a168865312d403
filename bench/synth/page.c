/* page.c - the synthetic site of bench/bench-synth.sh: one small CGI
 * program serving PAGES pages linked as a tree, and the generator of
 * their data.
 *
 *   page.cgi --generate DIR PAGES   writes DIR/data/template.html (the
 *       shared template, which names PAGES) and DIR/data/pages/K/N.txt for
 *       N < PAGES (K = N / 1000: no directory holds more than 1000 files)
 *   page.cgi (as a CGI, QUERY_STRING "id=N")   reads the template and page
 *       N's own data file, and answers page N: its text, a link to its
 *       parent and to its FANOUT children (N * FANOUT + 1 ...)
 *
 * The data directory is found beside the program (SCRIPT_FILENAME). A
 * page render is one exec and two small reads: about 1 ms. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FANOUT 10
#define PER_DIR 1000

/* Read a whole small file into buf (NUL-terminated); its length or -1. */
static long slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (long)n;
}

static int generate(const char *dir, long pages)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/data", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/data/pages", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/data/template.html", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return perror(path), 1;
	fprintf(f, "%ld\n<!DOCTYPE html><html><head><title>Synthetic page</title></head><body>\n", pages);
	fclose(f);
	for (long n = 0; n < pages; n++) {
		if (n % PER_DIR == 0) {
			snprintf(path, sizeof path, "%s/data/pages/%ld", dir, n / PER_DIR);
			if (mkdir(path, 0755) < 0 && errno != EEXIST)
				return perror(path), 1;
		}
		snprintf(path, sizeof path, "%s/data/pages/%ld/%ld.txt", dir, n / PER_DIR, n);
		f = fopen(path, "w");
		if (!f)
			return perror(path), 1;
		fprintf(f, "Page %ld of the synthetic site.\n", n);
		fclose(f);
	}
	return 0;
}

static int not_found(void)
{
	fputs("Status: 404 Not Found\r\nContent-Type: text/plain\r\n\r\nno such page\n", stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static char tmpl[65536], text[65536];
	if (argc == 4 && !strcmp(argv[1], "--generate"))
		return generate(argv[2], strtol(argv[3], NULL, 10));
	const char *script = getenv("SCRIPT_FILENAME"), *query = getenv("QUERY_STRING");
	if (!script || !query)
		return fputs("usage: page.cgi --generate DIR PAGES, or run as a CGI\n", stderr), 2;
	char dir[4096], path[4200];
	snprintf(dir, sizeof dir, "%s", script);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	char *end;
	if (strncmp(query, "id=", 3))
		return not_found();
	long id = strtol(query + 3, &end, 10);
	if (*end || end == query + 3 || id < 0)
		return not_found();
	snprintf(path, sizeof path, "%s/data/template.html", dir);
	if (slurp(path, tmpl, sizeof tmpl) < 0)
		return not_found();
	long pages = strtol(tmpl, &end, 10);
	const char *html = strchr(tmpl, '\n') ? strchr(tmpl, '\n') + 1 : tmpl;
	snprintf(path, sizeof path, "%s/data/pages/%ld/%ld.txt", dir, id / PER_DIR, id);
	if (id >= pages || slurp(path, text, sizeof text) < 0)
		return not_found();
	printf("Content-Type: text/html; charset=utf-8\r\n\r\n%s<h1>Page %ld</h1>\n<pre>%s</pre>\n<ul>\n", html, id,
	       text);
	if (id > 0)
		printf("<li><a href=\"/page.cgi?id=%ld\">parent</a></li>\n", (id - 1) / FANOUT);
	for (long c = id * FANOUT + 1; c <= id * FANOUT + FANOUT && c < pages; c++)
		printf("<li><a href=\"/page.cgi?id=%ld\">page %ld</a></li>\n", c, c);
	fputs("</ul></body></html>\n", stdout);
	return 0;
}
