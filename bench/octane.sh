#!/usr/bin/env bash
# bench/octane.sh: Laravel Octane (laravel/octane v1.5.6 on Debian's Laravel) serving `/` and a JSON route, rswoole vs real Swoole.
#
#   OCTANE_DIR=/path/to/octane bash bench/octane.sh                      # rswoole only
#   OCTANE_DIR=/path/to/octane SWOOLE_SO=/path/to/swoole.so bash bench/octane.sh   # plus real Swoole
#
# The app is the one tests/frameworks/octane_check.py assembles (our own files around the Octane
# checkout). `octane:start --workers=1 --task-workers=0` runs on CPU 0, wrk -t1 -c50 on CPU 1, for
# DURATION seconds (default 5) per route after a 1 s warm-up. Prints a markdown table (req/s, p99).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
SO=${SO:-$ROOT/target/release/librswoole.so}
DURATION=${DURATION:-5}
PHP=${PHP:-php}
log() { echo "octane.sh: $*" >&2; }
if [ -z "${OCTANE_DIR:-}" ]; then
    echo "octane.sh: skipped: OCTANE_DIR is not set (a laravel/octane v1.5.6 checkout)"
    exit 0
fi
if [ ! -e /usr/share/php/Illuminate/autoload.php ]; then
    echo "octane.sh: skipped: php-laravel-framework is not installed (make deps-frameworks)"
    exit 0
fi
command -v wrk >/dev/null 2>&1 || { echo "octane.sh: wrk is missing"; exit 1; }
setup_pinning
TMP=$(mktemp -d /tmp/rsw_octane_bench.XXXXXX)
CUR_PID=""
cleanup() { [ -n "$CUR_PID" ] && kill -TERM -- "-$CUR_PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
APP=$(cd "$ROOT/tests/frameworks" && python3 -c 'import sys, octane_check as o; print(o.assemble(sys.argv[1], sys.argv[2]))' "$OCTANE_DIR" "$TMP")

# run_one NAME EXT_SO: one table row per route.
run_one() {
    local name=$1 ext=$2 port ini st
    port=$(free_port)
    ini="$TMP/ini-$name"
    mkdir -p "$ini"
    echo "extension=$ext" >"$ini/99-swoole.ini"
    (cd "$APP" && PHP_INI_SCAN_DIR="/etc/php/8.2/cli/conf.d:$ini" exec setsid "${PIN_SRV[@]}" "$PHP" artisan octane:start \
        --server=swoole --host=127.0.0.1 --port="$port" --workers=1 --task-workers=0 \
        >"$TMP/$name.log" 2>&1 </dev/null) &
    CUR_PID=$!
    for _ in $(seq 1 100); do port_listening "$port" && break; sleep 0.2; done
    if ! port_listening "$port"; then
        log "$name did not start:"; tail -5 "$TMP/$name.log" >&2
        kill -TERM -- "-$CUR_PID" 2>/dev/null || true; CUR_PID=""; return
    fi
    for route in / /json; do
        "${PIN_CLI[@]}" wrk -t1 -c50 -d1s "http://127.0.0.1:$port$route" >/dev/null 2>&1 || true
        local out rps p99 errs
        out=$("${PIN_CLI[@]}" wrk -t1 -c50 -d"${DURATION}s" --latency "http://127.0.0.1:$port$route" 2>&1)
        rps=$(echo "$out" | awk '/^Requests\/sec/ {print $2}')
        p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
        errs=$(echo "$out" | awk '/Non-2xx|Socket errors/ {print}' | tr '\n' ' ')
        echo "| $name | $route | ${rps:-n/a} | ${p99:-n/a} | ${errs:-none} |"
        eval "RPS_${name//-/_}_${route//[^a-z]/x}=${rps:-0}"
    done
    kill -TERM -- "-$CUR_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$CUR_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$CUR_PID" 2>/dev/null || true
    wait "$CUR_PID" 2>/dev/null || true
    CUR_PID=""
}

echo "Octane: \`octane:start --workers=1 --task-workers=0\`, $PINNING, wrk -t1 -c50 -d${DURATION}s"
echo
echo "| server | route | req/s | p99 | errors |"
echo "|---|---|---:|---:|---|"
run_one rswoole "$SO"
if [ -n "${SWOOLE_SO:-}" ]; then
    run_one swoole "$SWOOLE_SO"
    for r in x xjson; do
        a=$(eval echo "\${RPS_rswoole_$r:-0}"); b=$(eval echo "\${RPS_swoole_$r:-0}")
        awk -v a="$a" -v b="$b" -v r="$r" 'BEGIN { if (b > 0) printf "\nrswoole / Swoole on %s: %.2fx", (r == "x" ? "/" : "/json"), a / b }'
    done
    echo
else
    echo
    echo "(Swoole row skipped: set SWOOLE_SO=/path/to/swoole.so)"
fi
