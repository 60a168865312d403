<?php
/**
 * "/" is the start page: servers that use index.php as the directory
 * index (php -S, Apache, nginx configs) land here.
 */
require __DIR__ . '/doku.php';
