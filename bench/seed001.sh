#!/usr/bin/env bash
# bench/seed001.sh: seed 001's benchmark: the blocking-worker HTTP server (100 workers, enable_coroutine off, 10 phpredis GETs per request) under `ab -k -c2000`.
#
# The seed's script runs unchanged (bench/seed001/server.php is a copy; only RSW_PORT/RSW_REDIS_PORT
# replace 9501/6379, so two runs never collide). redis-server is started on a free port with
# test_key1 set. The server and redis share CPU 0 (taskset -c 0; forked workers inherit it), ab runs
# on CPU 1. The seed's command was `ab -n200000 -c2000 -k`; here -n SEED1_N (default 200000) with a
# time cap of SEED1_TIME s (default 10) so the run stays bounded. Reported: req/s, p99, failed
# requests, how many of the 100 workers served, redis ops/s, mean worker RSS.
# Then the seed's coroutine variant (bench/seed001/coro_server.php: one worker, SWOOLE_HOOK_ALL, a
# Channel pool of 100 phpredis connections), on rswoole and, when SWOOLE_SO (default
# /work/swoole-build/modules/swoole.so) exists, on real Swoole with the same script. The seed
# measured 4,900 (blocking) and 6,500 (coroutine) req/s on its machine. Both coroutine runs get
# memory_limit=1G: with 2,000 connections there are 2,000 coroutines, more than Swoole fits in
# PHP's default 128M. Last, the same variant with Swoole's Database\RedisPool (bench/seed001/pool_server.php)
# on both.
#
# Environment: SO (default target/release/librswoole.so), SWOOLE_SO, SEED1_N, SEED1_TIME, SEED1_CONNS (2000),
# BENCH_OUT (bench/out). Output: bench/out/seed001.md (+ raw ab output in bench/out/raw/).
set -u -o pipefail
export LC_ALL=C
PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT="${BENCH_OUT:-$HERE/out}"
SO="${SO:-$ROOT/target/release/librswoole.so}"
N="${SEED1_N:-200000}"
TIME_CAP="${SEED1_TIME:-10}"
CONNS="${SEED1_CONNS:-2000}"
START_TS=$(date +%s)

log() { printf '[seed001] %s\n' "$*" >&2; }
. "$HERE/lib.sh"
mkdir -p "$OUT/raw" "$OUT/logs"

for t in php ab redis-server redis-cli; do
    command -v "$t" >/dev/null 2>&1 || { log "$t is required (make deps; apt-get install -y apache2-utils redis-server); aborting"; exit 1; }
done
require_so
EXT=(-d "extension=$SO")
[ -f "$(php -r 'echo ini_get("extension_dir");')/igbinary.so" ] && EXT+=(-d extension=igbinary)
EXT+=(-d extension=redis)
php -n "${EXT[@]}" -r 'exit(class_exists("Redis") ? 0 : 1);' 2>/dev/null || { log "phpredis missing (apt-get install -y php8.2-redis); aborting"; exit 1; }

