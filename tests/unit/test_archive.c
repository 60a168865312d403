/* test_archive.c - which responses are archives made on the fly (archive.h). */
#include <stddef.h>

#include "crawl/archive.h"
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

TEST(archive_by_attachment_file_name)
{
	static const struct {
		const char *disposition;
		bool archive;
	} cases[] = {
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
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bool got = archive_response("application/octet-stream", cases[i].disposition);
		if (got != cases[i].archive)
			unit_fail(__FILE__, __LINE__, "'%s': expected %s", cases[i].disposition,
				  cases[i].archive ? "an archive" : "no archive");
	}
}
