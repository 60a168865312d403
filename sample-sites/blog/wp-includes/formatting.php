<?php
/**
 * Turns the light markup stored in posts.body (and plain-text comments)
 * into HTML. This is where most of a page's render time goes, much like
 * WordPress's the_content filters (wpautop, wptexturize, make_clickable,
 * shortcodes).
 *
 * Block syntax (blocks are separated by blank lines):
 *   ## Heading / ### Heading      -> <h2>/<h3> with an id anchor
 *   - item lines                  -> <ul>;  "1. item" lines -> <ol>
 *   > quoted lines                -> <blockquote>
 *   ```lang ... ```               -> <pre><code> (may contain blank lines)
 *   [image src="2021/03/x.png" width="W" height="H" alt="..." caption="..."]
 *                                 -> <figure><img srcset="... 1x, ...-2x.png 2x">
 *   anything else                 -> <p>, single newlines become <br>
 * Inline: `code`, **strong**, *em*, [text](url), bare http(s) URLs are
 * linked; "quotes", apostrophes, -- and ... are typographically replaced.
 * Root-relative URLs ("/2021/03/slug/", "/?p=12") become absolute with
 * the site URL, as WordPress stores them.
 */
defined('ABSPATH') || exit;

/** Escape text content (quotes stay literal so texturize can curl them). */
function esc_text(string $s): string
{
    return htmlspecialchars($s, ENT_NOQUOTES | ENT_SUBSTITUTE | ENT_HTML5, 'UTF-8');
}

/** Make a link target absolute when it is root-relative. */
function link_url(string $url): string
{
    if ($url !== '' && $url[0] === '/' && !str_starts_with($url, '//')) {
        return home_url($url);
    }
    return $url;
}

/** Typographic quotes, dashes, ellipses and dimensions (wptexturize). */
function texturize(string $s): string
{
    static $from = null, $to = null;
    if ($from === null) {
        $pairs = [
            '/---/'                     => '&#8212;',
            '/ -- /'                    => ' &#8212; ',
            '/--/'                      => '&#8211;',
            '/\.\.\./'                  => '&#8230;',
            '/(\d+)x(\d+)/'             => '$1&#215;$2',
            '/(^|[\s(\[>])"/'           => '$1&#8220;',
            '/"/'                       => '&#8221;',
            '/(\w)\'(\w)/u'             => '$1&#8217;$2',
            '/(^|[\s(\[>])\'/'          => '$1&#8216;',
            '/\'/'                      => '&#8217;',
        ];
        $from = array_keys($pairs);
        $to   = array_values($pairs);
    }
    return preg_replace($from, $to, $s);
}

/**
 * Inline markup of one line of text. $ugc marks user-generated content
 * (comments): its links get rel="nofollow ugc" like WordPress does.
 */
function format_inline(string $raw, bool $ugc = false): string
{
    // Finished HTML fragments are parked behind \x1A<n>\x1A markers so the
    // later passes (escaping, emphasis, texturize) cannot mangle them.
    $parked = [];
    $park = static function (string $html) use (&$parked): string {
        $parked[] = $html;
        return "\x1A" . (count($parked) - 1) . "\x1A";
    };
    $rel = $ugc ? ' rel="nofollow ugc"' : '';

    $s = preg_replace_callback('/`([^`\n]+)`/',
        static fn($m) => $park('<code>' . esc_text($m[1]) . '</code>'), $raw);

    $s = preg_replace_callback('/\[([^\]\n]+)\]\(([^)\s]+)\)/',
        static fn($m) => $park('<a href="' . esc(link_url($m[2])) . '"' . $rel . '>'
            . format_emphasis(texturize(esc_text($m[1]))) . '</a>'), $s);

    $s = esc_text($s);

    // Bare URLs (make_clickable). The text is already escaped, so the match
    // can be used verbatim as attribute value and link text.
    $s = preg_replace_callback('~\bhttps?://[^\s<>"\x1A]+[^\s<>"\x1A.,;:!?)\]\'*]~',
        static fn($m) => $park('<a href="' . $m[0] . '"' . $rel . '>' . $m[0] . '</a>'), $s);

    $s = texturize(format_emphasis($s));

    while (str_contains($s, "\x1A")) {
        $s = preg_replace_callback('/\x1A(\d+)\x1A/', static fn($m) => $parked[(int) $m[1]], $s);
    }
    return $s;
}

/** **strong** and *em*. */
function format_emphasis(string $s): string
{
    $s = preg_replace('/\*\*(?=\S)(.+?)(?<=\S)\*\*/', '<strong>$1</strong>', $s);
    return preg_replace('/(?<![*\w])\*(?=\S)(.+?)(?<=\S)\*(?![*\w])/', '<em>$1</em>', $s);
}

/** Parse the attributes of a shortcode: key="value" pairs. */
function shortcode_attrs(string $s): array
{
    preg_match_all('/(\w+)="([^"]*)"/', $s, $m, PREG_SET_ORDER);
    $attrs = [];
    foreach ($m as $pair) {
        $attrs[$pair[1]] = $pair[2];
    }
    return $attrs;
}

