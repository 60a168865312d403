<?php
/**
 * Regenerates the committed static images under lib/images/ (logo,
 * favicon, list bullet). Run once after changing the drawing code:
 *     php bin/make-images.php
 */
define('WIKI_ENTRY', 1);
require __DIR__ . '/../inc/png.php';

$dir = dirname(__DIR__) . '/lib/images';
@mkdir($dir, 0777, true);
file_put_contents("$dir/logo.png", png_picture(64, 64, [34, 85, 136], [120, 170, 210], [245, 245, 240]));
file_put_contents("$dir/favicon.ico", ico_from_png(png_picture(16, 16, [34, 85, 136], [120, 170, 210], [245, 245, 240]), 16, 16));
file_put_contents("$dir/bullet.png", png_rgb(5, 5, function ($x, $y) {
    return ($x - 2) ** 2 + ($y - 2) ** 2 <= 4 ? [34, 85, 136] : [245, 245, 240];
}));
echo "wrote logo.png, favicon.ico, bullet.png in $dir\n";
