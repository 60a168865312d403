<?php
// profiles/wordpress-archives.php - print a WordPress site's date archives,
// one URL a line, for the wordpress profile's --seed-command: run by
// cgisnap (php-cli, in --root) at the start of a snapshot or watch.
//
// Why: a theme need not link them (the block theme twentytwentythree links
// no month archive at all), and WordPress's own sitemaps (wp-sitemap.xml,
// which robots.txt names and the crawl follows) list posts, pages, terms
// and authors but no dates. The URLs are WordPress's own: get_year_link()
// and get_month_link() for every year and month with a published post, as
// wp_get_archives() lists them (pretty permalinks or ?m=YYYYMM alike).
//
// WordPress is loaded whole (the permalink structure needs its rewrite
// rules), as for a request to HTTP_HOST (Debian's wp-config.php picks its
// configuration by it; cgisnap sets the site URL's), so plugins load but no page is
// rendered. Prints the URLs and exits 0, or says why on stderr and exits
// 1; nothing else ever reaches stdout.

require __DIR__ . '/wordpress-boot.php';
require "$root/wp-load.php";
global $wpdb;
// wp_get_archives('type=monthly')'s query: the months with published posts.
$months = $wpdb->get_results("SELECT DISTINCT YEAR(post_date) AS y, MONTH(post_date) AS m FROM $wpdb->posts" .
			     " WHERE post_type = 'post' AND post_status = 'publish' ORDER BY y DESC, m DESC");
$failed = $wpdb->last_error;
$urls = array();
foreach (is_array($months) ? $months : array() as $row) {
	$urls[get_year_link($row->y)] = true;
	$urls[get_month_link($row->y, $row->m)] = true;
}
wordpress_boot_done();
if ($failed !== '') {
	fwrite(STDERR, "wordpress-archives.php: cannot list the archives: $failed\n");
	exit(1);
}
foreach (array_keys($urls) as $url)
	echo $url, "\n";
