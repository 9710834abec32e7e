<?php
// tools/check-signatures.php: compares the API surface of the loaded module (tools/api-dump.php) with
// Swoole 6.2.2's (tests/signatures/swoole-6.2.2.txt), less the deviations rswoole documents
// (tests/signatures/rswoole-deviations.txt: "- line" Swoole has and rswoole has not, "+ line" the reverse).
// Facts about a class or function rswoole does not have at all are skipped (and counted), so the
// check covers each class from the day it is added. Exit status 1 on any other difference.
// Usage: php -n -d extension=target/release/librswoole.so tools/check-signatures.php

$root = dirname(__DIR__);
ob_start();
include __DIR__ . '/api-dump.php';
$actual = array_values(array_filter(explode("\n", ob_get_clean()),
    fn($l) => $l !== '' && !preg_match('/^prop \S+ private/', $l)));

// Private properties are not API: neither side's count.
function facts(string $file): array {
    return array_values(array_filter(array_map('rtrim', file($file)),
        fn($l) => $l !== '' && $l[0] !== '#' && !preg_match('/^[-+]? ?prop \S+ private/', $l)));
}
$expected = facts("$root/tests/signatures/swoole-6.2.2.txt");
$dev = ['-' => [], '+' => []];
foreach (facts("$root/tests/signatures/rswoole-deviations.txt") as $l) {
    if (preg_match('/^([-+]) (.*?)(\s+#.*)?$/', $l, $m)) $dev[$m[1]][$m[2]] = false;
}

// The class (lower case) a line is about, or the function/constant/alias it names.
function subject(string $l): array {
    if (preg_match('/^(?:final |abstract )*(?:class|interface) (\S+)/', $l, $m)) return ['class', strtolower($m[1])];
    if (preg_match('/^(?:const|prop|method) (.+?)::/', $l, $m)) return ['class', strtolower($m[1])];
    if (preg_match('/^function ([^(]+)\(/', $l, $m)) return ['function', strtolower($m[1])];
    if (preg_match('/^alias \S+ = (\S+)/', $l, $m)) return ['class', strtolower($m[1])];
    if (preg_match('/^constant (\S+)/', $l, $m)) return ['constant', $m[1]];
    return ['other', $l];
}
$have = ['class' => [], 'function' => []];
foreach ($actual as $l) {
    [$k, $s] = subject($l);
    if (isset($have[$k])) $have[$k][$s] = true;
}
$act = array_flip($actual);
$exp = [];
$skipped = ['class' => [], 'function' => []];
foreach ($expected as $l) {
    [$k, $s] = subject($l);
    if (isset($have[$k]) && !isset($have[$k][$s])) { $skipped[$k][$s] = true; continue; }
    $exp[$l] = true;
}
$missing = $extra = [];
foreach ($exp as $l => $_) {
    if (isset($act[$l])) continue;
    if (array_key_exists($l, $dev['-'])) { $dev['-'][$l] = true; continue; }
    $missing[] = $l;
}
foreach ($act as $l => $_) {
    if (isset($exp[$l])) continue;
    if (array_key_exists($l, $dev['+'])) { $dev['+'][$l] = true; continue; }
    $extra[] = $l;
}
foreach ($missing as $l) echo "missing (Swoole has it): $l\n";
foreach ($extra as $l) echo "extra (Swoole has not):  $l\n";
foreach (['-', '+'] as $s) foreach ($dev[$s] as $l => $used) if (!$used) echo "note: deviation no longer needed: $s $l\n";
printf("signatures: %d facts checked, %d classes and %d functions rswoole lacks skipped, %d missing, %d extra\n",
    count($exp), count($skipped['class']), count($skipped['function']), count($missing), count($extra));
exit($missing || $extra ? 1 : 0);
