/* test_url.c - URL resolution, normalisation and a site's canonical
 * targets, as table tests. */
#include <stdlib.h>

#include "base/log.h"
#include "helpers.h"
#include "unit.h"
#include "url/url.h"


/* In the tables below, a want of NULL means the input is rejected. */

/* RFC 3986 5.4: every example, against its base "http://a/b/c/d;p?q".
 * Results are normalised (fragment dropped, empty path "/"), and only
 * http(s) results exist. */
static const struct str_case rfc_examples[] = {
	/* 5.4.1 normal examples */
	{ "g:h", NULL },                 /* "g:h": not http */
	{ "g", "http://a/b/c/g" },
	{ "./g", "http://a/b/c/g" },
	{ "g/", "http://a/b/c/g/" },
	{ "/g", "http://a/g" },
	{ "//g", "http://g/" },          /* "http://g" */
	{ "?y", "http://a/b/c/d;p?y" },
	{ "g?y", "http://a/b/c/g?y" },
	{ "#s", "http://a/b/c/d;p?q" },  /* "...?q#s" */
	{ "g#s", "http://a/b/c/g" },
	{ "g?y#s", "http://a/b/c/g?y" },
	{ ";x", "http://a/b/c/;x" },
	{ "g;x", "http://a/b/c/g;x" },
	{ "g;x?y#s", "http://a/b/c/g;x?y" },
	{ "", "http://a/b/c/d;p?q" },
	{ ".", "http://a/b/c/" },
	{ "./", "http://a/b/c/" },
	{ "..", "http://a/b/" },
	{ "../", "http://a/b/" },
	{ "../g", "http://a/b/g" },
	{ "../..", "http://a/" },
	{ "../../", "http://a/" },
	{ "../../g", "http://a/g" },
	/* 5.4.2 abnormal examples */
	{ "../../../g", "http://a/g" },
	{ "../../../../g", "http://a/g" },
	{ "/./g", "http://a/g" },
	{ "/../g", "http://a/g" },
	{ "g.", "http://a/b/c/g." },
	{ ".g", "http://a/b/c/.g" },
	{ "g..", "http://a/b/c/g.." },
	{ "..g", "http://a/b/c/..g" },
	{ "./../g", "http://a/b/g" },
	{ "./g/.", "http://a/b/c/g/" },
	{ "g/./h", "http://a/b/c/g/h" },
	{ "g/../h", "http://a/b/c/h" },
	{ "g;x=1/./y", "http://a/b/c/g;x=1/y" },
	{ "g;x=1/../y", "http://a/b/c/y" },
	{ "g?y/./x", "http://a/b/c/g?y/./x" },
	{ "g?y/../x", "http://a/b/c/g?y/../x" },
	{ "g#s/./x", "http://a/b/c/g" },
	{ "g#s/../x", "http://a/b/c/g" },
	/* The backward-compatible reading 5.2.2 allows (and browsers use),
	 * not the strict "http:g". */
	{ "http:g", "http://a/b/c/g" },
};

TEST(url_resolve_rfc3986_examples)
{
	for (size_t i = 0; i < COUNT(rfc_examples); i++) {
		char *got = url_resolve("http://a/b/c/d;p?q", rfc_examples[i].in);
		CHECK_STR(rfc_examples[i].want, got);
		free(got);
	}
}

