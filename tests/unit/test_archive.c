/* test_archive.c - which responses are archives made on the fly (archive.h). */
#include <stddef.h>
#include <string.h>

#include "crawl/archive.h"
#include "helpers.h"
#include "unit.h"

TEST(archive_by_content_type)
{
	static const char *const yes[] = { "application/x-gzip", "application/gzip", "Application/ZIP",
					   "application/x-tar; charset=binary", " application/x-bzip2 ",
					   "application/x-xz", "application/x-7z-compressed",
					   "application/x-rar-compressed", "application/zstd", NULL };
	static const char *const no[] = { "text/html", "application/octet-stream", "application/xml",
					  "application/x-gzipped", "application/zipper", "image/png",
					  "application/gzip-like", "", NULL };
	for (const char *const *t = yes; *t; t++)
		CHECK(archive_response(*t, NULL));
	for (const char *const *t = no; *t; t++)
		CHECK(!archive_response(*t, NULL));
	CHECK(!archive_response(NULL, NULL));
}

/* Whether a download with this Content-Disposition is kept as an archive. */
static bool attachment_is_archive(const char *disposition)
{
	return archive_response("application/octet-stream", disposition);
}

TEST(archive_by_attachment_file_name)
{
	static const struct bool_case cases[] = {
		{ "attachment; filename=\"proj-1.0.tar.gz\"", true },
		{ "attachment; filename=proj-master.zip", true },
		{ "ATTACHMENT;filename = \"x.TGZ\"", true },
		{ "attachment; filename*=UTF-8''caf%C3%A9.tar.xz", true },
		{ "attachment; size=3; filename=\"a.7z\"", true },
		{ "attachment; filename=\"report.pdf\"", false },
		{ "attachment; filename=\"tar\"", false },
		{ "attachment", false },
		{ "inline; filename=\"x.tar.gz\"", false },
		{ "attachments; filename=\"x.tar.gz\"", false },
		{ "attachment; filename=\".gz\"", false }, /* no name before the extension */
	};
	CHECK_TESTS(attachment_is_archive, cases);
}

/* A body whose first bytes are these, sent as type. */
static bool content_is_archive(const char *type, const char *bytes, size_t n)
{
	return archive_content(type, NULL, bytes, n);
}

TEST(archive_by_first_bytes)
{
	static const struct {
		const char *bytes;
		size_t n;
	} yes[] = {
		{ "\x1f\x8b\x08\x00", 4 },               /* gzip */
		{ "\x1f\x9d\x90", 3 },                   /* compress */
		{ "BZh91AY&SY\x01", 11 },                /* bzip2 */
		{ "\xfd" "7zXZ\0\0", 7 },                /* xz */
		{ "\x28\xb5\x2f\xfd\x00", 5 },           /* zstd */
		{ "PK\x03\x04\x14\0", 6 },               /* zip */
		{ "7z\xbc\xaf\x27\x1c\0", 7 },           /* 7z */
		{ "Rar!\x1a\x07\x01\0", 8 },             /* rar 5 */
		{ "LZIP\x01", 5 },                       /* lzip */
	};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		CHECK(content_is_archive("text/html; charset=UTF-8", yes[i].bytes, yes[i].n));
		CHECK(content_is_archive(NULL, yes[i].bytes, yes[i].n));
		CHECK(content_is_archive("application/octet-stream", yes[i].bytes, yes[i].n));
		/* Too short to tell. */
		CHECK(!content_is_archive(NULL, yes[i].bytes, 1));
	}
	/* A tar header: its magic at 257, after the name and the numbers. */
	char tar[512] = "docs/a.md";
	memcpy(tar + 257, "ustar\0" "00", 8);
	CHECK(content_is_archive("text/plain", tar, sizeof tar));
	memcpy(tar + 257, "ustar  \0", 8);
	CHECK(content_is_archive(NULL, tar, sizeof tar));
	CHECK(!content_is_archive(NULL, tar, 260));
	/* Text that starts like one, or holds the word where tar has it. */
	static const char *const no[] = { "<!DOCTYPE html>", "BZh9 is a block size", "PK is a name", "LZI", "", NULL };
	for (const char *const *t = no; *t; t++)
		CHECK(!content_is_archive("text/html", *t, strlen(*t)));
	memset(tar, 'x', sizeof tar);
	memcpy(tar + 257, "ustar of the text", 17);
	CHECK(!content_is_archive("text/html", tar, sizeof tar));
}

TEST(archive_by_first_bytes_not_when_the_type_or_encoding_says_otherwise)
{
	static const char zip[] = "PK\x03\x04\x14\0";
	CHECK(!archive_content("application/vnd.oasis.opendocument.text", NULL, zip, 6));
	CHECK(!archive_content("application/epub+zip", NULL, zip, 6));
	CHECK(!archive_content("image/png", NULL, "\x1f\x8b\x08", 3));
	/* Bytes compressed for the transfer are a page's. */
	CHECK(!archive_content("text/html", "gzip", "\x1f\x8b\x08", 3));
	CHECK(!archive_content("text/html", " x-gzip", "\x1f\x8b\x08", 3));
	CHECK(archive_content("text/html", "identity", "\x1f\x8b\x08", 3));
	CHECK(archive_content("application/x-compressed", NULL, "no bytes needed", 15) == false);
	CHECK(archive_response("application/x-compressed", NULL));
}
