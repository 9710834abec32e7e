#!/usr/bin/env bash
# bench/run.sh: reproduces seed 000's benchmark (nginx static page vs Go net/http vs Swoole hello world) with wrk and ab; `make bench` calls it.
# A `floor` row (seed000/floor.c: the same bytes, no work) shows the load generator's ceiling.
#
# Every server is pinned to CPU 0 and the load generator to CPU 1, one worker
# each, on a free 127.0.0.1 port. Per contender: 1 s wrk warm-up, then
#   wrk -t1 -c100 -d10s --latency URL      and      ab -k -c100 -n 200000 -s 10 URL
# Results: a markdown table on stdout and in bench/out/seed000.md; raw tool
# output, sample responses and server logs in bench/out/raw/ and bench/out/logs/.
#
# Environment knobs (defaults reproduce the documented run):
#   SO=path/to/librswoole.so   (default target/release/librswoole.so; missing => rswoole rows skipped)
#   SWOOLE_SO=path/to/swoole.so  real Swoole, built outside the repo: swoole-base/-process/-base-nocoro rows
#                              and the ratio-vs-Swoole column (unset => those rows say "skipped")
#   BENCH_DURATION=10          seconds of each wrk run
#   BENCH_AB_N=200000          ab request count
#   BENCH_AB_TIME=20           ab also stops after this many seconds (bounds the run)
#   BENCH_ONLY="nginx go"      run only these contenders (floor nginx go rswoole-base rswoole-process
#                              rswoole-base-nocoro swoole-base swoole-process swoole-base-nocoro)
#   BENCH_QUIET_WAIT=30        seconds to wait at start for the CPUs to be <= 10% busy
#   BENCH_OUT=bench/out        output directory
set -u -o pipefail
export LC_ALL=C
PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SEED="$HERE/seed000"
OUT="${BENCH_OUT:-$HERE/out}"
SO="${SO:-$ROOT/target/release/librswoole.so}"
DURATION="${BENCH_DURATION:-10}"
AB_N="${BENCH_AB_N:-200000}"
AB_TIME="${BENCH_AB_TIME:-20}"
ONLY="${BENCH_ONLY:-}"
QUIET_WAIT="${BENCH_QUIET_WAIT:-30}"
CONNS=100
WARMUP=1
READY_TIMEOUT=10   # seconds a server gets to answer its first request

