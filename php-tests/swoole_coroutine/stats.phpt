--TEST--
swoole_coroutine: stats() counts live coroutines (coroutine_num) and the peak (coroutine_peak_num)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

$s = Coroutine::stats();
var_dump(is_array($s));
var_dump(array_key_exists('coroutine_num', $s), array_key_exists('coroutine_peak_num', $s));
var_dump($s['coroutine_num']);
Co\run(function () {
    $wg = new Swoole\Coroutine\WaitGroup();
    for ($i = 0; $i < 5; $i++) {
        $wg->add();
        go(function () use ($wg) {
            Coroutine::sleep(0.03);
            $wg->done();
        });
    }
    $s = Coroutine::stats();
    var_dump($s['coroutine_num'], $s['coroutine_peak_num']);
    $wg->wait();
    Coroutine::sleep(0.01);
    $s = Coroutine::stats();
    var_dump($s['coroutine_num'], $s['coroutine_peak_num']);
});
var_dump(Coroutine::stats()['coroutine_num']);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
int(0)
int(6)
int(6)
int(1)
int(6)
int(0)
