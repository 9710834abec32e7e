--TEST--
swoole_coroutine_system: gethostbyname/getaddrinfo/dnsLookup, exec (two in parallel take the time of one), waitPid, waitSignal, waitEvent
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\System;
Co\run(function () {
    var_dump(System::gethostbyname('localhost'), Coroutine::getaddrinfo('localhost')[0]);
    var_dump(System::dnsLookup('localhost', 5));
    var_dump(System::dnsLookup('rsw-no-such-host.invalid', 5), swoole_last_error() === SWOOLE_ERROR_DNSLOOKUP_RESOLVE_FAILED);
    $t = microtime(true);
    $wg = new Coroutine\WaitGroup();
    $out = [];
    foreach ([1, 2] as $i) {
        $wg->add();
        go(function () use ($i, $wg, &$out) { $out[$i] = System::exec("sleep 0.3; echo run$i; exit $i"); $wg->done(); });
    }
    $wg->wait();
    var_dump(microtime(true) - $t < 0.55, $out[1]['output'], $out[2]['code']);
    var_dump(System::exec('echo err >&2', true)['output']);
    $pid = pcntl_fork();
    if ($pid === 0) { usleep(100000); posix_kill(getmypid(), SIGKILL); }
    $r = System::waitPid($pid, 3);
    var_dump($r['pid'] === $pid, $r['signal']);
    go(function () { Co::sleep(0.05); posix_kill(getmypid(), SIGUSR1); });
    var_dump(System::waitSignal([SIGUSR1, SIGUSR2], 2) === SIGUSR1);
    var_dump(System::waitSignal(SIGUSR2, 0.05));
    [$a, $b] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, 0);
    go(function () use ($b) { Co::sleep(0.05); fwrite($b, 'x'); });
    var_dump(System::waitEvent($a, SWOOLE_EVENT_READ, 2) === SWOOLE_EVENT_READ);
});
?>
--EXPECT--
string(9) "127.0.0.1"
string(9) "127.0.0.1"
string(9) "127.0.0.1"
bool(false)
bool(true)
bool(true)
string(5) "run1
"
int(2)
string(4) "err
"
bool(true)
int(9)
bool(true)
bool(false)
bool(true)