log() { printf '[bench] %s\n' "$*" >&2; }
# shared helpers: alive, descendants, port_listening, rss_kb, machine_busy_ticks, num, ver, ...
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mkdir -p "$OUT/raw" "$OUT/logs"
case "$SO" in /*) ;; *) SO="$ROOT/$SO" ;; esac

# ---------------------------------------------------------------- tools ----
need=()
command -v nginx   >/dev/null 2>&1 || need+=(nginx)
command -v go      >/dev/null 2>&1 || need+=(golang-go)
command -v wrk     >/dev/null 2>&1 || need+=(wrk)
command -v ab      >/dev/null 2>&1 || need+=(apache2-utils)
command -v php     >/dev/null 2>&1 || need+=(php-cli)
command -v taskset >/dev/null 2>&1 || need+=(util-linux)
if ((${#need[@]})); then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        log "installing missing packages: ${need[*]}"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"; } >&2 \
            || log "apt-get install failed; contenders that need the missing tools will fail"
    else
        log "missing tools; install them with: sudo apt-get install -y ${need[*]}"
    fi
fi
for t in wrk ab; do
    command -v "$t" >/dev/null 2>&1 || { log "$t is required; aborting"; exit 1; }
done

NCPU=$(nproc 2>/dev/null || echo 1)
if command -v taskset >/dev/null 2>&1 && [ "$NCPU" -ge 2 ]; then
    PIN_SERVER=(taskset -c 0)
    PIN_CLIENT=(taskset -c 1)
    PINNING="server on CPU 0, load generator on CPU 1 (taskset)"
else
    PIN_SERVER=()
    PIN_CLIENT=()
    PINNING="NOT pinned (taskset missing or fewer than 2 CPUs)"
fi

# ------------------------------------------------------------- helpers ----
# A process is alive if it exists and is not a zombie.






# Prints the whole response to GET / (Connection: close), 3 s at most.
http_get() {
    timeout 3 bash -c '
        exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
        printf "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" >&3
        cat <&3' _ "$1" 2>/dev/null
}

http_status() {
    local line
    line=$(http_get "$1" | head -n 1 | tr -d '\r')
    set -- $line
    echo "${2:-}"
}

CUR_PID=""

cleanup() { [ -n "$CUR_PID" ] && stop_server "$CUR_PID"; }
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# Waits until the server at $2 answers; fails early if pid $1 died.
wait_ready() {
    local pid=$1 port=$2 i st
    for ((i = 0; i < READY_TIMEOUT * 10; i++)); do
        alive "$pid" || return 1
        st=$(http_status "$port")
        [ -n "$st" ] && { echo "$st"; return 0; }
        sleep 0.1
    done
    return 1
}

# measure NAME TOOL PID CMD...: runs CMD, then notes the share of the machine's
# CPU that other processes (not the server tree, not CMD) used meanwhile.
measure() {
    local name=$1 tool=$2 pid=$3
    shift 3
    local tree m0 s0 c0 t0 m1 s1 c1 t1 other
    tree="$pid $(descendants "$pid" | tr '\n' ' ')"
    m0=$(machine_busy_ticks); s0=$(tree_ticks $tree); times >"$OUT/.times"; c0=$(times_ticks "$OUT/.times"); t0=$(date +%s%N)
    "$@"
    m1=$(machine_busy_ticks); s1=$(tree_ticks $tree); times >"$OUT/.times"; c1=$(times_ticks "$OUT/.times"); t1=$(date +%s%N)
    other=$(awk -v m=$((m1 - m0)) -v s=$((s1 - s0)) -v c=$((c1 - c0)) -v ns=$((t1 - t0)) -v hz="$TICK_HZ" -v n="$NCPU" \
        'BEGIN { cap = ns / 1e9 * hz * n; o = m - s - c; if (o < 0) o = 0; printf "%d", (cap > 0 ? 100 * o / cap : 0) }')
    OTHER["$name.$tool"]=$other
    SRV_TICKS["$name.$tool"]=$((s1 - s0))
    [ "$other" -ge 5 ] && add_note "$name" "other processes used ~${other}% of the machine's CPU during $tool"
    return 0
}

fmt_ms() { awk -v v="$1" 'BEGIN { if (v == "") print "n/a"; else printf "%.2f ms", v }'; }
fmt_mib() { awk -v v="$1" 'BEGIN { printf "%.1f MiB", v / 1024 }'; }

# Per-contender results.
ORDER=()
declare -A OTHER SRV_TICKS STATUS WRK_RPS WRK_P99 AB_RPS AB_P99 RSS NOTES CPU_US

add_note() { NOTES[$1]="${NOTES[$1]:-}${NOTES[$1]:+; }$2"; }

wanted() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }

# bench_one NAME PORT CMD...  (CMD is started pinned, in the background)
bench_one() {
    local name=$1 port=$2
    shift 2
    local url="http://127.0.0.1:$port/" st pid
    ORDER+=("$name")
    log "== $name on 127.0.0.1:$port: $*"
    "${PIN_SERVER[@]}" "$@" >"$OUT/logs/$name.log" 2>&1 &
    pid=$!
    CUR_PID=$pid
    if ! st=$(wait_ready "$pid" "$port"); then
        if alive "$pid"; then STATUS[$name]="failed (no answer in ${READY_TIMEOUT} s)"
        else STATUS[$name]="failed (exited at start, see bench/out/logs/$name.log)"; fi
        log "$name: ${STATUS[$name]}"
        tail -n 5 "$OUT/logs/$name.log" | sed 's/^/[bench]   | /' >&2
        stop_server "$pid"
        return
    fi
    http_get "$port" >"$OUT/raw/$name.response.txt"
    if [ "$st" != 200 ]; then
        STATUS[$name]="failed (HTTP $st on GET /)"
        log "$name: ${STATUS[$name]}"
        stop_server "$pid"
        return
    fi

    "${PIN_CLIENT[@]}" wrk -t1 -c"$CONNS" -d"${WARMUP}s" "$url" >/dev/null 2>&1

    log "$name: wrk -t1 -c$CONNS -d${DURATION}s --latency"
    measure "$name" wrk "$pid" timeout $((DURATION + 20)) "${PIN_CLIENT[@]}" wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency "$url" \
        >"$OUT/raw/$name.wrk.txt" 2>&1
    WRK_RPS[$name]=$(awk '/^Requests\/sec:/ {print $2}' "$OUT/raw/$name.wrk.txt")
    WRK_P99[$name]=$(awk '/Latency Distribution/ {d = 1} d && $1 == "99%" {
            v = $2; u = v; sub(/^[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
            m = (u == "us") ? 0.001 : (u == "s") ? 1000 : (u == "m") ? 60000 : 1
            printf "%.3f", v * m; exit }' "$OUT/raw/$name.wrk.txt")
    local x
    x=$(grep -E '^ +Socket errors:' "$OUT/raw/$name.wrk.txt" | sed 's/^ *//')
    [ -n "$x" ] && add_note "$name" "wrk $x"
    x=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' "$OUT/raw/$name.wrk.txt")
    [ -n "$x" ] && add_note "$name" "wrk non-2xx/3xx: $x"
    [ -z "${WRK_RPS[$name]}" ] && add_note "$name" "wrk produced no result (see bench/out/raw/$name.wrk.txt)"
    # The server's own CPU (all its processes, user + system) per request under wrk: what a request
    # costs the server whether or not the load generator is the bottleneck.
    x=$(awk '/ requests in / {print $1; exit}' "$OUT/raw/$name.wrk.txt")
    CPU_US[$name]=$(awk -v t="${SRV_TICKS[$name.wrk]:-}" -v n="${x:-0}" -v hz="$TICK_HZ" \
        'BEGIN { if (t == "" || n == 0) print ""; else printf "%.2f", t / hz * 1e6 / n }')

    if alive "$pid"; then
        log "$name: ab -k -c$CONNS -n $AB_N -s 10 (time cap ${AB_TIME} s)"
        # -t before -n: ab then stops at AB_N requests or AB_TIME seconds, whichever first.
        measure "$name" ab "$pid" timeout $((AB_TIME + 20)) "${PIN_CLIENT[@]}" ab -k -c"$CONNS" -t "$AB_TIME" -n "$AB_N" -s 10 "$url" \
            >"$OUT/raw/$name.ab.txt" 2>&1
        AB_RPS[$name]=$(awk '/^Requests per second:/ {print $4}' "$OUT/raw/$name.ab.txt")
        AB_P99[$name]=$(awk '/Percentage of the requests/ {d = 1} d && $1 == "99%" {print $2; exit}' "$OUT/raw/$name.ab.txt")
        local ab_done failed non2xx ka
        ab_done=$(awk '/^Complete requests:/ {print $3}' "$OUT/raw/$name.ab.txt")
        failed=$(awk '/^Failed requests:/ {print $3}' "$OUT/raw/$name.ab.txt")
        non2xx=$(awk '/^Non-2xx responses:/ {print $3}' "$OUT/raw/$name.ab.txt")
        ka=$(awk '/^Keep-Alive requests:/ {print $3}' "$OUT/raw/$name.ab.txt")
        if [ -z "${AB_RPS[$name]}" ]; then
            add_note "$name" "ab failed: $(grep -Ei 'error|timeout|expired|reset|refused' "$OUT/raw/$name.ab.txt" | head -n 1)"
        else
            [ "${ab_done:-0}" != "$AB_N" ] && add_note "$name" "ab hit its ${AB_TIME} s cap after $ab_done requests"
            [ "${failed:-0}" != 0 ] && add_note "$name" "ab failed requests: $failed"
            [ -n "$non2xx" ] && add_note "$name" "ab non-2xx: $non2xx"
            [ "${ka:-0}" != "${ab_done:-0}" ] && add_note "$name" "ab keep-alive requests: ${ka:-0} of $ab_done"
        fi
    else
        add_note "$name" "server died during wrk; ab not run"
    fi

    # RSS after load. Workers = the leaf processes of the server's tree
    # (nginx: the worker child; Go: the process; Swoole: worker children, or
    # the lone process when it runs without children).
    if alive "$pid"; then
        local all leaves=() p sum=0 tot=0 r
        all="$pid $(descendants "$pid" | tr '\n' ' ')"
        for p in $all; do
            r=$(rss_kb "$p"); r=${r:-0}
            tot=$((tot + r))
            [ -z "$(children_of "$p")" ] && { leaves+=("$p"); sum=$((sum + r)); }
        done
        local n=${#leaves[@]}
        if [ "$n" -gt 0 ]; then
            RSS[$name]="$(fmt_mib $((sum / n)))"
            [ "$n" -gt 1 ] && RSS[$name]="${RSS[$name]} (mean of $n)"
        fi
        local nproc_tree
        nproc_tree=$(echo $all | wc -w)
        [ "$nproc_tree" -gt 1 ] && add_note "$name" "$nproc_tree processes, total RSS $(fmt_mib "$tot")"
        STATUS[$name]=ok
    else
        STATUS[$name]="failed (server died under load, see bench/out/logs/$name.log)"
    fi
    stop_server "$pid"
}