static const struct {
	const char *base, *ref, *want;
} resolve_cases[] = {
	{ "http://a/b/c/d;p?q", "https://B/x", "https://b/x" },
	{ "http://a/b/c/d;p?q", "//b:8080/../x", "http://b:8080/x" },
	{ "https://a/b", "//b/x", "https://b/x" },
	{ "http://a/b", "http:/x", "http://a/x" },      /* same scheme: relative */
	{ "https://a/b", "http:/x", NULL },             /* other scheme: no host */
	{ "https://a/b", "http:x", NULL },              /* other scheme: strict, no host */
	{ "http://a", "x", "http://a/x" },              /* base without path: 5.2.3 */
	{ "http://a", "?q", "http://a/?q" },
	{ "http://a/b/", "  c d\n ", "http://a/b/c%20d" }, /* href whitespace */
	{ "http://a/b/", "c\n/d\t", "http://a/b/c/d" },
	{ "http://a/b/", "%2e%2E/x", "http://a/x" },
	{ "http://a/b/c", "mailto:x@y", NULL },
	{ "http://a/b/c", "javascript:void(0)", NULL },
	{ "http://a/b/c", "data:text/plain,x", NULL },
	{ "http://a/b/c", "ftp://x/", NULL },
	{ "http://a/b/c", "1x:y", "http://a/b/1x:y" },  /* not a scheme: a path */
	{ "mailto:x@y", "g", NULL },
	{ "/relative/base", "g", NULL },
	{ "http://a/b/c?x#f", "#top", "http://a/b/c?x" },
	{ "http://a/b/c", "?", "http://a/b/c" },        /* empty query dropped */
};

TEST(url_resolve_more)
{
	for (size_t i = 0; i < COUNT(resolve_cases); i++) {
		CHECK_STR_FREE(resolve_cases[i].want, url_resolve(resolve_cases[i].base, resolve_cases[i].ref));
	}
}

static const struct str_case normalize_cases[] = {
	/* case */
	{ "HTTP://Example.COM/", "http://example.com/" },
	{ "http://example.com/A/B?C=D", "http://example.com/A/B?C=D" },
	{ "http://[::1]/", "http://[::1]/" },
	{ "http://[::A:1]:8080/x", "http://[::a:1]:8080/x" },
	{ "http://[::ffff:127.0.0.1]/", "http://[::ffff:127.0.0.1]/" },
	/* ports */
	{ "http://a:80/", "http://a/" },
	{ "https://a:443/", "https://a/" },
	{ "http://a:443/", "http://a:443/" },
	{ "https://a:80/", "https://a:80/" },
	{ "http://a:/", "http://a/" },
	{ "http://a:0080/x", "http://a/x" },
	{ "http://a:65535/", "http://a:65535/" },
	{ "http://127.0.0.1:8080", "http://127.0.0.1:8080/" },
	/* empty path, userinfo, fragment, empty query */
	{ "http://a", "http://a/" },
	{ "http://user:pw@a/x", "http://a/x" },
	{ "http://evil@a@b/", "http://b/" },
	{ "http://a/x#frag", "http://a/x" },
	{ "http://a/x?#frag", "http://a/x" },
	{ "http://a/x?", "http://a/x" },
	{ "http://a/x?y#z?w", "http://a/x?y" },
	/* percent-encoding */
	{ "http://a/%7euser", "http://a/~user" },
	{ "http://a/%41%62%2d%5F%2E", "http://a/Ab-_." },
	{ "http://a/%2fx%2Fy", "http://a/%2Fx%2Fy" },
	{ "http://a/%c3%a9", "http://a/%C3%A9" },
	{ "http://a/\xc3\xa9t\xc3\xa9", "http://a/%C3%A9t%C3%A9" },
	{ "http://a/a b", "http://a/a%20b" },
	{ "http://a/?q=a b", "http://a/?q=a%20b" },
	{ "http://a/?q=a+b", "http://a/?q=a+b" },
	{ "http://a/100%", "http://a/100%25" },
	{ "http://a/%zz%4", "http://a/%25zz%254" },
	{ "http://a/%25", "http://a/%25" },
	{ "http://a/\"<>\\^`{|}", "http://a/%22%3C%3E%5C%5E%60%7B%7C%7D" },
	{ "http://a/x?a[]=1&b[2]=3", "http://a/x?a[]=1&b[2]=3" },
	{ "http://a/x?%61=%3d&%3D", "http://a/x?a=%3D&%3D" },
	{ "http://a/x?p=/a/b?c", "http://a/x?p=/a/b?c" },
	{ "http://a/x\x7f\x01y", "http://a/x%7F%01y" },
	{ "http://a/;@:!$&'()*+,=", "http://a/;@:!$&'()*+,=" },
	{ "http://%41%62.com/", "http://ab.com/" },
	/* dot segments */
	{ "http://a/b/./c/../d", "http://a/b/d" },
	{ "http://a/../../x", "http://a/x" },
	{ "http://a/b/%2e%2E/c", "http://a/c" },
	{ "http://a/b/%2E/c", "http://a/b/c" },
	{ "http://a/b/..", "http://a/" },
	{ "http://a/b/.", "http://a/b/" },
	{ "http://a/b/.../c", "http://a/b/.../c" },
	{ "http://a/b/..x/c", "http://a/b/..x/c" },
	{ "http://a//x//", "http://a//x//" },
	{ "http://a/x?../y", "http://a/x?../y" },
	{ "http://a/%2e%2e%2fx", "http://a/..%2Fx" },
	/* leading and trailing whitespace of an href */
	{ " http://a/x \n", "http://a/x" },
	/* rejects */
	{ "mailto:someone@example.com", NULL },
	{ "javascript:alert(1)", NULL },
	{ "data:text/html,<p>", NULL },
	{ "ftp://x/", NULL },
	{ "http://", NULL },
	{ "https://", NULL },
	{ "http:///x", NULL },
	{ "http:/x", NULL },
	{ "http:x", NULL },
	{ "http://a:99999/", NULL },
	{ "http://a:65536/", NULL },
	{ "http://a:0/", NULL },
	{ "http://a:8o/", NULL },
	{ "http://a:-1/", NULL },
	{ "http://a b/", NULL },
	{ "http://a%20b/", NULL },
	{ "http://a_b%/", NULL },
	{ "http://\xc3\xa9.com/", NULL },
	{ "http://[::1/", NULL },
	{ "http://[::1]x/", NULL },
	{ "http://[]/", NULL },
	{ "http://[fe80::1%25eth0]/", NULL },
	{ "http://[v1.x]/", NULL },
	{ "http://@/", NULL },
	{ "//a/x", NULL },
	{ "/x", NULL },
	{ "", NULL },
	{ "x", NULL },
};

