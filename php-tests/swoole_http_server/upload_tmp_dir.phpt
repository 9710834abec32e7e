--TEST--
swoole_http_server: uploaded files are stored under upload_tmp_dir
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The handler reports the tmp_name's directory and that the file exists there during the request.
require __DIR__ . '/../include/bootstrap.php';
$dir = rsw_tmpdir('rsw_upload_');
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $f = $req->files['f'];
    $resp->end(json_encode(['dir' => dirname($f['tmp_name']), 'exists' => is_file($f['tmp_name']), 'content' => file_get_contents($f['tmp_name'])]));
}, ['upload_tmp_dir' => $dir]), function ($port) use ($dir) {
    $b = 'rswB' . bin2hex(random_bytes(4));
    $body = "--$b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\nContent-Type: text/plain\r\n\r\nuploaded!\r\n--$b--\r\n";
    $r = rsw_request($port, 'POST', '/', ['Content-Type' => "multipart/form-data; boundary=$b"], $body);
    $j = json_decode($r['body'], true);
    var_dump($r['status'], realpath($j['dir']) === realpath($dir), $j['exists'], $j['content']);
});
?>
--EXPECT--
int(200)
bool(true)
bool(true)
string(9) "uploaded!"