skip() { ORDER+=("$1"); STATUS[$1]="skipped ($2)"; log "$1: skipped ($2)"; }

# ------------------------------------------------------------ contenders ----
# Share of all CPUs busy over 1 s (everything on the machine, nice and steal included; this
# replaces lib.sh's cpu_busy_pct, which leaves steal out).
cpu_busy_pct() {
    local a b
    a=$(awk '/^cpu / {print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6; exit}' /proc/stat)
    sleep 1
    b=$(awk '/^cpu / {print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6; exit}' /proc/stat)
    echo "$a $b" | awk '{ t = $3 - $1; i = $4 - $2; printf "%d", (t > 0 ? 100 * (t - i) / t : 0) }'
}

START_TS=$(date +%s)
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

# floor: an epoll loop in C that answers with the same bytes and does nothing else: the most the
# load generator can drive on its CPU (about the ceiling of every ratio in this table).
if wanted floor; then
    if build_c floor "$SEED/floor.c"; then
        port=$(free_port)
        bench_one floor "$port" "$OUT/floor/floor" "$port"
    else
        skip floor "no C compiler (cc), or the build failed: bench/out/logs/floor-build.log"
    fi
fi

# nginx: static index.html, 1 worker, access_log off, open_file_cache.
if wanted nginx; then
    if command -v nginx >/dev/null 2>&1; then
        port=$(free_port)
        NGX="$OUT/nginx"
        rm -rf "$NGX" && mkdir -p "$NGX/tmp"
        user_line="# user: default"
        if [ "$(id -u)" = 0 ] && ! runuser -u nobody -- test -r "$SEED/index.html" 2>/dev/null; then
            user_line="user root;  # nobody cannot read $SEED"
        fi
        sed -e "s|@PORT@|$port|g" -e "s|@ROOT@|$SEED|g" -e "s|@OUT@|$NGX|g" -e "s|@USER_LINE@|$user_line|" \
            "$SEED/nginx.conf.in" >"$NGX/nginx.conf"
        bench_one nginx "$port" nginx -p "$NGX" -e "$NGX/error.log" -c "$NGX/nginx.conf" -g 'daemon off;'
    else
        skip nginx "nginx not installed"
    fi
