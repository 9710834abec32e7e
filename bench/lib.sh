#!/usr/bin/env bash
# bench/lib.sh: process, port and CPU helpers shared by bench/run.sh, bench/coro.sh and bench/tcp.sh (sourced).

alive() {
    local st
    st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    st=${st##*) }
    [ "${st%% *}" != Z ]
}
descendants() {
    local c
    for c in $(children_of "$1"); do
        echo "$c"
        descendants "$c"
    done
}
machine_busy_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat; }
port_listening() {
    local hex
    hex=$(printf '%04X' "$1")
    awk -v h="$hex" 'FNR > 1 { n = split($2, a, ":"); if (a[n] == h && $4 == "0A") f = 1 } END { exit !f }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
rss_kb() { awk '/^VmRSS:/ {print $2; exit}' "/proc/$1/status" 2>/dev/null; }
num() { awk -v v="$1" 'BEGIN { if (v == "") print "n/a"; else { s = sprintf("%.0f", v); o = ""; while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) } print s o } }'; }
filter_noise() { grep -v 'hook_func(): The function named `curl_' || true; }
ver() { "$@" 2>&1 | head -n 1; }
