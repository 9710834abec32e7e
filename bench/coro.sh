#!/usr/bin/env bash
# bench/coro.sh: coroutine runtime benchmark (issue 4): create+finish rate, 100k sleeping coroutines, channel ping-pong, seed 000 hello world with enable_coroutine on vs off.
#
# The PHP process runs pinned to CPU 0 (taskset -c 0), wrk to CPU 1. Steps:
#   1. bench/coro/create.php    1,000,000 x go(function(){}) inside Co\run: time, coroutines/s, VmHWM
#   2. bench/coro/sleep.php     100,000 coroutines each Co::sleep(1) inside Co\run: wall time, RSS,
#                               RSS per coroutine, the latest wake-up after a coroutine's own
#                               deadline. If N fails, the failure point (the largest N that works) and the error are reported and the step is re-run
#                               1000 below it, rounded down to a multiple of 1000.
#   3. bench/coro/pingpong.php  two coroutines, two Channel(1), 1,000,000 round trips
#   4. bench/seed000/swoole_hello_fixed.php with RSW_COROUTINE=on and =off, 1 worker:
#      1 s wrk warm-up then `wrk -t1 -c100 -d10s --latency`, alternating on, off, on, off.
# If a real Swoole build exists (SWOOLE_SO, default /tmp/swoole-build/modules/swoole.so), every
# step also runs on it, as a comparison column. Nothing here builds Swoole.
# Output: a markdown table on stdout and in bench/out/coro.md; raw output in bench/out/raw/coro-*,
# PHP stderr in bench/out/logs/coro-*. About 2 minutes with real Swoole (up to ~3 on a busy machine,
# which it waits on a little), 1 without; every step has a time cap.
#
# Environment knobs (defaults give the documented run):
#   SO=path/to/librswoole.so   (default target/release/librswoole.so; copied to bench/out/ at the
#                               start so that a concurrent rebuild does not change it mid-run)
#   SWOOLE_SO=path             real Swoole for the comparison column; SWOOLE_SO= (empty) skips it
#   CORO_N_CREATE=1000000  CORO_N_SLEEP=100000  CORO_N_PINGPONG=1000000
#   CORO_DURATION=10           seconds per wrk run
#   CORO_ROUNDS=2              on/off pairs per implementation
#   CORO_SO_WAIT=20            seconds to wait for a loadable SO (a rebuild in progress)
#   CORO_QUIET_WAIT=20         seconds to wait at start for the CPUs to be <= 10% busy
#   CORO_RUN_QUIET_WAIT=5      the same, before each hello-world server run
#   BENCH_OUT=bench/out        output directory
set -u -o pipefail
export LC_ALL=C
PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT="${BENCH_OUT:-$HERE/out}"
SO="${SO:-$ROOT/target/release/librswoole.so}"
SWOOLE_SO="${SWOOLE_SO-/tmp/swoole-build/modules/swoole.so}"
N_CREATE="${CORO_N_CREATE:-1000000}"
N_SLEEP="${CORO_N_SLEEP:-100000}"
N_PINGPONG="${CORO_N_PINGPONG:-1000000}"
DURATION="${CORO_DURATION:-10}"
ROUNDS="${CORO_ROUNDS:-2}"
QUIET_WAIT="${CORO_QUIET_WAIT:-20}"
RUN_QUIET_WAIT="${CORO_RUN_QUIET_WAIT:-5}"
CONNS=100
STEP_TIMEOUT=60    # cap for each PHP micro-benchmark process
READY_TIMEOUT=10   # seconds a server gets to answer its first request
START_TS=$(date +%s)

log() { printf '[coro] %s\n' "$*" >&2; }
# shared helpers: alive, descendants, port_listening, rss_kb, machine_busy_ticks, num, ver, ...
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mkdir -p "$OUT/raw" "$OUT/logs" "$OUT/coro-so"

for t in php wrk; do
    command -v "$t" >/dev/null 2>&1 || { log "$t is required (apt-get install -y php-cli wrk); aborting"; exit 1; }
done
require_so

