<?php
/**
 * A small DokuWiki-style markup parser and XHTML renderer.
 *
 * Block level (line based):
 *   ====== H1 ======  ...  == H5 ==      headings (6 '=' is the biggest)
 *     * item / - item                    lists; two spaces per level
 *   ^ head ^ head ^  /  | a | b |        tables
 *   <code [lang]> ... </code>            code blocks (also <file>)
 *   ----                                 horizontal rule
 *   blank line                           ends a paragraph
 * Inline:
 *   **bold** //italic// __underline__ ''monospace'' \\ (line break)
 *   [[ns:page]] [[ns:page#sect|text]] [[.:sibling]] [[http://x|text]]
 *   {{ns:image.png?200|caption}}  bare http(s):// URLs  %%no markup%%
 *
 * Everything the author typed is HTML-escaped; markup only ever produces
 * tags this file writes itself.
 */

if (!defined('WIKI_ENTRY')) {
    http_response_code(404);
    exit;
}

class WikiRenderer
{
    /** @var string id of the page being rendered */
    private $id;
    /** @var string its namespace, base of relative links */
    private $ns;
    /** @var array list of [level, title, anchor] for the TOC */
    public $headings = [];
    /** @var array page ids this page links to (resolved) */
    public $links = [];
    /** @var array anchors already used on this page */
    private $anchors = [];
    /** @var array placeholder => html, see inline() */
    private $held = [];

    public function __construct(string $id)
    {
        $this->id = $id;
        $this->ns = get_ns($id);
    }

    /** Render a whole page source to XHTML. */
    public function render(string $text): string
    {
        $lines = explode("\n", str_replace(["\r\n", "\r"], "\n", $text));
        $out = [];
        $para = [];       // pending paragraph lines
        $items = [];      // pending list items [depth, type, text]
        $rows = [];       // pending table rows
        $code = null;     // [lang, lines] while inside a code block

        $flush = function () use (&$out, &$para, &$items, &$rows) {
            if ($para) {
                $out[] = '<p>' . $this->inline(implode("\n", $para)) . "</p>\n";
                $para = [];
            }
            if ($items) {
                $i = 0;
                $out[] = $this->renderList($items, $i, $items[0][0]);
                $items = [];
            }
            if ($rows) {
                $out[] = $this->renderTable($rows);
                $rows = [];
            }
        };

        foreach ($lines as $line) {
            if ($code !== null) {
                $end = strpos($line, '</' . $code[0] . '>');
                if ($end === false) {
                    $code[2][] = $line;
                    continue;
                }
                $code[2][] = substr($line, 0, $end);
                $out[] = $this->renderCode($code[1], $code[2]);
                $line = (string) substr($line, $end + 3 + strlen($code[0]));
                $code = null;
                if (trim($line) === '') {
                    continue;
                }
            }
            if (preg_match('/^\s*<(code|file)(?:\s+([A-Za-z0-9_+\-]+))?[^>]*>(.*)$/', $line, $m)) {
                $flush();
                $tag = $m[1];
                $rest = $m[3];
                $end = strpos($rest, '</' . $tag . '>');
                if ($end !== false) {       // one-line block
                    $out[] = $this->renderCode($m[2] ?? '', [substr($rest, 0, $end)]);
                    continue;
                }
                $code = [$tag, $m[2] ?? '', $rest === '' ? [] : [$rest]];
                continue;
            }
            if (trim($line) === '') {
                $flush();
                continue;
            }
            if (preg_match('/^\s*(={2,6})(.+?)={2,6}\s*$/', $line, $m)) {
                $flush();
                // Like DokuWiki, a section's content sits in <div class="levelN">.
                if ($this->headings) {
                    $out[] = "</div>\n";
                }
                $out[] = $this->renderHeading(7 - strlen($m[1]), trim($m[2]));
                continue;
            }
            if (preg_match('/^-{4,}\s*$/', $line)) {
                $flush();
                $out[] = "<hr>\n";
                continue;
            }
            if (preg_match('/^( {2,}|\t+)([*\-])\s?(.*)$/', $line, $m)) {
                if ($para || $rows) {
                    $flush();
                }
                // Two spaces or one tab per level, first level is depth 1.
                $indent = $m[1][0] === "\t" ? strlen($m[1]) * 2 : strlen($m[1]);
                $items[] = [intdiv($indent, 2), $m[2] === '*' ? 'ul' : 'ol', $m[3]];
                continue;
            }
            if ($line[0] === '^' || $line[0] === '|') {
                if ($para || $items) {
                    $flush();
                }
                $rows[] = rtrim($line);
                continue;
            }
            if ($items || $rows) {
                $flush();
            }
            $para[] = $line;
        }
        if ($code !== null) {               // unterminated block: keep text
            $out[] = $this->renderCode($code[1], $code[2]);
        }
        $flush();
        if ($this->headings) {
            $out[] = "</div>\n";
        }
        return implode('', $out);
    }