fi

# go: the seed's net/http program, built with the standard library only.
if wanted go; then
    GOBIN_OUT="$OUT/go/seed000-go"
    if command -v go >/dev/null 2>&1; then
        mkdir -p "$OUT/go/gopath" "$OUT/go/cache"
        log "building $SEED/main.go"
        if (cd "$SEED" && env GOPATH="$OUT/go/gopath" GOCACHE="$OUT/go/cache" GO111MODULE=off \
                GOFLAGS= GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 \
                go build -o "$GOBIN_OUT" main.go) >"$OUT/logs/go-build.log" 2>&1; then
            port=$(free_port)
            bench_one go "$port" env PORT="$port" "$GOBIN_OUT"
        else
            ORDER+=(go); STATUS[go]="failed (go build, see bench/out/logs/go-build.log)"
        fi
    else
        skip go "go not installed"
    fi
fi

# The hello-world script's environment for a row: NAME is <extension>-base, -process or -base-nocoro.
mode_envs() {
    case "${1#*-}" in
        base)        envs=(RSW_MODE=base) ;;
        process)     envs=(RSW_MODE=process) ;;
        base-nocoro) envs=(RSW_MODE=base RSW_COROUTINE=off) ;;
    esac
}

# rswoole: the seed's Swoole script (type hint fixed) on the extension under test.
RSW_NAMES=(rswoole-base rswoole-process rswoole-base-nocoro)
RSW_STATE=""
SEED_SCRIPT_NOTE=""
if [ ! -f "$SO" ]; then
    log "$SO does not exist (build it with: cargo build --release); skipping rswoole rows"
    RSW_STATE="skip:${SO#"$ROOT"/} not built"
