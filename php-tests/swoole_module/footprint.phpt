--TEST--
swoole_module: loading the extension adds less than 4 MiB of anonymous memory to a process
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Every process of a server (master, workers, task workers) carries what the
// extension allocates at load. mimalloc's Linux default committed its first
// arena eagerly: 6 MiB of anonymous memory in each of them, unused.
require __DIR__ . '/../include/bootstrap.php';
$so = rsw_so_path();
function anon_kib(string $args): int
{
    $code = 'preg_match("/RssAnon:\\s+(\\d+)/", file_get_contents("/proc/self/status"), $m); echo $m[1];';
    return (int) shell_exec(escapeshellarg(PHP_BINARY) . " -n $args -r " . escapeshellarg($code));
}
$bare = anon_kib('');
$loaded = anon_kib('-d extension=' . escapeshellarg($so));
var_dump($bare > 0, $loaded > $bare);
$delta = $loaded - $bare;
echo $delta < 4096 ? "under 4 MiB\n" : "the extension adds $delta KiB\n";
?>
--EXPECT--
bool(true)
bool(true)
under 4 MiB
