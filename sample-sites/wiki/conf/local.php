<?php
/**
 * Local configuration, included by inc/init.php. Defaults are listed
 * there; only what differs needs setting here.
 */
if (!defined('WIKI_ENTRY')) {
    http_response_code(404);
    exit;
}

$conf['title']      = 'cgisnap sample wiki';
$conf['tagline']    = 'Flat-file documentation, DokuWiki style';
$conf['start']      = 'start';
$conf['indexdelay'] = 5 * 86400;
$conf['recent']     = 50;
$conf['timezone']   = 'UTC';
// Where PHP keeps session files; '' leaves PHP's session.save_path alone.
$conf['sessiondir'] = '';