# A private copy: other people rebuild target/release while this runs. A build in progress can
# leave a file PHP refuses ("Invalid library"): wait up to CORO_SO_WAIT s for a loadable one.
SO_WAIT="${CORO_SO_WAIT:-20}"
so_ok() { php -n -d extension="$1" -r 'exit(function_exists("Co\\run") && class_exists("Swoole\\Coroutine\\Channel") ? 0 : 1);' >/dev/null 2>&1; }
for ((w = 0; ; w += 5)); do
    cp "$SO" "$OUT/coro-so/librswoole.so" && so_ok "$OUT/coro-so/librswoole.so" && break
    [ "$w" -ge "$SO_WAIT" ] && { log "$SO does not load as a PHP extension with Co\\run (a rebuild in progress?); aborting"; exit 1; }
    [ "$w" = 0 ] && log "$SO does not load yet (rebuild in progress?); waiting up to ${SO_WAIT} s"
    sleep 5
done
SO_INFO="\`${SO#"$ROOT"/}\` ($(du -h "$SO" | cut -f1), built $(date -u -r "$SO" '+%Y-%m-%d %H:%M UTC'), sha256 $(sha256sum "$SO" | cut -c1-12))"
SO_RUN="$OUT/coro-so/librswoole.so"

IMPLS=(rswoole)
declare -A EXT
EXT[rswoole]="-d extension=$SO_RUN"
if [ -n "$SWOOLE_SO" ] && [ -f "$SWOOLE_SO" ]; then
    IMPLS+=(swoole)
    EXT[swoole]="-d extension=$SWOOLE_SO"
    SWOOLE_VER=$(php -n -d extension="$SWOOLE_SO" -r 'echo phpversion("swoole");' 2>/dev/null)
fi

NCPU=$(nproc 2>/dev/null || echo 1)
if command -v taskset >/dev/null 2>&1 && [ "$NCPU" -ge 2 ]; then
    PIN_PHP=(taskset -c 0)
    PIN_CLIENT=(taskset -c 1)
    PINNING="PHP on CPU 0, wrk on CPU 1 (taskset)"
else
    PIN_PHP=()
    PIN_CLIENT=()
    PINNING="NOT pinned (taskset missing or fewer than 2 CPUs)"
fi

# ------------------------------------------------------------- helpers ----
http_status() {
    timeout 3 bash -c '
        exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
        printf "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" >&3
        head -n 1 <&3' _ "$1" 2>/dev/null | tr -d '\r' | awk '{print $2}'
}
CUR_PID=""
cleanup() { [ -n "$CUR_PID" ] && stop_server "$CUR_PID"; }
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# CPU accounting in clock ticks, to tell how much of the machine something other than this benchmark
# used while a step was measuring (other engineers' builds, say).
declare -A OTHER
# measure KEY "PIDS" CMD...: runs CMD; OTHER[KEY] = % of the machine's CPU used meanwhile by
# processes other than CMD (and its children) and PIDS (a running server's tree).
measure() {
    local key=$1 pids=$2 m0 s0 c0 t0 m1 s1 c1 t1 rc
    shift 2
    m0=$(machine_busy_ticks); s0=$(tree_ticks $pids); times >"$OUT/.coro-times"; c0=$(times_ticks "$OUT/.coro-times"); t0=$(date +%s%N)
    "$@"
    rc=$?
    m1=$(machine_busy_ticks); s1=$(tree_ticks $pids); times >"$OUT/.coro-times"; c1=$(times_ticks "$OUT/.coro-times"); t1=$(date +%s%N)
    OTHER[$key]=$(awk -v m=$((m1 - m0)) -v s=$((s1 - s0)) -v c=$((c1 - c0)) -v ns=$((t1 - t0)) -v hz="$TICK_HZ" -v n="$NCPU" \
        'BEGIN { cap = ns / 1e9 * hz * n; o = m - s - c; if (o < 0) o = 0; printf "%d", (cap > 0 ? 100 * o / cap : 0) }')
    return $rc
}
other_note() { # other_note KEY: " (other load N%)" when N >= 5
    local o=${OTHER[$1]:-}
    [ -n "$o" ] && [ "$o" -ge 5 ] && echo " (other load ${o}%)"
}

# Real Swoole's bundled PHP library warns about every curl_* function it cannot hook under `php -n`.