TEST(url_normalize_table)
{
	for (size_t i = 0; i < COUNT(normalize_cases); i++) {
		char *got = url_normalize(normalize_cases[i].in);
		CHECK_STR(normalize_cases[i].want, got);
		if (got) {
			/* Normalising a normalised URL changes nothing. */
			CHECK_STR_FREE(got, url_normalize(got));
		}
		free(got);
	}
}

/* Why a URL is refused: the message users see for --site-url, --alias,
 * --seed and --origin. */
static const struct str_case why_cases[] = {
	{ "mailto:someone@example.com", "not an http or https URL" },
	{ "javascript:", "not an http or https URL" },
	{ "ftp://x/", "not an http or https URL" },
	{ "http:x", "not an http or https URL" },
	{ "/x", "not an http or https URL" },
	{ "", "not an http or https URL" },
	{ "http://", "no host" },
	{ "http:///x", "no host" },
	{ "http://:8080/", "no host" },
	{ "http://@/", "no host" },
	{ "http://a b/", "bad host" },
	{ "http://\xc3\xa9.com/", "bad host" },
	{ "http://[::1/", "bad host" },
	{ "http://[::1]x/", "bad host" },
	{ "http://a:8o/", "bad port" },
	{ "http://a:-1/", "bad port" },
	{ "http://a:99999/", "port out of range" },
	{ "http://a:65536/", "port out of range" },
	{ "http://a:0/", "port out of range" },
	{ "http://a:000/", "port out of range" },
	{ "http://a:99999999999999999999999/", "port out of range" },
	{ "http://a:65535/", NULL },
	{ "http://a:00080/", NULL },
};

