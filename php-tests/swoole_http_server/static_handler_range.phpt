--TEST--
swoole_http_server: the static handler answers Range with 206 (one range), multipart/byteranges (several), 416 (malformed); If-Range with another date gives the whole file
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$root = rsw_tmpdir();
$data = '';
for ($i = 0; $i < 100; $i++) {
    $data .= chr(ord('a') + $i % 26);
}
file_put_contents("$root/f.txt", $data);
$mtime = time() - 3600;
touch("$root/f.txt", $mtime);
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('dynamic');
}, ['document_root' => $root, 'enable_static_handler' => true]), function ($port) use ($data, $mtime) {
    $get = fn (array $h, string $m = 'GET') => rsw_request($port, $m, '/f.txt', $h);
    $r = $get([]);
    echo "plain: {$r['status']} ", rsw_header($r, 'accept-ranges'), ' ', strlen($r['body']), "\n";
    foreach (['bytes=0-15', 'bytes=90-', 'bytes=-5', 'bytes=95-1000', 'bytes=-1000', 'bytes= 10 - 11 '] as $range) {
        $r = $get(['Range' => $range]);
        echo "$range: {$r['status']} ", rsw_header($r, 'content-range'), ' [', $r['body'], '] ',
            var_export(rsw_header($r, 'accept-ranges'), true), "\n";
    }
    foreach (['bytes=abc', 'bytes=999', 'bytes=1-2x', 'bytes=99999999999999999999999-'] as $range) {
        $r = $get(['Range' => $range]);
        echo "$range: {$r['status']} [", $r['body'], "]\n";
    }
    // Overlapping ranges asking for more than the file (an amplification
    // trick) get the whole file (rswoole; Swoole answers them part by part).
    foreach (['items=0-1', 'bytes=200-300', 'bytes=0-,0-,0-'] as $range) {
        $r = $get(['Range' => $range]);
        echo "$range: {$r['status']} ", strlen($r['body']), "\n";
    }
    $r = $get(['Range' => 'bytes=0-1,-2']);
    preg_match('/^multipart\/byteranges; boundary=(\S+)$/', rsw_header($r, 'content-type'), $m);
    $b = $m[1];
    echo "multi: {$r['status']} ", strlen($b), ' ', var_export(rsw_header($r, 'content-range'), true), "\n";
    $want = "--$b\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-1/100\r\n\r\nab"
        . "\r\n--$b\r\nContent-Type: text/plain\r\nContent-Range: bytes 98-99/100\r\n\r\nuv"
        . "\r\n--$b--\r\n";
    var_dump($r['body'] === $want, (int) rsw_header($r, 'content-length') === strlen($want));

    $lm = gmdate('D, d M Y H:i:s', $mtime) . ' GMT';
    $r = $get(['Range' => 'bytes=0-3', 'If-Range' => $lm]);
    echo "if-range same: {$r['status']} {$r['body']}\n";
    $r = $get(['Range' => 'bytes=0-3', 'If-Range' => gmdate('D, d M Y H:i:s', $mtime - 1) . ' GMT']);
    echo "if-range older: {$r['status']} ", strlen($r['body']), "\n";
    $r = $get(['Range' => 'bytes=0-3', 'If-Range' => '"some-etag"']);
    echo "if-range etag: {$r['status']} {$r['body']}\n";
    $r = $get(['Range' => 'bytes=0-3'], 'HEAD');
    echo "head: {$r['status']} ", rsw_header($r, 'content-range'), " [{$r['body']}]\n";
});
?>
--EXPECT--
plain: 200 bytes 100
bytes=0-15: 206 bytes 0-15/100 [abcdefghijklmnop] NULL
bytes=90-: 206 bytes 90-99/100 [mnopqrstuv] NULL
bytes=-5: 206 bytes 95-99/100 [rstuv] NULL
bytes=95-1000: 206 bytes 95-99/100 [rstuv] NULL
bytes=-1000: 206 bytes 0-99/100 [abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv] NULL
bytes= 10 - 11 : 206 bytes 10-11/100 [kl] NULL
bytes=abc: 416 []
bytes=999: 416 []
bytes=1-2x: 416 []
bytes=99999999999999999999999-: 416 []
items=0-1: 200 100
bytes=200-300: 200 100
bytes=0-,0-,0-: 200 100
multi: 206 38 NULL
bool(true)
bool(true)
if-range same: 206 abcd
if-range older: 200 100
if-range etag: 206 abcd
head: 206 bytes 0-3/100 []
