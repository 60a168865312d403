<?php
// index.php - a repository browser over repo.php's made-up repository,
// with every view such programs generate (README.md says which, and how
// each is marked). One script, routed by ?p=.
require __DIR__ . '/repo.php';
$started = microtime(true);

// A query string of params, each value percent-encoded but '/' (the
// spelling the commit pages use), or with '/' encoded too ($slash false:
// http_build_query's, the summary's).
function url($params, $slash = true)
{
	if (!$params)
		return '/';
	if (!$slash)
		return '/?' . http_build_query($params);
	$parts = [];
	foreach ($params as $k => $v)
		$parts[] = rawurlencode($k) . '=' . str_replace('%2F', '/', rawurlencode($v));
	return '/?' . implode('&', $parts);
}

function a($params, $text, $slash = true)
{
	return '<a href="' . htmlspecialchars(url($params, $slash)) . '">' . htmlspecialchars($text) . '</a>';
}

// The page: CSP nonce and render time in every one; robots noindex on
// views; rel=canonical on the skin and whitespace variants.
function page($title, $body, $view = false)
{
	global $started, $REPO_COMMITS;
	$params = $_GET;
	$canonical = null;
	if (isset($params['skin']) || isset($params['ws'])) {
		unset($params['skin'], $params['ws']);
		$canonical = 'http://' . ($_SERVER['HTTP_HOST'] ?? 'localhost') . url($params);
	}
	$nonce = base64_encode(random_bytes(16));
	header("Content-Security-Policy: script-src 'nonce-$nonce'");
	header('Content-Type: text/html; charset=utf-8');
	$here = $_SERVER['REQUEST_URI'] ?? '/';
	$skin = htmlspecialchars($_GET['skin'] ?? 'light');
	echo "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" . htmlspecialchars($title) . " - repo</title>\n";
	if ($view)
		echo "<meta name=\"robots\" content=\"noindex,nofollow\">\n";
	if ($canonical)
		echo '<link rel="canonical" href="' . htmlspecialchars($canonical) . "\">\n";
	echo "<link rel=\"stylesheet\" href=\"/style.css\">\n";
	echo "<script nonce=\"$nonce\" src=\"/app.js\"></script>\n";
	echo "</head><body class=\"skin-$skin\">\n<header><img src=\"/logo.png\" alt=\"repo\"> ";
	echo a([], 'summary') . ' ' . a(['p' => 'log'], 'log') . ' ' . a(['p' => 'help'], 'help') . ' ';
	echo a(['p' => 'login', 'returnto' => $here], 'log in') . "</header>\n<main>\n<h1>" . htmlspecialchars($title) . "</h1>\n";
	echo $body;
	$last = array_key_last($REPO_COMMITS);
	$dark = $_GET;
	$dark['skin'] = 'dark';
	$light = $_GET;
	$light['skin'] = 'light';
	printf("</main>\n<footer>%s %s %s <span>rendered in %.4f s at %s</span></footer>\n</body></html>\n",
	       a($dark, 'dark'), a($light, 'light'), a(['p' => 'tarball', 'rev' => $last], 'tarball'),
	       microtime(true) - $started, date('Y-m-d H:i:s'));
	exit;
}

function not_found($what)
{
	http_response_code(404);
	header('Content-Type: text/plain; charset=utf-8');
	echo "not found: $what\n";
	exit;
}

