#!/usr/bin/env bash
# bench/pair.sh: seed 000's hello world, rswoole against real Swoole in alternating short rounds, for a ratio that survives a noisy machine.
#
# bench/run.sh measures each contender once, one after the other: on a shared VM whose speed drifts
# by ±20% over a minute, one run's ratio says as much about the drift as about the servers. Here
# both servers run side by side (both pinned to CPU 0, only one under load at a time) and wrk
# (CPU 1) visits them in turn, ABBA order, PAIR_ROUNDS times; each round gives a ratio, and the
# median of the rounds is reported with its spread. Also per round: p99 and the server's own CPU
# per request (user + system, all its processes), which does not depend on how fast wrk is.
# In BASE mode a third server joins each round when a C compiler is there: the `floor`
# (bench/seed000/floor.c, the same answer bytes and no other work). Its req/s ÷ Swoole's is about the
# most a server can show against Swoole in that round under this wrk on one CPU (one that answers in
# larger batches, with fewer wake-ups of wrk, gets a little past it).
#
# Usage: SO=target/release/librswoole.so SWOOLE_SO=/path/to/swoole.so bash bench/pair.sh
#   PAIR_MODE=base|process|base-nocoro (default base), PAIR_ROUNDS=6, PAIR_DURATION=3 (s per wrk run),
#   PAIR_CONNS=100, PAIR_FLOOR=0 (no floor rows). Output: a markdown table on stdout and in bench/out/pair-<mode>.md.
set -u -o pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT="${BENCH_OUT:-$HERE/out}"
SO="${SO:-$ROOT/target/release/librswoole.so}"
SWOOLE_SO="${SWOOLE_SO:-}"
MODE="${PAIR_MODE:-base}"
ROUNDS="${PAIR_ROUNDS:-6}"
DURATION="${PAIR_DURATION:-3}"
CONNS="${PAIR_CONNS:-100}"

log() { printf '[pair] %s\n' "$*" >&2; }
. "$HERE/lib.sh"
require_so
[ -n "$SWOOLE_SO" ] && [ -f "$SWOOLE_SO" ] || { log "SWOOLE_SO (a real Swoole build's swoole.so) is required"; exit 1; }
command -v wrk >/dev/null || { log "wrk not installed (make deps)"; exit 1; }
case "$MODE" in
    base) envs=(RSW_MODE=base) ;;
    process) envs=(RSW_MODE=process) ;;
    base-nocoro) envs=(RSW_MODE=base RSW_COROUTINE=off) ;;
    *) log "PAIR_MODE must be base, process or base-nocoro"; exit 1 ;;
esac
mkdir -p "$OUT/raw" "$OUT/logs" "$OUT/pair-so"
cp "$SO" "$OUT/pair-so/librswoole.so"   # a concurrent rebuild must not change it mid-run
setup_pinning
NCPU=$(nproc)

PIDS=()
cleanup() { local p; for p in "${PIDS[@]}"; do stop_server "$p"; done; }
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

declare -A PORT PID
start() { # start NAME EXT
    local name=$1 ext=$2 port i
    port=$(free_port)
    env RSW_PORT="$port" RSW_WORKERS=1 "${envs[@]}" "${PIN_SRV[@]}" php -n -d extension="$ext" \
        "$HERE/seed000/swoole_hello_fixed.php" >"$OUT/logs/pair-$name.log" 2>&1 &
    PID[$name]=$!
    PIDS+=("$!")
    PORT[$name]=$port
    for ((i = 0; i < 100; i++)); do
        curl -s -o /dev/null -m 1 "http://127.0.0.1:$port/" && return 0
        sleep 0.1
    done
    log "$name did not answer on port $port (see $OUT/logs/pair-$name.log)"
    exit 1
}
start rswoole "$OUT/pair-so/librswoole.so"
start swoole "$SWOOLE_SO"
NAMES=(rswoole swoole)
if [ "${PAIR_FLOOR:-1}" != 0 ] && [ "$MODE" != process ]; then
    if build_c floor "$HERE/seed000/floor.c"; then
        port=$(free_port)
        "${PIN_SRV[@]}" "$OUT/floor/floor" "$port" >"$OUT/logs/pair-floor.log" 2>&1 &
        PID[floor]=$!
        PIDS+=("$!")
        PORT[floor]=$port
        for ((i = 0; i < 50; i++)); do curl -s -o /dev/null -m 1 "http://127.0.0.1:$port/" && break; sleep 0.1; done
        NAMES+=(floor)
    else
        log "no floor rows: no C compiler (cc), or its build failed ($OUT/logs/floor-build.log)"
    fi
fi