    /** Table of contents, DokuWiki style, when the page has 3+ headings. */
    public function toc(): string
    {
        $hs = array_filter($this->headings, function ($h) {
            return $h[0] <= 3;
        });
        if (count($hs) < 3) {
            return '';
        }
        $html = "<div id=\"dw__toc\" class=\"toc\">\n<h3 class=\"toggle\">Table of Contents</h3>\n<div>\n<ul class=\"toc\">\n";
        foreach ($hs as $h) {
            $html .= '<li class="level' . $h[0] . '"><div class="li"><a href="#' . $h[2] . '">'
                . hsc($h[1]) . "</a></div></li>\n";
        }
        return $html . "</ul>\n</div>\n</div>\n";
    }

    private function renderHeading(int $level, string $title): string
    {
        $anchor = $this->anchor($title);
        $this->headings[] = [$level, $title, $anchor];
        return "<h$level class=\"sectionedit" . count($this->headings) . "\" id=\"$anchor\">"
            . hsc($title) . "</h$level>\n<div class=\"level$level\">\n";
    }

    /** Unique section id derived from a heading, as DokuWiki's sectionID(). */
    private function anchor(string $title): string
    {
        $a = strtolower($title);
        $a = preg_replace('/[^a-z0-9]+/', '_', $a);
        $a = trim($a, '_');
        if ($a === '' || ctype_digit($a[0])) {
            $a = 'section' . $a;
        }
        $base = $a;
        $n = 0;
        while (isset($this->anchors[$a])) {
            $a = $base . (++$n);
        }
        $this->anchors[$a] = true;
        return $a;
    }

    private function renderCode(string $lang, array $lines): string
    {
        $class = 'code' . ($lang !== '' ? ' ' . hsc(strtolower($lang)) : '');
        // Drop the empty first/last line that "<code>\n...\n</code>" leaves.
        while ($lines && trim($lines[0]) === '') {
            array_shift($lines);
        }
        while ($lines && trim(end($lines)) === '') {
            array_pop($lines);
        }
        return "<pre class=\"$class\">" . hsc(implode("\n", $lines)) . "</pre>\n";
    }

    /**
     * Render list items starting at $i with nesting depth $depth. Items
     * deeper than their predecessor become a nested list inside its <li>;
     * a change of list type at the same depth starts a new list.
     */
    private function renderList(array $items, int &$i, int $depth): string
    {
        $html = '';
        $n = count($items);
        while ($i < $n && $items[$i][0] >= $depth) {
            $type = $items[$i][1];
            $html .= "<$type>\n";
            while ($i < $n && $items[$i][0] >= $depth && $items[$i][1] === $type) {
                if ($items[$i][0] > $depth) {        // deeper than expected
                    $html .= '<li class="level' . $depth . ' node">'
                        . $this->renderList($items, $i, $items[$i][0]) . "</li>\n";
                    continue;
                }
                $html .= '<li class="level' . $depth . '"><div class="li">'
                    . $this->inline($items[$i][2]) . '</div>';
                $i++;
                while ($i < $n && $items[$i][0] > $depth) {
                    $html .= "\n" . $this->renderList($items, $i, $items[$i][0]);
                }
                $html .= "</li>\n";
            }
            $html .= "</$type>\n";
        }
        return $html;
    }

