<?php
/**
 * Minimal PNG writer (no GD needed): truecolour RGB, filter 0 on every
 * scanline, zlib-compressed IDAT. Used by bin/make-images.php and by
 * bin/seed.php for the media files. Output is deterministic.
 */

if (!defined('WIKI_ENTRY')) {
    http_response_code(404);
    exit;
}

/** One PNG chunk: length, type, data, CRC over type+data. */
function png_chunk(string $type, string $data): string
{
    return pack('N', strlen($data)) . $type . $data . pack('N', crc32($type . $data));
}

/**
 * Build a PNG. $pixel($x, $y) returns [r, g, b] with 0..255 values.
 */
function png_rgb(int $w, int $h, callable $pixel): string
{
    $raw = '';
    for ($y = 0; $y < $h; $y++) {
        $raw .= "\0";                                   // filter: none
        for ($x = 0; $x < $w; $x++) {
            [$r, $g, $b] = $pixel($x, $y);
            $raw .= chr($r & 255) . chr($g & 255) . chr($b & 255);
        }
    }
    return "\x89PNG\r\n\x1a\n"
        . png_chunk('IHDR', pack('NNCCCCC', $w, $h, 8, 2, 0, 0, 0))
        . png_chunk('IDAT', gzcompress($raw, 9))
        . png_chunk('IEND', '');
}

/** An ICO file holding one PNG image (valid since Windows Vista). */
function ico_from_png(string $png, int $w, int $h): string
{
    return pack('vvv', 0, 1, 1)
        . pack('CCCCvvVV', $w >= 256 ? 0 : $w, $h >= 256 ? 0 : $h, 0, 0, 1, 32, strlen($png), 22)
        . $png;
}

/**
 * A recognisable picture: a diagonal gradient between two colours with
 * a centred disc, so each generated image looks a bit different.
 */
function png_picture(int $w, int $h, array $c1, array $c2, array $disc): string
{
    $cx = ($w - 1) / 2;
    $cy = ($h - 1) / 2;
    $rad2 = (min($w, $h) * 0.32) ** 2;
    return png_rgb($w, $h, function ($x, $y) use ($w, $h, $c1, $c2, $disc, $cx, $cy, $rad2) {
        if (($x - $cx) ** 2 + ($y - $cy) ** 2 <= $rad2) {
            return $disc;
        }
        $t = ($x + $y) / max(1, $w + $h - 2);
        return [
            (int) round($c1[0] + ($c2[0] - $c1[0]) * $t),
            (int) round($c1[1] + ($c2[1] - $c1[1]) * $t),
            (int) round($c1[2] + ($c2[2] - $c1[2]) * $t),
        ];
    });
}
