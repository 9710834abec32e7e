#!/usr/bin/env bash
# bench/seed001.sh: seed 001's benchmark: the blocking-worker HTTP server (100 workers, enable_coroutine off, 10 phpredis GETs per request) under `ab -k -c2000`.
#
# The seed's script runs unchanged (bench/seed001/server.php is a copy; only RSW_PORT/RSW_REDIS_PORT
# replace 9501/6379, so two runs never collide). redis-server is started on a free port with
# test_key1 set. The server and redis share CPU 0 (taskset -c 0; forked workers inherit it), ab runs
# on CPU 1. The seed's command was `ab -n200000 -c2000 -k`; here -n SEED1_N (default 200000) with a
# time cap of SEED1_TIME s (default 10) so the run stays bounded. Reported: req/s, p99, failed
# requests, how many of the 100 workers served, redis ops/s, mean worker RSS.
# Swoole's coroutine variant in the seed (a 100-connection pool in one coroutine server) needs
# phpredis hooked into coroutines (SWOOLE_HOOK_ALL), which rswoole does not do (docs/compat.md), so
# only the blocking-worker variant is reproduced. The seed measured 4,900 req/s (its machine).
#
# Environment: SO (default target/release/librswoole.so), SEED1_N, SEED1_TIME, SEED1_CONNS (2000),
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
case "$SO" in /*) ;; *) SO="$ROOT/$SO" ;; esac

for t in php ab redis-server redis-cli; do
    command -v "$t" >/dev/null 2>&1 || { log "$t is required (make deps; apt-get install -y apache2-utils redis-server); aborting"; exit 1; }
done
[ -f "$SO" ] || { log "$SO not found: build it first (cargo build --release)"; exit 1; }
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

PORT=$(free_port)
log "server: 100 workers on 127.0.0.1:$PORT, redis on $RPORT"
RSW_PORT=$PORT RSW_REDIS_PORT=$RPORT "${PIN_SRV[@]}" php -n "${EXT[@]}" "$HERE/seed001/server.php" >"$OUT/logs/seed001-server.log" 2>&1 &
CUR_PID=$!
ok=0
for ((i = 0; i < 200; i++)); do
    workers=$(children_of "$CUR_PID" | wc -l)
    if [ "$workers" -ge 100 ] && curl -s -m 2 "http://127.0.0.1:$PORT/" | grep -q '^OKworker_id'; then ok=1; break; fi
    alive "$CUR_PID" || break
    sleep 0.1
done
[ "$ok" = 1 ] || { log "server not ready (see $OUT/logs/seed001-server.log)"; exit 1; }

"${PIN_CLI[@]}" ab -k -c 200 -n 5000 "http://127.0.0.1:$PORT/" >/dev/null 2>&1   # warm-up
ops0=$(redis-cli -p "$RPORT" info stats | awk -F: '/^total_commands_processed/ {print $2+0}')
log "ab -k -c$CONNS -n $N -t $TIME_CAP (the seed: ab -n200000 -c2000 -k)"
t0=$(date +%s%N)
timeout $((TIME_CAP + 30)) "${PIN_CLI[@]}" ab -k -c "$CONNS" -t "$TIME_CAP" -n "$N" -s 20 "http://127.0.0.1:$PORT/" >"$OUT/raw/seed001.ab.txt" 2>&1
t1=$(date +%s%N)
ops1=$(redis-cli -p "$RPORT" info stats | awk -F: '/^total_commands_processed/ {print $2+0}')
rps=$(awk '/^Requests per second:/ {print $4}' "$OUT/raw/seed001.ab.txt")
p99=$(awk '/Percentage of the requests/ {d = 1} d && $1 == "99%" {print $2; exit}' "$OUT/raw/seed001.ab.txt")
done_n=$(awk '/^Complete requests:/ {print $3}' "$OUT/raw/seed001.ab.txt")
# ab counts bodies of another length as failed ("Length"): here they differ with the worker id
# ("worker_id -> 7" vs "-> 42"), so only connect/receive/exception failures are failures.
failed=$(awk -F'[:,)]' '/\(Connect:/ {print $2 + $4 + $8}' "$OUT/raw/seed001.ab.txt")
failed=${failed:-0}
non2xx=$(awk '/^Non-2xx responses:/ {print $3}' "$OUT/raw/seed001.ab.txt")
ids=$(for ((i = 0; i < 300; i++)); do curl -s -m 2 "http://127.0.0.1:$PORT/"; echo; done | sort -u | grep -c worker_id)
rss_sum=0; n=0
for p in $(children_of "$CUR_PID"); do r=$(rss_kb "$p"); rss_sum=$((rss_sum + ${r:-0})); n=$((n + 1)); done
stop_server "$CUR_PID"
redis_ops=$(awk -v a="$ops0" -v b="$ops1" -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", (b - a) / (ns / 1e9) }')

{
    echo "# Seed 001 benchmark: 100 blocking workers, 10 Redis GETs per request"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); repo: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); $(nproc) CPUs ($(lscpu | awk -F: '/^Model name/ {sub(/^ +/, "", $2); print $2; exit}')); $PINNING"
    echo "- $(ver php -v); $(ver redis-server --version); \`ab -k -c$CONNS -n $N -t $TIME_CAP -s 20\`; run took $(( $(date +%s) - START_TS )) s"
    echo
    echo "| server | req/s | p99 | completed | failed (connect/receive/exception) | non-2xx | workers that answered 300 probes | redis commands/s | mean RSS/worker |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    echo "| rswoole, seed 001 script (SWOOLE_BASE, worker_num 100, enable_coroutine off) | $(num "$rps") | ${p99:-n/a} ms | ${done_n:-0} | ${failed:-n/a} | ${non2xx:-0} | $ids | $(num "$redis_ops") | $(awk -v s="$rss_sum" -v n="$n" 'BEGIN { printf "%.1f MiB", (n ? s / n / 1024 : 0) }') |"
    echo
    echo "The seed (its own machine, Swoole 4.x) reported 4,900+ req/s for this script and 6,500+ for a coroutine server with a 100-connection pool. The coroutine variant needs phpredis hooked into coroutines, which rswoole does not do."
} >"$OUT/seed001.md"
cat "$OUT/seed001.md"
