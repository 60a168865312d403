<?php
/**
 * Deterministic content generator for the sample wiki.
 *
 *     php bin/seed.php [--pages N] [--dir WIKIDIR]
 *
 * Wipes data/ (pages, attic, cache, meta, index, media) and writes N page
 * files (default 200; at least the fixed pages: start, sidebar,
 * wiki:syntax and one start page per namespace) plus a few old revisions
 * in data/attic/ and the media files in data/media/.
 *
 * The same N gives byte-identical files every time: all randomness comes
 * from mt_rand() after mt_srand(SEED). File mtimes are fixed too (page i
 * was "edited" at 2024-01-01 00:00 UTC + i hours), except the five last
 * generated pages, which get now - 1..5 hours so the wiki's indexdelay
 * (noindex for pages younger than 5 days) shows up.
 */

define('WIKI_ENTRY', 1);
require __DIR__ . '/../inc/png.php';

const SEED = 20240101;
const EPOCH = 1704067200;          // 2024-01-01 00:00:00 UTC
const RECENT = 5;                  // pages with an mtime near "now"

$opt = ['pages' => 200, 'dir' => dirname(__DIR__)];
for ($i = 1; $i < $argc; $i++) {
    $a = $argv[$i];
    if (preg_match('/^--(pages|dir)(?:=(.*))?$/', $a, $m)) {
        $opt[$m[1]] = $m[2] ?? ($argv[++$i] ?? '');
    } elseif ($a === '-h' || $a === '--help') {
        fwrite(STDOUT, "usage: php bin/seed.php [--pages N] [--dir WIKIDIR]\n");
        exit(0);
    } else {
        fwrite(STDERR, "seed.php: unknown argument '$a'\n");
        exit(2);
    }
}
if (!ctype_digit((string) $opt['pages'])) {
    fwrite(STDERR, "seed.php: --pages needs a number\n");
    exit(2);
}
$dir = rtrim($opt['dir'], '/');
if (!is_file("$dir/doku.php")) {
    fwrite(STDERR, "seed.php: $dir does not look like the wiki (no doku.php)\n");
    exit(2);
}
$data = "$dir/data";

// ---------------------------------------------------------------------
// Vocabulary and structure

const WORDS = [
    'access', 'account', 'adapter', 'agent', 'alert', 'archive', 'array', 'backup',
    'balance', 'batch', 'binary', 'block', 'branch', 'buffer', 'build', 'bundle',
    'cache', 'channel', 'check', 'client', 'cluster', 'codec', 'commit', 'config',
    'console', 'context', 'cursor', 'daemon', 'data', 'debug', 'deploy', 'device',
    'digest', 'domain', 'draft', 'driver', 'editor', 'engine', 'entry', 'event',
    'export', 'feature', 'field', 'filter', 'folder', 'format', 'frame', 'gateway',
    'graph', 'handler', 'header', 'helper', 'history', 'host', 'image', 'import',
    'index', 'input', 'install', 'issue', 'job', 'kernel', 'key', 'layout',
    'ledger', 'library', 'limit', 'link', 'listener', 'loader', 'locale', 'logger',
    'macro', 'manual', 'marker', 'matrix', 'media', 'memory', 'merge', 'message',
    'method', 'metric', 'mirror', 'module', 'monitor', 'mount', 'network', 'node',
    'notice', 'object', 'offset', 'option', 'output', 'package', 'page', 'panel',
    'parser', 'patch', 'path', 'pattern', 'payload', 'pipeline', 'plugin', 'policy',
    'pool', 'port', 'preview', 'printer', 'process', 'profile', 'project', 'proxy',
    'query', 'queue', 'quota', 'record', 'release', 'remote', 'render', 'report',
    'request', 'resource', 'review', 'role', 'route', 'rule', 'runner', 'sample',
    'schema', 'scope', 'script', 'search', 'section', 'sensor', 'server', 'service',
    'session', 'setting', 'shell', 'signal', 'snapshot', 'socket', 'source', 'stack',
    'storage', 'stream', 'style', 'switch', 'syntax', 'table', 'target', 'task',
    'template', 'tenant', 'theme', 'thread', 'ticket', 'token', 'toolbar', 'topic',
    'tracker', 'trigger', 'update', 'upload', 'user', 'value', 'vendor', 'version',
    'viewer', 'volume', 'watcher', 'widget', 'window', 'worker', 'workflow', 'zone',
];
const FILLER = [
    'the', 'a', 'each', 'every', 'this', 'that', 'our', 'your', 'its', 'one',
    'is', 'are', 'was', 'can', 'should', 'will', 'may', 'must', 'uses', 'needs',
    'with', 'for', 'from', 'into', 'over', 'under', 'after', 'before', 'when', 'and',
    'or', 'but', 'not', 'also', 'then', 'only', 'quickly', 'safely', 'again', 'later',
];
// Namespace => relative weight for the generated pages ('' = root).
const NAMESPACES = [
    '' => 1, 'wiki' => 3, 'wiki:plugins' => 4, 'howto' => 5, 'projects' => 2,
    'projects:alpha' => 4, 'projects:beta' => 3, 'team' => 2, 'reference' => 2,
    'reference:api' => 4,
];
const MEDIA = [
    'wiki:dokuwiki-128.png' => [128, 128, [34, 85, 136], [120, 170, 210], [245, 245, 240]],
    'wiki:screenshot.png' => [160, 100, [230, 230, 225], [200, 205, 215], [43, 115, 183]],
    'projects:diagram.png' => [200, 120, [250, 250, 250], [210, 225, 200], [211, 90, 30]],
];
const EXTERNAL = [
    'https://www.dokuwiki.org/wiki:syntax' => 'DokuWiki syntax',
    'https://www.php.net/manual/en/' => 'PHP manual',
    'https://datatracker.ietf.org/doc/html/rfc3875' => 'RFC 3875 (CGI)',
    'http://example.com/docs/' => 'example docs',
    'https://man7.org/linux/man-pages/man7/inotify.7.html' => 'inotify(7)',
];

