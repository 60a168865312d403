/* test_serve_accesslog.c - combined log lines, their escaping, and the
 * buffered writer with reopen (serve/accesslog.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../serve/accesslog.h"
#include "base/log.h"
#include "unit.h"

TEST(serve_accesslog_format_combined)
{
	char line[ACCESSLOG_LINE_MAX];
	struct access_record r = {
		"127.0.0.1", "[10/Oct/2000:13:55:36 -0700]", "GET", "/apache_pb.gif", "HTTP/1.0",
		200, 2326, "http://www.example.com/start.html", "Mozilla/4.08 [en] (Win98; I ;Nav)",
	};
	size_t n = accesslog_format(line, &r);
	line[n] = '\0';
	CHECK_STR("127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /apache_pb.gif HTTP/1.0\" 200 2326 "
		  "\"http://www.example.com/start.html\" \"Mozilla/4.08 [en] (Win98; I ;Nav)\"\n",
		  line);

	/* No body, no referer, no agent: dashes. */
	struct access_record r2 = { "::1", "[t]", "HEAD", "/", "HTTP/1.1", 304, 0, NULL, NULL };
	n = accesslog_format(line, &r2);
	line[n] = '\0';
	CHECK_STR("::1 - - [t] \"HEAD / HTTP/1.1\" 304 - \"-\" \"-\"\n", line);
}

TEST(serve_accesslog_escapes_what_clients_send)
{
	char line[ACCESSLOG_LINE_MAX];
	struct access_record r = {
		"10.0.0.1", "[t]", "GET", "/a\"b\\c", "HTTP/1.1", 404, 10,
		"x\"\n127.0.0.1 - - forged", "agent\x01\xff",
	};
	size_t n = accesslog_format(line, &r);
	line[n] = '\0';
	CHECK_STR("10.0.0.1 - - [t] \"GET /a\\\"b\\\\c HTTP/1.1\" 404 10 "
		  "\"x\\\"\\x0a127.0.0.1 - - forged\" \"agent\\x01\\xff\"\n",
		  line);
	CHECK(strchr(line, '\n') == line + n - 1);

	/* Huge fields are cut, and the line still ends in a newline. */
	char *big = malloc(20000);
	memset(big, '"', 19999);
	big[19999] = '\0';
	struct access_record r3 = { "h", "[t]", "GET", big, "HTTP/1.1", 200, 1, big, big };
	n = accesslog_format(line, &r3);
	CHECK(n < ACCESSLOG_LINE_MAX);
	CHECK(line[n - 1] == '\n');
	CHECK(memchr(line, '\n', n - 1) == NULL);
	free(big);
}

TEST(serve_accesslog_time_format)
{
	char out[ACCESSLOG_TIME_LEN];
	const char *old = getenv("TZ");
	char *saved = old ? strdup(old) : NULL;
	setenv("TZ", "UTC", 1);
	tzset();
	accesslog_time(971186136, out);
	CHECK_STR("[10/Oct/2000:13:55:36 +0000]", out);
	setenv("TZ", "EST5", 1);
	tzset();
	accesslog_time(971186136, out);
	CHECK_STR("[10/Oct/2000:08:55:36 -0500]", out);
	if (saved)
		setenv("TZ", saved, 1);
	else
		unsetenv("TZ");
	free(saved);
	tzset();
}

static char *read_file(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

TEST(serve_accesslog_buffers_flushes_and_reopens)
{
	char dir[] = "/tmp/cgisnap-accesslog.XXXXXX", path[96], moved[96], err[ERR_LEN];
	if (!mkdtemp(dir)) {
		unit_fail(__FILE__, __LINE__, "mkdtemp");
		return;
	}
	snprintf(path, sizeof path, "%s/access.log", dir);
	snprintf(moved, sizeof moved, "%s/access.log.1", dir);
	struct accesslog *l = accesslog_open(path, err);
	CHECK(l != NULL);
	if (!l)
		return;
	accesslog_add(l, "one\n", 4);
	/* Buffered: nothing on disk before a flush. */
	CHECK_STR("", read_file(path));
	CHECK_INT(0, accesslog_flush(l, err));
	CHECK_STR("one\n", read_file(path));

	/* logrotate: move the file, reopen, write on. */
	CHECK_INT(0, rename(path, moved));
	accesslog_add(l, "two\n", 4);
	CHECK_INT(0, accesslog_reopen(l, err));
	accesslog_add(l, "three\n", 6);
	accesslog_close(l);
	CHECK_STR("one\ntwo\n", read_file(moved));
	CHECK_STR("three\n", read_file(path));

	/* A burst past the threshold is written without waiting for a flush. */
	l = accesslog_open(path, err);
	char chunk[1024];
	memset(chunk, 'x', sizeof chunk - 1);
	chunk[sizeof chunk - 1] = '\n';
	for (int i = 0; i < ACCESSLOG_FLUSH_AT / 1024 + 1; i++)
		accesslog_add(l, chunk, sizeof chunk);
	struct stat st;
	CHECK_INT(0, stat(path, &st));
	CHECK(st.st_size >= ACCESSLOG_FLUSH_AT);
	accesslog_close(l);

	CHECK(accesslog_open("/nonexistent-dir/x.log", err) == NULL);
	CHECK(strstr(err, "cannot open access log '/nonexistent-dir/x.log'") == err);
	unlink(path);
	unlink(moved);
	rmdir(dir);
}