elif ! command -v php >/dev/null 2>&1; then
    RSW_STATE="skip:php not installed"
elif ! err=$(php -n -d extension="$SO" -r 'exit(class_exists("Swoole\\Http\\Server") ? 0 : 3);' 2>&1); then
    RSW_STATE="fail:extension does not load or lacks Swoole\\Http\\Server: $(echo "$err" | grep -m 1 . | sed 's/^PHP //')"
fi
for name in "${RSW_NAMES[@]}"; do
    wanted "$name" || continue
    case "$RSW_STATE" in
        skip:*) skip "$name" "${RSW_STATE#skip:}"; continue ;;
        fail:*) ORDER+=("$name"); STATUS[$name]="failed (${RSW_STATE#fail:})"; continue ;;
    esac
    port=$(free_port)
    mode_envs "$name"
    bench_one "$name" "$port" env RSW_PORT="$port" RSW_WORKERS=1 "${envs[@]}" \
        php -n -d extension="$SO" "$SEED/swoole_hello_fixed.php"
done

# Real Swoole (SWOOLE_SO, built outside the repo) on the same script, the same flags: the rows the
# issue-16 targets are ratios against. Skipped, saying so, without SWOOLE_SO.
SWOOLE_SO="${SWOOLE_SO:-}"
for name in swoole-base swoole-process swoole-base-nocoro; do
    wanted "$name" || continue
    if [ -z "$SWOOLE_SO" ]; then skip "$name" "SWOOLE_SO not given (path to a real Swoole build's swoole.so)"; continue; fi
    if [ ! -f "$SWOOLE_SO" ]; then skip "$name" "$SWOOLE_SO does not exist"; continue; fi
    port=$(free_port)
    mode_envs "$name"
    bench_one "$name" "$port" env RSW_PORT="$port" RSW_WORKERS=1 "${envs[@]}" \
        php -n -d extension="$SWOOLE_SO" "$SEED/swoole_hello_fixed.php"
done