function pick(array $a)
{
    return $a[mt_rand(0, count($a) - 1)];
}

/** Last part of an id. */
function name_of(string $id): string
{
    $p = strrpos($id, ':');
    return $p === false ? $id : substr($id, $p + 1);
}

function title_of(string $name): string
{
    return ucwords(str_replace('_', ' ', $name));
}

// ---------------------------------------------------------------------
// Text generators

/** A sentence with the odd bit of inline formatting. */
function sentence(): string
{
    $n = mt_rand(6, 16);
    $w = [];
    for ($i = 0; $i < $n; $i++) {
        $w[] = mt_rand(0, 2) ? pick(WORDS) : pick(FILLER);
    }
    $w[0] = ucfirst($w[0]);
    $r = mt_rand(1, 20);
    $k = mt_rand(1, $n - 1);
    if ($r === 1) {
        $w[$k] = '**' . $w[$k] . '**';
    } elseif ($r === 2) {
        $w[$k] = '//' . $w[$k] . '//';
    } elseif ($r === 3) {
        $w[$k] = "''" . $w[$k] . "''";
    } elseif ($r === 4) {
        $w[$k] = '__' . $w[$k] . '__';
    } elseif ($r === 5 && $k < $n - 1) {
        $w[$k] = '**//' . $w[$k];
        $w[$k + 1] .= '//**';
    }
    return implode(' ', $w) . (mt_rand(0, 6) ? '.' : '?');
}

/** A paragraph; $links are markup strings woven in between sentences. */
function paragraph(array $links = []): string
{
    $s = [];
    $n = mt_rand(3, 7);
    for ($i = 0; $i < $n; $i++) {
        $s[] = sentence();
        if ($links && mt_rand(0, 1)) {
            $s[] = 'See ' . array_shift($links) . '.';
        }
    }
    foreach ($links as $l) {
        $s[] = 'Related: ' . $l . '.';
    }
    // Wrap long paragraphs over several source lines, as people do.
    return wordwrap(implode(' ', $s), 100, "\n", false);
}

function words(int $min, int $max): string
{
    $w = [];
    $n = mt_rand($min, $max);
    for ($i = 0; $i < $n; $i++) {
        $w[] = pick(WORDS);
    }
    return implode(' ', $w);
}

function a_list(): string
{
    $ordered = mt_rand(0, 3) === 0;
    $bullet = $ordered ? '-' : '*';
    $out = '';
    $n = mt_rand(3, 6);
    for ($i = 0; $i < $n; $i++) {
        $out .= '  ' . $bullet . ' ' . ucfirst(words(2, 6)) . "\n";
        if (mt_rand(0, 3) === 0) {           // a nested level
            for ($j = mt_rand(1, 3); $j > 0; $j--) {
                $out .= '    * ' . words(1, 5) . "\n";
            }
        }
    }
    return $out;
}

function a_table(): string
{
    $out = "^ Option ^ Default ^ Description ^\n";
    for ($i = mt_rand(2, 5); $i > 0; $i--) {
        $out .= '| ' . "''" . pick(WORDS) . '_' . pick(WORDS) . "''" . ' | ' . mt_rand(0, 4096)
            . ' | ' . ucfirst(words(3, 8)) . " |\n";
    }
    return $out;
}

