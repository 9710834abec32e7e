#!/usr/bin/env bash
# User-space instructions per request of the one worker serving seed 001's coroutine variant
# (bench/seed001/coro_server.php, or pool_server.php with RSW_CG_SCRIPT=pool), counted by callgrind:
# the load-independent measure behind bench/seed001.sh's req/s (10 phpredis GETs per request).
#
# Usage: bash bench/callgrind_redis.sh [path/to/extension.so] [port]
#   (default target/release/librswoole.so; the same script runs on real Swoole when the .so is
#   Swoole's; needs valgrind, ab, curl, redis-server, phpredis)
#   RSW_CG_SCRIPT=coro|pool (default coro); RSW_CG_KEEP=1 keeps the callgrind files (path printed).
#
# Method: redis-server on a free port; the server under `valgrind --tool=callgrind
# --trace-children=yes`; `ab -q -k -c 100 -n N`; SIGTERM; the busiest process's `summary:` is the
# worker's total. Done for N=500 and N=2500, the difference / 2000 is one request without start-up,
# the pool's fill and shutdown. (Instructions only: the kernel's share, large here, is not counted.)
set -eu
cd "$(dirname "$0")/.."
SO=${1:-target/release/librswoole.so}
case "$SO" in /*) ;; *) SO="$PWD/$SO" ;; esac
PORT=${2:-19611}
SCRIPT=bench/seed001/${RSW_CG_SCRIPT:-coro}_server.php
WORK=$(mktemp -d /tmp/rsw_cgr.XXXXXX)
[ -n "${RSW_CG_KEEP:-}" ] && echo "callgrind files in $WORK" >&2
RPORT=$((PORT + 1))
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no >"$WORK/redis.log" 2>&1 &
RPID=$!
cleanup() {
    kill "$RPID" 2>/dev/null || true
    wait "$RPID" 2>/dev/null || true
    [ -n "${RSW_CG_KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
for _ in $(seq 1 50); do redis-cli -p "$RPORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p "$RPORT" set test_key1 hello >/dev/null
EXT=(-d "extension=$SO")
[ -f "$(php -r 'echo ini_get("extension_dir");')/igbinary.so" ] && EXT=(-d extension=igbinary "${EXT[@]}")
EXT+=(-d extension=redis -d memory_limit=1G)

run() {
    local n=$1 dir="$WORK/n$1"
    mkdir -p "$dir"
    RSW_PORT=$PORT RSW_REDIS_PORT=$RPORT valgrind --tool=callgrind --trace-children=yes \
        --callgrind-out-file="$dir/cg.%p" php -n "${EXT[@]}" "$SCRIPT" >"$dir/server.out" 2>&1 &
    local pid=$!
    for _ in $(seq 1 300); do curl -s -m 2 "127.0.0.1:$PORT/" | grep -q worker_id && break; sleep 0.2; done
    ab -q -k -c 100 -n "$n" "http://127.0.0.1:$PORT/" >"$dir/ab.out" 2>&1
    grep -q "^Failed requests: *0" "$dir/ab.out" ||
        { echo "ab reported failures:" >&2; cat "$dir/ab.out" >&2; }
    kill "$pid"
    wait "$pid" || true
    sleep 1
    grep -h -m1 '^summary:' "$dir"/cg.* | awk '{print $2}' | sort -n | tail -1
}

a=$(run 500)
b=$(run 2500)
echo "$(basename "$SO") $SCRIPT: N=500: $a  N=2500: $b  instructions/request: $(((b - a) / 2000))"
