<?php
//! bench/targets.php: issue 16's targets in one table, read from the reports the other bench scripts wrote.
//
// Usage: php -n bench/targets.php [bench/out]   (run last by `make bench`; prints markdown and writes
// bench/out/targets.md). Each row names the report it comes from; a report that is missing, or has no
// Swoole row (no SWOOLE_SO), gives "n/a" there instead of a verdict. Nothing is measured here.

$out = $argv[1] ?? __DIR__ . '/out';

/** Every markdown table of a file, as lists of rows keyed by the header's cells. */
function tables(string $file): array
{
    if (!is_file($file)) {
        return [];
    }
    $lines = file($file, FILE_IGNORE_NEW_LINES);
    $all = [];
    $head = null;
    $rows = [];
    foreach ($lines as $i => $line) {
        if (!str_starts_with($line, '|')) {
            if ($head !== null) {
                $all[] = $rows;
            }
            $head = null;
            $rows = [];
            continue;
        }
        $cells = cells($line);
        if (preg_match('/^\|[-:| ]+\|$/', $line)) {
            $head = cells($lines[$i - 1] ?? '');
            continue;
        }
        if ($head !== null) {
            $rows[] = array_combine(array_slice($head, 0, count($cells)), array_slice($cells, 0, count($head)))
                + array_fill_keys($head, '');
        }
    }
    if ($head !== null) {
        $all[] = $rows;
    }
    return $all;
}

/** The cells of one table line, empty ones kept ("|  | a |" has two). */
function cells(string $line): array
{
    $line = trim($line);
    return array_map('trim', explode('|', substr($line, 1, str_ends_with($line, '|') ? -1 : null)));
}

/** The first number in a cell ("12,841", "1.19 ms", "1354.4 MiB"), or null. */
function num(?string $cell): ?float
{
    if ($cell === null || !preg_match('/-?[0-9][0-9,]*(\.[0-9]+)?/', $cell, $m)) {
        return null;
    }
    return (float) str_replace(',', '', $m[0]);
}

/** The row of $rows whose column $col starts with $prefix. */
function row(array $rows, string $col, string $prefix): ?array
{
    foreach ($rows as $r) {
        if (str_starts_with($r[$col] ?? '', $prefix)) {
            return $r;
        }
    }
    return null;
}

$T = [];
/** One target: what, the goal, our value, Swoole's, the ratio or value judged, met (bool|null), source. */
function target(string $what, string $goal, ?string $ours, ?string $theirs, ?string $judged, ?bool $met, string $src): void
{
    global $T;
    global $out;
    $when = is_file("$out/$src") ? gmdate('m-d H:i', filemtime("$out/$src")) : 'missing';
    $T[] = [$what, $goal, $ours ?? 'n/a', $theirs ?? 'n/a', $judged ?? 'n/a', $met === null ? 'n/a' : ($met ? 'met' : '**not met**'), "$src ($when)"];
}
function ratio(?float $a, ?float $b): ?float
{
    return $a !== null && $b !== null && $b > 0 ? $a / $b : null;
}
function fmt(?float $v, int $d = 2): ?string
{
    return $v === null ? null : number_format($v, $d, '.', ',');
}

