--TEST--
swoole_http_server: upload_max_filesize lets a multipart body exceed package_max_length (by up to that much); other bodies keep the package_max_length bound (413)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $f = $req->files['file'] ?? null;
    $resp->end($f ? $f['size'] . ':' . md5_file($f['tmp_name']) . ':' . $req->post['name'] : 'len:' . strlen($req->rawContent()));
}, ['package_max_length' => 64 * 1024, 'upload_max_filesize' => '256K']), function ($port) {
    $multipart = function (string $data): array {
        $b = 'rswBoundary42';
        $body = "--$b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nvalue\r\n"
            . "--$b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.bin\"\r\n"
            . "Content-Type: application/octet-stream\r\n\r\n$data\r\n--$b--\r\n";
        return [['Content-Type' => "multipart/form-data; boundary=$b"], $body];
    };
    $data = str_repeat('0123456789abcdef', 12 * 1024); // 192 KiB
    [$h, $body] = $multipart($data);
    $r = rsw_request($port, 'POST', '/', $h, $body);
    echo $r['status'], ' ', $r['body'] === strlen($data) . ':' . md5($data) . ':value' ? 'file ok' : $r['body'], "\n";
    $r = rsw_request($port, 'POST', '/', ['Content-Type' => 'application/octet-stream'], $data);
    echo $r['status'], "\n";
    [$h, $body] = $multipart(str_repeat('x', 330 * 1024));
    $r = rsw_request($port, 'POST', '/', $h, $body);
    echo $r['status'] ?? 'closed', "\n";
});
?>
--EXPECT--
200 file ok
413
413