declare -A R   # results: R[impl.step.key]=value
declare -A NOTE

# run_php IMPL STEP SCRIPT ARGS...: runs a bench/coro script pinned, keeps its output, loads its
# RESULT line into R[IMPL.STEP.key]. Returns 1 if there is no RESULT line.
run_php() {
    local impl=$1 step=$2 script=$3
    shift 3
    local raw="$OUT/raw/coro-$impl-$step.txt" kv k v line
    # shellcheck disable=SC2086
    measure "$impl.$step" "" timeout "$STEP_TIMEOUT" "${PIN_PHP[@]}" php -n -d memory_limit=-1 ${EXT[$impl]} "$HERE/coro/$script" "$@" \
        >"$raw" 2> >(filter_noise >"$OUT/logs/coro-$impl-$step.log")
    R[$impl.$step.rc]=$?
    line=$(grep -m1 '^FAIL ' "$raw")
    [ -n "$line" ] && { R[$impl.$step.fail_at]=$(sed -E 's/^FAIL at=([0-9]+).*/\1/' <<<"$line"); R[$impl.$step.fail_error]=$(sed -E 's/^FAIL at=[0-9]+ error=//' <<<"$line"); }
    line=$(grep -m1 '^RESULT ' "$raw") || return 1
    for kv in ${line#RESULT }; do
        k=${kv%%=*}; v=${kv#*=}
        R[$impl.$step.$k]=$v
    done
    return 0
}

mib() { awk -v v="$1" 'BEGIN { if (v == "" || v < 0) print "n/a"; else printf "%.1f MiB", v / 1024 }'; }
secs() { awk -v v="$1" 'BEGIN { if (v == "") print "n/a"; else printf "%.2f s", v }'; }

# ------------------------------------------------------------ quiet CPU ----
LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
BUSY_BEFORE=$(cpu_busy_pct)
for ((w = 1; w < QUIET_WAIT && BUSY_BEFORE > 10; w++)); do
    [ "$w" = 1 ] && log "CPUs ${BUSY_BEFORE}% busy; waiting up to ${QUIET_WAIT} s for <= 10%"
    BUSY_BEFORE=$(cpu_busy_pct)
done

# ------------------------------------------------------ 1-3: micro steps ----
for impl in "${IMPLS[@]}"; do
    log "== $impl: create+finish $N_CREATE coroutines"
    run_php "$impl" create create.php "$N_CREATE" || log "$impl create: no result (see $OUT/raw/coro-$impl-create.txt)"

    log "== $impl: $N_SLEEP sleeping coroutines"
    if run_php "$impl" sleep sleep.php "$N_SLEEP" && [ -z "${R[$impl.sleep.fail_at]:-}" ] && [ "${R[$impl.sleep.n]}" = "$N_SLEEP" ]; then
        R[$impl.sleep_final]=sleep
    else
        fail_at=${R[$impl.sleep.fail_at]:-}
        if [ -n "$fail_at" ]; then
            NOTE[$impl.sleep]="N=$(num "$N_SLEEP") failed: with $(num "$fail_at") coroutines asleep, creating the next one threw \"${R[$impl.sleep.fail_error]}\" (the $(num "$fail_at") already created went on and finished: woke=$(num "${R[$impl.sleep.woke]:-0}"))"
            R[$impl.sleep_max]=$fail_at
            # The failed run still finished the fail_at coroutines it had created (its "woke"
            # count); re-run 1000 below that for clean numbers.
            n2=$(( (fail_at - 1000) / 1000 * 1000 ))
            [ "$n2" -le 0 ] && n2=$(( fail_at / 2 ))
        else
            NOTE[$impl.sleep]="N=$(num "$N_SLEEP") failed (exit ${R[$impl.sleep.rc]}, no result: $(grep -m1 -v '^$' "$OUT/raw/coro-$impl-sleep.txt" "$OUT/logs/coro-$impl-sleep.log" 2>/dev/null | head -n 1 | cut -d: -f2- | cut -c1-160))"
            n2=$(( N_SLEEP / 4 ))
        fi
        log "$impl: ${NOTE[$impl.sleep]}; re-running with N=$n2"
        if [ "$n2" -gt 0 ] && run_php "$impl" sleep2 sleep.php "$n2" && [ -z "${R[$impl.sleep2.fail_at]:-}" ]; then
            R[$impl.sleep_final]=sleep2
        else
            NOTE[$impl.sleep]="${NOTE[$impl.sleep]}; N=$(num "$n2") failed too"
        fi
    fi

    log "== $impl: channel ping-pong, $N_PINGPONG round trips"
    run_php "$impl" pingpong pingpong.php "$N_PINGPONG" || log "$impl pingpong: no result"
done
MAX_MAP_COUNT=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo "?")
FIBER_STACK=$(php -n -r 'echo ini_get("fiber.stack_size") ?: "default (2 MiB on x86-64)";')

# ----------------------------------------------- 4: hello world on / off ----
# serve IMPL MODE ROUND: starts swoole_hello_fixed.php pinned, warms up, runs wrk, stops it.
serve() {
    local impl=$1 mode=$2 round=$3 port pid st name raw
    name="$impl-$mode-$round"
    raw="$OUT/raw/coro-hello-$name.wrk.txt"
    # Other engineers' builds and tests come and go: give each run a few seconds to find a quiet machine.
    local busy w
    busy=$(cpu_busy_pct)
    for ((w = 1; w < RUN_QUIET_WAIT && busy > 10; w++)); do busy=$(cpu_busy_pct); done
    local attempt i
    for attempt in 1 2 3; do # another process may take the port between free_port and bind
        port=$(free_port)
        log "== hello world $impl enable_coroutine=$mode (round $round) on 127.0.0.1:$port"
        # shellcheck disable=SC2086
        RSW_PORT=$port RSW_WORKERS=1 RSW_MODE=base RSW_COROUTINE=$mode \
            "${PIN_PHP[@]}" php -n ${EXT[$impl]} "$HERE/seed000/swoole_hello_fixed.php" \
            > >(filter_noise >"$OUT/logs/coro-hello-$name.log") 2>&1 &
        pid=$!
        CUR_PID=$pid
        st=""
        for ((i = 0; i < READY_TIMEOUT * 10; i++)); do
            alive "$pid" || break
            st=$(http_status "$port")
            [ -n "$st" ] && break
            sleep 0.1
        done
        [ -n "$st" ] && break
        alive "$pid" || wait "$pid" 2>/dev/null
        sleep 0.2
        grep -q 'Address already in use' "$OUT/logs/coro-hello-$name.log" 2>/dev/null || break
        log "$name: port $port already in use; trying another"
        stop_server "$pid"
    done
    if [ "$st" != 200 ]; then
        R[hello.$name.status]="failed (${st:+HTTP $st}${st:-no answer})"
        log "$name: ${R[hello.$name.status]}"
        stop_server "$pid"
        return
    fi
    "${PIN_CLIENT[@]}" wrk -t1 -c"$CONNS" -d1s "http://127.0.0.1:$port/" >/dev/null 2>&1
    measure "hello.$name" "$pid $(descendants "$pid" | tr '\n' ' ')" \
        timeout $((DURATION + 20)) "${PIN_CLIENT[@]}" wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency "http://127.0.0.1:$port/" >"$raw" 2>&1
    R[hello.$name.rps]=$(awk '/^Requests\/sec:/ {print $2}' "$raw")
    R[hello.$name.p99]=$(awk '/Latency Distribution/ {d = 1} d && $1 == "99%" {
            v = $2; u = v; sub(/^[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
            m = (u == "us") ? 0.001 : (u == "s") ? 1000 : (u == "m") ? 60000 : 1
            printf "%.2f", v * m; exit }' "$raw")
    local x
    x=$(grep -E '^ +Socket errors:|Non-2xx' "$raw" | sed 's/^ *//' | tr '\n' ' ')
    [ -n "$x" ] && NOTE[hello.$impl]="${NOTE[hello.$impl]:-}${NOTE[hello.$impl]:+; }$mode round $round: $x"
    R[hello.$name.status]=ok
    stop_server "$pid"
}
for ((round = 1; round <= ROUNDS; round++)); do
    for impl in "${IMPLS[@]}"; do
        serve "$impl" on "$round"
        serve "$impl" off "$round"
    done
done
BUSY_AFTER=$(cpu_busy_pct)

# ----------------------------------------------------------------- report ----
col() { # col IMPL STEP KEY FORMATTER
    local v=${R[$1.$2.$3]:-}
    [ -z "$v" ] && { echo "n/a"; return; }
    "$4" "$v"
}
per_coro() { # KiB of RSS growth per coroutine
    awk -v h="$1" -v s="$2" -v n="$3" 'BEGIN { if (h == "" || s == "" || n == "" || n == 0) print "n/a"; else printf "%.1f KiB", (h - s) / n }'
}
hello_cell() { # hello_cell IMPL MODE ROUND
    local k="hello.$1-$2-$3"
    if [ "${R[$k.status]:-}" = ok ]; then echo "$(num "${R[$k.rps]}") req/s, p99 ${R[$k.p99]:-n/a} ms$(other_note "hello.$1-$2-$3")"
    else echo "${R[$k.status]:-not run}"; fi
}
hello_mean() { # hello_mean IMPL MODE: mean req/s over the ok rounds
    local r s="" k
    for ((r = 1; r <= ROUNDS; r++)); do
        k="hello.$1-$2-$r"
        [ "${R[$k.status]:-}" = ok ] && [ -n "${R[$k.rps]:-}" ] && s="$s ${R[$k.rps]}"
    done
    [ -z "$s" ] && { echo ""; return; }
    awk -v s="$s" 'BEGIN { n = split(s, a, " "); t = 0; for (i = 1; i <= n; i++) t += a[i]; printf "%.0f", t / n }'
}
hello_p99_mean() {
    local r s="" k
    for ((r = 1; r <= ROUNDS; r++)); do
        k="hello.$1-$2-$r"
        [ "${R[$k.status]:-}" = ok ] && [ -n "${R[$k.p99]:-}" ] && s="$s ${R[$k.p99]}"
    done
    [ -z "$s" ] && { echo "n/a"; return; }
    awk -v s="$s" 'BEGIN { n = split(s, a, " "); t = 0; for (i = 1; i <= n; i++) t += a[i]; printf "%.2f", t / n }'
}

row() { # row LABEL METRIC CELL...
    local l=$1 m=$2
    shift 2
    local line="| $l | $m |" c
    for c; do line="$line $c |"; done
    echo "$line"
}

cpu_model=$(lscpu 2>/dev/null | awk -F: '/^Model name/ {sub(/^ +/, "", $2); print $2; exit}')
git_rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "no commit")
header="| step | metric | rswoole |"
sep="|---|---|---:|"
if [[ " ${IMPLS[*]} " == *" swoole "* ]]; then
    header="$header Swoole ${SWOOLE_VER:-?} (comparison) |"
    sep="$sep---:|"
fi

{
    echo "# Coroutine runtime benchmark (bench/coro.sh)"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); repo: $git_rev; run took $(( $(date +%s) - START_TS )) s"
    echo "- kernel: $(uname -r); CPU: ${cpu_model:-unknown} ($NCPU CPUs); load average at start: $LOADAVG; CPU busy (1 s sample) before: ${BUSY_BEFORE}%, after: ${BUSY_AFTER}%"
    [ "$BUSY_BEFORE" -gt 10 ] && echo "- **WARNING: other processes were using ${BUSY_BEFORE}% of the CPUs when the run started; treat these numbers as low and noisy.**"
    echo "- $(ver php -v); $(ver wrk -v | sed 's/ Copyright.*//'); vm.max_map_count=$MAX_MAP_COUNT; fiber.stack_size=$FIBER_STACK"
    echo "- rswoole: $SO_INFO"
    [[ " ${IMPLS[*]} " == *" swoole "* ]] && echo "- Swoole: \`$SWOOLE_SO\` (version ${SWOOLE_VER:-?}), same scripts, same flags"
    echo "- method: $PINNING; steps 1-3 run \`php -n -d memory_limit=-1 -d extension=… bench/coro/<script>.php N\`;" \
         "step 4 runs bench/seed000/swoole_hello_fixed.php (1 worker, SWOOLE_BASE) with RSW_COROUTINE=on/off, 1 s wrk warm-up then" \
         "\`wrk -t1 -c$CONNS -d${DURATION}s --latency\`, alternating on, off per implementation, rounds: $ROUNDS"
    echo
    echo "$header"
    echo "$sep"
    lab1="1. create+finish $(num "$N_CREATE") × \`go(function(){})\` in \`Co\\run\`"
    cells=(); for i in "${IMPLS[@]}"; do cells+=("$(col "$i" create seconds secs)"); done; row "$lab1" "time" "${cells[@]}"
    cells=(); for i in "${IMPLS[@]}"; do cells+=("$(col "$i" create per_sec num)"); done; row "" "coroutines/s" "${cells[@]}"
    cells=(); for i in "${IMPLS[@]}"; do cells+=("$(col "$i" create hwm_kb mib)"); done; row "" "peak RSS (VmHWM at end)" "${cells[@]}"

    lab2="2. $(num "$N_SLEEP") concurrent × \`Co::sleep(1)\`"
    cells=(); for i in "${IMPLS[@]}"; do
        s=${R[$i.sleep_final]:-}
        if [ "$s" = sleep ]; then cells+=("$(num "${R[$i.sleep.n]}")")
        elif [ -n "$s" ] && [ -n "${R[$i.sleep_max]:-}" ]; then cells+=("**$(num "${R[$i.$s.n]}")**; $(num "$N_SLEEP") fails: the largest N that works here is $(num "${R[$i.sleep_max]}"), see notes")
        elif [ -n "$s" ]; then cells+=("**$(num "${R[$i.$s.n]}")**; $(num "$N_SLEEP") fails, see notes")
        else cells+=("failed, see notes"); fi
    done; row "$lab2" "N that ran" "${cells[@]}"
    for m in "create_s:time to create all N:secs" "total_s:total wall time:secs" "hwm_kb:peak RSS (VmHWM):mib"; do
        IFS=: read -r key label fmt <<<"$m"
        cells=(); for i in "${IMPLS[@]}"; do s=${R[$i.sleep_final]:-none}; cells+=("$(col "$i" "$s" "$key" "$fmt")"); done
        row "" "$label" "${cells[@]}"
    done
    cells=(); for i in "${IMPLS[@]}"; do s=${R[$i.sleep_final]:-none}; cells+=("$(awk -v t="${R[$i.$s.total_s]:-}" -v c="${R[$i.$s.create_s]:-}" 'BEGIN { if (t == "" || c == "") print "n/a"; else printf "%.2f s", t - c - 1 }')"); done
    row "" "wall time beyond creation + 1 s" "${cells[@]}"
    cells=(); for i in "${IMPLS[@]}"; do s=${R[$i.sleep_final]:-none}; cells+=("$(col "$i" "$s" late_max_s secs)"); done
    row "" "latest wake-up after its own deadline (target ≤ 0.10 s)" "${cells[@]}"
    cells=(); for i in "${IMPLS[@]}"; do s=${R[$i.sleep_final]:-none}; cells+=("$(per_coro "${R[$i.$s.hwm_kb]:-}" "${R[$i.$s.rss_start_kb]:-}" "${R[$i.$s.n]:-}")"); done
    row "" "RSS per coroutine ((VmHWM − RSS at start) / N)" "${cells[@]}"
    cells=(); for i in "${IMPLS[@]}"; do s=${R[$i.sleep_final]:-none}; cells+=("$(col "$i" "$s" maps_peak num)"); done
    row "" "memory mappings with all N asleep" "${cells[@]}"

    lab3="3. ping-pong over two \`Channel(1)\`, $(num "$N_PINGPONG") round trips"
    cells=(); for i in "${IMPLS[@]}"; do cells+=("$(col "$i" pingpong seconds secs)"); done; row "$lab3" "time" "${cells[@]}"
    cells=(); for i in "${IMPLS[@]}"; do cells+=("$(col "$i" pingpong rt_per_sec num)"); done; row "" "round trips/s" "${cells[@]}"
    cells=(); for i in "${IMPLS[@]}"; do cells+=("$(col "$i" pingpong ops_per_sec num)"); done; row "" "channel ops/s (2 push + 2 pop per round trip)" "${cells[@]}"

    lab4="4. seed 000 hello world, 1 worker, wrk -c$CONNS"
    for ((r = 1; r <= ROUNDS; r++)); do
        for mode in on off; do
            cells=(); for i in "${IMPLS[@]}"; do cells+=("$(hello_cell "$i" "$mode" "$r")"); done
            row "$([ "$r$mode" = 1on ] && echo "$lab4")" "enable_coroutine=$mode, run $r" "${cells[@]}"
        done
    done
    for mode in on off; do
        cells=(); for i in "${IMPLS[@]}"; do m=$(hello_mean "$i" "$mode"); cells+=("$([ -n "$m" ] && echo "$(num "$m") req/s, p99 $(hello_p99_mean "$i" "$mode") ms" || echo n/a)"); done
        row "" "enable_coroutine=$mode, mean" "${cells[@]}"
    done
    cells=(); for i in "${IMPLS[@]}"; do
        on=$(hello_mean "$i" on); off=$(hello_mean "$i" off)
        cells+=("$(awk -v a="$on" -v b="$off" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else { r = a / b; printf "%.2f (%s)", r, (r >= 0.95 ? "target ≤ 5% cost: met" : "target ≤ 5% cost: NOT met") } }')")
    done
    row "" "on / off (mean req/s)" "${cells[@]}"
    for ((r = 1; r <= ROUNDS; r++)); do
        cells=(); for i in "${IMPLS[@]}"; do
            a=""; b=""
            [ "${R[hello.$i-on-$r.status]:-}" = ok ] && a=${R[hello.$i-on-$r.rps]:-}
            [ "${R[hello.$i-off-$r.status]:-}" = ok ] && b=${R[hello.$i-off-$r.rps]:-}
            cells+=("$(awk -v a="$a" -v b="$b" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2f", a / b }')")
        done
        row "" "on / off, run $r (adjacent runs)" "${cells[@]}"
    done
    echo
    echo "Notes:"
    for i in "${IMPLS[@]}"; do
        [ -n "${NOTE[$i.sleep]:-}" ] && echo "- $i, step 2: ${NOTE[$i.sleep]}."
        [ -n "${NOTE[hello.$i]:-}" ] && echo "- $i, step 4 wrk: ${NOTE[hello.$i]}"
        for st in create sleep sleep2 pingpong; do
            o=$(other_note "$i.$st")
            [ -n "$o" ] && echo "- $i, $st step: other processes used ~${OTHER[$i.$st]}% of the machine's CPU meanwhile."
        done
        for st in create sleep pingpong; do
            [ "${R[$i.$st.rc]:-0}" != 0 ] && [ "$st" != sleep ] && echo "- $i, $st: exit status ${R[$i.$st.rc]}: $(grep -m1 -v '^$' "$OUT/raw/coro-$i-$st.txt" "$OUT/logs/coro-$i-$st.log" 2>/dev/null | head -n 1 | cut -d: -f2- | cut -c1-160)"
        done
    done
    echo "- Step 2 needs \`-d memory_limit=-1\`: each coroutine's PHP VM stack is charged to memory_limit, so with \`php -n\`'s 128M both implementations stop with \"Allowed memory size exhausted\" below 10,000 sleeping coroutines. Steps 1 and 3 run with the same flag for uniformity."
    echo "- \"memory mappings\" is the line count of /proc/self/maps with all N coroutines asleep; the kernel refuses new mappings past vm.max_map_count ($MAX_MAP_COUNT). rswoole takes coroutine C stacks from slabs of 128 (one mapping each; a PHP Fiber's stack costs 2 mappings, which capped coroutines at ~32,500 before); real Swoole mallocs them. Both use 2 MiB stacks without a guard page."
    echo "- \"other load\": share of the machine's CPU used by processes other than the benchmark's own (PHP, its workers, wrk) during that measurement, from /proc/stat; at 5% or more the cell or a note shows it."
    echo "- The VM is noisy (±20% between runs); compare on/off within one implementation and one run. Raw wrk output: bench/out/raw/coro-hello-*.wrk.txt; script output: bench/out/raw/coro-*.txt; stderr: bench/out/logs/coro-*.log."
} >"$OUT/coro.md"

cat "$OUT/coro.md"