    private function renderTable(array $rows): string
    {
        $cells = array_map([$this, 'splitRow'], $rows);
        // Leading rows made only of header cells form the <thead>, unless
        // that would be the whole table.
        $head = 0;
        foreach ($cells as $row) {
            if (!$row || array_filter($row, function ($c) {
                return $c[0] !== 'th';
            })) {
                break;
            }
            $head++;
        }
        if ($head === count($cells)) {
            $head = 0;
        }
        $html = "<div class=\"table\"><table class=\"inline\">\n";
        foreach ($cells as $r => $row) {
            if ($head && $r === 0) {
                $html .= "<thead>\n";
            }
            $html .= '<tr class="row' . $r . '">';
            foreach ($row as $col => $c) {
                $html .= '<' . $c[0] . ' class="col' . $col . '">' . $this->inline(trim($c[1]))
                    . '</' . $c[0] . '>';
            }
            $html .= "</tr>\n";
            if ($head && $r === $head - 1) {
                $html .= "</thead>\n";
            }
        }
        return $html . "</table></div>\n";
    }

    /**
     * Split a table row into [tag, text] cells. '^' starts a header cell,
     * '|' a data cell; separators inside [[...]] and {{...}} do not count.
     */
    private function splitRow(string $row): array
    {
        $parts = preg_split('/(\[\[.*?\]\]|\{\{.*?\}\}|[\^|])/', $row, -1,
            PREG_SPLIT_DELIM_CAPTURE | PREG_SPLIT_NO_EMPTY);
        $cells = [];
        $cur = null;
        foreach ($parts as $p) {
            if ($p === '^' || $p === '|') {
                if ($cur !== null) {
                    $cells[] = $cur;
                }
                $cur = [$p === '^' ? 'th' : 'td', ''];
            } elseif ($cur !== null) {
                $cur[1] .= $p;
            }
        }
        // The text after the closing separator is not a cell.
        if ($cur !== null && trim($cur[1]) !== '') {
            $cells[] = $cur;
        }
        return $cells;
    }

    /**
     * Inline markup. Links, media, URLs and %%nowiki%% are cut out first
     * and replaced by placeholders (so '//' in a URL is not italics), the
     * rest is escaped, formatting applied, then placeholders restored.
     */
    public function inline(string $text): string
    {
        $text = preg_replace_callback(
            '/%%(.*?)%%|\[\[(.+?)\]\]|\{\{(.+?)\}\}|\b((?:https?|ftp):\/\/[^\s<>"\[\]{}|]*[A-Za-z0-9\/#=&_\-])/s',
            function ($m) {
                if (isset($m[4]) && $m[4] !== '') {
                    $html = $this->externalLink($m[4], $m[4]);
                } elseif (isset($m[3]) && $m[3] !== '') {
                    $html = $this->media($m[3]);
                } elseif (isset($m[2]) && $m[2] !== '') {
                    $html = $this->link($m[2]);
                } else {
                    $html = hsc($m[1]);
                }
                return $this->hold($html);
            },
            $text
        );
        $text = htmlspecialchars($text, ENT_NOQUOTES | ENT_SUBSTITUTE | ENT_HTML5, 'UTF-8');
        $text = preg_replace('/\*\*(.+?)\*\*/s', '<strong>$1</strong>', $text);
        $text = preg_replace('#//(.+?)//#s', '<em>$1</em>', $text);
        $text = preg_replace('/__(.+?)__/s', '<em class="u">$1</em>', $text);
        $text = preg_replace("/''(.+?)''/s", '<code>$1</code>', $text);
        $text = preg_replace('/\\\\\\\\(?=\s|$)/', '<br>', $text);
        $text = strtr($text, $this->held);
        $this->held = [];
        return $text;
    }

    /** Keep a ready HTML fragment out of the formatting passes. */
    private function hold(string $html): string
    {
        $key = "\x02" . count($this->held) . "\x03";
        $this->held[$key] = $html;
        return $key;
    }