# The script exactly as the seed printed it: one request only, to show what
# its wrong type hint does (real Swoole: TypeError -> HTTP 500).
if [ -z "$RSW_STATE" ] && wanted rswoole-base; then
    port=$(free_port)
    RSW_PORT=$port RSW_WORKERS=1 RSW_MODE=base php -n -d extension="$SO" "$SEED/swoole_hello.php" \
        >"$OUT/logs/rswoole-as-printed.log" 2>&1 &
    pid=$!
    CUR_PID=$pid
    if st=$(wait_ready "$pid" "$port"); then
        SEED_SCRIPT_NOTE="seed script as printed (swoole_hello.php, \`Swoole\\Http\\Server \$response\` hint) answers HTTP $st (real Swoole: TypeError, HTTP 500); not benchmarked"
    else
        SEED_SCRIPT_NOTE="seed script as printed (swoole_hello.php) did not answer; not benchmarked"
    fi
    stop_server "$pid"
fi

# ---------------------------------------------------------------- report ----
BUSY_AFTER=$(cpu_busy_pct)
cpu_model=$(lscpu 2>/dev/null | awk -F: '/^Model name/ {sub(/^ +/, "", $2); print $2; exit}')
if [ -f "$SO" ]; then
    so_info="\`${SO#"$ROOT"/}\` ($(du -h "$SO" | cut -f1), built $(date -u -r "$SO" '+%Y-%m-%d %H:%M UTC')), run as \`php -n -d extension=$(basename "$SO") bench/seed000/swoole_hello_fixed.php\`"
else
    so_info="\`${SO#"$ROOT"/}\` not built, rswoole rows skipped"
fi
git_rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "no commit")

ratio() { # ratio A B
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) printf "n/a"; else printf "%.2f", a / b }'
}

