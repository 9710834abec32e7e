#!/usr/bin/env bash
# bench/seed003.sh: seed 003's WebSocket benchmark (group chat through task workers) and a broadcast fan-out, in SWOOLE_BASE and SWOOLE_PROCESS.
#
# 1. Seed 003 as printed: bench/seed003/server.php (the seed's server: every message goes to one of
#    10 task workers, which pushes it to every established connection) and bench/seed003/client.php
#    (the seed's client: 100 coroutine WebSocket clients one after the other, 100 push + recv each,
#    10,000 messages). Only the port (and, for the PROCESS row, the mode) differ from the seed.
#    Reported: the client's own lines (Success num, Total time, Request per second).
# 2. Fan-out: bench/seed003/fanout.php opens FANOUT_CONNS (1000) WebSocket connections to the same
#    server, then FANOUT_ROUNDS (5) times one more client sends a message and we time how long until
#    all FANOUT_CONNS clients have it (the task worker pushes to every connection). Reported: median
#    and max ms, messages lost. The client runs with memory_limit=1G (Swoole's client needs more than
#    the default 128M for 1000 connections).
# 3. Floor (SEED3_FLOOR=1, the default; needs cc and OpenSSL's headers): bench/seed003/relay.c, the
#    seed's path with nothing else, 3 hops (as both servers) and 2 hops, with rswoole's client.
# The server runs on CPU 0, the client on CPU 1 (taskset). If a real Swoole build exists (SWOOLE_SO,
# default /tmp/swoole-build/modules/swoole.so), its rows run too, for comparison; nothing here builds
# Swoole. Its BASE mode is expected to time out: Swoole's task workers cannot reach BASE-mode
# connections (the seed's premise on Swoole 6). Every run has a time cap; servers stopped by pid.
# Output: bench/out/seed003.md; logs in bench/out/logs/seed003-*.
set -u -o pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT="${BENCH_OUT:-$HERE/out}"
SO="${SO:-$ROOT/target/release/librswoole.so}"
SWOOLE_SO="${SWOOLE_SO-/tmp/swoole-build/modules/swoole.so}"
FANOUT_CONNS="${FANOUT_CONNS:-1000}"
FANOUT_ROUNDS="${FANOUT_ROUNDS:-5}"
CAP="${SEED3_CAP:-60}"
START_TS=$(date +%s)

log() { printf '[seed003] %s\n' "$*" >&2; }
. "$HERE/lib.sh"
mkdir -p "$OUT/raw" "$OUT/logs" "$OUT/seed003-so"
require_so
cp "$SO" "$OUT/seed003-so/librswoole.so"   # a concurrent rebuild must not change it mid-run
setup_pinning
CUR_PID=""
trap '[ -n "$CUR_PID" ] && stop_server "$CUR_PID"' EXIT
trap 'log "interrupted"; exit 130' INT TERM

IMPLS=("rswoole:$OUT/seed003-so/librswoole.so")
if [ -n "$SWOOLE_SO" ] && [ -f "$SWOOLE_SO" ] && php -n -d extension="$SWOOLE_SO" -r 'exit(class_exists("Swoole\\Coroutine\\Http\\Client") ? 0 : 1);' 2>/dev/null; then
    IMPLS+=("swoole:$SWOOLE_SO")
fi

# Runs the seed's client with extension $1 against port $2 (time cap CAP), its output kept in
# raw/seed003-$3-client.txt; sets rc and its report's succ, tt and rps.
seed_client() {
    local out
    out=$(RSW_PORT=$2 timeout "$CAP" "${PIN_CLI[@]}" php -n -d extension="$1" "$HERE/seed003/client.php" 2>&1)
    rc=$?
    echo "$out" >"$OUT/raw/seed003-$3-client.txt"
    succ=$(echo "$out" | awk -F: '/^Success num/ {print $2}')
    tt=$(echo "$out" | awk -F: '/^Total time/ {print $2}')
    rps=$(echo "$out" | awk -F: '/^Request per second/ {print $2}')
}

