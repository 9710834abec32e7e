<?php
// Server for tests/integration/test_process.py: php process_server.php PORT SETTINGS_JSON HANDLER_FILE EVENTS_FILE (BASE or PROCESS mode)
// The request handler is the closure HANDLER_FILE returns, included again in every workerStart, so a reload
// picks up a new version of the file. Every lifecycle event appends "<event> <pid> [args]" to EVENTS_FILE.

$port = (int) $argv[1];
$settings = json_decode($argv[2], true);
$handlerFile = $argv[3];
$eventsFile = $argv[4];
$log = static function (string $line) use ($eventsFile): void {
    file_put_contents($eventsFile, $line . "\n", FILE_APPEND | LOCK_EX);
};
// "_mode": "process" in the settings runs SWOOLE_PROCESS (the key is not a Swoole option).
$mode = ($settings['_mode'] ?? 'base') === 'process' ? SWOOLE_PROCESS : SWOOLE_BASE;
unset($settings['_mode']);
// "_tick": true gives every worker a timer, cleared in workerExit. Swoole
// calls workerExit only when a stopping worker's loop still has work
// (connections, timers, coroutines); an idle PROCESS-mode worker may have
// none, and the timer makes the event certain.
$tick = !empty($settings['_tick']);
unset($settings['_tick']);
$http = new Swoole\Http\Server('127.0.0.1', $port, $mode);
$http->set($settings);
foreach (['start', 'managerStart', 'managerStop', 'beforeReload', 'afterReload', 'beforeShutdown', 'shutdown'] as $ev) {
    $http->on($ev, static function () use ($ev, $log): void {
        $log("$ev " . getmypid());
    });
}
$http->on('workerStart', static function ($server, int $id) use ($log, $handlerFile, $tick): void {
    $GLOBALS['handler'] = require $handlerFile;
    if ($tick) {
        Swoole\Timer::tick(60000, static function (): void {});
    }
    $log("workerStart " . getmypid() . " $id");
});
$http->on('workerStop', static function ($server, int $id) use ($log): void {
    $log("workerStop " . getmypid() . " $id");
});
$http->on('workerExit', static function ($server, int $id) use ($log): void {
    Swoole\Timer::clearAll();
    $log("workerExit " . getmypid() . " $id");
});
$http->on('workerError', static function ($server, int $id, int $pid, int $code, int $sig) use ($log): void {
    $log("workerError " . getmypid() . " $id $pid $code $sig");
});
$http->on('request', static function ($req, $resp) use ($http): void {
    ($GLOBALS['handler'])($req, $resp, $http);
});
$http->start();
