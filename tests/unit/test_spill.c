/* test_spill.c - bodies in memory up to a threshold, in a file past it. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/sha256.h"
#include "base/spill.h"
#include "unit.h"

TEST(spill_stays_in_memory_up_to_the_threshold)
{
	struct spill s;
	char err[ERR_LEN];
	spill_init(&s, 10, -1);
	CHECK_INT(0, spill_add(&s, "01234", 5, err));
	CHECK_INT(0, spill_add(&s, "56789", 5, err));
	CHECK_INT(-1, s.fd);
	CHECK_INT(10, s.len);
	CHECK_STR("0123456789", buf_str(&s.mem));
	spill_release(&s);
	CHECK_INT(-1, s.fd);
}

TEST(spill_moves_every_byte_to_a_file_past_the_threshold)
{
	struct spill s;
	char err[ERR_LEN];
	struct buf all = BUF_INIT, back = BUF_INIT;
	spill_init(&s, 1000, -1);
	for (int i = 0; i < 500; i++) {
		char line[32];
		int n = snprintf(line, sizeof line, "line %d\n", i);
		buf_add(&all, line, (size_t)n);
		CHECK_INT(0, spill_add(&s, line, (size_t)n, err));
	}
	CHECK(s.fd >= 0);
	CHECK_INT(0, s.mem.len); /* memory given back */
	CHECK_INT(all.len, s.len);
	CHECK_INT(0, spill_read(s.fd, 0, s.len, &back, "spill", err));
	CHECK_INT(all.len, back.len);
	CHECK(!memcmp(all.data, back.data, all.len));

	/* The hash of a range is the hash of those bytes. */
	char want[65], got[65];
	sha256_hex(all.data + 7, all.len - 7, want);
	CHECK_INT(0, spill_sha256_hex(s.fd, 7, s.len - 7, got, "spill", err));
	CHECK_STR(want, got);

	/* Past the end is an error, not a short read taken for the body. */
	buf_reset(&back);
	CHECK_INT(-1, spill_read(s.fd, 0, s.len + 1, &back, "spill", err));
	CHECK_STR("cannot read 'spill': it became shorter", err);

	/* Reset: empty again, and in memory until the threshold. */
	spill_reset(&s);
	CHECK_INT(0, s.len);
	CHECK_INT(0, spill_add(&s, "abc", 3, err));
	CHECK_STR("abc", buf_str(&s.mem));
	spill_release(&s);
	buf_release(&all);
	buf_release(&back);
}

TEST(spill_hands_its_file_over)
{
	struct spill s;
	char err[ERR_LEN];
	spill_init(&s, 2, -1);
	CHECK_INT(0, spill_add(&s, "abcdef", 6, err));
	int fd = spill_take_fd(&s);
	CHECK(fd >= 0);
	CHECK_INT(-1, s.fd);
	CHECK_INT(0, s.len);
	char b[7] = { 0 };
	CHECK_INT(6, pread(fd, b, 6, 0));
	CHECK_STR("abcdef", b);
	close(fd);
	spill_release(&s); /* nothing left to close */
}

/* Set TMPDIR to dir; returns a copy of what it was (NULL: unset). */
static char *set_tmpdir(const char *dir)
{
	char *saved = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	setenv("TMPDIR", dir, 1);
	return saved;
}

/* Put back the TMPDIR saved (NULL: there was none) and free the copy. */
static void restore_tmpdir(char *saved)
{
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}

TEST(spill_reports_a_temporary_directory_it_cannot_use)
{
	struct spill s;
	char err[ERR_LEN];
	char *saved = set_tmpdir("/nonexistent-cgisnap-dir");
	spill_init(&s, 1, -1);
	CHECK_INT(-1, spill_add(&s, "ab", 2, err));
	CHECK_STR("cannot create a temporary file in '/nonexistent-cgisnap-dir': No such file or directory",
		  err);
	spill_release(&s);
	restore_tmpdir(saved);
}

TEST(spill_file_goes_to_the_directory_given_and_leaves_no_name)
{
	struct spill s;
	char err[ERR_LEN];
	char dir[] = "/tmp/cgisnap-spilldir-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *saved = set_tmpdir("/nonexistent-cgisnap-dir"); /* not used */
	spill_init(&s, 4, dirfd);
	CHECK_INT(0, spill_add(&s, "0123456789", 10, err));
	CHECK(s.fd >= 0);
	struct stat st;
	CHECK_INT(0, fstat(s.fd, &st));
	struct stat dst;
	CHECK_INT(0, fstat(dirfd, &dst));
	CHECK(st.st_dev == dst.st_dev); /* on the directory's file system */
	DIR *d = opendir(dir);
	struct dirent *de;
	int names = 0;
	while (d && (de = readdir(d)))
		names += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	CHECK_INT(0, names);
	spill_release(&s);
	restore_tmpdir(saved);
	close(dirfd);
	rmdir(dir);
}
