#!/usr/bin/env bash
# bench/tcp.sh: Swoole\Server benchmark (issue 5): raw TCP echo throughput against a Go echo server, and task round-trip rate.
#
# Servers run pinned to CPU 0 (taskset -c 0; forked workers inherit it), the load generator to CPU 1.
#   1. TCP echo: bench/tcp/echo.php (Swoole\Server, SWOOLE_BASE, worker_num 1, onReceive
#      $server->send($fd, $data)) and bench/tcp/echo.go (one goroutine per connection, GOMAXPROCS 1).
#      Load: bench/tcp/client.go, TCP_CONNS connections, each sends a TCP_SIZE-byte message, waits for
#      the whole echo, checks it and repeats; 1 s uncounted warm-up, then TCP_DURATION s measured.
#      Reported: messages/s, p50/p99 latency, ratio to Go, server and client CPU, RSS of the worker.
#   2. Tasks: bench/tcp/task.php (worker_num 1, task_worker_num 1, onTask returns its payload). A
#      timer in the worker runs for TCP_TASK_SECONDS s either a taskwait() loop (1 task in flight) or
#      task() + onFinish with TCP_TASK_WINDOW tasks in flight; reported: round trips/s.
# If a real Swoole build exists (SWOOLE_SO, default /tmp/swoole-build/modules/swoole.so), the PHP rows
# also run on it, as a comparison. Nothing here builds Swoole.
# Output: markdown on stdout and in bench/out/tcp.md; client output and task results in
# bench/out/raw/tcp-*, server logs and the Go build log in bench/out/logs/tcp-*. About 65 s with real
# Swoole, 45 s without; on a busy machine up to TCP_QUIET_WAIT s more at the start and
# TCP_RUN_QUIET_WAIT s more before each of the 7 runs (< 2 min in all). Every step has a time cap. Servers are stopped by pid (SIGTERM, then SIGKILL for their tree), also on exit/interrupt.
#
# Environment knobs (defaults give the documented run):
#   SO=path/to/librswoole.so   (default target/release/librswoole.so; copied to bench/out/tcp-so/
#                               so that a concurrent rebuild does not change it mid-run)
#   SWOOLE_SO=path             real Swoole for comparison rows; SWOOLE_SO= (empty) skips them
#   TCP_DURATION=10  TCP_CONNS=100  TCP_SIZE=64       echo run: seconds, connections, message bytes
#   TCP_TASK_SECONDS=5  TCP_TASK_WINDOW=100          task runs
#   TCP_QUIET_WAIT=20          seconds to wait at the start for the CPUs to be <= 10% busy
#   TCP_RUN_QUIET_WAIT=5       the same, before each server run
#   BENCH_OUT=bench/out        output directory
set -u -o pipefail
export LC_ALL=C
PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin:/usr/local/go/bin"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT="${BENCH_OUT:-$HERE/out}"
SO="${SO:-$ROOT/target/release/librswoole.so}"
SWOOLE_SO="${SWOOLE_SO-/tmp/swoole-build/modules/swoole.so}"
DURATION="${TCP_DURATION:-10}"
CONNS="${TCP_CONNS:-100}"
SIZE="${TCP_SIZE:-64}"
TASK_SECONDS="${TCP_TASK_SECONDS:-5}"
TASK_WINDOW="${TCP_TASK_WINDOW:-100}"
QUIET_WAIT="${TCP_QUIET_WAIT:-20}"
RUN_QUIET_WAIT="${TCP_RUN_QUIET_WAIT:-5}"
READY_TIMEOUT=10
START_TS=$(date +%s)

log() { printf '[tcp] %s\n' "$*" >&2; }
# shared helpers: alive, descendants, port_listening, rss_kb, machine_busy_ticks, num, ver, ...
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mkdir -p "$OUT/raw" "$OUT/logs" "$OUT/tcp-so" "$OUT/go/gopath" "$OUT/go/cache"

