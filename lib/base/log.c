/* log.c - messages to the user, and the one-line progress bar. */
#include "base/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static bool verbose;
static bool bar_shown;     /* a bar is on the screen right now */
static double bar_last;    /* when it was last drawn */
static char bar_text[256];
static int tty = -1;       /* stderr is a terminal: -1 not yet known */

int err_set(char *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, ERR_LEN, fmt, ap);
	va_end(ap);
	return -1;
}

int err_sys(char *err, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(err, ERR_LEN, fmt, ap);
	va_end(ap);
	if (n >= 0 && n < ERR_LEN)
		snprintf(err + n, ERR_LEN - (size_t)n, ": %s", strerror(saved));
	errno = saved;
	return -1;
}

void err_escape(char *err)
{
	char out[ERR_LEN];
	size_t n = 0;
	for (const unsigned char *c = (const unsigned char *)err; *c && n + 5 < ERR_LEN; c++) {
		if (*c < 0x20 || *c == 0x7f)
			n += (size_t)snprintf(out + n, ERR_LEN - n, "\\x%02x", *c);
		else
			out[n++] = (char)*c;
	}
	out[n] = '\0';
	memcpy(err, out, n + 1);
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bar_erase_locked(void)
{
	if (bar_shown) {
		fputs("\r\033[K", stderr);
		bar_shown = false;
	}
}

static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&log_lock);
	bar_erase_locked();
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
	pthread_mutex_unlock(&log_lock);
}

int log_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("cgisnap: error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void log_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("cgisnap: warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("cgisnap: ", fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	if (!verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	vmessage("cgisnap: debug: ", fmt, ap);
	va_end(ap);
}

void log_raw(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void log_set_verbose(bool on)
{
	verbose = on;
}

bool log_verbose(void)
{
	return verbose;
}

bool progress_enabled(void)
{
	if (tty < 0) {
		const char *term = getenv("TERM");
		tty = isatty(2) && !(term && !strcmp(term, "dumb"));
	}
	return tty == 1;
}

int progress_columns(void)
{
	struct winsize ws;
	if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

void progress_update(bool force, const char *fmt, ...)
{
	if (!progress_enabled())
		return;
	pthread_mutex_lock(&log_lock);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(bar_text, sizeof bar_text, fmt, ap);
	va_end(ap);
	double t = now_seconds();
	if (force || !bar_shown || t - bar_last >= 0.1) {
		fprintf(stderr, "\r\033[K%s", bar_text);
		fflush(stderr);
		bar_shown = true;
		bar_last = t;
	}
	pthread_mutex_unlock(&log_lock);
}

void progress_end(void)
{
	pthread_mutex_lock(&log_lock);
	bar_erase_locked();
	fflush(stderr);
	pthread_mutex_unlock(&log_lock);
}
