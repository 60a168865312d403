/* archive.h - telling a response that is an archive made on the fly (a
 * repository browser's snapshot.tar.gz, a "download as zip") from a page,
 * by its headers, or by its first bytes where the headers say nothing
 * (PHP's default text/html, application/octet-stream). The crawl skips such responses unless
 * --keep-archives: an unscoped crawl of a repository browser otherwise
 * spends a good part of its requests on tarballs of every revision.
 */
#ifndef CGISNAP_ARCHIVE_H
#define CGISNAP_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>

/* True when content_type (its media type, any case, parameters ignored)
 * is an archive or compressed-file type - application/gzip, x-gzip, zip,
 * x-zip(-compressed), x-tar, x-gtar, x-bzip(2), x-xz, x-lzip, x-lzma,
 * zstd, x-zstd, x-compress, x-compressed, x-7z-compressed,
 * x-rar(-compressed), vnd.rar - or when content_disposition (either may be NULL) is an
 * attachment whose filename ends in such a file's extension (.tar,
 * .tar.gz, .tgz, .zip, .tar.bz2, .tbz2, .tar.xz, .txz, .tar.zst, .tar.lz,
 * .7z, .rar, .gz, .bz2, .xz, .zst), as cgit and gitweb send with
 * application/octet-stream. */
bool archive_response(const char *content_type, const char *content_disposition);

/* How many first bytes of a body archive_content() looks at (tar's magic
 * lies at 257). */
#define ARCHIVE_HEAD_MAX 512

/* True when head[0..n), a body's first bytes, starts an archive or a
 * compressed file (gzip, compress, bzip2, xz, lzip, zstd, zip, 7z, rar,
 * or a ustar header) and its content_type says nothing more precise: it is
 * missing, text (a script that sent PHP's default text/html), or a
 * download's application/octet-stream. A type of its own keeps a body
 * whatever its bytes: an OpenDocument or EPUB file is a zip, and a
 * document. content_encoding (NULL: none) other than identity means the
 * bytes are the transfer's, not the body's: never an archive. */
bool archive_content(const char *content_type, const char *content_encoding, const void *head, size_t n);

#endif