TEST(url_why_not_table)
{
	for (size_t i = 0; i < COUNT(why_cases); i++) {
		const char *why = NULL;
		char *got = url_normalize_why(why_cases[i].in, &why);
		CHECK_STR(why_cases[i].want, got ? NULL : why);
		free(got);
	}
	const char *why = NULL;
	char *got = url_resolve_why("http://a/b/", "javascript:void(0)", &why);
	CHECK_STR(NULL, got);
	CHECK_STR("not an http or https URL", why);
	got = url_resolve_why("http://a/b/", "//b:70000/x", &why);
	CHECK_STR(NULL, got);
	CHECK_STR("port out of range", why);
	CHECK_STR_FREE("http://a/b/c?d", url_resolve_why("http://a/b/", "c?d", &why));
}

TEST(url_origin_and_target)
{
	static const struct {
		const char *url, *origin, *target;
	} cases[] = {
		{ "http://a/", "http://a", "/" },
		{ "https://a:8443/x/y?z=1", "https://a:8443", "/x/y?z=1" },
		{ "http://[::1]:8080/?q", "http://[::1]:8080", "/?q" },
		{ "http://a", "http://a", "/" },
		{ "http://a?x", "http://a", "/?x" },
		{ "not a url", NULL, NULL },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		char *o = url_origin(cases[i].url), *t = url_target(cases[i].url);
		CHECK_STR(cases[i].origin, o);
		CHECK_STR(cases[i].target, t);
		free(o);
		free(t);
	}
}

TEST(url_decode_escapes)
{
	static const struct str_case cases[] = {
		{ "a%20b", "a b" },
		{ "%41%2f%2F", "A//" },
		{ "100%", "100%" },
		{ "%zz%4", "%zz%4" },
		{ "a+b", "a+b" },
		{ "%C3%A9", "\xc3\xa9" },
		{ "", "" },
	};
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < COUNT(cases); i++) {
		url_decode(&b, cases[i].in, strlen(cases[i].in));
		CHECK_STR(cases[i].want, buf_str(&b));
	}
	url_decode(&b, "%00x", 4);
	CHECK_INT(2, b.len);
	CHECK_INT(0, b.data[0]);
	buf_release(&b);
}

/* A site at http://example.com with aliases, and a copy with a policy. */
static void make_site(struct site *s, bool policy)
{
	char err[ERR_LEN];
	CHECK_INT(0, site_init(s, "HTTP://Example.com:80/blog/", err));
	CHECK_INT(0, site_add_alias(s, "https://www.example.com/", err));
	CHECK_INT(0, site_add_alias(s, "http://localhost:8080", err));
	CHECK_INT(0, site_add_alias(s, "http://EXAMPLE.com/other", err)); /* the site's own: ignored */
	CHECK_INT(0, site_add_alias(s, "https://www.example.com:443/x", err)); /* twice */
	if (policy) {
		strlist_add(&s->ignore_params, "utm_*");
		strlist_add(&s->ignore_params, "fbclid");
		s->sort_query = true;
	}
}

TEST(site_init_and_aliases)
{
	struct site s;
	char err[ERR_LEN];
	make_site(&s, false);
	CHECK_STR("http://example.com/blog/", s.url);
	CHECK_STR("http://example.com", s.origin);
	CHECK_INT(2, s.aliases.n);
	CHECK_STR("https://www.example.com", s.aliases.items[0]);
	CHECK_STR("http://localhost:8080", s.aliases.items[1]);
	CHECK_STR_FREE("http://example.com/a?b=1", site_url_for(&s, "/a?b=1"));
	CHECK_INT(-1, site_add_alias(&s, "ftp://x/", err));
	CHECK_STR("invalid alias URL 'ftp://x/': not an http or https URL", err);
	site_release(&s);
	site_release(&s);

	CHECK_INT(-1, site_init(&s, "mailto:x@y", err));
	CHECK_STR("invalid site URL 'mailto:x@y': not an http or https URL", err);
	site_release(&s);
	CHECK_INT(-1, site_init(&s, "http://a:99999/", err));
	CHECK_STR("invalid site URL 'http://a:99999/': port out of range", err);
	site_release(&s);
	CHECK_INT(0, site_init(&s, "http://a/", err));
	CHECK_INT(-1, site_add_alias(&s, "http://b:0/", err));
	CHECK_STR("invalid alias URL 'http://b:0/': port out of range", err);
	site_release(&s);
}

