#!/usr/bin/env bash
# bench/tls.sh: TLS and HTTP/2 servers (issue 14): rswoole vs real Swoole vs nginx, each 1 worker pinned to CPU 0.
#
# Rows per contender (load pinned to CPU 1, loopback, an RSA-2048 certificate made at run time):
#   1. HTTPS keep-alive hello world: wrk -t1 -c100 -d${TLS_DURATION}s (TLS 1.3, HTTP/1.1);
#   2. new TLS handshakes/s: wrk -t1 -c50 -d${TLS_DURATION}s with `Connection: close` (one full handshake
#      per request: wrk keeps no session for resumption);
#   3. HTTP/2: h2load -c10 -m10 -D${TLS_DURATION} (100 concurrent streams over 10 connections, h2 by ALPN).
# Real Swoole (SWOOLE_SO, default /work/swoole-build/modules/swoole.so) runs the same tls/hello.php; its
# rows are skipped when that build lacks OpenSSL. Output: markdown on stdout and in bench/out/tls.md.
# Knobs: SO=librswoole.so, SWOOLE_SO= (empty skips Swoole), TLS_DURATION=5, BENCH_OUT=bench/out.
set -u -o pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT="${BENCH_OUT:-$HERE/out}/tls"
SO="${SO:-$ROOT/target/release/librswoole.so}"
SWOOLE_SO="${SWOOLE_SO-/work/swoole-build/modules/swoole.so}"
DURATION="${TLS_DURATION:-5}"
log() { printf '[tls] %s\n' "$*" >&2; }
. "$HERE/lib.sh"
for t in php wrk h2load openssl; do
    command -v "$t" >/dev/null 2>&1 || { log "$t is required; aborting"; exit 1; }
done
[ -f "$SO" ] || { log "$SO not found: build it first (cargo build --release)"; exit 1; }
mkdir -p "$OUT/certs" "$OUT/nginx/tmp"
cp "$SO" "$OUT/librswoole.so"
CERTS="$OUT/certs"
(
    cd "$CERTS" || exit 1
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=bench CA" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=localhost" 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >san.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san.ext 2>/dev/null
) || { log "certificate generation failed"; exit 1; }
setup_pinning
CUR_PID=""
trap 'stop_server "$CUR_PID"' EXIT INT TERM
declare -A KA HS H2 KAP H2P

wait_port() {
    local i
    for ((i = 0; i < 100; i++)); do port_listening "$1" && return 0; sleep 0.1; done
    return 1
}
run_one() { # name port cmd...
    local name=$1 port=$2 out
    shift 2
    "${PIN_SRV[@]}" "$@" >"$OUT/$name.log" 2>&1 &
    CUR_PID=$!
    if ! wait_port "$port"; then
        log "$name did not start; see $OUT/$name.log"
        stop_server "$CUR_PID"
        return
    fi
    sleep 0.5
    out=$("${PIN_CLI[@]}" wrk -t1 -c100 -d"${DURATION}s" --latency "https://127.0.0.1:$port/" 2>&1)
    echo "$out" >"$OUT/$name-keepalive.txt"
    KA[$name]=$(echo "$out" | awk '/^Requests\/sec/ {print $2}')
    KAP[$name]=$(echo "$out" | awk '$1 == "99%" {print $2}')
    out=$("${PIN_CLI[@]}" wrk -t1 -c50 -d"${DURATION}s" -H 'Connection: close' "https://127.0.0.1:$port/" 2>&1)
    echo "$out" >"$OUT/$name-handshake.txt"
    HS[$name]=$(echo "$out" | awk '/^Requests\/sec/ {print $2}')
    out=$("${PIN_CLI[@]}" h2load -c10 -m10 -D"$DURATION" "https://127.0.0.1:$port/" 2>&1)
    echo "$out" >"$OUT/$name-h2load.txt"
    H2[$name]=$(echo "$out" | awk '/^finished in/ {print $4}')
    H2P[$name]=$(echo "$out" | awk -F', ' '/^requests:/ {print $4 ", " $5}')
    log "$name: keep-alive ${KA[$name]:-?} req/s, handshakes ${HS[$name]:-?}/s, h2 ${H2[$name]:-?} req/s"
    stop_server "$CUR_PID"
}

P=$(free_port)
run_one rswoole "$P" env RSW_PORT="$P" RSW_DIR="$CERTS" php -n -d extension="$OUT/librswoole.so" "$HERE/tls/hello.php"
SW_NOTE=""
if [ -n "$SWOOLE_SO" ] && [ -f "$SWOOLE_SO" ]; then
    if php -n -d extension="$SWOOLE_SO" --ri swoole 2>/dev/null | grep -qi '^openssl'; then
        P=$(free_port)
        run_one swoole "$P" env RSW_PORT="$P" RSW_DIR="$CERTS" php -n -d extension="$SWOOLE_SO" "$HERE/tls/hello.php"
    else
        SW_NOTE="real Swoole at $SWOOLE_SO was built without OpenSSL: its rows are skipped"
    fi
else
    SW_NOTE="no real Swoole build (SWOOLE_SO): its rows are skipped"
fi
if command -v nginx >/dev/null 2>&1; then
    P=$(free_port)
    sed -e "s#@OUT@#$OUT/nginx#g" -e "s#@PORT@#$P#g" -e "s#@CERTS@#$CERTS#g" "$HERE/tls/nginx.conf.in" >"$OUT/nginx/nginx.conf"
    run_one nginx "$P" nginx -p "$OUT/nginx" -e "$OUT/nginx/error.log" -c "$OUT/nginx/nginx.conf" -g 'daemon off;'
fi
trap - EXIT INT TERM

{
    echo "# TLS / HTTP/2 benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'))"
    echo
    echo "- $PINNING; ${DURATION} s per row; RSA-2048 certificate; $(ver nginx -v); $(ver wrk -v | sed 's/ Copyright.*//'); $(h2load --version 2>&1 | head -1)"
    [ -n "$SW_NOTE" ] && echo "- $SW_NOTE"
    echo
    echo "| contender | HTTPS keep-alive req/s (wrk -c100) | p99 | new handshakes/s (wrk -c50, Connection: close) | h2load -c10 -m10 req/s | h2load requests |"
    echo "|---|---:|---:|---:|---:|---|"
    for n in rswoole swoole nginx; do
        [ -n "${KA[$n]:-}" ] || continue
        echo "| $n | ${KA[$n]} | ${KAP[$n]:-} | ${HS[$n]:-} | ${H2[$n]:-} | ${H2P[$n]:-} |"
    done
} | tee "$OUT/../tls.md"