for t in php go; do
    command -v "$t" >/dev/null 2>&1 || { log "$t is required (apt-get install -y php-cli golang-go); aborting"; exit 1; }
done
require_so

NCPU=$(nproc 2>/dev/null || echo 1)
if [ "$NCPU" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
    PIN_SRV=(taskset -c 0); PIN_CLI=(taskset -c 1)
    PINNING="server pinned to CPU 0, load generator to CPU 1"
else
    PIN_SRV=(); PIN_CLI=()
    PINNING="NOT pinned ($NCPU CPU(s) or no taskset)"
fi

# A private copy of the extension: others rebuild target/release while this runs. A build in progress
# can leave a file PHP refuses; wait up to 20 s for a loadable one.
so_ok() { php -n -d extension="$1" -r 'exit(class_exists("Swoole\\Server") && method_exists("Swoole\\Server", "taskwait") ? 0 : 1);' >/dev/null 2>&1; }
for ((w = 0; ; w += 5)); do
    cp "$SO" "$OUT/tcp-so/librswoole.so" && so_ok "$OUT/tcp-so/librswoole.so" && break
    [ "$w" -ge 20 ] && { log "$SO does not load as a PHP extension with Swoole\\Server (a rebuild in progress?); aborting"; exit 1; }
    [ "$w" = 0 ] && log "$SO does not load yet (rebuild in progress?); waiting up to 20 s"
    sleep 5
done
SO_INFO="\`${SO#"$ROOT"/}\` ($(du -h "$SO" | cut -f1), built $(date -u -r "$SO" '+%Y-%m-%d %H:%M UTC'), sha256 $(sha256sum "$SO" | cut -c1-12))"

IMPLS=(rswoole)
declare -A EXT
EXT[rswoole]="$OUT/tcp-so/librswoole.so"
SWOOLE_VER=""
if [ -n "$SWOOLE_SO" ] && [ -f "$SWOOLE_SO" ] && so_ok "$SWOOLE_SO"; then
    IMPLS+=(swoole)
    EXT[swoole]="$SWOOLE_SO"
    SWOOLE_VER=$(php -n -d extension="$SWOOLE_SO" -r 'echo phpversion("swoole");' 2>/dev/null)
fi

# ------------------------------------------------------------- processes ----
CUR_PID=""
cleanup() { [ -n "$CUR_PID" ] && stop_server "$CUR_PID"; rm -f "$OUT/.tcp-times"; }
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# start_server LOG CMD...: starts CMD pinned to CPU 0 in the background; sets CUR_PID.
start_server() {
    local logf=$1
    shift
    "${PIN_SRV[@]}" "$@" >"$logf" 2>&1 &
    CUR_PID=$!
}
# wait_port PID PORT: up to READY_TIMEOUT s for PORT to accept a connection while PID lives.
wait_port() {
    local i
    for ((i = 0; i < READY_TIMEOUT * 10; i++)); do
        alive "$1" || return 1
        (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# ------------------------------------------------------- CPU accounting ----
declare -A OTHER SRVCPU
# measure KEY "PIDS" CMD...: runs CMD; SRVCPU[KEY] = CPU % (of one core) used by PIDS meanwhile;
# OTHER[KEY] = % of the machine used by processes other than CMD and PIDS (others' builds, say).
measure() {
    local key=$1 pids=$2 m0 s0 c0 t0 m1 s1 c1 t1 rc
    shift 2
    m0=$(machine_busy_ticks); s0=$(tree_ticks $pids); times >"$OUT/.tcp-times"; c0=$(times_ticks "$OUT/.tcp-times"); t0=$(date +%s%N)
    "$@"
    rc=$?
    m1=$(machine_busy_ticks); s1=$(tree_ticks $pids); times >"$OUT/.tcp-times"; c1=$(times_ticks "$OUT/.tcp-times"); t1=$(date +%s%N)
    OTHER[$key]=$(awk -v m=$((m1 - m0)) -v s=$((s1 - s0)) -v c=$((c1 - c0)) -v ns=$((t1 - t0)) -v hz="$TICK_HZ" -v n="$NCPU" \
        'BEGIN { cap = ns / 1e9 * hz * n; o = m - s - c; if (o < 0) o = 0; printf "%d", (cap > 0 ? 100 * o / cap : 0) }')
    SRVCPU[$key]=$(awk -v s=$((s1 - s0)) -v ns=$((t1 - t0)) -v hz="$TICK_HZ" \
        'BEGIN { cap = ns / 1e9 * hz; printf "%d", (cap > 0 ? 100 * s / cap : 0) }')
    return $rc
}

# Real Swoole's bundled PHP library warns about every curl_* function it cannot hook under `php -n`.

mib() { awk -v v="$1" 'BEGIN { if (v == "" || v <= 0) print "n/a"; else printf "%.1f MiB", v / 1024 }'; }
ms() { awk -v v="$1" 'BEGIN { if (v == "") print "n/a"; else printf "%.2f ms", v / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) printf "n/a"; else printf "%.2f", a / b }'; }
# kv FILE KEY: value of a key=value line
kv() { awk -F= -v k="$2" '$1 == k { print $2; exit }' "$1" 2>/dev/null; }
# jget FILE KEY: a scalar from a one-line JSON object
jget() { php -n -r '$j = json_decode((string) @file_get_contents($argv[1]), true); echo is_array($j) ? ($j[$argv[2]] ?? "") : "";' "$1" "$2"; }

declare -A R NOTE
add_note() { NOTE[$1]="${NOTE[$1]:-}${NOTE[$1]:+; }$2"; }

# ------------------------------------------------------------ go builds ----
gobuild() { # gobuild SRC OUT
    (cd "$HERE/tcp" && env GOPATH="$OUT/go/gopath" GOCACHE="$OUT/go/cache" GO111MODULE=off \
        GOFLAGS= GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 go build -o "$2" "$1") >>"$OUT/logs/tcp-go-build.log" 2>&1
}
: >"$OUT/logs/tcp-go-build.log"
log "building bench/tcp/client.go and bench/tcp/echo.go"
CLIENT="$OUT/go/tcp-client"
GOECHO="$OUT/go/tcp-echo"
gobuild client.go "$CLIENT" || { log "go build of client.go failed, see bench/out/logs/tcp-go-build.log"; exit 1; }
GO_OK=1
gobuild echo.go "$GOECHO" || { GO_OK=0; log "go build of echo.go failed, see bench/out/logs/tcp-go-build.log"; }

# ---------------------------------------------------------------- quiet ----
LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
BUSY_BEFORE=$(cpu_busy_pct)
waited=0
while [ "$BUSY_BEFORE" -gt 10 ] && [ "$waited" -lt "$QUIET_WAIT" ]; do
    log "the machine is ${BUSY_BEFORE}% busy; waiting up to $((QUIET_WAIT - waited)) s more for it to calm down"
    sleep 4
    waited=$((waited + 5))
    BUSY_BEFORE=$(cpu_busy_pct)
done
[ "$BUSY_BEFORE" -gt 10 ] && log "WARNING: the machine is already ${BUSY_BEFORE}% busy; numbers will be low and noisy"

# quiet_wait: before each run, up to RUN_QUIET_WAIT s for the CPUs to drop to 10% busy or less.
quiet_wait() {
    local b w
    for ((w = 0; w < RUN_QUIET_WAIT; w++)); do
        b=$(cpu_busy_pct)
        [ "$b" -le 10 ] && return 0
        [ "$w" = 0 ] && log "the machine is ${b}% busy; waiting up to ${RUN_QUIET_WAIT} s before the next run"
    done
}

# ------------------------------------------------------------- 1. echo ----
# echo_one NAME PIDFILE CMD...: start, wait, load, RSS, stop. Results in R[NAME.*].
echo_one() {
    local name=$1 pidfile=$2 port=$3
    shift 3
    local raw="$OUT/raw/tcp-echo-$name.txt" logf="$OUT/logs/tcp-echo-$name.log" pid wpid p all tot=0 r
    rm -f "$pidfile"
    quiet_wait
    log "echo: $name on 127.0.0.1:$port"
    start_server "$logf" "$@"
    pid=$CUR_PID
    if ! wait_port "$pid" "$port"; then
        R[$name.status]="failed (no listener within ${READY_TIMEOUT} s, see bench/out/logs/tcp-echo-$name.log)"
        stop_server "$pid"
        return
    fi
    all="$pid $(descendants "$pid" | tr '\n' ' ')"
    measure "echo.$name" "$all" timeout $((DURATION + 30)) "${PIN_CLI[@]}" "$CLIENT" \
        -addr "127.0.0.1:$port" -c "$CONNS" -size "$SIZE" -warmup 1s -d "${DURATION}s" >"$raw" 2>&1
    R[$name.rc]=$?
    for k in msgs_per_s p50_us p99_us errors client_cpu_pct; do R[$name.$k]=$(kv "$raw" "$k"); done
    R[$name.srvcpu]=${SRVCPU[echo.$name]}
    if ! alive "$pid"; then
        R[$name.status]="failed (server died under load, see bench/out/logs/tcp-echo-$name.log)"
    elif [ "${R[$name.rc]}" != 0 ] || [ -z "${R[$name.msgs_per_s]}" ]; then
        R[$name.status]="failed (client exit ${R[$name.rc]}: $(grep -v = "$raw" | head -n 1))"
    else
        R[$name.status]=ok
    fi
    # RSS right after the load: the worker (pid written in workerStart), else the server process.
    wpid=$pid
    [ -n "$pidfile" ] && [ -s "$pidfile" ] && wpid=$(cat "$pidfile")
    R[$name.rss]=$(rss_kb "$wpid")
    all="$pid $(descendants "$pid" | tr '\n' ' ')"
    for p in $all; do r=$(rss_kb "$p"); tot=$((tot + ${r:-0})); done
    local n
    n=$(echo $all | wc -w)
    [ "$n" -gt 1 ] && add_note "echo.$name" "$n processes, total RSS $(mib "$tot")"
    [ "${R[$name.errors]:-0}" != 0 ] && [ -n "${R[$name.errors]}" ] && add_note "echo.$name" "client errors: ${R[$name.errors]}"
    [ "${OTHER[echo.$name]:-0}" -ge 5 ] && add_note "echo.$name" "**other processes used ~${OTHER[echo.$name]}% of the machine's CPU meanwhile**"
    stop_server "$pid"
}

ECHO_ROWS=()
if [ "$GO_OK" = 1 ]; then
    port=$(free_port)
    ECHO_ROWS+=(go)
    echo_one go "" "$port" env PORT="$port" GOMAXPROCS=1 "$GOECHO"
else
    ECHO_ROWS+=(go); R[go.status]="failed (go build, see bench/out/logs/tcp-go-build.log)"
fi
for impl in "${IMPLS[@]}"; do
    port=$(free_port)
    ECHO_ROWS+=("$impl")
    echo_one "$impl" "$OUT/raw/tcp-echo-$impl.pid" "$port" env RSW_PORT="$port" RSW_PIDFILE="$OUT/raw/tcp-echo-$impl.pid" \
        php -n -d extension="${EXT[$impl]}" "$HERE/tcp/echo.php"
done

# ------------------------------------------------------------ 2. tasks ----
# task_one IMPL MODE: one task.php run; results in R[IMPL.MODE.*].
task_one() {
    local impl=$1 mode=$2 port res pid i tp all t0 t1 s0 s1 st
    port=$(free_port)
    res="$OUT/raw/tcp-task-$impl-$mode.json"
    rm -f "$res" "$res.tmp" "$res.taskpid"
    quiet_wait
    log "tasks: $impl, $mode"
    start_server "$OUT/logs/tcp-task-$impl-$mode.log" env RSW_PORT="$port" RSW_TASK_MODE="$mode" RSW_SECONDS="$TASK_SECONDS" \
        RSW_WINDOW="$TASK_WINDOW" RSW_RESULT="$res" php -n -d extension="${EXT[$impl]}" "$HERE/tcp/task.php"
    pid=$CUR_PID
    t0=$(machine_busy_ticks); s0=$(date +%s%N)
    for ((i = 0; i < (TASK_SECONDS + 15) * 10; i++)); do
        [ -s "$res" ] && break
        alive "$pid" || break
        sleep 0.1
    done
    # The server's CPU since it started (all its processes, alive until stop_server), and the
    # machine's, over the same time: the difference is other processes' load.
    all="$pid $(descendants "$pid" | tr '\n' ' ')"
    t1=$(machine_busy_ticks); s1=$(date +%s%N); st=$(tree_ticks $all)
    if [ -s "$res" ]; then
        R[$impl.$mode.per_s]=$(jget "$res" per_s)
        R[$impl.$mode.errors]=$(jget "$res" errors)
        R[$impl.$mode.rss]=$(rss_kb "$(jget "$res" worker_pid)")
        tp=$(cat "$res.taskpid" 2>/dev/null)
        [ -n "$tp" ] && R[$impl.$mode.task_rss]=$(rss_kb "$tp")
        R[$impl.$mode.nproc]=$(echo $all | wc -w)
        R[$impl.$mode.status]=ok
        R[$impl.$mode.srvcpu]=$(awk -v s="$st" -v ns=$((s1 - s0)) -v hz="$TICK_HZ" \
            'BEGIN { cap = ns / 1e9 * hz; printf "%d", (cap > 0 ? 100 * s / cap : 0) }')
        R[$impl.$mode.other]=$(awk -v m=$((t1 - t0)) -v s="$st" -v ns=$((s1 - s0)) -v hz="$TICK_HZ" -v n="$NCPU" \
            'BEGIN { cap = ns / 1e9 * hz * n; o = m - s; if (o < 0) o = 0; printf "%d", (cap > 0 ? 100 * o / cap : 0) }')
    elif alive "$pid"; then
        R[$impl.$mode.status]="failed (no result within $((TASK_SECONDS + 15)) s)"
    else
        R[$impl.$mode.status]="failed (server exited, see bench/out/logs/tcp-task-$impl-$mode.log)"
    fi
    stop_server "$pid"
    filter_noise <"$OUT/logs/tcp-task-$impl-$mode.log" >"$OUT/logs/tcp-task-$impl-$mode.log.tmp" &&
        mv "$OUT/logs/tcp-task-$impl-$mode.log.tmp" "$OUT/logs/tcp-task-$impl-$mode.log"
}
for impl in "${IMPLS[@]}"; do
    task_one "$impl" wait
    task_one "$impl" finish
done

# --------------------------------------------------------------- report ----
BUSY_AFTER=$(cpu_busy_pct)
cpu_model=$(lscpu 2>/dev/null | awk -F: '/^Model name/ {sub(/^ +/, "", $2); print $2; exit}')
git_rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "no commit")
label() { case "$1" in go) echo "Go net (goroutine per conn, GOMAXPROCS 1)" ;; rswoole) echo "rswoole" ;; swoole) echo "Swoole $SWOOLE_VER" ;; *) echo "$1" ;; esac; }

