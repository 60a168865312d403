/* archive.h - telling a response that is an archive made on the fly (a
 * repository browser's snapshot.tar.gz, a "download as zip") from a page,
 * by its headers alone. The crawl skips such responses unless
 * --keep-archives: an unscoped crawl of a repository browser otherwise
 * spends a good part of its requests on tarballs of every revision.
 */
#ifndef CGISNAP_ARCHIVE_H
#define CGISNAP_ARCHIVE_H

#include <stdbool.h>

/* True when content_type (its media type, any case, parameters ignored)
 * is an archive or compressed-file type - application/gzip, x-gzip, zip,
 * x-zip(-compressed), x-tar, x-gtar, x-bzip(2), x-xz, x-lzip, x-lzma,
 * zstd, x-zstd, x-compress, x-7z-compressed, x-rar(-compressed),
 * vnd.rar - or when content_disposition (either may be NULL) is an
 * attachment whose filename ends in such a file's extension (.tar,
 * .tar.gz, .tgz, .zip, .tar.bz2, .tbz2, .tar.xz, .txz, .tar.zst, .tar.lz,
 * .7z, .rar, .gz, .bz2, .xz, .zst), as cgit and gitweb send with
 * application/octet-stream. */
bool archive_response(const char *content_type, const char *content_disposition);

#endif
