/* test_archive.c - which responses are archives made on the fly (archive.h). */
#include <stddef.h>

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
