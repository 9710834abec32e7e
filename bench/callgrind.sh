#!/usr/bin/env bash
# User-space instructions per request of one worker serving the seed 000 hello world, counted by
# callgrind: deterministic to within a few tens of instructions and blind to other load on the
# machine (use it instead of req/s on a shared box).
#
# Usage: bash bench/callgrind.sh [path/to/librswoole.so] [port]
#   (default target/release/librswoole.so, port 19601; needs valgrind, ab, curl)
#   RSW_CG_SETTINGS='{"metrics_port":19700}' adds settings to the server's set() (a feature on vs off).
#
# Method: the server (worker_num 1, SWOOLE_BASE, default settings: coroutines on) runs under
# `valgrind --tool=callgrind --trace-children=yes`; `ab -q -k -c 10 -n N` sends N keep-alive
# requests; SIGTERM; the worker's `summary:` line is its total. Done for N=1000 and N=11000, the
# difference / 10000 is the cost of one request without start-up and shutdown.
set -eu
cd "$(dirname "$0")/.."
SO=${1:-target/release/librswoole.so}
case "$SO" in /*) ;; *) SO="$PWD/$SO" ;; esac
PORT=${2:-19601}
WORK=$(mktemp -d /tmp/rsw_cg.XXXXXX)
[ -n "${RSW_CG_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT

cat >"$WORK/hello.php" <<'EOF'
<?php
$http = new Swoole\Http\Server("127.0.0.1", (int)$argv[1], SWOOLE_BASE);
$http->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]
    + (json_decode(getenv('RSW_CG_SETTINGS') ?: '[]', true) ?: []));
$http->on('request', function ($request, $response) {
    $response->header('Last-Modified', 'Thu, 18 Jun 2015 10:24:27 GMT');
    $response->header('E-Tag', '55829c5b-17');
    $response->header('Accept-Ranges', 'bytes');
    $response->end("<h1>\nHello Swoole.\n</h1>");
});
$http->start();
EOF

# total Ir of the busiest process (the worker) after N requests
run() {
    local n=$1 dir="$WORK/n$1"
    mkdir -p "$dir"
    valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$dir/cg.%p" \
        php -n -d extension="$SO" "$WORK/hello.php" "$PORT" >"$dir/server.out" 2>&1 &
    local pid=$!
    for _ in $(seq 1 150); do curl -s -m 1 "127.0.0.1:$PORT/" >/dev/null && break; sleep 0.2; done
    ab -q -k -c 10 -n "$n" "http://127.0.0.1:$PORT/" >"$dir/ab.out" 2>&1
    grep -q '^Failed requests: *0' "$dir/ab.out" || { echo "ab reported failures:" >&2; cat "$dir/ab.out" >&2; }
    kill "$pid"
    wait "$pid" || true
    sleep 1
    grep -h -m1 '^summary:' "$dir"/cg.* | awk '{print $2}' | sort -n | tail -1
}

a=$(run 1000)
b=$(run 11000)
echo "N=1000: $a  N=11000: $b  instructions/request: $(((b - a) / 10000))"
