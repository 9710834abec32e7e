--TEST--
swoole_server_process: user/group settings: started as root, workers and task workers run as the given user and group, in both modes; the master keeps root
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
if (!function_exists('posix_geteuid') || posix_geteuid() !== 0) die('skip needs root');
if (posix_getpwnam('nobody') === false || posix_getgrnam('nogroup') === false) die('skip no nobody/nogroup');
?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$uid = posix_getpwnam('nobody')['uid'];
$gid = posix_getgrnam('nogroup')['gid'];
foreach ([SWOOLE_BASE => 'base', SWOOLE_PROCESS => 'process'] as $mode => $name) {
    $t = new ServerTest(function ($port, $ready) use ($mode) {
        $http = new Swoole\Http\Server('127.0.0.1', $port, $mode);
        $http->set(['worker_num' => 1, 'task_worker_num' => 1, 'user' => 'nobody', 'group' => 'nogroup',
                    'log_level' => SWOOLE_LOG_WARNING]);
        $http->on('task', function ($s, $id, $src, $data) {
            return posix_geteuid() . ':' . posix_getegid();
        });
        $http->on('request', function ($req, $resp) use ($http) {
            $task = $http->taskwait('x', 5);
            $resp->end(json_encode([posix_geteuid(), posix_getegid(), $task, posix_geteuid() === posix_getuid()]));
        });
        $http->start();
    }); // ready once the port answers: the workers cannot write the harness's ready file as nobody
    $t->start();
    $body = @file_get_contents("http://127.0.0.1:{$t->port}/");
    rsw_check("$name: worker and task worker run as nobody:nogroup", $body === json_encode([$uid, $gid, "$uid:$gid", true]), $body);
    echo $t->stop(), "\n";
}
?>
--EXPECT--
base: worker and task worker run as nobody:nogroup: OK
exit=0
process: worker and task worker run as nobody:nogroup: OK
exit=0
