--TEST--
swoole_server: max_concurrency: past the server-wide limit a request is answered 503 and its connection closed; the ones in flight still get 200, and after they finish requests are served again (BASE and PROCESS, 2 workers)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

/** Opens $n connections, writes one GET on each, returns the sockets. */
function open_requests(int $port, int $n, string $path = '/'): array
{
    $socks = [];
    for ($i = 0; $i < $n; $i++) {
        $s = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 2);
        fwrite($s, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n");
        stream_set_blocking($s, false);
        $socks[] = $s;
    }
    return $socks;
}

/** Reads each socket until it has a complete response (Content-Length) or the peer closed: [status, closed]. */
function read_responses(array $socks, float $timeout = 5.0): array
{
    $buf = array_fill(0, count($socks), '');
    $done = [];
    $deadline = microtime(true) + $timeout;
    while (count($done) < count($socks) && microtime(true) < $deadline) {
        $r = array_diff_key($socks, $done);
        $w = $e = null;
        if (!stream_select($r, $w, $e, 0, 100000)) {
            continue;
        }
        foreach ($r as $i => $s) {
            $chunk = fread($s, 65536);
            if ($chunk === '' || $chunk === false) {
                $done[$i] = true;
                continue;
            }
            $buf[$i] .= $chunk;
            if (preg_match('/Content-Length: (\d+)\r\n/i', $buf[$i], $m) && ($p = strpos($buf[$i], "\r\n\r\n")) !== false
                && strlen($buf[$i]) >= $p + 4 + (int) $m[1] && !str_contains($buf[$i], 'Connection: close')) {
                $done[$i] = true;
            }
        }
    }
    $out = [];
    foreach ($socks as $i => $s) {
        preg_match('#^HTTP/1\.1 (\d+)#', $buf[$i], $m);
        $out[] = (int) ($m[1] ?? 0) . (str_contains($buf[$i], 'Connection: close') ? ' close' : '');
        fclose($s);
    }
    return $out;
}

foreach ([SWOOLE_BASE, SWOOLE_PROCESS] as $mode) {
    echo $mode === SWOOLE_BASE ? "BASE\n" : "PROCESS\n";
    rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
        if ($req->server['request_uri'] === '/stats') {
            $resp->end((string) rsw_server()->stats()['concurrency']);
            return;
        }
        Co::sleep(0.4);
        $resp->end('hello');
    }, ['worker_num' => 2, 'max_concurrency' => 3], $mode), function (int $port) {
        $first = open_requests($port, 3);
        usleep(150000);
        $over = read_responses(open_requests($port, 3), 2.0);
        rsw_check('beyond the limit: 503 and close', $over === ['503 close', '503 close', '503 close'], $over);
        $ok = read_responses($first);
        rsw_check('the three in flight: 200', $ok === ['200', '200', '200'], $ok);
        $again = read_responses(open_requests($port, 3));
        rsw_check('after they finished: 200 again', $again === ['200', '200', '200'], $again);
        [$status, , $body] = rsw_http_get($port, '/stats');
        rsw_check('stats concurrency counts the /stats request only', $status === 200 && $body === '1', [$status, $body]);
    }, 10, ['ready_count' => 2]);
}
?>
--EXPECT--
BASE
beyond the limit: 503 and close: OK
the three in flight: 200: OK
after they finished: 200 again: OK
stats concurrency counts the /stats request only: OK
PROCESS
beyond the limit: 503 and close: OK
the three in flight: 200: OK
after they finished: 200 again: OK
stats concurrency counts the /stats request only: OK
