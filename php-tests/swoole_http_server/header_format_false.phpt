--TEST--
swoole_http_server: header($k, $v, false) sends the name as given; the default writes it in Title-Case (raw socket, keep-alive, both modes)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
foreach ([SWOOLE_BASE => 'BASE', SWOOLE_PROCESS => 'PROCESS'] as $mode => $label) {
    rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
        $resp->header('x-MiXed-Case', 'a', false);
        $resp->header('content-type', 'text/plain', false);   // as given, although hyper has its own spelling
        $resp->header('x-title-me', 'b');                      // default: Title-Case
        $resp->setHeader('X-UPPER', 'c', false);
        if ($req->server['request_uri'] === '/two') {
            $resp->header('x-only-second', 'd', false);
        }
        $resp->end("x-MiXed-Case: stays in the body\r\n\r\nx-mixed-case: too");
    }, ['worker_num' => 1], $mode), function (int $port) use ($label) {
        // Two requests on one connection: each head carries its own spellings.
        $out = rsw_raw($port, "GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        $heads = [];
        foreach (explode("HTTP/1.1 200", $out) as $part) {
            if ($part !== '') {
                $heads[] = strstr($part, "\r\n\r\n", true);
            }
        }
        rsw_check("$label: two responses", count($heads) === 2, $out);
        foreach ($heads as $i => $h) {
            rsw_check("$label #$i: names as given", str_contains($h, "\r\nx-MiXed-Case: a\r\n") && str_contains($h, "\r\ncontent-type: text/plain\r\n") && str_contains($h, "\r\nX-UPPER: c\r\n"), $h);
            rsw_check("$label #$i: default Title-Case", str_contains($h, "\r\nX-Title-Me: b\r\n") && str_contains($h, "\r\nServer: "), $h);
        }
        rsw_check("$label: the second head only", !str_contains($heads[0] ?? '', 'only-second') && str_contains($heads[1] ?? '', "\r\nx-only-second: d\r\n"), $heads);
        rsw_check("$label: bodies untouched", substr_count($out, "x-MiXed-Case: stays in the body\r\n\r\nx-mixed-case: too") === 2, $out);
    });
}
?>
--EXPECT--
BASE: two responses: OK
BASE #0: names as given: OK
BASE #0: default Title-Case: OK
BASE #1: names as given: OK
BASE #1: default Title-Case: OK
BASE: the second head only: OK
BASE: bodies untouched: OK
PROCESS: two responses: OK
PROCESS #0: names as given: OK
PROCESS #0: default Title-Case: OK
PROCESS #1: names as given: OK
PROCESS #1: default Title-Case: OK
PROCESS: the second head only: OK
PROCESS: bodies untouched: OK
