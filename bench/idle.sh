#!/usr/bin/env bash
# bench/idle.sh: worker memory per idle keep-alive connection (issue 16), rswoole against real Swoole.
#
# Usage: SO=target/release/librswoole.so [SWOOLE_SO=/path/to/swoole.so] [IDLE_N=10000] bash bench/idle.sh
# One worker (SWOOLE_BASE) serves seed 000's hello world; bench/idle/client.py opens IDLE_N connections,
# sends one request on each and keeps them all open. The worker's RSS is read before the clients and
# once all of them have their answer; the difference / IDLE_N is the cost of one idle connection.
# Swoole's row is skipped (and says so) when SWOOLE_SO is not given.
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
SO=${SO:-target/release/librswoole.so}
N=${IDLE_N:-10000}
PORT=${IDLE_PORT:-19655}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

row() { # name so
    local name=$1 so=$2 pid before after ready w
    RSW_PORT=$PORT RSW_WORKERS=1 php -n -d memory_limit=-1 -d extension="$so" bench/seed000/swoole_hello_fixed.php >/tmp/rsw_idle_$$.log 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do port_listening "$PORT" && break; sleep 0.1; done
    sleep 0.5
    w=$(descendants "$pid" | tail -1); [ -n "$w" ] || w=$pid
    before=$(rss_kb "$w")
    exec 7< <(timeout 120 python3 bench/idle/client.py "$PORT" "$N" 30)
    read -r -t 90 _ ready <&7
    sleep 1
    after=$(rss_kb "$w")
    echo "| $name | $ready | $(num "$before") | $(num "$after") | $(awk -v a="$after" -v b="$before" -v n="$ready" 'BEGIN { if (n > 0) printf "%.1f", (a - b) / n; else print "n/a" }') |"
    exec 7<&-
    stop_server "$pid"
    sleep 1
}

OUT="${BENCH_OUT:-bench/out}"
mkdir -p "$OUT"
{
    echo "| server | idle connections | worker RSS before (KiB) | with them open (KiB) | KiB per connection |"
    echo "|---|---:|---:|---:|---:|"
    row rswoole "$SO"
    if [ -n "${SWOOLE_SO:-}" ]; then row "Swoole 6.2.2" "$SWOOLE_SO"; else echo "| Swoole 6.2.2 | skipped: SWOOLE_SO not given | | | |"; fi
} | tee "$OUT/idle.md"
