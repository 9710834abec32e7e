--TEST--
swoole_function: swoole_mime_type_* add, set, delete, get, exists, list
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
var_dump(swoole_mime_type_get('/var/www/INDEX.HTML'));
var_dump(swoole_get_mime_type('a.tar.gz'));
var_dump(swoole_mime_type_get('/x.y/readme'));
var_dump(swoole_mime_type_exists('html'), swoole_mime_type_exists('f.rsw'));
var_dump(swoole_mime_type_add('rsw', 'x/one'), swoole_mime_type_add('rsw', 'x/two'));
var_dump(swoole_mime_type_get('f.rsw'));
swoole_mime_type_set('rsw', 'x/three');
var_dump(swoole_mime_type_get('f.RSW'), in_array('x/three', swoole_mime_type_list(), true));
var_dump(swoole_mime_type_delete('rsw'), swoole_mime_type_delete('rsw'), swoole_mime_type_get('f.rsw'));
?>
--EXPECT--
string(9) "text/html"
string(16) "application/gzip"
string(24) "application/octet-stream"
bool(true)
bool(false)
bool(true)
bool(false)
string(5) "x/one"
string(7) "x/three"
bool(true)
bool(true)
bool(false)
string(24) "application/octet-stream"