function a_code(): string
{
    if (mt_rand(0, 1)) {
        $a = pick(WORDS);
        $b = pick(WORDS);
        return "<code php>\n<?php\n\$conf['$a'] = '" . pick(WORDS) . "';\nif (\$$a < " . mt_rand(1, 99)
            . " && \$$b !== null) {\n    echo \"<p>$a &amp; $b</p>\";\n}\n</code>";
    }
    return "<code bash>\n$ " . pick(WORDS) . 'ctl --' . pick(WORDS) . ' ' . mt_rand(1, 9)
        . " > /tmp/" . pick(WORDS) . ".log 2>&1\n$ echo \"done\"\n</code>";
}

// ---------------------------------------------------------------------
// Page ids

mt_srand(SEED);

$nsList = array_keys(NAMESPACES);
$fixed = ['start', 'sidebar', 'wiki:syntax'];
foreach ($nsList as $ns) {
    if ($ns !== '') {
        $fixed[] = "$ns:start";
    }
}
$total = (int) $opt['pages'];
if ($total < count($fixed)) {
    fwrite(STDERR, 'seed.php: --pages raised to ' . count($fixed) . " (the fixed pages)\n");
    $total = count($fixed);
}

$weights = [];
foreach (NAMESPACES as $ns => $w) {
    for ($i = 0; $i < $w; $i++) {
        $weights[] = $ns;
    }
}
$ids = $fixed;
$exists = array_fill_keys($fixed, true);
$generated = [];
while (count($ids) < $total) {
    $ns = pick($weights);
    $name = pick(WORDS) . '_' . pick(WORDS);
    $id = ($ns === '' ? '' : "$ns:") . $name;
    for ($k = 2; isset($exists[$id]); $k++) {
        $id = ($ns === '' ? '' : "$ns:") . $name . '_' . $k;
    }
    $ids[] = $id;
    $generated[] = $id;
    $exists[$id] = true;
}
$byNs = [];
foreach ($ids as $id) {
    $p = strrpos($id, ':');
    $ns = $p === false ? '' : substr($id, 0, $p);
    if (substr($id, -6) !== ':start' && !in_array($id, ['start', 'sidebar'], true)) {
        $byNs[$ns][] = $id;
    }
}

/**
 * Link markup from page $from to $to, written the way people do: a bare
 * name for the same namespace (sometimes ".:name"), ":name" for root
 * pages seen from a namespace, the full id otherwise.
 */
function link_to(string $from, string $to, ?string $text = null): string
{
    $fp = strrpos($from, ':');
    $fns = $fp === false ? '' : substr($from, 0, $fp);
    $tp = strrpos($to, ':');
    $tns = $tp === false ? '' : substr($to, 0, $tp);
    $tname = $tp === false ? $to : substr($to, $tp + 1);
    if ($tns === $fns) {
        $target = $fns !== '' && mt_rand(0, 3) === 0 ? ".:$tname" : $tname;
    } elseif ($tns === '') {
        $target = ":$to";
    } else {
        $target = $to;
    }
    return '[[' . $target . ($text !== null ? '|' . $text : '') . ']]';
}

/** An id in $ns that is not a page: a broken link target. */
function missing_id(string $ns, array $exists): string
{
    do {
        $id = ($ns === '' ? '' : "$ns:") . pick(WORDS) . '_' . pick(WORDS) . '_todo';
    } while (isset($exists[$id]));
    return $id;
}

// ---------------------------------------------------------------------
// Page sources

$pages = [];
$broken = 0;

$pages['start'] = "====== Welcome to the sample wiki ======\n\n"
    . "This is the **start page** of a small //flat-file// wiki used to test cgisnap. Every page\n"
    . "is a text file below ''data/pages/''; namespaces are folders.\n\n"
    . "===== Namespaces =====\n\n";
foreach ($nsList as $ns) {
    if ($ns === '') {
        continue;
    }
    $depth = substr_count($ns, ':');
    $pages['start'] .= str_repeat('  ', $depth + 1) . '* ' . link_to('start', "$ns:start", title_of(str_replace(':', ' ', $ns)))
        . ' - ' . count($byNs[$ns] ?? []) . " pages\n";
}
$pages['start'] .= "\n===== Pages at the top level =====\n\n";
foreach ($byNs[''] ?? [] as $id) {
    $pages['start'] .= '  * ' . link_to('start', $id, title_of($id)) . "\n";
}
$pages['start'] .= "\n===== Getting started =====\n\n"
    . "Read [[wiki:syntax|the formatting syntax]] first, then browse the [[wiki:start|wiki namespace]].\n"
    . "The [[http://www.dokuwiki.org/|DokuWiki]] project inspired the markup.\n";