# one NAME TAG: one wrk run; prints "rps p99_ms cpu_us_per_req"
one() {
    local name=$1 tag=$2 tree t0 t1 f="$OUT/raw/pair-$MODE-$1-$2.wrk.txt"
    tree="${PID[$name]} $(descendants "${PID[$name]}" | tr '\n' ' ')"
    t0=$(tree_ticks $tree)
    "${PIN_CLI[@]}" wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency "http://127.0.0.1:${PORT[$name]}/" >"$f" 2>&1
    t1=$(tree_ticks $tree)
    awk -v t=$((t1 - t0)) -v hz="$TICK_HZ" '
        /^Requests\/sec:/ { rps = $2 }
        / requests in / { n = $1 }
        /Latency Distribution/ { d = 1 }
        d && $1 == "99%" && p == "" { v = $2; u = v; sub(/^[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
            p = v * ((u == "us") ? 0.001 : (u == "s") ? 1000 : 1) }
        END { printf "%s %s %s\n", rps, p, (n > 0 ? sprintf("%.2f", t / hz * 1e6 / n) : "") }' "$f"
}

for name in "${NAMES[@]}"; do "${PIN_CLI[@]}" wrk -t1 -c"$CONNS" -d1s "http://127.0.0.1:${PORT[$name]}/" >/dev/null 2>&1; done
# quot A B: A / B to three places (0 when B is not above 0).
quot() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
ROWS=()
RATIOS=() CPU_RATIOS=() P99_R=() P99_S=() FLOOR_R=()
for ((r = 1; r <= ROUNDS; r++)); do
    # ABBA for the two servers, side by side in time; the floor after them.
    if ((r % 2)); then order=(rswoole swoole); else order=(swoole rswoole); fi
    order+=("${NAMES[@]:2}")
    declare -A RES=()
    for name in "${order[@]}"; do RES[$name]=$(one "$name" "$r"); done
    read -r a_rps a_p99 a_cpu <<<"${RES[rswoole]}"
    read -r b_rps b_p99 b_cpu <<<"${RES[swoole]}"
    f_cells=""
    if [ -n "${PID[floor]:-}" ]; then
        read -r f_rps _ f_cpu <<<"${RES[floor]}"
        fratio=$(quot "$f_rps" "$b_rps")
        FLOOR_R+=("$fratio")
        f_cells=" $(num "$f_rps") | $f_cpu | $fratio |"
    fi
    ratio=$(quot "$a_rps" "$b_rps")
    cratio=$(quot "$b_cpu" "$a_cpu")
    RATIOS+=("$ratio"); CPU_RATIOS+=("$cratio"); P99_R+=("$a_p99"); P99_S+=("$b_p99")
    log "round $r: rswoole $a_rps req/s (p99 $a_p99 ms, $a_cpu µs CPU/req), swoole $b_rps (p99 $b_p99 ms, $b_cpu µs); ratio $ratio"
    ROWS+=("| $r | $(num "$a_rps") | $a_p99 ms | $a_cpu | $(num "$b_rps") | $b_p99 ms | $b_cpu | $ratio | $cratio |$f_cells")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minmax() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { print a "-" b }'; }
rss_r=$(for p in ${PID[rswoole]} $(descendants "${PID[rswoole]}"); do [ -z "$(children_of "$p")" ] && rss_kb "$p"; done | awk '{ s += $1; n++ } END { if (n) printf "%.1f MiB", s / n / 1024 }')
rss_s=$(for p in ${PID[swoole]} $(descendants "${PID[swoole]}"); do [ -z "$(children_of "$p")" ] && rss_kb "$p"; done | awk '{ s += $1; n++ } END { if (n) printf "%.1f MiB", s / n / 1024 }')
{
    echo "# Seed 000 hello world, $MODE mode: rswoole vs Swoole in $ROUNDS alternating rounds"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); repo: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); $NCPU CPUs; $PINNING; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- rswoole: $SO; Swoole: $SWOOLE_SO ($(php -n -d extension="$SWOOLE_SO" -r 'echo phpversion("swoole");' 2>/dev/null))"
    echo "- each round: \`wrk -t1 -c$CONNS -d${DURATION}s --latency\` on each server (ABBA order); CPU/req = the server's user + system time / requests"
    echo
    head="| round | rswoole req/s | p99 | CPU µs/req | Swoole req/s | p99 | CPU µs/req | req/s ratio | CPU ratio (Swoole ÷ ours) |"
    rule="|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    if ((${#FLOOR_R[@]})); then
        head+=" floor req/s | CPU µs/req | floor ÷ Swoole |"
        rule+="---:|---:|---:|"
    fi
    echo "$head"
    echo "$rule"
    printf '%s\n' "${ROWS[@]}"
    echo
    echo "**Median req/s ratio $(median "${RATIOS[@]}") (rounds $(minmax "${RATIOS[@]}")); median CPU ratio $(median "${CPU_RATIOS[@]}");" \
         "median p99 rswoole $(median "${P99_R[@]}") ms, Swoole $(median "${P99_S[@]}") ms; worker RSS after: rswoole $rss_r, Swoole $rss_s.**"
    if ((${#FLOOR_R[@]})); then
        echo
        echo "Floor: median floor ÷ Swoole $(median "${FLOOR_R[@]}") (rounds $(minmax "${FLOOR_R[@]}")), about the most a server can show against Swoole in these rounds with this load generator (one that answers in larger batches gets a little past it)."
    fi
} | tee "$OUT/pair-$MODE.md"