/** The [image] shortcode: an uploaded PNG with its 2x variant in srcset. */
function render_image(array $a): string
{
    $src = $a['src'] ?? '';
    if (!preg_match('~^\d{4}/\d{2}/[a-z0-9-]+\.png$~', $src)) {
        return '';
    }
    $one = home_url('/wp-content/uploads/' . $src);
    $two = home_url('/wp-content/uploads/' . substr($src, 0, -4) . '-2x.png');
    $html = '<figure class="wp-block-image"><img src="' . esc($one) . '"'
        . ' srcset="' . esc($one) . ' 1x, ' . esc($two) . ' 2x"'
        . ' width="' . (int) ($a['width'] ?? 0) . '" height="' . (int) ($a['height'] ?? 0) . '"'
        . ' alt="' . esc($a['alt'] ?? '') . '" loading="lazy" decoding="async">';
    if (($a['caption'] ?? '') !== '') {
        $html .= '<figcaption>' . format_inline($a['caption']) . '</figcaption>';
    }
    return $html . '</figure>';
}

/** Render a post body (light markup) to HTML. */
function render_markup(string $text): string
{
    $lines = preg_split('/\r\n|\n|\r/', $text);
    $n = count($lines);
    $out = [];
    $ids = [];
    for ($i = 0; $i < $n;) {
        $line = $lines[$i];
        if (trim($line) === '') {
            $i++;
            continue;
        }
        // Fenced code: everything up to the closing fence, verbatim.
        if (preg_match('/^```\s*([\w-]*)\s*$/', $line, $m)) {
            $code = [];
            for ($i++; $i < $n && !preg_match('/^```\s*$/', $lines[$i]); $i++) {
                $code[] = $lines[$i];
            }
            $i++;
            $class = $m[1] !== '' ? ' class="language-' . esc($m[1]) . '"' : '';
            $out[] = '<pre class="wp-block-code"><code' . $class . '>' . esc(implode("\n", $code)) . '</code></pre>';
            continue;
        }
        if (preg_match('/^(#{2,4})\s+(.+)$/', $line, $m)) {
            $level = strlen($m[1]);
            $id = slugify($m[2]) ?: 'section';
            $ids[$id] = ($ids[$id] ?? 0) + 1;
            if ($ids[$id] > 1) {
                $id .= '-' . $ids[$id];
            }
            $out[] = "<h$level id=\"$id\">" . format_inline($m[2]) . "</h$level>";
            $i++;
            continue;
        }
        if (preg_match('/^\[image\s([^\]]*)\]\s*$/', $line, $m)) {
            $out[] = render_image(shortcode_attrs($m[1]));
            $i++;
            continue;
        }
        // A plain block: consecutive non-blank lines.
        $block = [];
        for (; $i < $n && trim($lines[$i]) !== '' && !str_starts_with($lines[$i], '```'); $i++) {
            $block[] = $lines[$i];
        }
        $out[] = render_block($block);
    }
    return implode("\n", $out);
}

/** A block of lines: list, quote or paragraph. */
function render_block(array $block): string
{
    $all = static fn(string $re) => count(preg_grep($re, $block)) === count($block);
    if ($all('/^- /')) {
        return "<ul>\n" . implode("\n", array_map(
            static fn($l) => '<li>' . format_inline(substr($l, 2)) . '</li>', $block)) . "\n</ul>";
    }
    if ($all('/^\d+\. /')) {
        return "<ol>\n" . implode("\n", array_map(
            static fn($l) => '<li>' . format_inline(preg_replace('/^\d+\. /', '', $l)) . '</li>', $block)) . "\n</ol>";
    }
    if ($all('/^>/')) {
        $inner = implode("\n", array_map(static fn($l) => preg_replace('/^> ?/', '', $l), $block));
        return "<blockquote>\n" . render_markup($inner) . "\n</blockquote>";
    }
    return '<p>' . implode("<br>\n", array_map('format_inline', $block)) . '</p>';
}

/** Plain-text comment to HTML: paragraphs, line breaks, nofollow links. */
function render_comment(string $text): string
{
    $paras = preg_split('/\n\s*\n/', trim(str_replace("\r", '', $text)));
    $html = [];
    foreach ($paras as $p) {
        $lines = array_map(static fn($l) => format_inline($l, true), explode("\n", $p));
        $html[] = '<p>' . implode("<br>\n", $lines) . '</p>';
    }
    return implode("\n", $html);
}

/**
 * Excerpt as WordPress builds it: render the body without shortcodes,
 * strip the tags and keep the first 55 words, plus " […]".
 */
function post_excerpt(string $body, int $words = 55): string
{
    $body = preg_replace('/^\[image\s[^\]]*\]\s*$/m', '', $body);
    $text = trim(preg_replace('/\s+/', ' ', strip_tags(render_markup($body))));
    $parts = explode(' ', $text);
    if (count($parts) <= $words) {
        return $text;
    }
    return implode(' ', array_slice($parts, 0, $words)) . ' [&hellip;]';
}

/** "March 5, 2025" */
function format_date(string $datetime): string
{
    return date('F j, Y', strtotime($datetime . ' UTC'));
}

/** RFC 2822 date for RSS. */
function format_rfc2822(string $datetime): string
{
    return gmdate('D, d M Y H:i:s', strtotime($datetime . ' UTC')) . ' +0000';
}

/** "March 2025" from "2025-03". */
function format_month(string $month): string
{
    return date('F Y', strtotime($month . '-01 UTC'));
}
