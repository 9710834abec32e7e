#!/usr/bin/env bash
# hot-order.sh: regenerates tools/hot-symbols.txt, the functions a worker runs, which build.rs has
# lld place first and together in .text (--symbol-ordering-file). The kernel maps a file-backed page
# with up to 15 neighbours around each page fault (fault-around, 64 KiB), so a worker touching
# scattered code pays megabytes of RSS for it; packed, the same code fits in a few dozen pages.
#
# Usage: bash tools/hot-order.sh [path/to/librswoole.so]   (default target/release/librswoole.so,
#   built by `cargo build --release`: the names carry that profile's hashes; needs valgrind, ab, curl)
# Workloads, each under `valgrind --tool=callgrind --demangle=no` for a few seconds: seed 000's hello
# world in SWOOLE_BASE and SWOOLE_PROCESS, and seed 003's WebSocket chat through task workers (its
# own client, not traced). Worker processes' functions come first, then the master's and manager's.
# Rebuild after it changes the file. Not part of `make test`: a stale list only orders less code.
set -eu
cd "$(dirname "$0")/.."
SO=${1:-target/release/librswoole.so}
case "$SO" in /*) ;; *) SO="$PWD/$SO" ;; esac
WORK=$(mktemp -d /tmp/rsw_hot.XXXXXX)
PID=""
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# trace <name> <script> <mode> <load command...>: the server under callgrind while the load runs
trace() {
    local name=$1 script=$2 mode=$3 p
    shift 3
    p=$(port)
    mkdir -p "$WORK/$name"
    RSW_PORT=$p RSW_MODE=$mode RSW_WORKERS=1 valgrind --tool=callgrind --demangle=no --trace-children=yes \
        --callgrind-out-file="$WORK/$name/cg.%p" php -n -d extension="$SO" "$script" >"$WORK/$name/server.log" 2>&1 &
    PID=$!
    for _ in $(seq 1 200); do curl -s -m 1 -o /dev/null "127.0.0.1:$p/" && break; sleep 0.2; done
    if RSW_PORT=$p "$@" "$p" >"$WORK/$name/load.log" 2>&1; then
        echo "hot-order: $name: $(grep -aE 'Complete requests|Success num' "$WORK/$name/load.log" | tr -s ' ' | paste -sd ';')"
    else
        echo "hot-order: $name: the load failed:" >&2
        tail -n 5 "$WORK/$name/load.log" >&2
    fi
    kill "$PID"
    wait "$PID" || true
    PID=""
    sleep 1
}
ab_load() { ab -k -c 10 -n 3000 "http://127.0.0.1:$1/" && ab -c 5 -n 300 "http://127.0.0.1:$1/"; }
chat_load() { timeout 120 php -n -d extension="$SO" bench/seed003/client.php; }

trace base bench/seed000/swoole_hello_fixed.php base ab_load
trace process bench/seed000/swoole_hello_fixed.php process ab_load
trace chat bench/seed003/server.php process chat_load

# Per run, the process with the most instructions is the worker; the others follow.
workers=() others=()
for d in "$WORK"/base "$WORK"/process "$WORK"/chat; do
    top=$(for f in "$d"/cg.*; do echo "$(awk '/^summary:/ {print $2; exit}' "$f") $f"; done | sort -n | tail -1 | cut -d' ' -f2)
    workers+=("$top")
    for f in "$d"/cg.*; do [ "$f" = "$top" ] || others+=("$f"); done
done
python3 tools/hot-order.py "$(basename "$SO")" "${workers[@]}" -- "${others[@]}" >tools/hot-symbols.txt
echo "hot-order: $(wc -l <tools/hot-symbols.txt) functions in tools/hot-symbols.txt; rebuild to apply"