{
    echo "# Seed 000 benchmark: nginx static page vs Go net/http vs rswoole hello world"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); repo: $git_rev; run took $(( $(date +%s) - START_TS )) s"
    echo "- kernel: $(uname -r); CPU: ${cpu_model:-unknown} ($NCPU CPUs); load average at start: $LOADAVG; CPU busy (all processes, 1 s sample) before: ${BUSY_BEFORE}%, after: ${BUSY_AFTER}%"
    [ "$BUSY_BEFORE" -gt 10 ] && echo "- **WARNING: other processes were using ${BUSY_BEFORE}% of the CPUs when the run started; treat these numbers as low and noisy.**"
    echo "- versions: $(ver nginx -v); $(ver go version); $(ver php -v); $(ver wrk -v | sed 's/ Copyright.*//'); $(ver ab -V | sed 's/^This is //; s/ <.*//')"
    echo "- rswoole: $so_info"
    echo "- Swoole: ${SWOOLE_SO:-not given (SWOOLE_SO), its rows skipped}$([ -n "$SWOOLE_SO" ] && [ -f "$SWOOLE_SO" ] && echo " (version $(php -n -d extension="$SWOOLE_SO" -r 'echo phpversion("swoole");' 2>/dev/null))")"
    echo "- method: 127.0.0.1 loopback, 1 server worker each, $PINNING;" \
         "1 s wrk warm-up, then \`wrk -t1 -c$CONNS -d${DURATION}s --latency\` and" \
         "\`ab -k -c$CONNS -n $AB_N -s 10\` (capped at ${AB_TIME} s). Ratios are wrk / ab req/s against the same column of the reference row." \
         "RSS/worker is VmRSS of the worker process(es), measured after the load."
    echo
    echo "| contender | wrk req/s | wrk p99 | ab req/s | ab p99 | ratio vs nginx (wrk / ab) | ratio vs go (wrk / ab) | ratio vs Swoole, same mode (wrk / ab) | server CPU µs/req (wrk) | Swoole's CPU/req ÷ ours | RSS/worker |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for name in "${ORDER[@]}"; do
        if [ "${STATUS[$name]}" != ok ]; then
            echo "| $name | ${STATUS[$name]} | | | | | | | | | |"
            continue
        fi
        # rswoole-X is compared with swoole-X (the same mode and settings).
        ref=""
        case "$name" in rswoole-*) ref="swoole-${name#rswoole-}" ;; esac
        rs="n/a"
        [ -n "$ref" ] && [ "${STATUS[$ref]:-}" = ok ] && \
            rs="$(ratio "${WRK_RPS[$name]:-}" "${WRK_RPS[$ref]:-}") / $(ratio "${AB_RPS[$name]:-}" "${AB_RPS[$ref]:-}")"
        wr=${WRK_RPS[$name]:-}; ar=${AB_RPS[$name]:-}
        wr_s=$([ -n "$wr" ] && printf '%.0f' "$wr" || echo n/a)
        ar_s=$([ -n "$ar" ] && printf '%.0f' "$ar" || echo n/a)
        ap=${AB_P99[$name]:-}
        ap_s=$([ -n "$ap" ] && echo "$ap ms" || echo n/a)
        rn="$(ratio "$wr" "${WRK_RPS[nginx]:-}") / $(ratio "$ar" "${AB_RPS[nginx]:-}")"
        rg="$(ratio "$wr" "${WRK_RPS[go]:-}") / $(ratio "$ar" "${AB_RPS[go]:-}")"
        cpu=${CPU_US[$name]:-}
        rc="n/a"
        [ -n "$ref" ] && rc=$(ratio "${CPU_US[$ref]:-}" "$cpu")
        echo "| $name | $wr_s | $(fmt_ms "${WRK_P99[$name]:-}") | $ar_s | $ap_s | $rn | $rg | $rs | ${cpu:-n/a} | $rc | ${RSS[$name]:-n/a} |"
    done
    echo
    if [ "${STATUS[floor]:-}" = ok ]; then
        echo "Load generator reference: \`floor\` (bench/seed000/floor.c, no work but one recv and one send per request) served" \
             "$(printf '%.0f' "${WRK_RPS[floor]:-0}") req/s under wrk and $(printf '%.0f' "${AB_RPS[floor]:-0}") under ab," \
             "using $(awk -v c="${CPU_US[floor]:-0}" 'BEGIN { printf "%.2f", c }') µs of server CPU per request: about the most wrk or ab, on one CPU, drive here" \
             "(a busier server that answers in batches can be driven a little faster). Against swoole-base it is $(ratio "${WRK_RPS[floor]:-}" "${WRK_RPS[swoole-base]:-}") (wrk) / $(ratio "${AB_RPS[floor]:-}" "${AB_RPS[swoole-base]:-}") (ab)."
        echo
    fi
    if [ "${STATUS[rswoole-process]:-}" = ok ] && [ "${STATUS[rswoole-base]:-}" = ok ]; then
        echo "SWOOLE_PROCESS vs SWOOLE_BASE (rswoole-process / rswoole-base, wrk / ab req/s):" \
             "$(ratio "${WRK_RPS[rswoole-process]:-}" "${WRK_RPS[rswoole-base]:-}") / $(ratio "${AB_RPS[rswoole-process]:-}" "${AB_RPS[rswoole-base]:-}")."
        echo
    fi
    any_note=0
    for name in "${ORDER[@]}"; do
        [ -n "${NOTES[$name]:-}" ] && { [ $any_note = 0 ] && echo "Notes:"; any_note=1; echo "- $name: ${NOTES[$name]}"; }
    done
    [ -n "$SEED_SCRIPT_NOTE" ] && { [ $any_note = 0 ] && echo "Notes:"; any_note=1; echo "- $SEED_SCRIPT_NOTE"; }
    [ $any_note = 1 ] && echo
    echo "Raw wrk/ab output and one sample response per contender: bench/out/raw/; server logs: bench/out/logs/."
    echo "For scale, the seed (i5-4590, 4 workers, ab -n 1000000, server and ab unpinned) reported: nginx 1.4.6 164490, Go 1.5.2 166839, Swoole 1.7.22 287104, nginx 1.9.9 245059 req/s."
} >"$OUT/seed000.md"

cat "$OUT/seed000.md"
