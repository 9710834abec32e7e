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
children_of() {
    if [ -e "/proc/$1/task" ] && ls /proc/"$1"/task/*/children >/dev/null 2>&1; then
        cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+$'
    else
        ps --ppid "$1" -o pid= 2>/dev/null | tr -d ' '
    fi
}
# Makes $SO absolute (relative to $ROOT) and stops the script, through its log(), when it is not built.
require_so() {
    case "$SO" in /*) ;; *) SO="$ROOT/$SO" ;; esac
    [ -f "$SO" ] || { log "$SO not found: build it first (cargo build --release)"; exit 1; }
}
# Builds C tool SRC as $OUT/floor/NAME (cc -O2, then any further arguments, e.g. -lcrypto), its
# compiler output in $OUT/logs/NAME-build.log; fails when there is no cc or the build fails.
build_c() {
    local name=$1 src=$2
    shift 2
    command -v cc >/dev/null 2>&1 && mkdir -p "$OUT/floor" "$OUT/logs" \
        && cc -O2 -o "$OUT/floor/$name" "$src" "$@" >"$OUT/logs/$name-build.log" 2>&1
}
# SIGTERM to the PID we started, SIGKILL to anything of its tree still alive after 5 s.
stop_server() {
    local pid=$1 tree p i
    [ -n "$pid" ] || return 0
    tree="$pid $(descendants "$pid" | tr '\n' ' ')"
    kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 50; i++)); do
        local any=0
        for p in $tree; do alive "$p" && any=1; done
        [ "$any" = 0 ] && break
        sleep 0.1
    done
    for p in $tree; do
        alive "$p" && { log "pid $p still alive after SIGTERM; sending SIGKILL"; kill -KILL "$p" 2>/dev/null; }
    done
    wait "$pid" 2>/dev/null
    CUR_PID=""
}
# A free 127.0.0.1 port nobody listens on, below the kernel's ephemeral range, so that no client
# socket (wrk's, a previous run's) holds it.
USED_PORTS=" "
EPH_LOW=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
PORT_LOW=10000
PORT_HIGH=$((EPH_LOW > 12000 ? EPH_LOW - 1 : 60000))
free_port() {
    local p=$((PORT_LOW + RANDOM % (PORT_HIGH - PORT_LOW)))
    while port_listening "$p" || [[ "$USED_PORTS" == *" $p "* ]]; do
        p=$((p + 1))
        [ "$p" -gt "$PORT_HIGH" ] && p=$PORT_LOW
    done
    USED_PORTS="$USED_PORTS$p "
    echo "$p"
}
# Raises the fd limit (many connections) and sets PIN_SRV/PIN_CLI (server on CPU 0, client on
# CPU 1) when there are 2+ CPUs and taskset; PINNING describes what was done.
setup_pinning() {
    ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
    if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
        PIN_SRV=(taskset -c 0); PIN_CLI=(taskset -c 1); PINNING="server on CPU 0, client on CPU 1"
    else
        PIN_SRV=(); PIN_CLI=(); PINNING="not pinned"
    fi
}
# CPU accounting in clock ticks (USER_HZ), to tell how much of the machine something other than a
# benchmark used while it was measuring.
TICK_HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)
# CPU ticks (user + system) the processes given as arguments used so far.
tree_ticks() {
    local p st t=0
    for p; do
        st=$(cat "/proc/$p/stat" 2>/dev/null) || continue
        st=${st##*) }
        t=$((t + $(echo "$st" | awk '{print $12 + $13}')))
    done
    echo "$t"
}
# CPU ticks of a shell's reaped children (wrk, ab, clients), from the file the shell's `times` wrote
# (`times` itself must run in that shell, not inside $(...)): times_ticks FILE.
times_ticks() {
    awk -v hz="$TICK_HZ" 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2] }
                          printf "%d", t * hz }' "$1"
}
# % of all CPUs busy (user, nice, system, irq, softirq) over 1 s.
cpu_busy_pct() {
    local a b
    a=$(awk '/^cpu / {print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8+$9; exit}' /proc/stat)
    sleep 1
    b=$(awk '/^cpu / {print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8+$9; exit}' /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " "); d = y[2] - x[2]; printf "%d", (d > 0 ? 100 * (y[1] - x[1]) / d : 0) }'
}