setup_pinning
PINNING="server and redis on CPU 0, ab on CPU 1"
[ ${#PIN_SRV[@]} -eq 0 ] && PINNING="not pinned"

REDIS_PID=""
CUR_PID=""
cleanup() {
    [ -n "$CUR_PID" ] && stop_server "$CUR_PID"
    [ -n "$REDIS_PID" ] && { kill "$REDIS_PID" 2>/dev/null; wait "$REDIS_PID" 2>/dev/null; }
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

RPORT=$(free_port)
"${PIN_SRV[@]}" redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no >"$OUT/logs/seed001-redis.log" 2>&1 &
REDIS_PID=$!
for ((i = 0; i < 50; i++)); do redis-cli -p "$RPORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p "$RPORT" set test_key1 hello >/dev/null || { log "redis-server did not start"; exit 1; }

# run_variant LABEL SCRIPT MIN_WORKERS EXT...: starts SCRIPT (pinned) with the given extension
# arguments, warms it up, runs ab, and appends one table row to $ROWS (and its req/s to $RPS_FILE).
ROWS="$OUT/raw/seed001.rows"; : >"$ROWS"
RPS_FILE="$OUT/raw/seed001.rps"; : >"$RPS_FILE"
run_variant() {
    local label=$1 script=$2 min_workers=$3 key=$4; shift 4
    local PORT; PORT=$(free_port)
    log "$label: 127.0.0.1:$PORT, redis on $RPORT"
    RSW_PORT=$PORT RSW_REDIS_PORT=$RPORT "${PIN_SRV[@]}" php -n "$@" "$script" >"$OUT/logs/seed001-$key.log" 2>&1 &
    CUR_PID=$!
    local ok=0 i workers
    for ((i = 0; i < 200; i++)); do
        workers=$(children_of "$CUR_PID" | wc -l)
        if [ "$workers" -ge "$min_workers" ] && curl -s -m 2 "http://127.0.0.1:$PORT/" | grep -q '^OKworker_id'; then ok=1; break; fi
        alive "$CUR_PID" || break
        sleep 0.1
    done
    if [ "$ok" != 1 ]; then
        log "$label: server not ready (see $OUT/logs/seed001-$key.log)"
        stop_server "$CUR_PID"; CUR_PID=""
        echo "| $label | not ready | | | | | | | |" >>"$ROWS"
        return
    fi
    "${PIN_CLI[@]}" ab -k -c 200 -n 5000 "http://127.0.0.1:$PORT/" >/dev/null 2>&1   # warm-up
    local ops0 ops1 t0 t1 raw="$OUT/raw/seed001-$key.ab.txt"
    ops0=$(redis-cli -p "$RPORT" info stats | awk -F: '/^total_commands_processed/ {print $2+0}')
    log "$label: ab -k -c$CONNS -n $N -t $TIME_CAP (the seed: ab -n200000 -c2000 -k)"
    t0=$(date +%s%N)
    timeout $((TIME_CAP + 30)) "${PIN_CLI[@]}" ab -k -c "$CONNS" -t "$TIME_CAP" -n "$N" -s 20 "http://127.0.0.1:$PORT/" >"$raw" 2>&1
    t1=$(date +%s%N)
    ops1=$(redis-cli -p "$RPORT" info stats | awk -F: '/^total_commands_processed/ {print $2+0}')
    local rps p99 done_n failed non2xx ids rss_sum=0 n=0 p r redis_ops
    rps=$(awk '/^Requests per second:/ {print $4}' "$raw")
    p99=$(awk '/Percentage of the requests/ {d = 1} d && $1 == "99%" {print $2; exit}' "$raw")
    done_n=$(awk '/^Complete requests:/ {print $3}' "$raw")
    # ab counts bodies of another length as failed ("Length"): here they differ with the worker id
    # ("worker_id -> 7" vs "-> 42"), so only connect/receive/exception failures are failures.
    failed=$(awk -F'[:,)]' '/\(Connect:/ {print $2 + $4 + $8}' "$raw")
    failed=${failed:-0}
    non2xx=$(awk '/^Non-2xx responses:/ {print $3}' "$raw")
    ids=$(for ((i = 0; i < 300; i++)); do curl -s -m 2 "http://127.0.0.1:$PORT/"; echo; done | sort -u | grep -c worker_id)
    for p in $(children_of "$CUR_PID"); do r=$(rss_kb "$p"); rss_sum=$((rss_sum + ${r:-0})); n=$((n + 1)); done
    if [ "$n" -eq 0 ]; then r=$(rss_kb "$CUR_PID"); rss_sum=${r:-0}; n=1; fi
    stop_server "$CUR_PID"; CUR_PID=""
    redis_ops=$(awk -v a="$ops0" -v b="$ops1" -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", (b - a) / (ns / 1e9) }')
    echo "$key ${rps:-0}" >>"$RPS_FILE"
    echo "| $label | $(num "$rps") | ${p99:-n/a} ms | ${done_n:-0} | ${failed:-n/a} | ${non2xx:-0} | $ids | $(num "$redis_ops") | $(awk -v s="$rss_sum" -v n="$n" 'BEGIN { printf "%.1f MiB", (n ? s / n / 1024 : 0) }') |" >>"$ROWS"
}

SWOOLE_SO="${SWOOLE_SO:-/work/swoole-build/modules/swoole.so}"
REDIS_EXT=("${EXT[@]:2}")
run_variant "rswoole, seed 001 script (100 blocking workers, enable_coroutine off)" "$HERE/seed001/server.php" 100 blocking "${EXT[@]}"
run_variant "rswoole, coroutine variant (1 worker, SWOOLE_HOOK_ALL, Channel pool of 100)" "$HERE/seed001/coro_server.php" 0 coro "${EXT[@]}" -d memory_limit=1G
if [ -f "$SWOOLE_SO" ]; then
    run_variant "Swoole $(php -n -d extension="$SWOOLE_SO" -r 'echo SWOOLE_VERSION;' 2>/dev/null), coroutine variant (same script)" "$HERE/seed001/coro_server.php" 0 swoole_coro "${REDIS_EXT[@]}" -d "extension=$SWOOLE_SO" -d memory_limit=1G
else
    log "no $SWOOLE_SO: real Swoole not measured"
fi
# The same coroutine variant written with Swoole's RedisPool (bench/seed001/pool_server.php, issue 15's row).
run_variant "rswoole, coroutine variant with Swoole\\Database\\RedisPool of 100" "$HERE/seed001/pool_server.php" 0 pool "${EXT[@]}" -d memory_limit=1G
if [ -f "$SWOOLE_SO" ]; then
    run_variant "Swoole $(php -n -d extension="$SWOOLE_SO" -r 'echo SWOOLE_VERSION;' 2>/dev/null), RedisPool variant (same script)" "$HERE/seed001/pool_server.php" 0 swoole_pool "${REDIS_EXT[@]}" -d "extension=$SWOOLE_SO" -d memory_limit=1G
fi
rps_of() { awk -v k="$1" '$1 == k {print $2}' "$RPS_FILE"; }
ratio() { awk -v a="$(rps_of "$1")" -v b="$(rps_of "$2")" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2fx", a / b }'; }

{
    echo "# Seed 001 benchmark: 100 blocking workers vs one coroutine worker, 10 Redis GETs per request"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); repo: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); $(nproc) CPUs ($(lscpu | awk -F: '/^Model name/ {sub(/^ +/, "", $2); print $2; exit}')); $PINNING"
    echo "- $(ver php -v); $(ver redis-server --version); \`ab -k -c$CONNS -n $N -t $TIME_CAP -s 20\`; run took $(( $(date +%s) - START_TS )) s"
    echo
    echo "| server | req/s | p99 | completed | failed (connect/receive/exception) | non-2xx | workers that answered 300 probes | redis commands/s | mean RSS/worker |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    cat "$ROWS"
    echo
    echo "- rswoole coroutine / rswoole blocking: $(ratio coro blocking) (target >= 1.1x; the seed measured 6,500 / 4,900 = 1.33x)"
    echo "- rswoole coroutine / Swoole coroutine: $(ratio coro swoole_coro) (target >= 1.0x)"
    echo "- rswoole RedisPool / Swoole RedisPool: $(ratio pool swoole_pool) (target >= 1.0x)"
} >"$OUT/seed001.md"
cat "$OUT/seed001.md"