$pages['sidebar'] = "===== Navigation =====\n\n  * [[:start|Home]]\n";
foreach ($nsList as $ns) {
    if ($ns !== '' && strpos($ns, ':') === false) {
        $pages['sidebar'] .= '  * [[' . $ns . ':start|' . title_of($ns) . "]]\n";
    }
}
$pages['sidebar'] .= "  * [[wiki:syntax|Formatting Syntax]]\n";

$pages['wiki:syntax'] = <<<'TXT'
====== Formatting Syntax ======

This page shows the markup the wiki understands. Text can be **bold**, //italic//,
__underlined__ and ''monospaced''; they combine: **//bold italic//**. Special characters
such as <tags> & ampersands are escaped.\\ A forced line break precedes this sentence.

===== Links =====

Internal links: [[wiki:start]], [[wiki:start|the wiki namespace]], a relative one to
[[.:start|this namespace's start]], one to [[:start|the start page]] and one to a section:
[[wiki:syntax#tables|tables below]]. A link to [[wiki:nonexistent_page]] shows a page that
does not exist yet. External: [[https://www.dokuwiki.org/wiki:syntax|DokuWiki syntax]] and
a bare URL http://example.com/docs/index.html in the text.

===== Lists =====

  * First item
  * Second item with **bold**
    * Nested item
    * Another nested item
  * Third item

  - Step one
  - Step two
    - Step two point one
  - Step three

===== Tables =====

^ Heading 1 ^ Heading 2 ^ Heading 3 ^
| Row 1 Col 1 | Row 1 Col 2 | Row 1 Col 3 |
| Row 2 Col 1 | **bold cell** | [[wiki:start|link in a cell]] |

==== Code ====

<code php>
<?php
if ($a < $b && $c > 0) {
    echo "<b>escaped</b>";
}
</code>

==== Media ====

{{wiki:dokuwiki-128.png|The DokuWiki logo}}

A smaller copy: {{wiki:dokuwiki-128.png?64|small logo}}

=== Smaller heading ===

== Smallest heading ==

----

That is all.

TXT;

foreach ($nsList as $ns) {
    if ($ns === '') {
        continue;
    }
    $id = "$ns:start";
    $parent = strpos($ns, ':') === false ? ':start' : substr($ns, 0, strrpos($ns, ':')) . ':start';
    $txt = '====== ' . title_of(str_replace(':', ' ', $ns)) . " ======\n\n"
        . paragraph() . "\n\n"
        . "Up: [[$parent|parent]]\n\n";
    $subs = [];
    foreach ($nsList as $sub) {
        if ($sub !== '' && strpos($sub, "$ns:") === 0 && strpos(substr($sub, strlen($ns) + 1), ':') === false) {
            $subs[] = $sub;
        }
    }
    if ($subs) {
        $txt .= "===== Sub-namespaces =====\n\n";
        foreach ($subs as $sub) {
            $txt .= "  * [[$sub:start|" . title_of(substr($sub, strlen($ns) + 1)) . "]]\n";
        }
        $txt .= "\n";
    }
    $txt .= "===== Pages =====\n\n";
    foreach ($byNs[$ns] ?? [] as $pid) {
        $txt .= '  * ' . link_to($id, $pid, title_of(substr($pid, strlen($ns) + 1))) . "\n";
    }
    if (!($byNs[$ns] ?? [])) {
        $txt .= "No pages yet.\n";
    }
    $pages[$id] = $txt;
}

$sectionNames = ['Overview', 'Installation', 'Configuration', 'Usage', 'Examples', 'Troubleshooting',
    'Background', 'Details', 'Limitations', 'Notes'];
foreach ($generated as $id) {
    $p = strrpos($id, ':');
    $ns = $p === false ? '' : substr($id, 0, $p);
    $name = $p === false ? $id : substr($id, $p + 1);

    // 3..10 links: ~5% to missing pages, the rest to existing ones;
    // some pages also get an external link.
    $links = [];
    for ($k = mt_rand(3, 10); $k > 0; $k--) {
        if (mt_rand(1, 100) <= 5) {
            $target = missing_id(mt_rand(0, 1) ? $ns : pick($nsList), $exists);
            $broken++;
        } else {
            do {
                $target = pick($ids);
            } while ($target === $id || $target === 'sidebar');
        }
        $links[] = link_to($id, $target, mt_rand(0, 1) ? title_of(name_of($target)) : null);
    }
    if (mt_rand(1, 100) <= 30) {
        $url = pick(array_keys(EXTERNAL));
        $links[] = '[[' . $url . '|' . EXTERNAL[$url] . ']]';
    }
    $inline = array_splice($links, 0, intdiv(count($links), 2));

    $txt = '====== ' . title_of($name) . " ======\n\n" . paragraph(array_splice($inline, 0, 1)) . "\n\n";
    $nsec = mt_rand(2, 4);
    $sec = $sectionNames;
    for ($s = 0; $s < $nsec; $s++) {
        $title = array_splice($sec, mt_rand(0, count($sec) - 1), 1)[0];
        $txt .= '===== ' . $title . " =====\n\n" . paragraph(array_splice($inline, 0, 1)) . "\n\n";
        $r = mt_rand(1, 100);
        if ($r <= 45) {
            $txt .= a_list() . "\n";
        } elseif ($r <= 60) {
            $txt .= a_table() . "\n";
        } elseif ($r <= 75) {
            $txt .= a_code() . "\n\n";
        } elseif ($r <= 85) {
            $m = pick(array_keys(MEDIA));
            $txt .= '{{' . ($s % 2 ? ' ' : '') . $m . (mt_rand(0, 1) ? '?' . (mt_rand(2, 4) * 40) : '')
                . '|' . ucfirst(words(2, 4)) . "}}\n\n";
        }
        if (mt_rand(0, 2) === 0) {
            $txt .= '==== ' . ucfirst(words(1, 3)) . " ====\n\n" . paragraph() . "\n\n";
        }
    }
    $txt .= "===== See also =====\n\n";
    foreach (array_merge($inline, $links) as $l) {
        $txt .= "  * $l\n";
    }
    $pages[$id] = $txt;
}

// ---------------------------------------------------------------------
// Write everything

function rrmdir(string $path): void
{
    if (is_link($path) || is_file($path)) {
        unlink($path);
        return;
    }
    if (!is_dir($path)) {
        return;
    }
    foreach (scandir($path) as $e) {
        if ($e !== '.' && $e !== '..') {
            rrmdir("$path/$e");
        }
    }
    rmdir($path);
}

function fn_of(string $base, string $id, string $suffix): string
{
    return $base . '/' . str_replace(':', '/', $id) . $suffix;
}

function put(string $fn, string $content): void
{
    $d = dirname($fn);
    if (!is_dir($d)) {
        mkdir($d, 0777, true);
    }
    file_put_contents($fn, $content);
}

foreach (['pages', 'attic', 'cache', 'meta', 'index', 'media', 'tmp'] as $sub) {
    rrmdir("$data/$sub");
    mkdir("$data/$sub", 0777, true);
}
file_put_contents("$data/.htaccess", "Require all denied\n");

$now = time();
$recent = array_slice($generated, -RECENT);
$attic = 0;
foreach ($ids as $i => $id) {
    $fn = fn_of("$data/pages", $id, '.txt');
    put($fn, $pages[$id]);
    $r = array_search($id, $recent, true);
    // The newest of the recent pages was edited an hour ago, the next
    // one two hours ago, ...
    $mtime = $r === false ? EPOCH + $i * 3600 : $now - (RECENT - $r) * 3600;
    touch($fn, $mtime, $mtime);
    // Some generated pages have old revisions: earlier drafts that lack
    // the last section. Their timestamps stay on the fixed clock.
    if (in_array($id, $generated, true) && mt_rand(1, 10) === 1) {
        $text = $pages[$id];
        for ($k = 1, $n = mt_rand(1, 3); $k <= $n; $k++) {
            $cut = strrpos(rtrim($text), "\n=====");
            $text = $cut ? substr($text, 0, $cut + 1) : $text;
            $rev = EPOCH + $i * 3600 - $k * 86400;
            put(fn_of("$data/attic", $id, ".$rev.txt.gz"), gzencode($text, 9));
            $attic++;
        }
    }
}

foreach (MEDIA as $mid => [$w, $h, $c1, $c2, $disc]) {
    $fn = fn_of("$data/media", $mid, '');
    put($fn, png_picture($w, $h, $c1, $c2, $disc));
    touch($fn, EPOCH, EPOCH);
}

printf("seeded %d pages (%d namespaces, %d broken links, %d old revisions, %d media) in %s\n",
    count($ids), count($nsList) - 1, $broken, $attic, count(MEDIA), $data);
