/* tests/fuzz/links_check.h - what the link extraction targets (fuzz_links_*.c)
 * check of every link reported (lib/crawl/links.h): an absolute, normalised
 * http(s) URL without fragment, flags only LINK_NOFOLLOW and LINK_RESOURCE
 * (and LINK_RESOURCE for everything in CSS), each (URL, flags) pair once.
 */
#ifndef CGISNAP_LINKS_CHECK_H
#define CGISNAP_LINKS_CHECK_H

#include <string.h>

#include "fuzz.h"

#include "base/hashmap.h"
#include "crawl/links.h"
#include "url/url.h"

/* The HTML and XML targets' LLVMFuzzerInitialize: libxml2 set up once,
 * before the first input. */
#define LINKS_FUZZ_INITIALIZE                                      \
	int LLVMFuzzerInitialize(int *argc, char ***argv);         \
	int LLVMFuzzerInitialize(int *argc, char ***argv)          \
	{                                                          \
		(void)argc, (void)argv;                            \
		links_init();                                      \
		return 0;                                          \
	}

struct links_seen {
	struct hashmap pairs; /* "F URL" for each link so far */
	bool resources_only;  /* a stylesheet: every link is a resource */
	size_t n;
};

static void links_check(void *arg, const char *url, unsigned flags)
{
	struct links_seen *seen = arg;
	FUZZ_CHECK(!strncmp(url, "http://", 7) || !strncmp(url, "https://", 8),
		   "link '%s' is not an absolute http(s) URL", url);
	FUZZ_CHECK(!strchr(url, '#'), "link '%s' keeps its fragment", url);
	char *n = url_normalize(url);
	FUZZ_CHECK(fuzz_streq(n, url), "link '%s' normalises to '%s'", url, fuzz_show(n));
	free(n);
	FUZZ_CHECK(!(flags & ~(unsigned)(LINK_NOFOLLOW | LINK_RESOURCE)), "link '%s' has flags %u",
		   url, flags);
	if (seen->resources_only)
		FUZZ_CHECK(flags & LINK_RESOURCE, "stylesheet link '%s' is not a resource", url);
	size_t len = strlen(url);
	char *pair = malloc(len + 3);
	if (!pair)
		abort();
	pair[0] = (char)('0' + flags);
	pair[1] = ' ';
	memcpy(pair + 2, url, len + 1);
	FUZZ_CHECK(!hashmap_get(&seen->pairs, pair), "link '%s' (flags %u) reported twice", url,
		   flags);
	hashmap_put(&seen->pairs, pair, seen);
	free(pair);
	seen->n++;
}

/* links_extract() on body as content_type from url; the checks above on
 * each link, and the return value and page_meta as links.h says. */
static void links_check_extract(const char *content_type, const char *url, const uint8_t *body,
				size_t len, bool html)
{
	struct links_seen seen = { HASHMAP_INIT, false, 0 };
	struct page_meta meta = { .noindex = true, .nofollow = true };
	seen.resources_only = !html && strstr(content_type, "css") != NULL;
	int rc = links_extract(content_type, url, (const char *)body, len, links_check, &seen, &meta);
	FUZZ_CHECK(rc == 0 || rc == -1, "links_extract returned %d", rc);
	if (seen.resources_only)
		FUZZ_CHECK(rc == 0, "a stylesheet failed to parse");
	if (!html)
		FUZZ_CHECK(!meta.noindex && !meta.nofollow && !meta.canonical[0], "robots meta or canonical set for %s",
			   content_type);
	if (meta.canonical[0])
		FUZZ_CHECK(!strncmp(meta.canonical, "http://", 7) || !strncmp(meta.canonical, "https://", 8),
			   "canonical '%s' is not an absolute http(s) URL", meta.canonical);
	if (rc < 0)
		FUZZ_CHECK(seen.n == 0, "%zu links reported from a document that did not parse",
			   seen.n);
	hashmap_release(&seen.pairs);
}

#endif