    /** [[target|text]]: internal page link or external URL. */
    private function link(string $inner): string
    {
        $bar = strpos($inner, '|');
        $target = trim($bar === false ? $inner : substr($inner, 0, $bar));
        $title = $bar === false ? null : trim(substr($inner, $bar + 1));

        if (preg_match('#^(?:https?|ftp)://#i', $target)) {
            return $this->externalLink($target, $title ?? $target);
        }
        if (preg_match('/^mailto:|^[\w.+\-]+@[\w\-]+\.[\w.\-]+$/i', $target)) {
            $addr = preg_replace('/^mailto:/i', '', $target);
            return '<a href="mailto:' . hsc($addr) . '" class="mail" title="' . hsc($addr) . '">'
                . hsc($title ?? $addr) . '</a>';
        }

        $hash = '';
        if (($p = strpos($target, '#')) !== false) {
            $hash = $this->anchorOf(substr($target, $p + 1));
            $target = substr($target, 0, $p);
        }
        if ($target === '') {                  // [[#section]] on this page
            return '<a href="#' . $hash . '" class="wikilink1" title="' . hsc($this->id) . '">'
                . hsc($title ?? $hash) . '</a>';
        }
        $id = resolve_id($this->ns, $target);
        if ($id === '') {
            return hsc('[[' . $inner . ']]');
        }
        $this->links[$id] = true;
        $text = $title ?? ($hash !== '' ? $hash : $this->simpleTitle($id));
        $href = wl($id) . ($hash !== '' ? '#' . $hash : '');
        if (page_exists($id)) {
            return '<a href="' . $href . '" class="wikilink1" title="' . hsc($id)
                . '" data-wiki-id="' . hsc($id) . '">' . hsc($text) . '</a>';
        }
        // Missing pages: DokuWiki marks them and tells robots to stay away.
        return '<a href="' . $href . '" class="wikilink2" title="' . hsc($id)
            . '" rel="nofollow" data-wiki-id="' . hsc($id) . '">' . hsc($text) . '</a>';
    }

    /**
     * Default link text, as DokuWiki's noNSorNS(): the page's name, or
     * for a namespace start page the namespace's name.
     */
    private function simpleTitle(string $id): string
    {
        global $conf;
        $name = no_ns($id);
        $ns = get_ns($id);
        return $name === $conf['start'] && $ns !== '' ? no_ns($ns) : $name;
    }

    private function anchorOf(string $s): string
    {
        return trim(preg_replace('/[^a-z0-9]+/', '_', strtolower($s)), '_');
    }

    /** External links get DokuWiki's default rel="ugc nofollow". */
    private function externalLink(string $url, string $text): string
    {
        return '<a href="' . hsc($url) . '" class="urlextern" title="' . hsc($url)
            . '" rel="ugc nofollow">' . hsc($text) . '</a>';
    }

    /**
     * {{ns:file.png?200|caption}}: images from data/media are embedded
     * through lib/exe/fetch.php and link to the full image.
     */
    private function media(string $inner): string
    {
        $bar = strpos($inner, '|');
        $src = $bar === false ? $inner : substr($inner, 0, $bar);
        $caption = $bar === false ? '' : trim(substr($inner, $bar + 1));
        $align = '';
        if (substr($src, 0, 1) === ' ' && substr($src, -1) === ' ') {
            $align = ' mediacenter';
        } elseif (substr($src, -1) === ' ') {
            $align = ' medialeft';
        } elseif (substr($src, 0, 1) === ' ') {
            $align = ' mediaright';
        }
        $src = trim($src);
        $width = $height = 0;
        if (($q = strpos($src, '?')) !== false) {
            if (preg_match('/^(\d+)(?:x(\d+))?/', substr($src, $q + 1), $m)) {
                $width = (int) $m[1];
                $height = (int) ($m[2] ?? 0);
            }
            $src = substr($src, 0, $q);
        }
        if (preg_match('#^https?://#i', $src)) {
            // Remote images are not embedded (privacy); link to them.
            return $this->externalLink($src, $caption !== '' ? $caption : $src);
        }
        $mid = resolve_id($this->ns, $src, true);
        $url = wiki_base() . 'lib/exe/fetch.php?media=' . id_urlencode($mid);
        if ($mid === '' || !is_file(media_fn($mid))) {
            return '<span class="medialink missing" title="' . hsc($mid) . '">'
                . hsc($caption !== '' ? $caption : $mid) . '</span>';
        }
        if (!preg_match('/\.(png|gif|jpe?g|webp|svg)$/', $mid)) {
            return '<a href="' . $url . '" class="media mediafile" title="' . hsc($mid) . '">'
                . hsc($caption !== '' ? $caption : no_ns($mid)) . '</a>';
        }
        $img = '<img src="' . $url . '" class="media' . $align . '" alt="'
            . hsc($caption) . '"' . ($caption !== '' ? ' title="' . hsc($caption) . '"' : '')
            . ($width ? ' width="' . $width . '"' : '') . ($height ? ' height="' . $height . '"' : '')
            . '>';
        return '<a href="' . $url . '" class="media" title="' . hsc($mid) . '">' . $img . '</a>';
    }
}