// Seed 000, BASE and PROCESS: bench/pair.sh (paired rounds) when it ran, and bench/run.sh's one run.
$pair = [];
foreach (['base', 'process'] as $mode) {
    $f = "$out/pair-$mode.md";
    if (is_file($f) && preg_match('/Median req\/s ratio ([0-9.]+) \(rounds ([0-9.]+)-([0-9.]+)\).*median p99 rswoole ([0-9.]+) ms, Swoole ([0-9.]+) ms; worker RSS after: rswoole ([0-9.]+) MiB, Swoole ([0-9.]+) MiB/s', file_get_contents($f), $m)) {
        $pair[$mode] = $m;
    }
}
$run = [];
foreach (tables("$out/seed000.md") as $rows) {
    foreach ($rows as $r) {
        if (isset($r['contender'], $r['wrk req/s'])) {
            $run[$r['contender']] = $r;
        }
    }
}
foreach (['base' => 1.25, 'process' => 1.5] as $mode => $goal) {
    $label = strtoupper($mode);
    if (isset($pair[$mode])) {
        $m = $pair[$mode];
        target("seed 000 hello world, $label, req/s", "≥ {$goal}× Swoole $label", null, null,
            "{$m[1]}× (rounds {$m[2]}-{$m[3]})", (float) $m[1] >= $goal, "pair-$mode.md");
        if ($mode === 'base') {
            target('seed 000 BASE p99', '≤ Swoole\'s', "{$m[4]} ms", "{$m[5]} ms", null, (float) $m[4] <= (float) $m[5], 'pair-base.md');
        }
    }
    $o = $run["rswoole-$mode"] ?? null;
    $s = $run["swoole-$mode"] ?? null;
    $r = ratio(num($o['wrk req/s'] ?? null), num($s['wrk req/s'] ?? null));
    target("seed 000 hello world, $label, req/s (one run)", "≥ {$goal}× Swoole $label", $o['wrk req/s'] ?? null, $s['wrk req/s'] ?? null,
        $r === null ? null : fmt($r) . '×', $r === null ? null : $r >= $goal, 'seed000.md');
    $rss_o = num($o['RSS/worker'] ?? null);
    $rss_s = num($s['RSS/worker'] ?? null);
    target("worker RSS, $label", '≤ Swoole\'s', $o['RSS/worker'] ?? null, $s['RSS/worker'] ?? null, null,
        $rss_o === null || $rss_s === null ? null : $rss_o <= $rss_s, 'seed000.md');
}
$floor = $run['floor'] ?? null;
if ($floor) {
    $r = ratio(num($floor['wrk req/s']), num($run['swoole-base']['wrk req/s'] ?? null));
    target('(reference) C floor under wrk, BASE', 'the most wrk drives here', $floor['wrk req/s'], $run['swoole-base']['wrk req/s'] ?? null,
        $r === null ? null : fmt($r) . '×', null, 'seed000.md');
}
if (is_file("$out/pair-base.md") && preg_match('/median floor ÷ Swoole ([0-9.]+) \(rounds ([0-9.]+)-([0-9.]+)\)/u', file_get_contents("$out/pair-base.md"), $m)) {
    target('(reference) C floor in the paired rounds, BASE', 'the most wrk drives here', null, null,
        "{$m[1]}× (rounds {$m[2]}-{$m[3]})", null, 'pair-base.md');
}

// Instructions per request: bench/instructions.sh.
$ins = [];
foreach (tables("$out/instructions.md") as $rows) {
    foreach ($rows as $r) {
        $ins[$r['server'] ?? ''] = $r;
    }
}
$io = num($ins['rswoole']['enable_coroutine on'] ?? null);
$is = num($ins['Swoole']['enable_coroutine on'] ?? null);
target('user-space instructions per request', '≤ 11,000', fmt($io, 0), fmt($is, 0), null, $io === null ? null : $io <= 11000, 'instructions.md');
$cost = $ins['rswoole']['on vs off'] ?? null;
target('enable_coroutine on vs off (instructions)', '≤ +5%', $cost, $ins['Swoole']['on vs off'] ?? null, null,
    num($cost) === null ? null : num($cost) <= 5.0, 'instructions.md');

// Coroutines: bench/coro.sh.
$coro = tables("$out/coro.md")[0] ?? [];
$impl = 'Swoole 6.2.2 (comparison)';
foreach ([['coroutines/s', 'go() create+finish'], ['round trips/s', 'Channel ping-pong']] as [$metric, $what]) {
    $r = row($coro, 'metric', $metric);
    $x = ratio(num($r['rswoole'] ?? null), num($r[$impl] ?? null));
    target($what, '≥ 1.2× Swoole', $r['rswoole'] ?? null, $r[$impl] ?? null, $x === null ? null : fmt($x) . '×', $x === null ? null : $x >= 1.2, 'coro.md');
}
$ran = row($coro, 'metric', 'N that ran');
$rss = row($coro, 'metric', 'peak RSS (VmHWM)');
$late = row($coro, 'metric', 'latest wake-up');
$ro = num($rss['rswoole'] ?? null);
$rs = num($rss[$impl] ?? null);
target('100,000 × Co::sleep(1): all ran', '100,000', $ran['rswoole'] ?? null, $ran[$impl] ?? null, null,
    $ran === null ? null : num($ran['rswoole']) >= 100000, 'coro.md');
