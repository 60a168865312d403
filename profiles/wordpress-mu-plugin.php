<?php
/*
 * Plugin Name: cgisnap notify
 * Description: Tells the 'cgisnap watch' keeping a static copy of this site fresh which pages a saved post or comment changed.
 *
 * profiles/wordpress-mu-plugin.php - a must-use plugin for cgisnap's
 * WordPress profile. WordPress keeps its content in the database, where
 * watch's inotify sees nothing: on every change of a published post, page
 * or comment (a save in wp-admin, wp_update_post, a trash, a deletion, a
 * comment approved) this runs, once at the end of the request,
 *
 *     cgisnap notify -q TREE URL...
 *
 * with the pages that show the post, before and after the change: its
 * permalink and shortlink, the front page and its pages, its category,
 * tag, author, year and month archives and their pages, and the feeds
 * (the [watch] section of profiles/wordpress.conf re-renders /, /feed/ and /comments/feed/
 * on every notify too). Only files whose bytes changed are written.
 *
 * Install: copy to wp-content/mu-plugins/cgisnap-notify.php and define in
 * wp-config.php (before wp-settings.php is loaded):
 *
 *     define('CGISNAP_TREE', '/srv/blog');        // the watched tree (required)
 *     define('CGISNAP_BIN', '/usr/local/bin/cgisnap'); // default: cgisnap on PATH
 *
 * PHP must run as the user of 'cgisnap watch' (or root): watch hears no
 * other user on its control socket. A notify that cannot be delivered (no
 * watch running) is written to PHP's error log; the save itself goes on.
 */

if (!defined('ABSPATH'))
	exit;

/* The site-relative URLs gathered during this request. */
function cgisnap_notify_urls($add = null)
{
	static $urls = array();
	if ($add !== null) {
		$rel = wp_make_link_relative($add);
		if ($rel === '' || $rel[0] !== '/')
			$rel = '/' . $rel;
		$urls[$rel] = true;
	}
	return array_keys($urls);
}

/* LINK and its pages 2..N of an archive of COUNT posts. */
function cgisnap_notify_paged($link, $count)
{
	global $wp_rewrite;
	cgisnap_notify_urls($link);
	$per = max(1, (int)get_option('posts_per_page'));
	for ($n = 2; $n <= (int)ceil($count / $per); $n++) {
		if ($wp_rewrite->using_permalinks())
			cgisnap_notify_urls(trailingslashit($link) . user_trailingslashit("page/$n", 'paged'));
		else
			cgisnap_notify_urls(add_query_arg('paged', $n, $link));
	}
}

/* Every page that shows post POST as it is now. */
function cgisnap_notify_post($post)
{
	$post = get_post($post);
	if (!$post || !is_post_type_viewable($post->post_type) || $post->post_status !== 'publish')
		return;
	cgisnap_notify_urls(get_permalink($post));
	$short = wp_get_shortlink($post->ID);
	if ($short)
		cgisnap_notify_urls($short);
	cgisnap_notify_urls(get_post_comments_feed_link($post->ID));
	cgisnap_notify_urls(get_feed_link());
	cgisnap_notify_urls(get_feed_link('comments_rss2'));
	if ($post->post_type !== 'post')
		return;
	$published = wp_count_posts('post')->publish;
	cgisnap_notify_paged(home_url('/'), $published);
	foreach (get_object_taxonomies($post->post_type, 'objects') as $tax) {
		if (!$tax->public)
			continue;
		$terms = get_the_terms($post, $tax->name);
		foreach (is_array($terms) ? $terms : array() as $term) {
			$link = get_term_link($term);
			if (is_wp_error($link))
				continue;
			cgisnap_notify_paged($link, $term->count);
			cgisnap_notify_urls(get_term_feed_link($term->term_id, $tax->name));
		}
	}
	$author = (int)$post->post_author;
	cgisnap_notify_paged(get_author_posts_url($author), count_user_posts($author, 'post', true));
	cgisnap_notify_urls(get_author_feed_link($author));
	$t = strtotime($post->post_date);
	cgisnap_notify_urls(get_year_link(date('Y', $t)));
	cgisnap_notify_urls(get_month_link(date('Y', $t), date('m', $t)));
}

// Before a save: the pages of the post as it was (an archive it leaves,
// its old permalink); after it, as it is.
add_action('pre_post_update', 'cgisnap_notify_post');
add_action('transition_post_status', function ($new, $old, $post) {
	if ($new === 'publish' || $old === 'publish')
		cgisnap_notify_post($post->ID);
}, 10, 3);
add_action('save_post', 'cgisnap_notify_post');
add_action('before_delete_post', 'cgisnap_notify_post');
add_action('wp_trash_post', 'cgisnap_notify_post');
// Comments: the post they are on shows them, and the comment feeds.
foreach (array('wp_insert_comment', 'edit_comment', 'deleted_comment', 'trashed_comment') as $hook)
	add_action($hook, function ($id) {
		$c = get_comment($id);
		if ($c)
			cgisnap_notify_post($c->comment_post_ID);
	});
add_action('transition_comment_status', function ($new, $old, $c) {
	cgisnap_notify_post($c->comment_post_ID);
}, 10, 3);

// Once per request, after everything was saved.
add_action('shutdown', function () {
	$urls = cgisnap_notify_urls();
	if (!$urls || !defined('CGISNAP_TREE'))
		return;
	$bin = defined('CGISNAP_BIN') ? CGISNAP_BIN : 'cgisnap';
	$cmd = escapeshellarg($bin) . ' notify -q ' . escapeshellarg(CGISNAP_TREE) . ' --';
	foreach ($urls as $u)
		$cmd .= ' ' . escapeshellarg($u);
	$out = array();
	exec($cmd . ' 2>&1', $out, $status);
	if ($status !== 0)
		error_log('cgisnap notify: exit status ' . $status . ': ' . implode(' ', $out));
});