$p = $_GET['p'] ?? 'summary';
$last = array_key_last($REPO_COMMITS);
switch ($p) {
case 'summary':
	$b = "<h2>Files</h2>\n<ul>\n";
	foreach ($REPO_FILES as $f)
		$b .= '<li>' . a(['p' => 'file', 'name' => $f], $f, false) . "</li>\n";
	$b .= "</ul>\n<h2>Recent commits</h2>\n<ul>\n";
	foreach (array_slice(array_reverse($REPO_COMMITS, true), 0, 5, true) as $id => $c)
		$b .= '<li>' . a(['p' => 'commit', 'id' => $id], "$id {$c[1]}") . "</li>\n";
	page('summary', $b . "</ul>\n");

case 'file':
	$name = $_GET['name'] ?? '';
	if (!in_array($name, $REPO_FILES, true))
		not_found($name);
	$rev = $_GET['rev'] ?? $last;
	if (!isset($REPO_COMMITS[$rev]) || ($text = repo_text($name, $rev)) === null)
		not_found("$name at $rev");
	$b = '<pre>' . htmlspecialchars($text) . "</pre>\n<p>";
	$b .= a(['p' => 'blame', 'name' => $name], 'blame') . ' ';
	$b .= a(['p' => 'edit', 'name' => $name], 'edit') . ' ';
	$b .= a(['p' => 'file', 'name' => $name, 'ws' => '1'], 'ignore whitespace') . "</p>\n<h2>History</h2>\n<ul>\n";
	$revs = repo_file_revs($name);
	foreach ($revs as $i => $r) {
		$b .= '<li>' . a(['p' => 'file', 'name' => $name, 'rev' => $r], $r);
		if ($i > 0)
			$b .= ' ' . a(['p' => 'diff', 'from' => $revs[$i - 1], 'to' => $r], 'diff');
		$b .= "</li>\n";
	}
	page($name . (isset($_GET['rev']) ? " at $rev" : ''), $b . "</ul>\n", isset($_GET['rev']));

case 'commit':
	$id = $_GET['id'] ?? '';
	if (!isset($REPO_COMMITS[$id]))
		not_found($id);
	[$date, $msg, $files] = $REPO_COMMITS[$id];
	$b = '<p>' . htmlspecialchars("$date: $msg") . ' ' . a(['p' => 'timeline', 'around' => $id], 'timeline') . ' ';
	$b .= a(['p' => 'commit', 'id' => $id, 'ws' => '1'], 'ignore whitespace') . "</p>\n<ul>\n";
	foreach ($files as $f)
		$b .= '<li>' . a(['p' => 'file', 'name' => $f], $f) . ' <pre>' . htmlspecialchars(repo_text($f, $id)) . "</pre></li>\n";
	$ids = array_keys($REPO_COMMITS);
	$at = array_search($id, $ids, true);
	if ($at > 0)
		$b .= '<li>parent ' . a(['p' => 'commit', 'id' => $ids[$at - 1]], $ids[$at - 1]) . "</li>\n";
	page("commit $id", $b . "</ul>\n");

case 'log':
	$b = "<ul>\n";
	$ids = array_keys($REPO_COMMITS);
	foreach ($REPO_COMMITS as $id => $c) {
		$b .= '<li>' . a(['p' => 'commit', 'id' => $id], $id) . ' ' . a(['p' => 'timeline', 'date' => $c[0]], $c[0]);
		$b .= ' ' . htmlspecialchars($c[1]) . ' diff with:';
		foreach ($ids as $other)
			if ($other !== $id)
				$b .= ' ' . a(['p' => 'diff', 'from' => $id, 'to' => $other], $other);
		$b .= "</li>\n";
	}
	page('log', $b . "</ul>\n");

case 'help':
	$cmd = $_GET['cmd'] ?? null;
	if ($cmd !== null) {
		if (!in_array($cmd, $REPO_COMMANDS, true))
			not_found($cmd);
		page("help: $cmd", '<p>How the ' . htmlspecialchars($cmd) . " view works.</p>\n", true);
	}
	$b = "<p>This browser shows a repository's files and commits.</p>\n<ul>\n";
	foreach ($REPO_COMMANDS as $c)
		$b .= '<li>' . a(['p' => 'help', 'cmd' => $c], $c) . "</li>\n";
	page('help', $b . "</ul>\n");

case 'blame':
	$name = $_GET['name'] ?? '';
	if (!in_array($name, $REPO_FILES, true))
		not_found($name);
	page("blame $name", '<pre>' . htmlspecialchars(repo_text($name, $last)) . "</pre>\n", true);

case 'diff':
	$from = $_GET['from'] ?? '';
	$to = $_GET['to'] ?? '';
	if (!isset($REPO_COMMITS[$from], $REPO_COMMITS[$to]))
		not_found("$from..$to");
	page("diff $from..$to", '<p>' . htmlspecialchars(implode(', ', $REPO_COMMITS[$to][2])) . "</p>\n", true);

case 'timeline':
	$b = "<ul>\n";
	foreach ($REPO_COMMITS as $id => $c)
		if (($_GET['date'] ?? '') === $c[0] || ($_GET['around'] ?? '') === $id)
			$b .= '<li>' . a(['p' => 'commit', 'id' => $id], $id) . "</li>\n";
	page('timeline', $b . "</ul>\n", true);

case 'login':
case 'edit':
	page($p, "<form method=\"post\"><input name=\"user\"> <button>go</button></form>\n", true);

case 'tarball':
	$rev = $_GET['rev'] ?? '';
	if (!isset($REPO_COMMITS[$rev]))
		not_found($rev);
	header('Content-Type: application/x-compressed');
	header("Content-Disposition: attachment; filename=\"repo-$rev.tar.gz\"");
	echo gzencode("the repository as of $rev\n");
	exit;

default:
	not_found($p);
}