target('100,000 × Co::sleep(1): peak RSS', '< Swoole\'s', $rss['rswoole'] ?? null, $rss[$impl] ?? null, null,
    $ro === null || $rs === null ? null : $ro < $rs, 'coro.md');
target('100,000 × Co::sleep(1): latest wake-up past its deadline', '≤ 0.1 s', $late['rswoole'] ?? null, $late[$impl] ?? null, null,
    $late === null ? null : num($late['rswoole']) <= 0.1, 'coro.md');

// Seed 003: bench/seed003.sh.
$s3 = tables("$out/seed003.md")[0] ?? [];
$find = function (string $server, string $mode) use ($s3): ?array {
    foreach ($s3 as $r) {
        if (($r['server'] ?? '') === $server && ($r['mode'] ?? '') === $mode) {
            return $r;
        }
    }
    return null;
};
$o = $find('rswoole', 'process');
$s = $find('swoole', 'process');
$x = ratio(num($o['Request per second'] ?? null), num($s['Request per second'] ?? null));
target('seed 003 messages/s, PROCESS', '≥ 1.5× Swoole PROCESS', $o['Request per second'] ?? null, $s['Request per second'] ?? null,
    $x === null ? null : fmt($x) . '×', $x === null ? null : $x >= 1.5, 'seed003.md');
$fan = 'fan-out (time until every client has the message)';
$fo = preg_match('/median ([0-9.]+) ms/', $o[$fan] ?? '', $a) ? (float) $a[1] : null;
$fs = preg_match('/median ([0-9.]+) ms/', $s[$fan] ?? '', $b) ? (float) $b[1] : null;
target('seed 003 fan-out to 1,000 connections (median)', '≤ Swoole\'s', $fo === null ? null : "$fo ms", $fs === null ? null : "$fs ms", null,
    $fo === null || $fs === null ? null : $fo <= $fs, 'seed003.md');
foreach (['3 hops', '2 hops'] as $hops) {
    $f = $find('floor (relay.c)', $hops);
    if ($f) {
        $x = ratio(num($f['Request per second']), num($s['Request per second'] ?? null));
        target("(reference) C relay of seed 003, $hops", 'the most any server with these hops shows here', $f['Request per second'],
            $s['Request per second'] ?? null, $x === null ? null : fmt($x) . '×', null, 'seed003.md');
    }
}

// Idle keep-alive connections: bench/idle.sh.
$idle = tables("$out/idle.md")[0] ?? [];
$io = row($idle, 'server', 'rswoole');
$is = row($idle, 'server', 'Swoole');
$ko = num($io['KiB per connection'] ?? null);
$ks = num($is['KiB per connection'] ?? null);
target('memory per idle keep-alive connection', '≤ Swoole\'s', $ko === null ? null : "$ko KiB", $ks === null ? null : "$ks KiB", null,
    $ko === null || $ks === null ? null : $ko <= $ks, 'idle.md');

$md = "# Issue 16 targets (bench/targets.php)\n\n"
    . "- date: " . gmdate('Y-m-d H:i:s') . " UTC; read from $out/*.md (each row names its report and when it was written, UTC; n/a: the report or its Swoole row is missing)\n\n"
    . "| target | goal | rswoole | Swoole | ratio / value | verdict | report |\n|---|---|---:|---:|---:|---|---|\n";
foreach ($T as $t) {
    $md .= '| ' . implode(' | ', $t) . " |\n";
}
file_put_contents("$out/targets.md", $md);
echo $md;
