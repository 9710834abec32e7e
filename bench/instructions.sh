#!/usr/bin/env bash
# bench/instructions.sh: issue 16's instruction counts in one table: user-space instructions per hello-world request (bench/callgrind.sh) with enable_coroutine on and off, for rswoole and, when SWOOLE_SO is given, real Swoole.
#
# Usage: SO=target/release/librswoole.so [SWOOLE_SO=/path/to/swoole.so] bash bench/instructions.sh
# Output: a markdown table on stdout and in bench/out/instructions.md. Four callgrind runs of about a minute
# each (two without SWOOLE_SO). Counts are deterministic to a few tens of instructions on a quiet machine; a
# loaded machine gives lower counts (the server answers more requests per event-loop turn).
set -u -o pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT="${BENCH_OUT:-$HERE/out}"
SO="${SO:-$ROOT/target/release/librswoole.so}"
SWOOLE_SO="${SWOOLE_SO:-}"
log() { printf '[instructions] %s\n' "$*" >&2; }
. "$HERE/lib.sh"
require_so
command -v valgrind >/dev/null || { log "valgrind not installed"; exit 1; }
mkdir -p "$OUT"

count() { # count SO SETTINGS -> instructions per request, or n/a
    local line
    line=$(RSW_CG_SETTINGS="$2" bash "$HERE/callgrind.sh" "$1" 2>/dev/null | tail -n 1)
    echo "$line" | awk -F'instructions/request: ' 'NF == 2 && $2 + 0 > 0 { print $2 + 0; ok = 1 } END { if (!ok) print "n/a" }'
}

ROWS=()
for impl in "rswoole:$SO" "Swoole:$SWOOLE_SO"; do
    name=${impl%%:*}; ext=${impl#*:}
    if [ -z "$ext" ] || [ ! -f "$ext" ]; then
        ROWS+=("| $name | skipped: SWOOLE_SO not given | | |")
        continue
    fi
    on=$(count "$ext" '')
    off=$(count "$ext" '{"enable_coroutine":false}')
    cost=$(awk -v a="$on" -v b="$off" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%+.1f%%", 100 * (a - b) / b; else print "n/a" }')
    ROWS+=("| $name | $on | $off | $cost |")
done
{
    echo "# Instructions per hello-world request (bench/instructions.sh)"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); repo: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); rswoole: $SO; Swoole: ${SWOOLE_SO:-not given}"
    echo "- method: bench/callgrind.sh (one SWOOLE_BASE worker under callgrind, ab -k -c 10; N=11000 minus N=1000 requests, / 10000)"
    echo
    echo "| server | enable_coroutine on | off | on vs off |"
    echo "|---|---:|---:|---:|"
    printf '%s\n' "${ROWS[@]}"
} | tee "$OUT/instructions.md"
