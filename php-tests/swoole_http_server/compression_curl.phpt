--TEST--
swoole_http_server: curl --compressed receives a gzip body and decodes it to the original
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
if (trim((string) shell_exec('command -v curl')) === '') die('skip curl binary not found');
?>
--FILE--
<?php
// A real client negotiates compression; -w reports the bytes on the wire, which must be fewer than the text.
require __DIR__ . '/../include/bootstrap.php';
$text = str_repeat("lorem ipsum dolor sit amet ", 400);
rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($text) {
    $resp->end($text);
}, ['http_compression' => true]), function ($port) use ($text) {
    $dir = rsw_tmpdir();
    $r = rsw_curl(['--compressed', '-D', "$dir/headers", '-o', "$dir/body", '-w', '%{size_download}', "http://127.0.0.1:$port/"]);
    var_dump($r['code']);
    var_dump(file_get_contents("$dir/body") === $text);
    var_dump((int) $r['out'] < strlen($text));
    var_dump(preg_match('/^content-encoding:\s*(gzip|deflate|br)\s*$/mi', file_get_contents("$dir/headers")) === 1);
});
?>
--EXPECT--
int(0)
bool(true)
bool(true)
bool(true)
