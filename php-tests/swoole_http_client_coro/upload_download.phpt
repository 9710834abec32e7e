--TEST--
swoole_http_client_coro: addFile/addData multipart upload with fields, download() to a file and with an offset
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$dir = rsw_tmpdir();
$src = "$dir/src.txt";
file_put_contents($src, str_repeat("0123456789", 10000));
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    if ($req->server['request_uri'] === '/file') {
        $resp->end(str_repeat('D', 50000));
        return;
    }
    $files = [];
    foreach ($req->files ?? [] as $k => $f) {
        $files[$k] = [$f['name'], $f['type'], $f['size'], md5_file($f['tmp_name'])];
    }
    $resp->end(json_encode(['post' => $req->post, 'files' => $files]));
}), function (int $port) use ($src, $dir) {
    Co\run(function () use ($port, $src, $dir) {
        $c = new Co\Http\Client('127.0.0.1', $port);
        var_dump($c->addFile($src, 'whole'));
        var_dump($c->addFile($src, 'part', 'text/x-part', 'p.txt', 10, 25));
        var_dump($c->addData('in memory', 'mem', 'text/plain', 'm.txt'));
        var_dump(count($c->uploadFiles));
        $c->setData(['field' => 'value']);
        var_dump($c->post('/up', ['field' => 'value']));
        $r = json_decode($c->body, true);
        var_dump($r['post']);
        var_dump($r['files']['whole'] === ['src.txt', 'text/plain', 100000, md5_file($src)]);
        var_dump($r['files']['part'] === ['p.txt', 'text/x-part', 25, md5(substr(file_get_contents($src), 10, 25))]);
        var_dump($r['files']['mem'] === ['m.txt', 'text/plain', 9, md5('in memory')]);
        var_dump($c->uploadFiles);
        // Misuse is a warning and false.
        var_dump(@$c->addFile("$dir/none", 'x'), @$c->addFile($src, 'x', '', '', 200000));

        $c->setData(null);
        $out = "$dir/out.bin";
        var_dump($c->download('/file', $out), $c->statusCode, $c->body, filesize($out), file_get_contents($out) === str_repeat('D', 50000));
        var_dump($c->downloadFile, $c->downloadOffset);
        file_put_contents($out, 'HEAD');
        clearstatcache();
        var_dump($c->download('/file', $out, 4), clearstatcache(), filesize($out), substr(file_get_contents($out), 0, 6));
    });
});
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
int(3)
bool(true)
array(1) {
  ["field"]=>
  string(5) "value"
}
bool(true)
bool(true)
bool(true)
NULL
bool(false)
bool(false)
bool(true)
int(200)
string(0) ""
int(50000)
bool(true)
NULL
int(0)
bool(true)
NULL
int(50004)
string(6) "HEADDD"
