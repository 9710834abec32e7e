--TEST--
swoole_runtime: hooked unix:// and udp:// streams, stream_select() and gethostbyname() suspend only their coroutine (3 coroutines waiting 0.2-0.3 s each finish in about one wait; unhooked, stream_select takes three)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
function run(bool $hook): array {
    Swoole\Runtime::enableCoroutine($hook ? SWOOLE_HOOK_ALL : 0);
    $path = sys_get_temp_dir() . '/rsw_hook_' . getmypid() . '.sock';
    @unlink($path);
    $out = [];
    Co\run(function () use ($path, &$out, $hook) {
        if ($hook) {
        // unix (hooked only: unhooked, the server and its clients in one process would block each other): a server answering each line after 0.2 s, three clients at once.
        $srv = stream_socket_server("unix://$path", $e, $s);
        go(function () use ($srv) {
            for ($i = 0; $i < 3; $i++) {
                $c = stream_socket_accept($srv, 3);
                go(function () use ($c) { $l = fgets($c); usleep(200000); fwrite($c, "u:$l"); fclose($c); });
            }
        });
        $t = microtime(true);
        $wg = new Swoole\Coroutine\WaitGroup();
        $got = [];
        for ($i = 0; $i < 3; $i++) {
            $wg->add();
            go(function () use ($path, $i, $wg, &$got) {
                $c = stream_socket_client("unix://$path", $en, $es, 2);
                fwrite($c, "x$i\n");
                $got[] = trim(fgets($c));
                $wg->done();
            });
        }
        $wg->wait();
        sort($got);
        $out['unix'] = [implode(',', $got), microtime(true) - $t];
        // udp: an echo after 0.2 s.
        $u = stream_socket_server('udp://127.0.0.1:0', $e, $s, STREAM_SERVER_BIND);
        $name = stream_socket_get_name($u, false);
        go(function () use ($u) { $d = stream_socket_recvfrom($u, 100, 0, $peer); usleep(200000); stream_socket_sendto($u, "re:$d", 0, $peer); });
        $c = stream_socket_client("udp://$name", $en, $es);
        fwrite($c, 'ping');
        $out['udp'] = fread($c, 100);
        }
        // stream_select: three coroutines each waiting 0.3 s on a silent socket.
        $t = microtime(true);
        $wg = new Swoole\Coroutine\WaitGroup();
        $n = [];
        for ($i = 0; $i < 3; $i++) {
            $wg->add();
            go(function () use ($wg, &$n) {
                [$a, $b] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, 0);
                $r = [$a]; $w = $x = null;
                $n[] = stream_select($r, $w, $x, 0, 300000) . ':' . count($r);
                $wg->done();
            });
        }
        $wg->wait();
        $out['select'] = [implode(',', $n), microtime(true) - $t];
        // a ready stream is reported at once
        [$a, $b] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, 0);
        fwrite($b, 'x');
        $r = [$a]; $w = $x = null;
        $out['ready'] = stream_select($r, $w, $x, 5) . ':' . count($r);
        $out['dns'] = gethostbyname('localhost') . ' ' . gethostbyname('127.0.0.1');
    });
    @unlink($path);
    return $out;
}
foreach ([true, false] as $hook) {
    $o = run($hook);
    echo $hook ? "hooked\n" : "unhooked\n";
    if ($hook) {
        echo "unix: {$o['unix'][0]}\nudp: {$o['udp']}\n";
    }
    echo "select: {$o['select'][0]}\nready: {$o['ready']}\ndns: {$o['dns']}\n";
    if ($hook) {
        printf("unix concurrent: %s, select concurrent: %s\n", var_export($o['unix'][1] < 0.45, true), var_export($o['select'][1] < 0.6, true));
    } else {
        printf("select serial: %s\n", var_export($o['select'][1] >= 0.85, true));
    }
}
?>
--EXPECT--
hooked
unix: u:x0,u:x1,u:x2
udp: re:ping
select: 0:0,0:0,0:0
ready: 1:1
dns: 127.0.0.1 127.0.0.1
unix concurrent: true, select concurrent: true
unhooked
select: 0:0,0:0,0:0
ready: 1:1
dns: 127.0.0.1 127.0.0.1
select serial: true