/* fn's answer for each case's input on make_site(policy)'s site; where
 * stable, each answer is also fn's answer for itself (a canonical target
 * is its own canonical form). */
static void check_site_targets(bool policy, char *(*fn)(const struct site *, const char *),
			       const struct str_case *cases, size_t n, bool stable)
{
	struct site s;
	make_site(&s, policy);
	for (size_t i = 0; i < n; i++) {
		char *got = fn(&s, cases[i].in);
		CHECK_STR(cases[i].want, got);
		if (got && stable) {
			CHECK_STR_FREE(got, fn(&s, got));
		}
		free(got);
	}
	site_release(&s);
}

static const struct str_case site_target_cases[] = {
	{ "http://example.com/", "/" },
	{ "http://example.com", "/" },
	{ "HTTP://EXAMPLE.COM:80/a/./b/../c?x=1#f", "/a/c?x=1" },
	{ "https://www.example.com/p?q", "/p?q" },
	{ "https://www.example.com:443/p", "/p" },
	{ "http://localhost:8080/%7ex", "/~x" },
	{ "http://user@example.com/x", "/x" },
	{ "http://example.com/x?", "/x" },
	{ "http://example.com:8080/", NULL },       /* other port */
	{ "https://example.com/", NULL },           /* other scheme */
	{ "http://www.example.com/", NULL },        /* alias is https only */
	{ "http://localhost/", NULL },
	{ "http://example.org/", NULL },
	{ "mailto:a@example.com", NULL },
	{ "/relative", NULL },
};

TEST(site_target_table)
{
	check_site_targets(false, site_target, site_target_cases, COUNT(site_target_cases), false);
}

static const struct str_case policy_target_cases[] = {
	{ "http://example.com/?utm_source=x&utm_medium=y", "/" },
	{ "http://example.com/p?b=2&a=1&utm_campaign=z", "/p?a=1&b=2" },
	{ "http://example.com/p?fbclid=abc&id=3", "/p?id=3" },
	{ "http://example.com/p?utm%5Fsource=x&id=3", "/p?id=3" },  /* decoded '_' */
	{ "http://example.com/p?%75tm_x=1", "/p" },                 /* decoded 'u' */
	{ "http://example.com/p?a=1&&b=2&", "/p?a=1&b=2" },
	{ "http://localhost:8080/p?z&y", "/p?y&z" },
};

TEST(site_target_with_policy)
{
	check_site_targets(true, site_target, policy_target_cases, COUNT(policy_target_cases), false);
}

static const struct str_case canonical_target_cases[] = {
	{ "/", "/" },
	{ "/a/./b/../c?x=1#frag", "/a/c?x=1" },
	{ "/a/b/", "/a/b/" },
	{ "/a/..", "/" },
	{ "/..", "/" },
	{ "/../../etc/passwd", "/etc/passwd" },
	{ "/%2e%2E/x", "/x" },
	{ "/a/%2E%2e/x", "/x" },
	{ "/a%2Fb", "/a%2Fb" },
	{ "/a%2fb", "/a%2Fb" },
	{ "/%7e%41", "/~A" },
	{ "/a b?c d", "/a%20b?c%20d" },
	{ "/\xff\x01?\xfe", "/%FF%01?%FE" },
	{ "/a\\b", "/a%5Cb" },
	{ "/50%", "/50%25" },
	{ "/x?", "/x" },
	{ "/x?#y", "/x" },
	{ "/x#?y", "/x" },
	{ "/x?a+b=c+d", "/x?a+b=c+d" },
	{ "/x?b=1&a=2", "/x?b=1&a=2" },     /* no policy: order kept */
	{ "/x?a=1&&b=2", "/x?a=1&&b=2" },   /* no policy: kept as sent */
	{ "//x///y", "//x///y" },
	{ "/doku.php?id=wiki:syntax", "/doku.php?id=wiki:syntax" },
	{ "", NULL },
	{ "x", NULL },
	{ "*", NULL },
	{ "http://example.com/", NULL },
	{ "?x", NULL },
};

