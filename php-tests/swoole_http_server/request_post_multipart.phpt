--TEST--
swoole_http_server: multipart/form-data fills post and files; the upload is readable in the handler and removed afterwards
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Sends a field and a binary file; the handler reports files[name,type,tmp_name,error,size] and the file's md5.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $f = $req->files['upload'] ?? null;
    $resp->end(json_encode([
        'post' => $req->post,
        'file' => $f,
        'md5' => $f ? md5_file($f['tmp_name']) : null,
        'exists' => $f ? is_file($f['tmp_name']) : false,
    ]));
}), function ($port) {
    $content = random_bytes(3000) . "\0\r\n--not-a-boundary\r\n" . str_repeat('z', 100);
    $b = '----rswBoundary' . bin2hex(random_bytes(6));
    $body = "--$b\r\nContent-Disposition: form-data; name=\"field\"\r\n\r\nvalue 1\r\n"
        . "--$b\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"data.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        . $content . "\r\n--$b--\r\n";
    $r = rsw_request($port, 'POST', '/up', ['Content-Type' => "multipart/form-data; boundary=$b"], $body);
    var_dump($r['status']);
    $j = json_decode($r['body'], true);
    var_dump($j['post']);
    $f = $j['file'];
    var_dump($f['name'], $f['type'], $f['error'], $f['size'] === strlen($content));
    var_dump($j['md5'] === md5($content), $j['exists']);
    var_dump(is_string($f['tmp_name']) && $f['tmp_name'] !== '');
    rsw_check('tmp file removed after the request', rsw_wait_until(fn() => !file_exists($f['tmp_name']), 2), $f['tmp_name']);
});
?>
--EXPECT--
int(200)
array(1) {
  ["field"]=>
  string(7) "value 1"
}
string(8) "data.bin"
string(24) "application/octet-stream"
int(0)
bool(true)
bool(true)
bool(true)
bool(true)
tmp file removed after the request: OK
