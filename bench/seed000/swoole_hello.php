<?php // Seed 000 Swoole hello world AS PRINTED (wrong `Swoole\Http\Server $response` hint => TypeError/500 per request); kept for fidelity, not benchmarked.
// Settings come from the environment so bench/run.sh can drive it:
//   RSW_PORT (default 9501), RSW_WORKERS (default 1; the seed used 4),
//   RSW_MODE 'base' (default, the seed's SWOOLE_BASE) | 'process',
//   RSW_COROUTINE on|off -> enable_coroutine (unset = extension default).
$port = (int) (getenv('RSW_PORT') ?: 9501);
$workers = (int) (getenv('RSW_WORKERS') ?: 1);
$mode = getenv('RSW_MODE') === 'process' ? SWOOLE_PROCESS : SWOOLE_BASE;
$settings = ['worker_num' => $workers];
$coroutine = getenv('RSW_COROUTINE');
if ($coroutine !== false && $coroutine !== '') {
    $settings['enable_coroutine'] = !in_array(strtolower($coroutine), ['off', '0', 'false', 'no'], true);
}

$http = new Swoole\Http\Server("127.0.0.1", $port, $mode);

$http->set($settings);

$http->on('request', function ($request, Swoole\Http\Server $response) {
    $response->header('Last-Modified', 'Thu, 18 Jun 2015 10:24:27 GMT');
    $response->header('E-Tag', '55829c5b-17');
    $response->header('Accept-Ranges', 'bytes');    
    $response->end("<h1>\nHello Swoole.\n</h1>");
});

$http->start();