TEST(site_canonical_target_table)
{
	check_site_targets(false, site_canonical_target, canonical_target_cases, COUNT(canonical_target_cases), true);
}

static const struct str_case policy_canonical_cases[] = {
	{ "/p?utm_source=a&id=1", "/p?id=1" },
	{ "/p?utm_source=a", "/p" },
	{ "/p?fbclid=1&utm_medium=2&", "/p" },
	{ "/p?b=2&a=1", "/p?a=1&b=2" },
	{ "/p?a=1&&b=2", "/p?a=1&b=2" },
	{ "/p?&&", "/p" },
	{ "/p?tag=z&tag=a&id=1&tag=m", "/p?id=1&tag=z&tag=a&tag=m" }, /* stable */
	{ "/p?b&a=&a", "/p?a=&a&b" },
	{ "/p?ab=1&a=2&a-b=3", "/p?a=2&a-b=3&ab=1" },                /* byte order */
	{ "/p?fbclidx=1", "/p?fbclidx=1" },                           /* exact glob */
	{ "/p?UTM_source=1", "/p?UTM_source=1" },                     /* case matters */
	{ "/p?x=utm_source", "/p?x=utm_source" },                     /* names only */
	{ "/a/../p?utm%5fid=1&%62=2", "/p?b=2" },
};

TEST(site_canonical_target_with_policy)
{
	check_site_targets(true, site_canonical_target, policy_canonical_cases, COUNT(policy_canonical_cases), true);
}

TEST(site_canonical_query_policies)
{
	struct site s;
	char err[ERR_LEN];
	CHECK_INT(0, site_init(&s, "http://a/", err));

	/* No policy: the query comes back as given. */
	CHECK_STR_FREE("b=1&&a=2&", site_canonical_query(&s, "b=1&&a=2&"));

	/* Only ignoring, no sorting: order kept, empties dropped. */
	strlist_add(&s.ignore_params, "utm_*");
	strlist_add(&s.ignore_params, "s[ei]d");
	CHECK_STR_FREE("z=1&sod=5&a", site_canonical_query(&s, "z=1&utm_x=2&&sid=3&sed=4&sod=5&a"));
	CHECK_STR_FREE("", site_canonical_query(&s, "utm_a&utm_b="));
	CHECK_STR_FREE("", site_canonical_query(&s, ""));

	/* Sorting many repeated names stays stable (more than fit the
	 * small array on the stack). */
	s.sort_query = true;
	struct buf in = BUF_INIT, want = BUF_INIT;
	for (int i = 0; i < 50; i++)
		buf_addf(&in, "%sk%d=%d", i ? "&" : "", i % 3, i);
	for (int k = 0; k < 3; k++)
		for (int i = k; i < 50; i += 3)
			buf_addf(&want, "%sk%d=%d", want.len ? "&" : "", k, i);
	CHECK_STR_FREE(want.data, site_canonical_query(&s, in.data));
	buf_release(&in);
	buf_release(&want);

	/* A name longer than the stack copy used for fnmatch. */
	struct buf name = BUF_INIT;
	buf_adds(&name, "utm_");
	for (int i = 0; i < 300; i++)
		buf_addc(&name, 'x');
	buf_adds(&name, "=1&b=2");
	CHECK_STR_FREE("b=2", site_canonical_query(&s, name.data));
	buf_release(&name);
	site_release(&s);
}
