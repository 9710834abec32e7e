--TEST--
swoole_http_server: a multipart upload made by the curl binary arrives in files and post
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
if (!is_executable('/usr/bin/curl') && trim((string) shell_exec('command -v curl')) === '') die('skip curl binary not found');
?>
--FILE--
<?php
// A real client (curl -F) uploads a 100 KB file and a field; the handler answers with what it received.
require __DIR__ . '/../include/bootstrap.php';
$dir = rsw_tmpdir();
$data = random_bytes(100 * 1024);
file_put_contents("$dir/photo.jpg", $data);
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $f = $req->files['file'] ?? [];
    $resp->end(json_encode(['name' => $f['name'] ?? null, 'size' => $f['size'] ?? null, 'error' => $f['error'] ?? null,
        'md5' => isset($f['tmp_name']) ? md5_file($f['tmp_name']) : null, 'field' => $req->post['field'] ?? null]));
}), function ($port) use ($dir, $data) {
    $r = rsw_curl(['-F', "file=@$dir/photo.jpg", '-F', 'field=hello curl', "http://127.0.0.1:$port/upload"]);
    var_dump($r['code']);
    $j = json_decode($r['out'], true);
    var_dump($j['name'], $j['size'] === strlen($data), $j['error'], $j['md5'] === md5($data), $j['field']);
});
?>
--EXPECT--
int(0)
string(9) "photo.jpg"
bool(true)
int(0)
bool(true)
string(10) "hello curl"