ROWS=()
for impl in "${IMPLS[@]}"; do
    name=${impl%%:*}; ext=${impl#*:}
    for mode in base process; do
        port=$(free_port)
        tag="$name-$mode"
        log "== $tag: seed 003 server on 127.0.0.1:$port"
        RSW_PORT=$port RSW_MODE=$mode "${PIN_SRV[@]}" php -n -d extension="$ext" "$HERE/seed003/server.php" >"$OUT/logs/seed003-$tag-server.log" 2>&1 &
        CUR_PID=$!
        for ((i = 0; i < 100; i++)); do port_listening "$port" && break; sleep 0.1; done
        if ! port_listening "$port"; then
            log "$tag: the server did not start (see $OUT/logs/seed003-$tag-server.log)"
            stop_server "$CUR_PID"
            ROWS+=("| $name | $mode | server did not start | | | | |")
            continue
        fi
        sleep 0.5   # the task workers start too
        seed_client "$ext" "$port" "$tag"
        [ "$rc" = 124 ] && succ="timed out after ${CAP} s"
        log "$tag: seed client: success=$succ time=$tt rps=$rps"
        fan="n/a"
        if [ "$rc" = 0 ]; then
            fj=$(RSW_PORT=$port RSW_CONNS=$FANOUT_CONNS RSW_ROUNDS=$FANOUT_ROUNDS timeout "$CAP" "${PIN_CLI[@]}" php -n -d memory_limit=1G -d extension="$ext" "$HERE/seed003/fanout.php" 2>&1 | grep "^{" | tail -n 1)
            echo "$fj" >"$OUT/raw/seed003-$tag-fanout.json"
            fan=$(echo "$fj" | php -r '$j = json_decode(stream_get_contents(STDIN), true); echo $j ? sprintf("%d conns: median %.1f ms, max %.1f ms, lost %d", $j["connections"], $j["median_ms"], $j["max_ms"], $j["missing"]) : "failed";')
            log "$tag: fan-out: $fan"
        fi
        rss=0; n=0
        for p in $(descendants "$CUR_PID"); do r=$(rss_kb "$p"); rss=$((rss + ${r:-0})); n=$((n + 1)); done
        stop_server "$CUR_PID"
        ROWS+=("| $name | $mode | ${succ:-n/a} | ${tt:-n/a} s | $(num "${rps:-}") | $fan | $(awk -v s="$rss" 'BEGIN { printf "%.0f MiB", s / 1024 }') ($n processes) |")
    done
done

# Floor: bench/seed003/relay.c, the seed's message path as two C processes doing nothing else, driven
# by the same client as the rswoole rows (rswoole's). 3 hops is the path both servers take (a task
# worker's push goes through the connection's owner); 2 hops lets the task worker write to the client
# itself. Its msg/s is about the most any server with those hops can show here.
FLOOR_RPS=()
if [ "${SEED3_FLOOR:-1}" = 1 ]; then
    if build_c relay "$HERE/seed003/relay.c" -lcrypto; then
        for hops in 3 2; do
            port=$(free_port)
            "${PIN_SRV[@]}" "$OUT/floor/relay" "$port" "$hops" >"$OUT/logs/seed003-floor-$hops.log" 2>&1 &
            CUR_PID=$!
            for ((i = 0; i < 50; i++)); do port_listening "$port" && break; sleep 0.1; done
            seed_client "$OUT/seed003-so/librswoole.so" "$port" "floor-$hops"
            log "floor, $hops hops: success=$succ time=$tt rps=$rps"
            FLOOR_RPS+=("$hops hops: $(num "${rps:-}")")
            stop_server "$CUR_PID"
            ROWS+=("| floor (relay.c) | $hops hops | ${succ:-n/a} | ${tt:-n/a} s | $(num "${rps:-}") | n/a | |")
        done
    else
        log "floor skipped: no C compiler (cc), or the build failed (OpenSSL headers: libssl-dev): $OUT/logs/relay-build.log"
    fi
fi

{
    echo "# Seed 003 benchmark: WebSocket group chat through task workers"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); repo: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); $(nproc) CPUs ($(lscpu | awk -F: '/^Model name/ {sub(/^ +/, "", $2); print $2; exit}')); $PINNING; $(ver php -v); run took $(( $(date +%s) - START_TS )) s"
    echo "- seed client: 100 clients in turn x 100 (push + recv), 10,000 messages; fan-out: $FANOUT_CONNS connections, $FANOUT_ROUNDS broadcasts"
    echo
    echo "| server | mode | Success num | Total time | Request per second | fan-out (time until every client has the message) | server RSS after |"
    echo "|---|---|---:|---:|---:|---|---:|"
    printf '%s\n' "${ROWS[@]}"
    echo
    echo "The seed (Swoole 4.x, 2-core VM) reported Success num:10000 in 0.85-0.91 s, 11,000-11,800 messages/s."
    [ ${#FLOOR_RPS[@]} -gt 0 ] && echo "Floor rows: bench/seed003/relay.c (C, no PHP, the seed's path between two processes) with rswoole's client; no server with the same hops can pass it here."
} >"$OUT/seed003.md"
cat "$OUT/seed003.md"
