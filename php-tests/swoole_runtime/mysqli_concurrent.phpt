--TEST--
swoole_runtime: hook_flags in one worker: 100 concurrent requests each running SELECT SLEEP(0.2) over mysqli finish in < 1 s; without hooks 5 take the serial 1 s
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
require __DIR__ . '/../include/services.php';
if (!rsw_have_mariadb()) die('skip no MariaDB server');
if (!rsw_have_ext('mysqli')) die('skip no mysqli');
?>
--FILE--
<?php
require __DIR__ . '/hooks.inc';
$db = RswMariaDB::start();
$handler = <<<'PHP'
function ($req, $resp) use ($cfg) {
    mysqli_report(MYSQLI_REPORT_ERROR | MYSQLI_REPORT_STRICT);
    $db = new mysqli('127.0.0.1', 'root', '', 'test', $cfg['port']);
    $v = $db->query('SELECT SLEEP(0.2) AS s')->fetch_assoc();
    $resp->end((string) $v['s'] === '0' ? 'slept' : 'bad:' . json_encode($v));
}
PHP;
foreach ([SWOOLE_HOOK_ALL => 100, 0 => 5] as $flags => $n) {
    $srv = rsw_hook_server($handler, $flags, ['mysqli'], ['port' => $db->port]);
    [$t, $bodies] = rsw_concurrent_get($srv->port, '/', $n);
    echo "flags=$flags n=$n: ", rsw_summary($bodies), "\n";
    if ($flags) {
        rsw_check('hooked: concurrent, < 1 s', $t < 1.0, sprintf('%.2f s', $t));
    } else {
        rsw_check('unhooked: serial, >= 1 s', $t >= 0.95, sprintf('%.2f s', $t));
    }
    $srv->stop();
    if (trim($srv->log()) !== '') echo $srv->log();
}
$db->stop();
?>
--EXPECT--
flags=2143285247 n=100: 100 x slept
hooked: concurrent, < 1 s: OK
flags=0 n=5: 5 x slept
unhooked: serial, >= 1 s: OK