{
    echo "# Swoole\\Server benchmark: TCP echo and task round trips"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); repo: $git_rev; run took $(( $(date +%s) - START_TS )) s"
    echo "- kernel: $(uname -r); CPU: ${cpu_model:-unknown} ($NCPU CPUs); load average at start: $LOADAVG; CPU busy (all processes, 1 s sample) before: ${BUSY_BEFORE}%, after: ${BUSY_AFTER}%"
    [ "$BUSY_BEFORE" -gt 10 ] && echo "- **WARNING: other processes were using ${BUSY_BEFORE}% of the CPUs when the run started; treat these numbers as low and noisy.**"
    echo "- versions: $(ver go version); $(ver php -v)${SWOOLE_VER:+; Swoole $SWOOLE_VER (\`$SWOOLE_SO\`)}"
    echo "- rswoole: $SO_INFO"
    echo "- method: 127.0.0.1 loopback, $PINNING. Echo: \`bench/tcp/client.go\`, $CONNS connections, each sends $SIZE bytes and waits for the full echo (checked), 1 s warm-up then ${DURATION} s measured. PHP servers: \`php -n\`, SWOOLE_BASE, worker_num 1. Server CPU is % of one core used by the server's processes during the client run (warm-up included); client CPU is the client's own, measured window only."
    echo
    echo "## TCP echo, $CONNS connections x $SIZE-byte messages"
    echo
    echo "| server | messages/s | p50 | p99 | ratio vs Go | server CPU | client CPU | RSS (worker) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    for n in "${ECHO_ROWS[@]}"; do
        if [ "${R[$n.status]}" != ok ]; then
            echo "| $(label "$n") | ${R[$n.status]} | | | | | | |"
            continue
        fi
        echo "| $(label "$n") | $(num "${R[$n.msgs_per_s]}") | $(ms "${R[$n.p50_us]}") | $(ms "${R[$n.p99_us]}") | $(ratio "${R[$n.msgs_per_s]}" "${R[go.msgs_per_s]:-}") | ${R[$n.srvcpu]}% | ${R[$n.client_cpu_pct]}% | $(mib "${R[$n.rss]}") |"
    done
    echo
    echo "## Task round trips (worker_num 1, task_worker_num 1, all on CPU 0; ${TASK_SECONDS} s each)"
    echo
    echo "| implementation | taskwait() loop, round trips/s | task() + onFinish, $TASK_WINDOW in flight, round trips/s | RSS worker / task worker |"
    echo "|---|---:|---:|---:|"
    for impl in "${IMPLS[@]}"; do
        cells=()
        for mode in wait finish; do
            if [ "${R[$impl.$mode.status]:-}" = ok ]; then
                c=$(num "${R[$impl.$mode.per_s]}")
                [ "${R[$impl.$mode.errors]:-0}" != 0 ] && c="$c (${R[$impl.$mode.errors]} wrong results)"
                cells+=("$c")
            else
                cells+=("${R[$impl.$mode.status]:-not run}")
            fi
        done
        echo "| $(label "$impl") | ${cells[0]} | ${cells[1]} | $(mib "${R[$impl.wait.rss]:-}") / $(mib "${R[$impl.wait.task_rss]:-}") |"
    done
    if [ "${#IMPLS[@]}" -gt 1 ]; then
        echo "| ratio rswoole / Swoole | $(ratio "${R[rswoole.wait.per_s]:-}" "${R[swoole.wait.per_s]:-}") | $(ratio "${R[rswoole.finish.per_s]:-}" "${R[swoole.finish.per_s]:-}") | |"
    fi
    echo
    any=0
    for n in "${ECHO_ROWS[@]}"; do
        [ -n "${NOTE[echo.$n]:-}" ] && { [ $any = 0 ] && echo "Notes:"; any=1; echo "- echo, $(label "$n"): ${NOTE[echo.$n]}"; }
    done
    for impl in "${IMPLS[@]}"; do
        for mode in wait finish; do
            [ -n "${R[$impl.$mode.nproc]:-}" ] || continue
            [ $any = 0 ] && echo "Notes:"; any=1
            o=""
            [ "${R[$impl.$mode.other]:-0}" -ge 5 ] && o="; **other processes used ~${R[$impl.$mode.other]}% of the machine's CPU meanwhile**"
            echo "- tasks, $(label "$impl"), $mode: ${R[$impl.$mode.nproc]} processes using ${R[$impl.$mode.srvcpu]}% of one core (start-up included)$o"
        done
    done
    [ $any = 1 ] && echo
    echo "Client output and task results: bench/out/raw/tcp-*; server logs and the Go build log: bench/out/logs/tcp-*."
} >"$OUT/tcp.md"

cat "$OUT/tcp.md"
