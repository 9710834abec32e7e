#!/usr/bin/env bash
# bench/table.sh: Swoole\Table set+get ops/s from 1 and 4 processes and Swoole\Atomic add ops/s, rswoole vs real Swoole.
#
#   bash bench/table.sh                          # rswoole only (target/release/librswoole.so, or SO=...)
#   SWOOLE_SO=/path/to/swoole.so bash bench/table.sh   # plus real Swoole in the same run
#
# Each measurement runs for DURATION seconds (default 0.5); the extensions take turns REPEAT times (default 3)
# and the best of each column is kept, which filters out other load on a shared machine. About 10 s in all.
# Prints a markdown table. Numbers are operations per second (a set+get pair counts as one op).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SO=${SO:-$ROOT/target/release/librswoole.so}
DURATION=${DURATION:-0.5}
REPEAT=${REPEAT:-3}
PHP=${PHP:-php}
SCRIPT=$(mktemp /tmp/rsw_table_bench.XXXXXX.php)
trap 'rm -f "$SCRIPT"' EXIT

cat >"$SCRIPT" <<'PHP'
<?php
// One line: "<set+get 1 proc> <set+get 4 procs> <atomic add 1 proc>" in ops/s.
$d = (float) ($argv[1] ?? 1);
function table(): Swoole\Table {
    $t = new Swoole\Table(4096);
    $t->column('id', Swoole\Table::TYPE_INT);
    $t->column('score', Swoole\Table::TYPE_FLOAT);
    $t->column('name', Swoole\Table::TYPE_STRING, 32);
    $t->create();
    return $t;
}
function run(Swoole\Table $t, float $d, int $seed): int {
    $keys = [];
    for ($i = 0; $i < 1024; $i++) {
        $keys[] = "user:" . (($i * 7 + $seed) % 1024);
    }
    $n = 0;
    $end = microtime(true) + $d;
    while (true) {
        for ($i = 0; $i < 1000; $i++) {
            $k = $keys[$i & 1023];
            $t->set($k, ['id' => $i, 'score' => 1.5, 'name' => 'some name']);
            $t->get($k);
        }
        $n += 1000;
        if (microtime(true) >= $end) {
            return $n;
        }
    }
}
$t = table();
$one = run($t, $d, 0) / $d;

$total = new Swoole\Atomic\Long(0);
$pids = [];
for ($p = 0; $p < 4; $p++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $total->add(run($t, $d, $p));
        exit(0);
    }
    $pids[] = $pid;
}
foreach ($pids as $pid) {
    pcntl_waitpid($pid, $st);
}
$four = $total->get() / $d;

$a = new Swoole\Atomic(0);
$n = 0;
$end = microtime(true) + $d;
while (true) {
    for ($i = 0; $i < 1000; $i++) {
        $a->add();
    }
    $n += 1000;
    if (microtime(true) >= $end) {
        break;
    }
}
printf("%d %d %d\n", $one, $four, $n / $d);
PHP

measure() { # so -> "one four add", or "failed: ..."
    local out
    if ! out=$(timeout 60 "$PHP" -n -d "extension=$1" "$SCRIPT" "$DURATION" 2>&1); then
        echo "failed: ${out//$'\n'/ }"
        return
    fi
    echo "$out"
}

NAMES=() SOS=() BEST=()
if [ -f "$SO" ]; then NAMES+=(rswoole); SOS+=("$SO"); BEST+=("0 0 0"); fi
if [ -n "${SWOOLE_SO:-}" ] && [ -f "$SWOOLE_SO" ]; then NAMES+=(swoole); SOS+=("$SWOOLE_SO"); BEST+=("0 0 0"); fi
for ((r = 0; r < REPEAT; r++)); do
    for i in "${!SOS[@]}"; do
        m=$(measure "${SOS[$i]}")
        case "$m" in failed*) BEST[$i]="$m"; continue ;; esac
        case "${BEST[$i]}" in failed*) continue ;; esac
        read -r a b c <<<"$m"
        read -r x y z <<<"${BEST[$i]}"
        BEST[$i]="$((a > x ? a : x)) $((b > y ? b : y)) $((c > z ? c : z))"
    done
done

echo "| extension | Table set+get ops/s, 1 process | Table set+get ops/s, 4 processes | Atomic add ops/s |"
echo "|---|---:|---:|---:|"
[ -f "$SO" ] || echo "| rswoole | skipped: $SO not built | | |"
for i in "${!SOS[@]}"; do
    case "${BEST[$i]}" in
        failed*) echo "| ${NAMES[$i]} | ${BEST[$i]} | | |" ;;
        *) read -r a b c <<<"${BEST[$i]}"; echo "| ${NAMES[$i]} | $a | $b | $c |" ;;
    esac
done
if [ -z "${SWOOLE_SO:-}" ] || [ ! -f "${SWOOLE_SO:-}" ]; then
    echo "| swoole | skipped: set SWOOLE_SO=/path/to/swoole.so | | |"
fi
